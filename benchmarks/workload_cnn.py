"""Workload cnn: one training step of a LeNet-style CNN, conv(1->6, 5)-relu-maxpool2-conv(6->16, 5)-
relu-maxpool2-flatten-linear(256->120)-relu-linear(120->84)-relu-linear(84->10), cross-entropy, SGD.
The tapegrad and torch arms are the code users write (nn modules, the loss module, optim.SGD with
zero_grad / backward / step); no HIPS autograd arm (it has no convolution). Imports cases.py,
numpy_optim.py and NumPy; tapegrad and torch inside the builders.
"""

from __future__ import annotations

import numpy as np

import numpy_optim
from cases import ArmTable, F32, Case, torch_one_thread

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
    X, Y = d["X"], d["Y"]
    params = [p.copy() for p in d["params"]]
    update = numpy_optim.sgd(params, lr=d["lr"])
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
        update(grads)
        out[:] = grads
        return loss

    return Case(step, lambda: list(out), lambda: params)


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

    return Case(
        step,
        lambda: [p.grad.numpy() for p in params],
        lambda: [p.detach().numpy() for p in params],
    )


def cnn_torch(d: dict) -> Case:
    torch = torch_one_thread()
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

    return Case(
        step,
        lambda: [p.grad.numpy() for p in params],
        lambda: [p.detach().numpy() for p in params],
    )


ARMS: ArmTable = {"numpy": cnn_numpy, "tapegrad": cnn_tapegrad, "torch": cnn_torch}
