"""The benchmark workloads of issue 6, written once per arm.

Arms: "numpy" (forward + hand-derived backward: the reference, ratio 1.0), "tapegrad" (core API only:
tg.tensor, operators/methods, .backward(), tg.autograd.grad, tg.no_grad), and, only when importable,
"torch" (PyTorch eager) and "autograd" (HIPS autograd). Nothing here times anything: run.py does.

Every builder takes the workload's data (NumPy float32 arrays, the same for every arm) and returns a
`Case`: `step()` runs one timed unit of work, `grads()` returns, as NumPy arrays, the gradients that
the most recent `step()` computed (for the training steps: before its SGD update). run.py and
tests/test_benchmarks_smoke.py call one `step()` on a fresh case and compare `grads()` across arms.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

ARMS = ("numpy", "tapegrad", "torch", "autograd")
F32 = np.float32


def arm_available(arm: str) -> bool:
    """numpy and tapegrad always; torch / HIPS autograd only when importable (never a dependency)."""
    if arm in ("numpy", "tapegrad"):
        return True
    try:
        if arm == "torch":
            importlib.import_module("torch")
        elif arm == "autograd":
            importlib.import_module("autograd.numpy")
        else:
            return False
    except Exception:
        return False
    return True


def _torch():
    import torch

    torch.set_num_threads(1)
    return torch


@dataclass
class Case:
    step: Callable[[], object]
    grads: Callable[[], list]


@dataclass
class Workload:
    name: str
    title: str
    unit: str  # what one reported number is: "us/op", "ms/step", ...
    scale: float  # seconds per step -> reported unit
    per: int  # the step is divided by this (ops per step), 1 for whole steps
    params: dict = field(default_factory=dict)
    repeats: int = 15
    sample_seconds: float = 0.1  # target length of one timed sample (many short steps, or one long)

    def data(self) -> dict:
        return DATA[self.name](**self.params)

    def build(self, arm: str, data: dict) -> Case:
        return BUILDERS[self.name][arm](data)


# ---------------------------------------------------------------------------------------------
# (1) small elementwise ops: a chain cycling sin, tanh, exp, mul (by leaf w), add (leaf b)
# ---------------------------------------------------------------------------------------------


def elementwise_data(n_ops: int = 1000, width: int = 16, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "cycles": n_ops // 5,
        "x": rng.standard_normal(width).astype(F32),
        "w": rng.uniform(0.5, 1.5, width).astype(F32),
        "b": (0.1 * rng.standard_normal(width)).astype(F32),
    }


def elementwise_numpy(d: dict) -> Case:
    cycles, x0, w, b = d["cycles"], d["x"], d["w"], d["b"]
    out: list = []

    def step():
        saved = []
        x = x0
        for _ in range(cycles):  # forward, keeping what backward needs
            s = np.sin(x)
            t = np.tanh(s)
            e = np.exp(t)
            saved.append((x, t, e))
            x = e * w + b
        loss = x.sum()
        g = np.ones_like(x)  # backward, hand-derived
        gw = np.zeros_like(w)
        gb = np.zeros_like(b)
        for x_in, t, e in reversed(saved):
            gb += g  # add: d/db
            gw += g * e  # mul: d/dw
            g = g * w  # mul: d/de
            g = g * e  # exp
            g = g * (1 - t * t)  # tanh
            g = g * np.cos(x_in)  # sin
        out[:] = [g, gw, gb]
        return loss

    return Case(step, lambda: list(out))


def elementwise_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    cycles = d["cycles"]
    x0, w, b = (tg.tensor(d[k], requires_grad=True) for k in ("x", "w", "b"))
    leaves = (x0, w, b)

    def step():
        x0.grad = w.grad = b.grad = None
        x = x0
        for _ in range(cycles):
            x = x.sin().tanh().exp() * w + b
        loss = x.sum()
        loss.backward()
        return loss

    return Case(step, lambda: [t.grad.numpy() for t in leaves])


def elementwise_torch(d: dict) -> Case:
    torch = _torch()
    cycles = d["cycles"]
    x0, w, b = (torch.tensor(d[k], requires_grad=True) for k in ("x", "w", "b"))
    leaves = (x0, w, b)

    def step():
        x0.grad = w.grad = b.grad = None
        x = x0
        for _ in range(cycles):
            x = x.sin().tanh().exp() * w + b
        loss = x.sum()
        loss.backward()
        return loss

    return Case(step, lambda: [t.grad.numpy() for t in leaves])


def elementwise_autograd(d: dict) -> Case:
    import autograd
    import autograd.numpy as anp

    cycles = d["cycles"]

    def f(leaves):
        x, w, b = leaves
        for _ in range(cycles):
            x = anp.exp(anp.tanh(anp.sin(x))) * w + b
        return anp.sum(x)

    df = autograd.grad(f)
    leaves = (d["x"], d["w"], d["b"])
    out: list = []

    def step():
        out[:] = df(leaves)

    return Case(step, lambda: [np.asarray(g) for g in out])


# ---------------------------------------------------------------------------------------------
# (2), (3) MLP training step: tanh hidden layers, linear output, MSE, plain SGD
# ---------------------------------------------------------------------------------------------


def mlp_data(
    sizes: tuple = (32, 64, 64, 1), batch: int = 16, lr: float = 0.01, seed: int = 0
) -> dict:
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(F32))
        params.append((0.1 * rng.standard_normal(fan_out)).astype(F32))
    return {
        "X": rng.standard_normal((batch, sizes[0])).astype(F32),
        "T": rng.standard_normal((batch, sizes[-1])).astype(F32),
        "params": params,
        "lr": lr,
        # direction of the Hessian-vector product (workload 6)
        "V": [rng.standard_normal(p.shape).astype(F32) for p in params],
    }


def _np_forward(X, params):
    hs = [X]
    n_layers = len(params) // 2
    for i in range(n_layers):
        a = hs[-1] @ params[2 * i] + params[2 * i + 1]
        hs.append(np.tanh(a) if i < n_layers - 1 else a)
    return hs


def _np_backward(hs, params, gy):
    grads = [None] * len(params)
    g = gy
    for i in reversed(range(len(params) // 2)):
        grads[2 * i] = hs[i].T @ g
        grads[2 * i + 1] = g.sum(0)
        if i > 0:
            g = (g @ params[2 * i].T) * (1 - hs[i] * hs[i])
    return grads


def mlp_numpy(d: dict) -> Case:
    X, T, lr = d["X"], d["T"], d["lr"]
    params = [p.copy() for p in d["params"]]
    out: list = []

    def step():
        hs = _np_forward(X, params)
        diff = hs[-1] - T
        loss = (diff * diff).mean()
        grads = _np_backward(hs, params, diff * (2 / diff.size))
        for p, g in zip(params, grads):
            p -= lr * g
        out[:] = grads
        return loss

    return Case(step, lambda: list(out))


def _tensor_mlp_loss(X, T, params):
    """The same loss in tapegrad and PyTorch: only operators and methods both share."""
    h = X
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < n_layers - 1:
            h = h.tanh()
    diff = h - T
    return (diff * diff).mean()


def mlp_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    X, T, lr = tg.tensor(d["X"]), tg.tensor(d["T"]), d["lr"]
    params = [tg.tensor(p.copy(), requires_grad=True) for p in d["params"]]
    out: list = []

    def step():
        loss = _tensor_mlp_loss(X, T, params)
        loss.backward()
        grads = [p.grad for p in params]
        with tg.no_grad():
            for p, g in zip(params, grads):
                p -= lr * g
                p.grad = None
        out[:] = grads
        return loss

    return Case(step, lambda: [g.numpy() for g in out])


def mlp_torch(d: dict) -> Case:
    torch = _torch()
    X, T, lr = torch.tensor(d["X"]), torch.tensor(d["T"]), d["lr"]
    params = [torch.tensor(p.copy(), requires_grad=True) for p in d["params"]]
    out: list = []

    def step():
        loss = _tensor_mlp_loss(X, T, params)
        loss.backward()
        grads = [p.grad for p in params]
        with torch.no_grad():
            for p, g in zip(params, grads):
                p -= lr * g
                p.grad = None
        out[:] = grads
        return loss

    return Case(step, lambda: [g.numpy() for g in out])


def _autograd_mlp_loss(params, X, T):
    import autograd.numpy as anp

    h = X
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = anp.dot(h, params[2 * i]) + params[2 * i + 1]
        if i < n_layers - 1:
            h = anp.tanh(h)
    diff = h - T
    return anp.mean(diff * diff)


def mlp_autograd(d: dict) -> Case:
    import autograd

    X, T, lr = d["X"], d["T"], d["lr"]
    df = autograd.grad(_autograd_mlp_loss)
    state = {"params": [p.copy() for p in d["params"]], "grads": []}

    def step():
        params = state["params"]
        grads = df(params, X, T)
        state["params"] = [p - lr * g for p, g in zip(params, grads)]
        state["grads"] = grads

    return Case(step, lambda: [np.asarray(g) for g in state["grads"]])


# ---------------------------------------------------------------------------------------------
# (4), (5) a long chain x = x*1.0001 + 0.0001 on a (1,) vector: each statement is 2 recorded ops
# ---------------------------------------------------------------------------------------------

A, B = 1.0001, 0.0001


def chain_data(n_ops: int = 100_000) -> dict:
    return {"n": n_ops // 2, "x": np.full(1, 0.5, dtype=F32)}


def chain_numpy(d: dict) -> Case:
    n, x0 = d["n"], d["x"]
    out: list = []

    def step():
        x = x0
        for _ in range(n):  # forward: nothing needs saving (constant factors)
            x = x * A + B
        loss = x.sum()
        g = np.ones_like(x)
        for _ in range(n):  # backward: add passes g through, mul scales it
            g = g * A
        out[:] = [g]
        return loss

    return Case(step, lambda: list(out))


def chain_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    n = d["n"]
    x0 = tg.tensor(d["x"], requires_grad=True)

    def step():
        x0.grad = None
        x = x0
        for _ in range(n):
            x = x * A + B
        loss = x.sum()
        loss.backward()
        return loss

    return Case(step, lambda: [x0.grad.numpy()])


def chain_torch(d: dict) -> Case:
    torch = _torch()
    n = d["n"]
    x0 = torch.tensor(d["x"], requires_grad=True)

    def step():
        x0.grad = None
        x = x0
        for _ in range(n):
            x = x * A + B
        loss = x.sum()
        loss.backward()
        return loss

    return Case(step, lambda: [x0.grad.numpy()])


def _chain_f(x, n):
    for _ in range(n):
        x = x * A + B
    return x


def chain_autograd(d: dict) -> Case:
    import autograd
    import autograd.numpy as anp

    n, x0 = d["n"], d["x"]
    df = autograd.grad(lambda x: anp.sum(_chain_f(x, n)))
    out: list = []

    def step():
        out[:] = [df(x0)]

    return Case(step, lambda: [np.asarray(g) for g in out])


def chain_forward(arm: str, d: dict):
    """Workload (5): run only the forward of the chain and return what keeps its graph alive."""
    n = d["n"]
    if arm == "numpy":
        return _chain_f(d["x"], n)  # the hand-written backward needs nothing saved
    if arm == "tapegrad":
        import tapegrad as tg

        return _chain_f(tg.tensor(d["x"], requires_grad=True), n)
    if arm == "torch":
        torch = _torch()
        return _chain_f(torch.tensor(d["x"], requires_grad=True), n)
    if arm == "autograd":
        from autograd import make_vjp

        return make_vjp(lambda x: _chain_f(x, n))(d["x"])  # (vjp closure, value): graph alive
    raise ValueError(arm)


# ---------------------------------------------------------------------------------------------
# (6) Hessian-vector product of the small MLP loss: double backward (numpy: hand-derived R-op)
# ---------------------------------------------------------------------------------------------


def hvp_numpy(d: dict) -> Case:
    """Pearlmutter's R-operator, derived by hand: forward and backward passes of the directional
    derivative along V, alongside the ordinary ones."""
    X, T, params, V = d["X"], d["T"], d["params"], d["V"]
    n_layers = len(params) // 2
    out: list = []

    def step():
        hs, rhs = [X], [None]  # R{X} = 0
        for i in range(n_layers):
            W, b, VW, Vb = params[2 * i], params[2 * i + 1], V[2 * i], V[2 * i + 1]
            a = hs[-1] @ W + b
            ra = hs[-1] @ VW + Vb
            if rhs[-1] is not None:
                ra += rhs[-1] @ W
            if i < n_layers - 1:
                h = np.tanh(a)
                hs.append(h)
                rhs.append((1 - h * h) * ra)
            else:
                hs.append(a)
                rhs.append(ra)
        diff = hs[-1] - T
        g = diff * (2 / diff.size)
        rg = rhs[-1] * (2 / diff.size)
        hv = [None] * len(params)
        for i in reversed(range(n_layers)):
            W, VW = params[2 * i], V[2 * i]
            rgw = hs[i].T @ rg
            if rhs[i] is not None:
                rgw += rhs[i].T @ g
            hv[2 * i] = rgw
            hv[2 * i + 1] = rg.sum(0)
            if i > 0:
                h, rh = hs[i], rhs[i]
                gh = g @ W.T
                rgh = rg @ W.T + g @ VW.T
                s = 1 - h * h
                g, rg = gh * s, rgh * s - 2 * gh * h * rh
        out[:] = hv
        return (diff * diff).mean()

    return Case(step, lambda: list(out))


def hvp_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    X, T = tg.tensor(d["X"]), tg.tensor(d["T"])
    params = [tg.tensor(p, requires_grad=True) for p in d["params"]]
    V = [tg.tensor(v) for v in d["V"]]
    out: list = []

    def step():
        loss = _tensor_mlp_loss(X, T, params)
        grads = tg.autograd.grad(loss, params, create_graph=True)
        dot = (grads[0] * V[0]).sum()
        for g, v in zip(grads[1:], V[1:]):
            dot = dot + (g * v).sum()
        out[:] = tg.autograd.grad(dot, params)
        return loss

    return Case(step, lambda: [h.numpy() for h in out])


def hvp_torch(d: dict) -> Case:
    torch = _torch()
    X, T = torch.tensor(d["X"]), torch.tensor(d["T"])
    params = [torch.tensor(p, requires_grad=True) for p in d["params"]]
    V = [torch.tensor(v) for v in d["V"]]
    out: list = []

    def step():
        loss = _tensor_mlp_loss(X, T, params)
        grads = torch.autograd.grad(loss, params, create_graph=True)
        dot = (grads[0] * V[0]).sum()
        for g, v in zip(grads[1:], V[1:]):
            dot = dot + (g * v).sum()
        out[:] = torch.autograd.grad(dot, params)
        return loss

    return Case(step, lambda: [h.numpy() for h in out])


def hvp_autograd(d: dict) -> Case:
    import autograd
    import autograd.numpy as anp

    X, T, params, V = d["X"], d["T"], list(d["params"]), d["V"]
    dloss = autograd.grad(_autograd_mlp_loss)

    def dot(p):
        grads = dloss(p, X, T)
        total = anp.sum(grads[0] * V[0])
        for g, v in zip(grads[1:], V[1:]):
            total = total + anp.sum(g * v)
        return total

    hvp = autograd.grad(dot)
    out: list = []

    def step():
        out[:] = hvp(params)

    return Case(step, lambda: [np.asarray(h) for h in out])


# ---------------------------------------------------------------------------------------------
# (8) LeNet-style CNN training step: conv(1->6, 5)-relu-maxpool2-conv(6->16, 5)-relu-maxpool2-
#     flatten-linear(256->120)-relu-linear(120->84)-relu-linear(84->10), cross-entropy, SGD.
#     The tapegrad and torch arms are written as users write them (nn modules, the loss module,
#     optim.SGD with zero_grad / backward / step). No HIPS autograd arm: it has no convolution.
# ---------------------------------------------------------------------------------------------

CNN_SHAPES = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 256), (120,), (84, 120), (84,)]
CNN_SHAPES += [(10, 84), (10,)]


def cnn_data(batch: int = 64, size: int = 28, lr: float = 0.01, seed: int = 0) -> dict:
    """PyTorch's layouts and default init bounds (U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""
    rng = np.random.default_rng(seed)
    flat = 16 * _cnn_side(size) ** 2
    shapes = [s if s != (120, 256) else (120, flat) for s in CNN_SHAPES]
    params = []
    for k in range(0, len(shapes), 2):
        fan_in = int(np.prod(shapes[k][1:]))
        bound = 1 / np.sqrt(fan_in)
        params += [rng.uniform(-bound, bound, shapes[k]).astype(F32)]
        params += [rng.uniform(-bound, bound, shapes[k + 1]).astype(F32)]
    return {
        "X": rng.standard_normal((batch, 1, size, size)).astype(F32),
        "Y": rng.integers(0, 10, batch),
        "params": params,
        "lr": lr,
    }


