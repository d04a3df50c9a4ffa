"""Shared test helpers: the seeds' network, a custom Function, finite differences.

Imported by test files as `from helpers import ...` (tests/ is on sys.path, see conftest.py).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

import tapegrad as tg
from tapegrad import nn


class SeedNet(nn.Cell):
    """The seeds' MindSpore network (construct style, Dense without bias, MSELoss)."""

    def __init__(self, in_channel: int, out_channel: int) -> None:
        super(SeedNet, self).__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss, logits


def seed_net() -> SeedNet:
    """SeedNet(3, 1) with the seeds' weights [[2, 3, 4]]."""
    net = SeedNet(3, 1)
    net.fc.weight.set_data(tg.tensor([[2, 3, 4]], tg.float32))
    return net


def seed_dense() -> nn.Dense:
    """The seeds' Dense(3, 1) without bias, weights [[2, 3, 4]]."""
    net = nn.Dense(3, 1, has_bias=False)
    net.weight.set_data(tg.tensor([[2, 3, 4]], tg.float32))
    return net


class Double(tg.autograd.Function):
    """2 * a, saving its input (a custom Function for error tests)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 2


def finite_differences(
    f: Callable[[list], float], values: Sequence[np.ndarray], eps: float = 1e-6
) -> list:
    """Central differences of scalar f(list of float64 arrays) w.r.t. every element of each."""
    grads = []
    for i, v in enumerate(values):
        g = np.zeros_like(v, dtype=np.float64)
        for j in range(v.size):
            plus = [np.array(w, dtype=np.float64, copy=True) for w in values]
            minus = [np.array(w, dtype=np.float64, copy=True) for w in values]
            plus[i].flat[j] += eps
            minus[i].flat[j] -= eps
            g.flat[j] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads


def leaf(a: object) -> tg.Tensor:
    """A float64 leaf that requires grad."""
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def check_grads(fn: Callable, *arrays: object, second: bool = True) -> None:
    """gradcheck (and gradgradcheck unless second=False) of fn at float64 leaves of `arrays`."""
    inputs = [leaf(a) for a in arrays]
    assert tg.autograd.gradcheck(fn, inputs)
    if second:
        assert tg.autograd.gradgradcheck(fn, inputs)
