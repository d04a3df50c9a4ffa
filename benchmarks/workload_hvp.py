"""Workload hvp: the Hessian-vector product of the small MLP's MSE loss along a direction V, by
double backward as users write it (autograd.grad with create_graph=True, then a second grad of
<grad, V>); the NumPy arm runs Pearlmutter's R-operator, derived by hand. Imports cases.py,
workload_mlp.py and NumPy; tapegrad, torch and HIPS autograd inside the builders. Workload hvp_raw:
the same product with the loss written in raw ops in every arm (workload_mlp.raw_mlp_loss).
"""

from __future__ import annotations

import numpy as np

from cases import ArmTable, Case, torch_one_thread
from workload_mlp import autograd_mlp_loss, raw_mlp_loss, tapegrad_model, torch_model


def hvp_numpy(d: dict) -> Case:
    """Forward and backward passes of the directional derivative along V (the R-operator),
    alongside the ordinary ones. Weights are (out, in): a = h @ W.T + b."""
    X, T, params, V = d["X"], d["T"], d["params"], d["V"]
    n_layers = len(params) // 2
    out: list = []

    def step():
        hs, rhs = [X], [None]  # R{X} = 0
        for i in range(n_layers):
            W, b, VW, Vb = params[2 * i], params[2 * i + 1], V[2 * i], V[2 * i + 1]
            a = hs[-1] @ W.T
            a += b
            ra = hs[-1] @ VW.T
            ra += Vb
            if rhs[-1] is not None:
                ra += rhs[-1] @ W.T
            if i < n_layers - 1:
                h = np.tanh(a, out=a)
                hs.append(h)
                ra *= 1 - h * h
            else:
                hs.append(a)
            rhs.append(ra)
        diff = hs[-1] - T
        g = diff * (2 / diff.size)
        rg = rhs[-1] * (2 / diff.size)
        hv = [None] * len(params)
        for i in reversed(range(n_layers)):
            W, VW = params[2 * i], V[2 * i]
            rgw = rg.T @ hs[i]
            if rhs[i] is not None:
                rgw += g.T @ rhs[i]
            hv[2 * i] = rgw
            hv[2 * i + 1] = rg.sum(0)
            if i > 0:
                h, rh = hs[i], rhs[i]
                gh = g @ W
                rgh = rg @ W
                rgh += g @ VW
                s = 1 - h * h
                rgh *= s
                rh *= h
                rh *= gh
                rh *= 2
                rgh -= rh  # R{g_a} = R{gh} * s - 2 gh h R{h}
                g = gh
                g *= s
                rg = rgh
        out[:] = hv
        return float(np.vdot(diff, diff)) / diff.size

    return Case(step, lambda: list(out))


def _double_backward_case(lib, net, params: list, d: dict) -> Case:
    """The PyTorch recipe, identical in tapegrad and torch."""
    loss_fn = lib.nn.MSELoss()
    X, T = lib.tensor(d["X"]), lib.tensor(d["T"])
    V = [lib.tensor(v) for v in d["V"]]
    out: list = []

    def step():
        loss = loss_fn(net(X), T)
        grads = lib.autograd.grad(loss, params, create_graph=True)
        dot = (grads[0] * V[0]).sum()
        for g, v in zip(grads[1:], V[1:]):
            dot = dot + (g * v).sum()
        out[:] = lib.autograd.grad(dot, params)
        return loss

    return Case(step, lambda: [h.numpy() for h in out])


def hvp_tapegrad(d: dict) -> Case:
    tg, net, params = tapegrad_model(d)
    return _double_backward_case(tg, net, params, d)


def hvp_torch(d: dict) -> Case:
    torch, net, params = torch_model(d)
    return _double_backward_case(torch, net, params, d)


def _raw_case(lib, d: dict) -> Case:
    """The same double backward on a loss written with raw ops (`h @ W.T + b`, `tanh`, the mean
    of squared differences: workload_mlp.raw_mlp_loss), identical in tapegrad and torch."""
    X, T = lib.tensor(d["X"]), lib.tensor(d["T"])
    params = [lib.tensor(p, requires_grad=True) for p in d["params"]]
    V = [lib.tensor(v) for v in d["V"]]
    out: list = []

    def step():
        loss = raw_mlp_loss(X, T, params)
        grads = lib.autograd.grad(loss, params, create_graph=True)
        dot = (grads[0] * V[0]).sum()
        for g, v in zip(grads[1:], V[1:]):
            dot = dot + (g * v).sum()
        out[:] = lib.autograd.grad(dot, params)
        return loss

    return Case(step, lambda: [h.numpy() for h in out])


def hvp_tapegrad_raw(d: dict) -> Case:
    import tapegrad as tg

    return _raw_case(tg, d)


def hvp_torch_raw(d: dict) -> Case:
    return _raw_case(torch_one_thread(), d)


def hvp_autograd(d: dict) -> Case:
    import autograd
    import autograd.numpy as anp

    X, T, params, V = d["X"], d["T"], list(d["params"]), d["V"]
    dloss = autograd.grad(autograd_mlp_loss)

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


ARMS: ArmTable = {
    "numpy": hvp_numpy,
    "tapegrad": hvp_tapegrad,
    "tapegrad_raw": hvp_tapegrad_raw,
    "torch": hvp_torch,
    "autograd": hvp_autograd,
}
# hvp_raw: every arm on raw ops (its "tapegrad" arm is the raw-tensor program, as elementwise's)
RAW_ARMS: ArmTable = {
    "numpy": hvp_numpy,
    "tapegrad": hvp_tapegrad_raw,
    "torch": hvp_torch_raw,
    "autograd": hvp_autograd,
}