def _cnn_side(size: int) -> int:
    """The side of the last pooled map: size -> conv 5 -> pool 2 -> conv 5 -> pool 2."""
    return ((size - 4) // 2 - 4) // 2


def _windows(a, k):
    """(C, H, W, N) -> the (C, k, k, Ho, Wo, N) view of its k x k windows (stride 1)."""
    c, h, w, n = a.shape
    s = a.strides
    return np.lib.stride_tricks.as_strided(
        a, (c, k, k, h - k + 1, w - k + 1, n), (s[0], s[1], s[2], s[1], s[2], s[3])
    )


def cnn_numpy(d: dict) -> Case:
    """Hand-written, as a strong engineer writes it: activations kept channels-first, batch-last
    (C, H, W, N) from the first im2col to the flatten, so every im2col / col2im copy moves long
    contiguous runs and no layer needs a transpose; one GEMM per conv and per direction; max-pool
    by strided views; every large buffer allocated once and reused; in-place SGD."""
    X, Y, lr = d["X"], d["Y"], d["lr"]
    params = [p.copy() for p in d["params"]]
    n, size, dt = X.shape[0], X.shape[2], X.dtype
    h1 = size - 4  # conv1 output side (24), pool1 (12), conv2 (8), pool2 (4)
    p1, h2 = h1 // 2, h1 // 2 - 4
    p2 = h2 // 2
    xb = np.ascontiguousarray(X.transpose(1, 2, 3, 0))  # the input never changes: once
    cols1 = np.empty((25, h1 * h1 * n), dt)
    cols2 = np.empty((150, h2 * h2 * n), dt)
    dx2 = np.empty((6, p1, p1, n), dt)
    onehot = np.zeros((n, 10), dt)
    onehot[np.arange(n), Y] = 1
    np.copyto(cols1.reshape(1, 5, 5, h1, h1, n), _windows(xb, 5))  # constant input: once too
    out: list = []

    def pool(a, c, ho):
        """2x2 max-pool of (c, 2ho, 2ho, n); returns the output and each tap's winner mask."""
        a6 = a.reshape(c, ho, 2, ho, 2, n)
        taps = [a6[:, :, i, :, j] for i in range(2) for j in range(2)]
        m = np.maximum(np.maximum(taps[0], taps[1]), np.maximum(taps[2], taps[3]))
        taken = np.zeros(m.shape, bool)
        masks = []
        for t in taps:
            hit = np.greater(t == m, taken)
            taken |= hit
            masks.append(hit)
        return m, masks

    def unpool(g, masks, c, ho):
        d = np.empty((c, ho, 2, ho, 2, n), dt)
        for (i, j), hit in zip([(0, 0), (0, 1), (1, 0), (1, 1)], masks):
            np.multiply(g, hit, out=d[:, :, i, :, j])
        return d.reshape(c, 2 * ho, 2 * ho, n)

    def step():
        w1, b1, w2, b2, f1, c1, f2, c2, f3, c3 = params
        a1 = (w1.reshape(6, 25) @ cols1).reshape(6, h1, h1, n)
        a1 += b1[:, None, None, None]
        np.maximum(a1, 0, out=a1)
        q1, m1 = pool(a1, 6, p1)
        np.copyto(cols2.reshape(6, 5, 5, h2, h2, n), _windows(q1, 5))
        a2 = (w2.reshape(16, 150) @ cols2).reshape(16, h2, h2, n)
        a2 += b2[:, None, None, None]
        np.maximum(a2, 0, out=a2)
        q2, m2 = pool(a2, 16, p2)
        flat = q2.reshape(16 * p2 * p2, n).T  # (N, 256) in PyTorch's flatten order
        z1 = flat @ f1.T
        z1 += c1
        np.maximum(z1, 0, out=z1)
        z2 = z1 @ f2.T
        z2 += c2
        np.maximum(z2, 0, out=z2)
        z3 = z2 @ f3.T
        z3 += c3
        z3 -= z3.max(axis=1, keepdims=True)
        e = np.exp(z3)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) - z3[np.arange(n), Y]))
        g3 = e / s
        g3 -= onehot
        g3 *= 1 / n
        gf3, gc3 = g3.T @ z2, g3.sum(0)
        g2 = g3 @ f3
        g2 *= z2 > 0
        gf2, gc2 = g2.T @ z1, g2.sum(0)
        g1 = g2 @ f2
        g1 *= z1 > 0
        gf1, gc1 = g1.T @ flat, g1.sum(0)
        gq2 = (g1 @ f1).T.reshape(16, p2, p2, n)
        ga2 = unpool(gq2, m2, 16, p2)
        ga2 *= a2 > 0
        ga2m = ga2.reshape(16, -1)
        gw2, gb2 = (ga2m @ cols2.T).reshape(16, 6, 5, 5), ga2m.sum(1)
        gcols2 = (w2.reshape(16, 150).T @ ga2m).reshape(6, 5, 5, h2, h2, n)
        dx2.fill(0)
        for i in range(5):
            for j in range(5):
                dx2[:, i : i + h2, j : j + h2] += gcols2[:, i, j]
        ga1 = unpool(dx2, m1, 6, p1)
        ga1 *= a1 > 0
        ga1m = ga1.reshape(6, -1)
        gw1, gb1 = (ga1m @ cols1.T).reshape(6, 1, 5, 5), ga1m.sum(1)
        grads = [gw1, gb1, gw2, gb2, gf1, gc1, gf2, gc2, gf3, gc3]
        for p, g in zip(params, grads):
            p -= lr * g
        out[:] = grads
        return loss

    return Case(step, lambda: list(out))


