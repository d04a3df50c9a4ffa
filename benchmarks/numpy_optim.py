"""Optimizer updates as a careful NumPy programmer writes them: in place, through one reused
scratch buffer, scalars folded with `math` (Python floats keep float32 arrays float32).

Used by the NumPy arms of the training workloads and by optim_step.py. Imports NumPy only.
Each factory takes the parameter arrays (changed in place) and returns `update(grads)`.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

Update = Callable[[list], None]


def scratch_views(params: list) -> list:
    """One flat buffer as large as the largest parameter, and a view of it shaped like each."""
    dtype = params[0].dtype
    flat = np.empty(max(p.size for p in params), dtype)
    return [flat[: p.size].reshape(p.shape) for p in params]


def sgd(params: list, lr: float, momentum: float = 0.0) -> Update:
    """PyTorch's SGD rule (momentum buffer = the first gradient, then momentum*b + g).

    >>> update = sgd([w], lr=0.1); update([gw])
    """
    work = scratch_views(params)
    bufs: list = [None] * len(params)

    def update(grads: list) -> None:
        for i, (p, g, s) in enumerate(zip(params, grads, work)):
            if momentum:
                if bufs[i] is None:
                    bufs[i] = g.copy()
                else:
                    bufs[i] *= momentum
                    bufs[i] += g
                g = bufs[i]
            np.multiply(g, lr, out=s)
            p -= s

    return update


def adam(params: list, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8) -> Update:
    """PyTorch's Adam rule, with the two bias corrections folded into two scalars:
    lr/c1 * m / (sqrt(v)/sqrt(c2) + eps) == lr*sqrt(c2)/c1 * m / (sqrt(v) + eps*sqrt(c2)).

    >>> update = adam([w], lr=1e-3); update([gw])
    """
    b1, b2 = betas
    work = scratch_views(params)
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = [0]

    def update(grads: list) -> None:
        t[0] += 1
        root_c2 = math.sqrt(1 - b2 ** t[0])
        step_size = lr * root_c2 / (1 - b1 ** t[0])
        for p, g, mi, vi, s in zip(params, grads, m, v, work):
            mi *= b1
            np.multiply(g, 1 - b1, out=s)
            mi += s
            vi *= b2
            np.multiply(g, g, out=s)
            s *= 1 - b2
            vi += s
            np.sqrt(vi, out=s)
            s += eps * root_c2
            np.divide(mi, s, out=s)
            s *= step_size
            p -= s

    return update
