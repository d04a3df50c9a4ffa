"""PyTorch's conventions at the edges, in the rule table: NaN, infinities, signed zeros, 0 ** 0,
bool and integer inputs (sign, abs, maximum/minimum and binary max/min, pow, sigmoid).

Each is checked against torch where it is installed, and against the closed form the convention
states; gradients also by finite differences (first and second order) where the op is smooth.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import tapegrad as tg

EDGES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.0, 0.5, 1e300, -1e-300]


def _leaf(values, dtype=tg.float64):
    return tg.tensor(np.asarray(values), dtype=dtype, requires_grad=True)


def _torch_leaf(values):
    torch = pytest.importorskip("torch")
    return torch.tensor(np.asarray(values), dtype=torch.float64, requires_grad=True)


def _same(mine, theirs) -> None:
    """Equal values to the last bits (NaN and infinities where they are) and dtypes; `theirs` a
    torch tensor."""
    theirs = theirs.detach().numpy()
    assert mine.numpy().dtype == theirs.dtype
    np.testing.assert_allclose(mine.numpy(), theirs, rtol=1e-14, atol=0)


# ---- sign and abs ------------------------------------------------------------------------------
def test_sign_is_positive_minus_negative_so_nan_gives_zero() -> None:
    x = np.array(EDGES)
    expected = (x > 0).astype(float) - (x < 0).astype(float)
    np.testing.assert_array_equal(tg.sign(tg.tensor(x)).numpy(), expected)
    assert tg.sign(tg.tensor(x)).dtype == tg.float64
    assert tg.sign(tg.tensor([-3, 0, 5])).tolist() == [-1, 0, 1]
    flags = tg.tensor([True, False])
    assert tg.sign(flags).dtype == tg.bool_ and tg.sign(flags).tolist() == [True, False]


def test_sign_matches_torch_on_floats_ints_and_bools() -> None:
    torch = pytest.importorskip("torch")
    _same(tg.sign(tg.tensor(np.array(EDGES))), torch.sign(torch.tensor(EDGES, dtype=torch.float64)))
    _same(tg.sign(tg.tensor([-3, 0, 5])), torch.sign(torch.tensor([-3, 0, 5])))
    _same(tg.sign(tg.tensor([True, False])), torch.sign(torch.tensor([True, False])))
    x = tg.tensor([True, False])
    x.sign_()
    assert x.tolist() == [True, False]


def test_abs_gradient_is_sign_so_zero_at_nan_as_torch() -> None:
    x = _leaf(EDGES)
    (grad,) = tg.autograd.grad(x.abs().sum(), x)
    np.testing.assert_array_equal(grad.numpy(), tg.sign(x.detach()).numpy())
    assert grad.numpy()[0] == 0.0  # at NaN
    t = _torch_leaf(EDGES)
    (expected,) = pytest.importorskip("torch").autograd.grad(t.abs().sum(), t)
    _same(grad, expected)


def test_abs_gradchecks_away_from_zero() -> None:
    x = _leaf([-1.5, 0.3, 2.0])
    assert tg.autograd.gradcheck(lambda t: t.abs(), [x])
    assert tg.autograd.gradgradcheck(lambda t: t.abs() * t, [x])


# ---- maximum, minimum, binary max/min --------------------------------------------------------
PAIRS = [
    (np.nan, 1.0),
    (1.0, np.nan),
    (np.nan, np.nan),
    (2.0, 1.0),
    (1.0, 1.0),
    (-np.inf, 0.0),
    (np.inf, np.inf),
    (0.0, -0.0),
]
BINARY = ["maximum", "minimum", "max", "min"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_extremes_give_both_inputs_g_at_nan_and_share_ties(name: str) -> None:
    a, b = (_leaf([p[i] for p in PAIRS]) for i in (0, 1))
    g = tg.tensor(np.arange(1.0, len(PAIRS) + 1), dtype=tg.float64)
    ga, gb = tg.autograd.grad(getattr(tg, name)(a, b), [a, b], grad_outputs=g)
    x, y, gv = a.detach().numpy(), b.detach().numpy(), g.numpy()
    loses = (x < y) if name in ("maximum", "max") else (x > y)
    wins = (y < x) if name in ("maximum", "max") else (y > x)
    tie = x == y
    # the loser gets 0, a tie shares, and anything else (a NaN on either side) gets all of g
    np.testing.assert_array_equal(ga.numpy(), np.where(loses, 0, np.where(tie, gv / 2, gv)))
    np.testing.assert_array_equal(gb.numpy(), np.where(wins, 0, np.where(tie, gv / 2, gv)))


@pytest.mark.parametrize("name", BINARY)
def test_binary_extremes_match_torch_with_nan_inf_and_ties(name: str) -> None:
    torch = pytest.importorskip("torch")
    a, b = (_leaf([p[i] for p in PAIRS]) for i in (0, 1))
    ta, tb = (_torch_leaf([p[i] for p in PAIRS]) for i in (0, 1))
    out, expected = getattr(tg, name)(a, b), getattr(torch, name)(ta, tb)
    _same(out, expected)
    v = np.linspace(-1.0, 2.0, len(PAIRS))
    mine = tg.autograd.grad(out, [a, b], grad_outputs=tg.tensor(v))
    theirs = torch.autograd.grad(expected, [ta, tb], torch.tensor(v))
    for m, t in zip(mine, theirs):
        _same(m, t)


@pytest.mark.parametrize("name", BINARY)
def test_binary_extremes_gradcheck_away_from_ties(name: str) -> None:
    a = _leaf([0.5, -1.0, 3.0])
    b = _leaf([1.0, -2.0, 2.5])
    fn = getattr(tg, name)
    assert tg.autograd.gradcheck(fn, [a, b])
    assert tg.autograd.gradgradcheck(lambda u, v: fn(u, v) * u, [a, b])


# ---- pow ---------------------------------------------------------------------------------------
BASES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, np.nan]
EXPONENTS = [0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -0.5, np.inf, -np.inf, np.nan]
GRID = list(itertools.product(BASES, EXPONENTS))


def test_pow_exponent_gradient_at_base_zero_is_zero_or_out_times_log_zero() -> None:
    x = _leaf([0.0, 0.0, 0.0, 0.0, -0.0])
    y = _leaf([0.0, 2.0, -1.0, -2.0, -1.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x**y
        _, gy = tg.autograd.grad(out.sum(), [x, y])
    # 0 where the exponent is >= 0 (0 ** y is 0 or 1 there), out * log(0) = -inf * sign(out) below
    assert gy.numpy().tolist() == [0.0, 0.0, -np.inf, -np.inf, np.inf]


def test_pow_values_and_gradients_match_torch_on_the_edge_grid() -> None:
    torch = pytest.importorskip("torch")
    xs, ys = (np.array(v) for v in zip(*GRID))
    v = np.random.default_rng(0).standard_normal(len(GRID))
    x, y = _leaf(xs), _leaf(ys)
    tx, ty = _torch_leaf(xs), _torch_leaf(ys)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x**y
        gx, gy = tg.autograd.grad(out, [x, y], grad_outputs=tg.tensor(v))
    expected = tx**ty
    tgx, tgy = torch.autograd.grad(expected, [tx, ty], torch.tensor(v))
    _same(out, expected)
    _same(gy, tgy)
    # d/dx: as torch everywhere but at NaN ** 0, where tapegrad's is NaN (g * 0 * NaN ** -1) and
    # torch's 0; the rule keeps the y-derivative of the x-gradient at y == 0 (see test_ops).
    nan_base_zero_exponent = np.isnan(xs) & (ys == 0)
    mine, theirs = gx.numpy(), tgx.numpy()
    np.testing.assert_allclose(
        mine[~nan_base_zero_exponent], theirs[~nan_base_zero_exponent], rtol=1e-14, atol=0
    )


def test_pow_scalar_exponents_and_bases_match_torch_at_zero() -> None:
    torch = pytest.importorskip("torch")
    # (not -0.0 ** 0.5: torch's slope there is 0.5 / sqrt(-0.0) = -inf, NumPy's power gives +inf)
    for k, bases in [
        (0.0, [0.0, -0.0, 2.0]),
        (1.0, [0.0, -0.0, 2.0]),
        (2.0, [0.0, -0.0, 2.0]),
        (-1.0, [0.0, -0.0, 2.0]),
        (0.5, [0.0, 2.0]),
    ]:
        x, tx = _leaf(bases), _torch_leaf(bases)
        with np.errstate(divide="ignore", invalid="ignore"):
            (g,) = tg.autograd.grad((x**k).sum(), x)
        (expected,) = torch.autograd.grad((tx**k).sum(), tx)
        _same(g, expected)
    for base in (0.0, 2.0):
        y, ty = _leaf([0.0, 1.0, -1.0]), _torch_leaf([0.0, 1.0, -1.0])
        with np.errstate(divide="ignore", invalid="ignore"):
            (g,) = tg.autograd.grad((base**y).sum(), y)
        (expected,) = torch.autograd.grad((base**ty).sum(), ty)
        _same(g, expected)


def test_pow_gradchecks_at_positive_bases_to_second_order() -> None:
    x = _leaf([0.5, 1.5, 2.0])
    y = _leaf([-1.5, 0.0, 2.5])
    assert tg.autograd.gradcheck(lambda u, v: u**v, [x, y])
    assert tg.autograd.gradgradcheck(lambda u, v: u**v, [x, y])


def test_pow_at_zero_base_gives_no_numpy_warning_for_nonnegative_exponents() -> None:
    x = _leaf([0.0, 0.0, 0.0])
    y = _leaf([0.0, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gx, gy = tg.autograd.grad((x**y).sum(), [x, y])
    assert gx.tolist() == [0.0, 1.0, 0.0] and gy.tolist() == [0.0, 0.0, 0.0]


# ---- integers and bools ----------------------------------------------------------------------
def test_integer_to_negative_integer_power_follows_the_integer_rule() -> None:
    base = tg.tensor([2, 1, -1, -1, 0, -2, 3])
    exponent = tg.tensor([-1, -2, -3, -2, -1, -2, 2])
    # 1 ** y is 1, (-1) ** y is +-1 by parity, any other base 0 (1 / x ** -y truncated)
    assert (base**exponent).tolist() == [0, 1, -1, 1, 0, 0, 9]
    assert (base**exponent).dtype == tg.int64
    assert (2 ** tg.tensor([-1, 0, 3])).tolist() == [0, 1, 8]
    with pytest.raises(RuntimeError, match="negative integer power"):
        base**-1


def test_integer_powers_match_torch() -> None:
    torch = pytest.importorskip("torch")
    b, e = [2, 1, -1, -1, 0, -2, 3, 5], [-1, -2, -3, -2, -1, -2, 2, 0]
    _same(tg.tensor(b) ** tg.tensor(e), torch.tensor(b) ** torch.tensor(e))
    _same(tg.pow(tg.tensor(b), tg.tensor(-1)), torch.pow(torch.tensor(b), torch.tensor(-1)))
    _same(3 ** tg.tensor(e), 3 ** torch.tensor(e))
    with pytest.raises(RuntimeError, match="negative integer powers"):
        torch.tensor(b) ** -1
    with pytest.raises(RuntimeError, match="negative integer power"):
        tg.tensor(b) ** -1


def test_sigmoid_of_bools_is_float32_as_of_integers() -> None:
    flags = tg.tensor([True, False])
    out = tg.sigmoid(flags)
    assert out.dtype == tg.float32 == tg.sigmoid(tg.tensor([1, 0])).dtype
    np.testing.assert_allclose(out.numpy(), 1 / (1 + np.exp(-np.array([1.0, 0.0]))), rtol=1e-6)
    torch = pytest.importorskip("torch")
    expected = torch.sigmoid(torch.tensor([True, False]))
    assert str(expected.dtype) == "torch.float32"
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_clamp_with_bounds_that_broadcast_the_input_routes_its_gradient() -> None:
    x = _leaf([1.0, 5.0, -3.0])
    low = tg.tensor([[0.0], [2.0]], dtype=tg.float64)
    out = tg.clamp(x, low, tg.tensor(4.0, dtype=tg.float64))
    assert out.shape == (2, 3)
    (grad,) = tg.autograd.grad(out.sum(), x)
    assert grad.tolist() == [1.0, 0.0, 0.0]  # 1 passes in the first row only; 5 and -3 are cut
    torch = pytest.importorskip("torch")
    tx = _torch_leaf([1.0, 5.0, -3.0])
    expected = torch.clamp(
        tx,
        torch.tensor([[0.0], [2.0]], dtype=torch.float64),
        torch.tensor(4.0, dtype=torch.float64),
    )
    _same(out, expected)
    _same(grad, torch.autograd.grad(expected.sum(), tx)[0])