def _cnn_modules(nn, size):
    """The same network in tapegrad and PyTorch (their nn namespaces share these names)."""
    return nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * _cnn_side(size) ** 2, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


def cnn_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    net = _cnn_modules(tg.nn, d["X"].shape[2])
    params = list(net.parameters())
    for p, v in zip(params, d["params"]):
        p.set_data(v)
    opt = tg.optim.SGD(params, lr=d["lr"])
    loss_fn = tg.nn.CrossEntropyLoss()
    X, Y = tg.tensor(d["X"]), tg.tensor(d["Y"])

    def step():
        opt.zero_grad()
        loss = loss_fn(net(X), Y)
        loss.backward()
        opt.step()
        return loss

    return Case(step, lambda: [p.grad.numpy() for p in params])


def cnn_torch(d: dict) -> Case:
    torch = _torch()
    net = _cnn_modules(torch.nn, d["X"].shape[2])
    params = list(net.parameters())
    with torch.no_grad():
        for p, v in zip(params, d["params"]):
            p.copy_(torch.from_numpy(v))
    opt = torch.optim.SGD(params, lr=d["lr"])
    loss_fn = torch.nn.CrossEntropyLoss()
    X, Y = torch.tensor(d["X"]), torch.tensor(d["Y"])

    def step():
        opt.zero_grad()
        loss = loss_fn(net(X), Y)
        loss.backward()
        opt.step()
        return loss

    return Case(step, lambda: [p.grad.numpy() for p in params])


