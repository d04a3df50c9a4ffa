"""Exact GELU as one primitive (primitives/gelu.py): its forward equals the composite
0.5 x (1 + erf(x / sqrt 2)) it replaced, its backward kernel (Phi read off the forward's result)
equals the textbook rule in float32 and float64 down to the edges (0, subnormals, underflow, inf,
NaN), second order by finite differences, and PyTorch in float32."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck
from tapegrad.primitives import REGISTRY
from tapegrad.primitives.gelu import Phi, phi

F = tg.nn.functional
gelu, gelu_backward = REGISTRY["gelu"], REGISTRY["gelu_backward"]


def edges(dtype: type) -> np.ndarray:
    """Ordinary values and the edges of `dtype`: zeros, subnormals, x Phi(x) underflowing."""
    tiny = np.finfo(dtype).tiny
    values = np.random.default_rng(0).standard_normal(2000) * 3
    special = [0.0, -0.0, tiny, -tiny, tiny / 8, -tiny / 8, 1e-20, -1e-20, -9.0, -12.5, -13.5]
    special += [-14.0, -20.0, -40.0, -1e3, 5.0, 40.0]
    return np.concatenate([values, special]).astype(dtype)


def assert_close(got, want, size, ulps: int) -> None:
    """|got - want| within `ulps` ulps of `size`, the size of the terms summed: erf's 1 + erf(t)
    cancels for negative t and Phi + x phi near x = -0.75, so no rounding is small against the
    sum itself there (NaN where both are NaN)."""
    info = np.finfo(np.asarray(got).dtype)
    bound = ulps * (info.eps * np.abs(size) + info.smallest_subnormal)
    with np.errstate(invalid="ignore"):
        error = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    assert np.all((error <= bound) | (np.isnan(got) & np.isnan(want))), np.max(error / bound)


def rule_size(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """The size of the terms of g (Phi(x) + x phi(x)): |g| (1 + |x phi(x)|)."""
    v = np.asarray(x, np.float64)
    return np.abs(np.asarray(g, np.float64)) * (1 + np.abs(v * phi(v)))


def composite(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + tg.erf(tg.tensor(x * math.sqrt(0.5))).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_forward_is_the_composites_value(dtype: type) -> None:
    x = edges(dtype)
    out = F.gelu(tg.tensor(x)).numpy()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, composite(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_kernel_equals_the_textbook_rule_at_the_edges(dtype: type) -> None:
    x = edges(dtype)
    g = np.random.default_rng(1).uniform(0.5, 1.5, x.shape).astype(dtype)
    got = gelu_backward.forward(g, x, forward=gelu.forward(x))
    want = g * (Phi(x) + x * phi(x))  # (the table's text, run on arrays of x's dtype)
    assert got.dtype == dtype
    assert_close(got, want, rule_size(x, g), 4)
    assert got[x == 0].tolist() == (g[x == 0] * dtype(0.5)).tolist()  # (Phi(0) exactly)
    by_erf = gelu_backward.forward(g, x)  # (no forward given: Phi from erf)
    assert_close(got, by_erf, rule_size(x, g), 4)


def test_inf_and_nan_give_what_the_textbook_gives() -> None:
    x = np.array([np.inf, -np.inf, np.nan])
    with np.errstate(invalid="ignore"):  # (inf * 0: NaN, as the composite's rule)
        got = gelu_backward.forward(np.ones(3), x, forward=gelu.forward(x))
        want = Phi(x) + x * phi(x)
    np.testing.assert_array_equal(got, want)


def test_zero_dimensional_values_at_the_edges() -> None:
    for v in (0.0, -0.0, 1e-310, -50.0, 1.5):  # (0-d: the quotient and the erf fix-up in place)
        x = tg.tensor(v, dtype=tg.float64, requires_grad=True)
        (d,) = tg.autograd.grad(F.gelu(x), x)
        assert d.shape == () and d.item() == pytest.approx(Phi(v) + v * phi(v), abs=1e-300)


def test_a_forward_of_another_shape_or_dtype_is_not_used() -> None:
    x = np.array([-1.0, 0.5, 2.0])
    wrong = np.zeros(2)
    want = gelu_backward.forward(np.ones(3), x)
    np.testing.assert_array_equal(gelu_backward.forward(np.ones(3), x, forward=wrong), want)
    np.testing.assert_array_equal(
        gelu_backward.forward(np.ones(3), x, forward=np.zeros(3, np.float32)), want
    )


def test_second_order_and_the_recorded_backward() -> None:
    x = tg.tensor(np.concatenate([edges(np.float64)[:20], [0.0, -6.0]]), requires_grad=True)
    assert gradcheck(F.gelu, (x,)) and gradgradcheck(F.gelu, (x,))
    (d1,) = tg.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
    assert d1.requires_grad  # (the kernel's gelu_backward recorded: differentiable again)
    (d2,) = tg.autograd.grad(d1.sum(), x)
    v = x.numpy()
    np.testing.assert_allclose(d2.numpy(), phi(v) * (2 - v * v), rtol=1e-12, atol=1e-300)
    g = tg.tensor(np.linspace(0.5, 1.5, 22), requires_grad=True)
    assert gradgradcheck(lambda g, x: gelu_backward(g, x), (g, x))


def test_integers_promote_as_before_and_per_example_gradients_work() -> None:
    out = F.gelu(tg.tensor([0, 1, -2]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), composite(np.array([0.0, 1.0, -2.0])), rtol=1e-6)
    x = tg.tensor(np.random.default_rng(2).standard_normal((4, 3)))
    per_example = tg.vmap(tg.grad(lambda v: F.gelu(v).sum()))(x)
    np.testing.assert_allclose(per_example.numpy(), Phi(x.numpy()) + x.numpy() * phi(x.numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_pytorch(dtype: str) -> None:
    torch = pytest.importorskip("torch")
    x = edges(np.dtype(dtype).type)
    g = np.random.default_rng(3).standard_normal(x.shape).astype(dtype)
    ours = tg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    out, tout = F.gelu(ours), torch.nn.functional.gelu(theirs)
    (d,) = tg.autograd.grad(out, ours, tg.tensor(g))
    (td,) = torch.autograd.grad(tout, theirs, torch.tensor(g))
    assert_close(out.numpy(), tout.detach().numpy(), x, 4)
    assert_close(d.numpy(), td.numpy(), rule_size(x, g), 4)
    assert d.numpy().dtype == dtype
