"""Shared test helpers, each written once: the seeds' network, a custom Function, inputs (rand,
distinct values), finite differences and gradcheck wrappers, and the comparisons with PyTorch
(`matches_pytorch` for one program, `Programs` for a module of programs with closed forms).

Imported by test files as `from helpers import ...` (tests/ is on sys.path, see conftest.py).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import pytest

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


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    """Standard normal float64 values of the given shape, from their own seed."""
    return np.random.default_rng(seed).standard_normal(shape)


def distinct(*shape: int, seed: int = 0, offset: float = 0.0) -> np.ndarray:
    """Values at least 0.25 apart (no ties for max/min/maximum/minimum/sort), in random order."""
    n = int(np.prod(shape)) if shape else 1
    vals = np.random.default_rng(seed).permutation(n) * 0.25 - n * 0.125 + offset + 0.05
    return vals.reshape(shape)


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


# ---- against PyTorch (when it is installed) ----------------------------------------------------
def matches_pytorch(fn: Callable, arrays: Sequence[np.ndarray], second_order: bool = False) -> None:
    """`fn(m, *leaves)` run as written with `m` = tapegrad and `m` = torch on float64 leaves of
    `arrays`: values and shapes, the gradients of sum(w * out) and, with second_order, those of
    sum(v * gradient) (a Hessian-vector product) compared. An integer result has no gradient."""
    torch = pytest.importorskip("torch", reason="compares values and gradients with PyTorch")
    ours = [leaf(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = fn(tg, *ours), fn(torch, *theirs)
    assert out.shape == tuple(ref.shape) and np.allclose(out.numpy(), ref.detach().numpy())
    if not ref.requires_grad:
        assert out.dtype == np.int64 and not out.requires_grad
        return
    w = rand(*ref.shape, seed=9)
    if not second_order:
        (out * tg.tensor(w)).sum().backward()
        (ref * torch.tensor(w)).sum().backward()
        for x, y in zip(ours, theirs):
            assert np.allclose(x.grad.numpy(), y.grad.numpy())
        return
    gs = tg.autograd.grad((out * tg.tensor(w)).sum(), ours, create_graph=True)
    rs = torch.autograd.grad((ref * torch.tensor(w)).sum(), theirs, create_graph=True)
    for g, r in zip(gs, rs):
        assert np.allclose(g.numpy(), r.detach().numpy())
    # second derivatives: the gradient of sum(v * grad) (a Hessian-vector product)
    v = [rand(*a.shape, seed=20 + i) for i, a in enumerate(arrays)]
    hv = sum((g * tg.tensor(u)).sum() for g, u in zip(gs, v))
    # (a linear op's gradient does not depend on its input: then nothing to differentiate)
    hs = tg.autograd.grad(hv, ours, allow_unused=True) if hv.requires_grad else [None] * len(v)
    rv = sum((r * torch.tensor(u)).sum() for r, u in zip(rs, v))
    hr = torch.autograd.grad(rv, theirs, allow_unused=True) if rv.requires_grad else [None] * len(v)
    for h, r in zip(hs, hr):
        if r is None:
            assert h is None or np.allclose(h.numpy(), 0.0)
        else:
            assert h is not None and np.allclose(h.numpy(), r.numpy())


# Programs written as PyTorch users write them, run on tapegrad and on PyTorch. Each program is a
# function of the library it runs on (`torch`), registered with the closed-form results it must
# give on tapegrad (or the error it must raise). `Programs.tests()` makes the three tests of a test
# module: closed forms on tapegrad (always), the error on tapegrad, and the same results (or an
# error) on PyTorch when it is installed.
class Program(NamedTuple):
    fn: Callable[[Any], dict]
    expected: dict  # name -> value (closed form), for tapegrad
    raises: tuple | None  # (exception type, regex) tapegrad must raise (PyTorch must raise too)


def as_numpy(v: Any) -> Any:
    """Tensors of either library (and nests of them) as NumPy arrays; other values as they are."""
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return [as_numpy(x) for x in v]
    if hasattr(v, "detach"):
        return np.asarray(v.detach().numpy())
    if isinstance(v, tg.Tensor):
        return np.asarray(v.numpy())
    return v


def assert_same(name: str, got: Any, want: Any) -> None:
    got, want = as_numpy(got), as_numpy(want)
    if isinstance(got, list):  # several results (one gradient per input, a shape, ...)
        assert isinstance(want, list) and len(got) == len(want), f"{name}: {got!r} != {want!r}"
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same(f"{name}[{i}]", a, b)
        return
    if got is None or want is None:
        assert got is want, f"{name}: {got!r}, expected {want!r}"
        return
    if isinstance(want, (bool, str)):
        assert got == want, f"{name}: {got!r}, expected {want!r}"
        return
    got_a, want_a = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got_a.shape == want_a.shape, f"{name}: shape {got_a.shape}, expected {want_a.shape}"
    assert np.allclose(got_a, want_a, rtol=1e-6, atol=1e-7, equal_nan=True), (
        f"{name}: {got_a.tolist()}, expected {want_a.tolist()}"
    )


def quiet(fn: Callable, lib: Any) -> dict:
    """Run a program with warnings silenced (the programs about warnings record their own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(lib)


class Programs(dict):
    """A test module's programs, by name."""

    def program(self, expected: dict | None = None, raises: tuple | None = None) -> Callable:
        """Register `fn(torch) -> {name: value}` with its closed-form results (or its error)."""

        def register(fn: Callable) -> Callable:
            self[fn.__name__] = Program(fn, expected or {}, raises)
            return fn

        return register

    def tests(self) -> tuple:
        """The module's three tests (assign them to test_... names)."""
        computing = [n for n, p in self.items() if p.raises is None]
        raising = [n for n, p in self.items() if p.raises is not None]

        @pytest.mark.parametrize("name", computing)
        def closed_form(name: str) -> None:
            p = self[name]
            got = quiet(p.fn, tg)
            assert set(got) == set(p.expected), f"{name} returns {sorted(got)}"
            for key, want in p.expected.items():
                assert_same(f"{name}: {key}", got[key], want)

        @pytest.mark.parametrize("name", raising)
        def raises(name: str) -> None:
            exc, pattern = self[name].raises
            with pytest.raises(exc, match=pattern):
                quiet(self[name].fn, tg)

        @pytest.mark.parametrize("name", list(self))
        def matches_pytorch(name: str) -> None:
            torch = pytest.importorskip("torch", reason="compares with PyTorch when installed")
            p = self[name]
            if p.raises is not None:
                with pytest.raises(Exception):
                    quiet(p.fn, torch)
                return
            want, got = quiet(p.fn, torch), quiet(p.fn, tg)
            assert set(got) == set(want)
            for key in want:
                assert_same(f"{name}: {key} (tapegrad vs PyTorch)", got[key], want[key])

        return closed_form, raises, matches_pytorch