# ---------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------

DATA = {
    "elementwise": elementwise_data,
    "mlp_small": mlp_data,
    "mlp_large": mlp_data,
    "chain": chain_data,
    "hvp": mlp_data,
    "cnn": cnn_data,
}

BUILDERS = {
    "elementwise": {
        "numpy": elementwise_numpy,
        "tapegrad": elementwise_tapegrad,
        "torch": elementwise_torch,
        "autograd": elementwise_autograd,
    },
    "mlp_small": {
        "numpy": mlp_numpy,
        "tapegrad": mlp_tapegrad,
        "torch": mlp_torch,
        "autograd": mlp_autograd,
    },
    "mlp_large": {
        "numpy": mlp_numpy,
        "tapegrad": mlp_tapegrad,
        "torch": mlp_torch,
        "autograd": mlp_autograd,
    },
    "chain": {
        "numpy": chain_numpy,
        "tapegrad": chain_tapegrad,
        "torch": chain_torch,
        "autograd": chain_autograd,
    },
    "hvp": {
        "numpy": hvp_numpy,
        "tapegrad": hvp_tapegrad,
        "torch": hvp_torch,
        "autograd": hvp_autograd,
    },
    "cnn": {"numpy": cnn_numpy, "tapegrad": cnn_tapegrad, "torch": cnn_torch},
}


