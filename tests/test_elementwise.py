"""Elementwise ops PyTorch names, and gradients at kinks.

erf (and GELU through it); floor, ceil, round, trunc and frac; rsqrt and reciprocal (and their
in-place forms); at kinks an infinite gradient is selected away, never turned into NaN, and
subgradients are PyTorch's (relu, clamp with tensor bounds, maximum/minimum, abs); sign gives a
zero gradient. Always on: closed forms and finite differences; with torch installed: PyTorch's
values and gradients (helpers.matches_pytorch, helpers.Programs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from helpers import Programs, check_grads, distinct, leaf, matches_pytorch, rand

F64 = tg.float64


PROGRAMS = Programs()
program = PROGRAMS.program


# ---- erf and rounding ----------------------------------------------------------------------------
def test_erf_values_gradient_and_gelu():
    a = np.array([-2.0, -0.5, 0.0, 0.3, 1.0, 4.0])
    assert np.allclose(tg.erf(tg.tensor(a, dtype=F64)).numpy(), [math.erf(v) for v in a])
    assert tg.tensor([0, 1]).erf().dtype == np.float32
    x = leaf(a)
    x.erf().sum().backward()
    assert np.allclose(x.grad.numpy(), 2 / math.sqrt(math.pi) * np.exp(-a * a))
    check_grads(lambda x: x.erf(), rand(3, 2))
    y = tg.nn.functional.gelu(leaf(a))
    assert "GeluBackward" in str(tg.explain(y.sum(), show=False))  # (one step: its own rule)
    expanded = str(tg.explain(y.sum(), show=False, expand=True))  # (one primitive: no erf node)
    assert "GeluBackward" in expanded and "ErfBackward" not in expanded
    expected = 0.5 * a * (1 + np.array([math.erf(v / math.sqrt(2)) for v in a]))
    assert np.allclose(y.numpy(), expected)


def test_rounding_values_and_zero_gradients():
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.23456, -0.7])
    t = tg.tensor(a, dtype=F64)
    for name, ref in [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)]:
        assert np.array_equal(getattr(t, name)().numpy(), ref(a))
        assert np.array_equal(getattr(tg, name)(t).numpy(), ref(a))
    assert t.round().tolist() == [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 1.0, -1.0]  # halves to even
    assert tg.round(t, decimals=2).numpy()[6] == 1.23
    assert np.allclose(t.frac().numpy(), a - np.trunc(a))
    assert tg.tensor([1, 2]).floor().dtype == np.int64  # integers as they are
    for name in ("floor", "ceil", "trunc", "round"):
        x = leaf(a)
        getattr(x, name)().sum().backward()
        assert x.grad.tolist() == [0.0] * len(a)  # zeros, not None (as PyTorch)
    x = leaf(a)
    x.frac().sum().backward()
    assert x.grad.tolist() == [1.0] * len(a)
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([1, 2]).frac()


# ---- rsqrt, reciprocal ---------------------------------------------------------------------------
def test_rsqrt_and_reciprocal():
    a = np.abs(rand(3, 4)) + 0.5
    assert np.allclose(tg.tensor(a).rsqrt().numpy(), 1 / np.sqrt(a))
    assert np.allclose(tg.rsqrt(tg.tensor(a)).numpy(), 1 / np.sqrt(a))
    assert np.allclose(tg.tensor(a).reciprocal().numpy(), 1 / a)
    assert tg.tensor([4.0]).rsqrt().dtype == np.float32
    check_grads(lambda x: x.rsqrt(), a)
    check_grads(lambda x: x.reciprocal(), a)
    x = leaf(a)
    x.rsqrt().sum().backward()
    assert np.allclose(x.grad.numpy(), -0.5 * a**-1.5)  # closed form
    x = leaf([0.0])
    with np.errstate(divide="ignore"):  # (NumPy's warning on 1/0; PyTorch is silent)
        x.rsqrt().sum().backward()
    assert x.grad.item() == -np.inf  # as PyTorch: -0.5 * 0 ** -1.5


def test_in_place_rsqrt_and_reciprocal():
    x = tg.tensor([4.0, 0.25])
    assert x.rsqrt_() is x and x.tolist() == [0.5, 2.0]
    assert tg.reciprocal_(x) is x and x.tolist() == [2.0, 0.5]
    assert tg.rsqrt_(tg.tensor([4.0])).tolist() == [0.5]
    a = np.abs(rand(3)) + 0.5
    check_grads(lambda x: (x * 1.0).rsqrt_(), a)
    check_grads(lambda x: (x * 1.0).reciprocal_(), a)
    with pytest.raises(RuntimeError, match="cannot hold"):
        tg.tensor([2, 4]).reciprocal_()
    with pytest.raises(RuntimeError, match="leaf tensor"):
        leaf(a).rsqrt_()


# ---- an infinite gradient is selected away at kinks, never turned into NaN -----------------------
@program(expected={"grad": [0.0, 0.25]})
def sqrt_of_relu(torch):
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    (grad,) = torch.autograd.grad(x.relu().sqrt().sum(), x)
    return {"grad": grad}


@program(expected={"grad": [0.0, 0.1]})
def sqrt_of_clamped_squared_distance(torch):
    d2 = torch.tensor([-1e-9, 25.0], requires_grad=True)  # a rounding error made d2[0] negative
    dist = torch.sqrt(torch.clamp(d2, min=0))
    (grad,) = torch.autograd.grad(dist.sum(), d2)
    return {"grad": grad}


@program(expected={"upper": [0.0, 0.25, 0.0], "maximum": [0.0, 0.25], "minimum": [-0.25, 0.0]})
def sqrt_after_clamp_maximum_minimum(torch):
    x = torch.tensor([-1.0, 4.0, 9.0], requires_grad=True)
    (upper,) = torch.autograd.grad(x.clamp(0, 5).sqrt().sum(), x)
    y = torch.tensor([-1.0, 4.0], requires_grad=True)
    (maximum,) = torch.autograd.grad(torch.maximum(y, torch.zeros(2)).sqrt().sum(), y)
    z = torch.tensor([-4.0, 1.0], requires_grad=True)
    (minimum,) = torch.autograd.grad((-torch.minimum(z, torch.zeros(2))).sqrt().sum(), z)
    return {"upper": upper, "maximum": maximum, "minimum": minimum}


@program(
    expected={
        "relu": [0.0, 0.0, 1.0],
        "abs": [-1.0, 0.0, 1.0],
        "clamp": [0.0, 1.0, 1.0],
        "clamp_max": [1.0, 1.0, 0.0],
        "maximum": [[0.0, 0.5, 1.0], [1.0, 0.5, 0.0]],
        "sign": [0.0, 0.0, 0.0],
        "amax": [0.0, 0.5, 0.5],
    }
)
def subgradients_at_kinks(torch):
    def grads(f, *xs):
        return torch.autograd.grad(f(*xs).sum(), xs)

    def leaf(values):
        return torch.tensor(values, requires_grad=True)

    return {
        "relu": grads(torch.relu, leaf([-1.0, 0.0, 2.0]))[0],
        "abs": grads(torch.abs, leaf([-1.0, 0.0, 2.0]))[0],
        "clamp": grads(lambda v: v.clamp(0, 2), leaf([-1.0, 0.0, 2.0]))[0],  # inclusive
        "clamp_max": grads(lambda v: v.clamp(max=0), leaf([-1.0, 0.0, 2.0]))[0],
        "maximum": list(grads(torch.maximum, leaf([-1.0, 0.0, 2.0]), leaf([0.0, 0.0, 1.0]))),
        "sign": grads(torch.sign, leaf([-1.0, 0.0, 2.0]))[0],
        "amax": grads(lambda v: v.amax(), leaf([1.0, 3.0, 3.0]))[0],  # ties share evenly
    }


@program(expected={"x": [0.0, 1.0, 1.0], "low": [1.0, 0.0, 0.0]})
def clamp_with_tensor_bounds_that_require_grad(torch):
    x = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    low = torch.zeros(3, requires_grad=True)
    torch.clamp(x, min=low).sum().backward()  # the bound gets its share, as in PyTorch
    return {"x": x.grad, "low": low.grad}


# ---- sign's leaf gets zeros ----------------------------------------------------------------------
@program(expected={"grad": [0.0, 0.0, 0.0]})
def sign_gives_a_zero_gradient(torch):
    x = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
    x.sign().sum().backward()
    return {"grad": x.grad}


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared; SECOND_ORDER_PROGRAMS: second derivatives too.
# (the second-order programs' inputs are positive)
TORCH_PROGRAMS = {
    "erf": (lambda m, x: m.erf(x), [(3, 4)]),
    "floor": (lambda m, x: x.floor() * x, [(3, 4)]),
    "round": (lambda m, x: m.round(x, decimals=1) + x, [(3, 4)]),
    "frac": (lambda m, x: x.frac(), [(3, 4)]),
}
SECOND_ORDER_PROGRAMS = {
    "rsqrt": (lambda m, x: x.rsqrt(), [(3, 4)]),
    "rsqrt-fn": (lambda m, x: m.rsqrt(x), [(3, 4)]),
    "reciprocal": (lambda m, x: x.reciprocal(), [(3, 4)]),
    "rsqrt_": (lambda m, x: (x * 1.0).rsqrt_(), [(3, 4)]),
    "reciprocal_": (lambda m, x: m.reciprocal_(x * 1.0), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", list(SECOND_ORDER_PROGRAMS))
def test_against_pytorch_to_second_order(name):
    fn, shapes = SECOND_ORDER_PROGRAMS[name]
    matches_pytorch(
        fn, [np.abs(rand(*s, seed=i)) + 0.3 for i, s in enumerate(shapes)], second_order=True
    )


# ---- programs: closed forms on tapegrad, their errors, PyTorch's results when installed ----------
# (no program here raises: a test of the errors would have no case)
test_program_gives_closed_form, _, test_program_matches_pytorch = PROGRAMS.tests()
