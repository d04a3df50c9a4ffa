"""Workloads elementwise (1,000 small ops, sin/tanh/exp/mul/add, fwd+bwd) and chain (100,000 ops
x = x*1.0001 + 0.0001, fwd+bwd; its forward alone for the memory workload). Both are raw-tensor
programs: there is no nn path for them. Imports cases.py and NumPy; tapegrad, torch and HIPS
autograd inside the builders.
"""

from __future__ import annotations

import numpy as np

from cases import F32, Case, torch_one_thread

# ---------------------------------------------------------------------------------------------
# elementwise: a chain cycling sin, tanh, exp, mul (by leaf w), add (leaf b)
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

    return Case(step, lambda: [np.asarray(t.grad) for t in leaves])


def elementwise_torch(d: dict) -> Case:
    torch = torch_one_thread()
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

    return Case(step, lambda: [np.asarray(t.grad) for t in leaves])


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
# chain (and memory): x = x*1.0001 + 0.0001 on a (1,) vector, each statement 2 recorded ops
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

    return Case(step, lambda: [np.asarray(x0.grad)])


def chain_torch(d: dict) -> Case:
    torch = torch_one_thread()
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

    return Case(step, lambda: [np.asarray(x0.grad)])


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
    """The memory workload: only the chain's forward; returns what keeps its graph alive."""
    n = d["n"]
    if arm == "numpy":
        return _chain_f(d["x"], n)  # the hand-written backward needs nothing saved
    if arm == "tapegrad":
        import tapegrad as tg

        return _chain_f(tg.tensor(d["x"], requires_grad=True), n)
    if arm == "torch":
        torch = torch_one_thread()
        return _chain_f(torch.tensor(d["x"], requires_grad=True), n)
    if arm == "autograd":
        from autograd import make_vjp

        return make_vjp(lambda x: _chain_f(x, n))(d["x"])  # (vjp closure, value): graph alive
    raise ValueError(arm)