def workloads(quick: bool = False) -> dict:
    """The timed workloads at the sizes of issue 6 (quick: a shorter chain, for a smoke run)."""
    return {
        w.name: w
        for w in [
            Workload(
                "elementwise",
                "1,000 small elementwise ops on (16,) f32 (sin, tanh, exp, mul, add), fwd+bwd",
                "us/op",
                1e6,
                1000,
                {"n_ops": 1000, "width": 16},
                15,
            ),
            Workload(
                "mlp_small",
                "MLP 32-64-64-1 tanh, batch 16, MSE + SGD step",
                "us/step",
                1e6,
                1,
                {"sizes": (32, 64, 64, 1), "batch": 16},
                15,
            ),
            Workload(
                "mlp_large",
                "MLP 784-512-512-10 tanh, batch 128, MSE + SGD step",
                "ms/step",
                1e3,
                1,
                {"sizes": (784, 512, 512, 10), "batch": 128},
                11,
            ),
            Workload(
                "chain",
                f"chain of {20_000 if quick else 100_000:,} ops x = x*1.0001 + 0.0001 on (1,), "
                "fwd+bwd",
                "us/op",
                1e6,
                20_000 if quick else 100_000,
                {"n_ops": 20_000 if quick else 100_000},
                5,
                1.0,
            ),
            Workload(
                "hvp",
                "Hessian-vector product, MLP 32-64-64-1 tanh, batch 16 (double backward)",
                "us/hvp",
                1e6,
                1,
                {"sizes": (32, 64, 64, 1), "batch": 16},
                15,
            ),
            Workload(
                "cnn",
                "LeNet-style CNN, batch 64, 1x28x28, cross-entropy + SGD step (nn modules)",
                "ms/step",
                1e3,
                1,
                {"batch": 64, "size": 28},
                15,
            ),
        ]
    }
