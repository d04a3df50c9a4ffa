"""The special functions (primitives/special_functions.py, tg.special): values against PyTorch and
scipy.special over wide grids, PyTorch's values at poles and edges, dtypes, gradients (to second
order, closed forms, PyTorch's), in-place forms and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg

sp = pytest.importorskip("scipy.special")

WIDE = np.concatenate(
    [np.linspace(-30.3, 60.0, 9001), np.geomspace(1e-300, 1e300, 601)]
    + [-np.geomspace(1e-8, 1e3, 301)]
)
PROBABILITIES = np.concatenate(
    [np.linspace(0.0, 1.0, 4001), np.geomspace(1e-300, 0.5, 601), 1 - np.geomspace(1e-16, 0.5, 301)]
)
EDGES = np.array([0.0, -0.0, -1.0, -2.5, 1.0, np.inf, -np.inf, np.nan])

# name -> (tapegrad function, scipy function, grid)
UNARY = {
    "lgamma": (tg.lgamma, sp.gammaln, WIDE),
    "digamma": (tg.digamma, sp.digamma, WIDE[WIDE > -1e3]),
    "erfinv": (tg.erfinv, sp.erfinv, 2 * PROBABILITIES - 1),
    "erfcx": (tg.special.erfcx, sp.erfcx, WIDE[np.abs(WIDE) < 1e5]),
    "ndtr": (tg.special.ndtr, sp.ndtr, WIDE[WIDE > -37]),  # (beyond: subnormal results)
    "ndtri": (tg.special.ndtri, sp.ndtri, PROBABILITIES),
    "log_ndtr": (tg.special.log_ndtr, sp.log_ndtr, WIDE[WIDE < 37]),
    "i0": (tg.i0, sp.i0, WIDE),
    "i0e": (tg.special.i0e, sp.i0e, WIDE),
    "i1": (tg.special.i1, sp.i1, WIDE),
    "i1e": (tg.special.i1e, sp.i1e, WIDE),
    "entr": (tg.special.entr, sp.entr, WIDE),
}


def _close(got, want, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _values(fn, x):
    with np.errstate(all="ignore"):
        return fn(tg.tensor(x, dtype=tg.float64)).numpy()


@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_match_scipy_over_wide_grids(name):
    fn, reference, grid = UNARY[name]
    with np.errstate(all="ignore"):
        want = reference(grid)
    # (absolute slack only where the value crosses 0: digamma's root, lgamma's at 1 and 2)
    _close(_values(fn, grid), want, atol=1e-13 if name in ("lgamma", "digamma") else 0.0)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_match_torch_over_wide_grids(name):
    torch = pytest.importorskip("torch")
    fn, _, grid = UNARY[name]
    torch_fn = getattr(torch.special, {"lgamma": "gammaln"}.get(name, name))
    want = torch_fn(torch.tensor(grid)).numpy()
    got = _values(fn, grid)
    atol = 1e-13 if name in ("lgamma", "digamma") else 0.0
    if name == "ndtr":  # PyTorch's ndtr is (1 + erf(x/√2)) / 2: accurate to 1e-17 absolute only,
        atol = 1e-16  # 0 below x ~ -8.3 (tapegrad keeps scipy's relative digits: test above)
    # (erfcx below 0: PyTorch rounds x² before exp, 6e-14 off; tapegrad splits x² exactly)
    _close(got, want, rtol=1e-12, atol=atol)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 10])
def test_polygamma_matches_scipy_and_torch(n):
    grid = WIDE[(WIDE > -25) & (WIDE < 1e8)]
    got = tg.polygamma(n, tg.tensor(grid, dtype=tg.float64)).numpy()
    with np.errstate(all="ignore"):
        _close(got, sp.polygamma(n, grid), atol=1e-13 if n == 0 else 0.0)
    torch = pytest.importorskip("torch")
    # (PyTorch's trigamma stops its asymptotic series early: ~5e-10 relative; the others agree)
    want = torch.polygamma(n, torch.tensor(grid)).numpy()
    _close(got, want, rtol=1e-9 if n == 1 else 1e-12, atol=1e-13 if n == 0 else 0.0)


def test_zeta_matches_scipy_and_torch():
    s, q = np.meshgrid([1.5, 2.0, 3.7, 10.0, 30.0], np.geomspace(1e-5, 1e5, 101))
    got = tg.special.zeta(tg.tensor(s), tg.tensor(q)).numpy()
    _close(got, sp.zeta(s, q))
    torch = pytest.importorskip("torch")
    _close(got, torch.special.zeta(torch.tensor(s), torch.tensor(q)).numpy())


def test_xlog1py_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.array([0.0, 0.0, 0.0, 2.0, -3.0, 0.0, 1.5])
    y = np.array([-1.0, -2.0, np.nan, 1.0, 0.5, 3.0, -1.0])
    got = tg.special.xlog1py(tg.tensor(x), tg.tensor(y)).numpy()
    _close(got, torch.special.xlog1py(torch.tensor(x), torch.tensor(y)).numpy())


# ---- poles and edges: PyTorch's values ----------------------------------------------------------
@pytest.mark.parametrize(
    "name, torch_name",
    [("lgamma", "gammaln"), ("digamma", "digamma"), ("erfinv", "erfinv"), ("erfcx", "erfcx")]
    + [("ndtr", "ndtr"), ("ndtri", "ndtri"), ("log_ndtr", "log_ndtr"), ("i0", "i0")]
    + [("i0e", "i0e"), ("i1", "i1"), ("i1e", "i1e"), ("entr", "entr")],
)
def test_edges_are_pytorchs(name, torch_name):
    torch = pytest.importorskip("torch")
    fn = UNARY[name][0]
    edges = np.concatenate([EDGES, [0.5, 2.0, -2.0]])
    got = _values(fn, edges)
    want = getattr(torch.special, torch_name)(torch.tensor(edges)).numpy()
    _close(got, want)
    assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


def test_documented_edge_values():
    inf, nan = math.inf, math.nan
    assert tg.lgamma(tg.tensor([0.0, -3.0])).tolist() == [inf, inf]
    assert tg.digamma(tg.tensor([0.0, -0.0])).tolist() == [-inf, inf]
    assert math.isnan(tg.digamma(tg.tensor([-2.0])).item())
    assert tg.erfinv(tg.tensor([1.0, -1.0])).tolist() == [inf, -inf]
    assert all(math.isnan(v) for v in tg.erfinv(tg.tensor([1.5, -2.0, nan])).tolist())
    assert tg.special.ndtri(tg.tensor([0.0, 1.0])).tolist() == [-inf, inf]
    assert tg.polygamma(1, tg.tensor([inf])).tolist() == [0.0]
    assert tg.special.zeta(tg.tensor([1.0, 2.0]), tg.tensor([1.0, -1.0])).tolist() == [inf, inf]
    assert math.isnan(tg.special.zeta(0.5, tg.tensor([1.0])).item())


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_edges_match_torch(n):
    torch = pytest.importorskip("torch")
    x = np.array([0.0, -0.0, -2.5, 2.0, np.inf, -np.inf, np.nan])
    got = tg.polygamma(n, tg.tensor(x)).numpy()
    _close(got, torch.polygamma(n, torch.tensor(x)).numpy(), rtol=1e-9 if n == 1 else 1e-12)


def test_trigamma_at_negative_integers_is_a_pole():
    # (PyTorch's trigamma gives ~6.6e32 there, sin(pi x) rounding to 1e-16: the pole is +inf)
    assert tg.polygamma(1, tg.tensor([-1.0, -4.0])).tolist() == [math.inf, math.inf]


# ---- dtypes -------------------------------------------------------------------------------------
FUNCTIONS = [
    tg.lgamma, tg.digamma, tg.erfinv, tg.i0, tg.special.erfcx, tg.special.ndtr, tg.special.ndtri,
    tg.special.log_ndtr, tg.special.i0e, tg.special.i1, tg.special.i1e, tg.special.entr,
    lambda x: tg.polygamma(2, x), lambda x: x.mvlgamma(2), lambda x: tg.special.zeta(x + 2, x),
    lambda x: tg.special.xlog1py(x, x),
]  # fmt: skip


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("dtype", [tg.float16, tg.float32, tg.float64])
def test_floating_dtype_is_kept(fn, dtype):
    x = tg.tensor([0.25, 0.75], dtype=dtype)
    out = fn(x)
    assert out.dtype == dtype and tuple(out.shape) == (2,)
    want = fn(x.double()).numpy()
    _close(out.numpy().astype(np.float64), want, rtol=4 * float(np.finfo(dtype).eps))


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_integers_give_the_default_float(fn):
    out = fn(tg.tensor([1, 3]))
    assert out.dtype == tg.get_default_dtype()
    _close(out.numpy(), fn(tg.tensor([1.0, 3.0], dtype=tg.float64)).numpy(), rtol=1e-6)


# ---- gradients ----------------------------------------------------------------------------------
def _leaf(values):
    return tg.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


GRADCHECK = {
    "lgamma": (tg.lgamma, [0.3, 1.7, 4.5, -0.4, -1.6]),
    "digamma": (tg.digamma, [0.3, 1.7, 4.5, -0.4, -1.6]),
    "polygamma1": (lambda x: tg.polygamma(1, x), [0.3, 1.7, 12.5, -0.4]),
    "polygamma3": (lambda x: x.polygamma(3), [0.3, 1.7, 12.5, -2.4]),
    "erfinv": (tg.erfinv, [-0.95, -0.3, 0.0, 0.4, 0.7]),
    "erfcx": (tg.special.erfcx, [-2.0, -0.3, 0.2, 3.0, 12.0]),
    "ndtr": (tg.special.ndtr, [-3.0, -0.5, 0.0, 2.0]),
    "ndtri": (tg.special.ndtri, [0.01, 0.3, 0.5, 0.8, 0.99]),
    "log_ndtr": (tg.special.log_ndtr, [-30.0, -3.0, 0.0, 2.0, 6.0]),
    "i0": (tg.i0, [-25.0, -1.5, 0.3, 4.0, 21.0]),
    "i1": (tg.special.i1, [-25.0, -1.5, 0.3, 4.0, 21.0]),
    "i0e": (tg.special.i0e, [-25.0, -1.5, 0.3, 4.0, 21.0]),
    "i1e": (tg.special.i1e, [-25.0, -1.5, 0.3, 4.0, 21.0]),
    "entr": (tg.special.entr, [0.1, 0.5, 2.0]),
    "mvlgamma": (lambda x: x.mvlgamma(3), [1.2, 2.5, 7.0]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradients_to_second_order(name):
    fn, values = GRADCHECK[name]
    x = _leaf(values)
    assert tg.autograd.gradcheck(fn, (x,))
    assert tg.autograd.gradgradcheck(fn, (x,))


def test_two_input_gradients_to_second_order():
    x, y = _leaf([0.5, -1.0, 2.0]), _leaf([0.3, 1.5, 4.0])
    assert tg.autograd.gradcheck(tg.special.xlog1py, (x, y))
    assert tg.autograd.gradgradcheck(tg.special.xlog1py, (x, y))
    s = tg.tensor([2.5, 3.0, 4.5], dtype=tg.float64)
    assert tg.autograd.gradcheck(lambda q: tg.special.zeta(s, q), (y,))
    assert tg.autograd.gradgradcheck(lambda q: tg.special.zeta(s, q), (y,))


def test_closed_form_gradients():
    x = _leaf([0.3, 2.0, 7.5])
    (g,) = tg.autograd.grad(tg.lgamma(x).sum(), [x])
    _close(g.numpy(), sp.digamma(x.detach().numpy()))
    (g,) = tg.autograd.grad(tg.digamma(x).sum(), [x])
    _close(g.numpy(), sp.polygamma(1, x.detach().numpy()))
    (g,) = tg.autograd.grad(tg.i0(x).sum(), [x])
    _close(g.numpy(), sp.i1(x.detach().numpy()))
    p = _leaf([-0.5, 0.2, 0.9])
    (g,) = tg.autograd.grad(tg.erfinv(p).sum(), [p])
    _close(g.numpy(), math.sqrt(math.pi) / 2 * np.exp(sp.erfinv(p.detach().numpy()) ** 2))


@pytest.mark.parametrize(
    "name, fn, values",
    [
        ("i1", "i1", [0.0, 1.0, -3.0]),
        ("i1e", "i1e", [0.0, 1.0, -3.0]),
        ("i0e", "i0e", [0.0, 1.0, -3.0]),
        ("entr", "entr", [0.0, 1.0, -1.0]),
        ("log_ndtr", "log_ndtr", [-40.0, 0.0, 5.0]),
        ("ndtri", "ndtri", [0.0, 0.5, 1.0]),
        ("erfcx", "erfcx", [-3.0, 0.0, 30.0]),
    ],
)
def test_gradients_at_edges_are_pytorchs(name, fn, values):
    torch = pytest.importorskip("torch")
    x = _leaf(values)
    (g,) = tg.autograd.grad(getattr(tg.special, fn)(x).sum(), [x])
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (want,) = torch.autograd.grad(getattr(torch.special, fn)(t).sum(), [t])
    _close(g.numpy(), want.numpy())


def test_xlog1py_gradients_match_torch_at_zero():
    torch = pytest.importorskip("torch")
    xs, ys = [0.0, 0.0, 2.0], [-1.0, -2.0, 0.5]
    x, y = _leaf(xs), _leaf(ys)
    gx, gy = tg.autograd.grad(tg.special.xlog1py(x, y).sum(), [x, y])
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(ys, dtype=torch.float64, requires_grad=True)
    wx, wy = torch.autograd.grad(torch.special.xlog1py(tx, ty).sum(), [tx, ty])
    _close(gx.numpy(), wx.numpy())
    _close(gy.numpy(), wy.numpy())


def test_no_derivative_where_pytorch_has_none():
    s, q = _leaf([2.5]), _leaf([1.5])
    with pytest.raises(NotImplementedError, match="zeta with respect to x"):
        tg.autograd.grad(tg.special.zeta(s, q).sum(), [s])
    (g,) = tg.autograd.grad(tg.special.zeta(s.detach(), q).sum(), [q])
    _close(g.numpy(), -2.5 * sp.zeta(3.5, 1.5))


# ---- forms, in-place, errors ---------------------------------------------------------------------
def test_aliases_and_forms():
    x = tg.tensor([0.5, 2.5], dtype=tg.float64)
    assert np.array_equal(tg.special.gammaln(x).numpy(), x.lgamma().numpy())
    assert np.array_equal(tg.special.psi(x).numpy(), tg.special.digamma(x).numpy())
    assert np.array_equal(tg.special.polygamma(2, x).numpy(), x.polygamma(2).numpy())
    want = tg.mvlgamma(x + 1, p=2).numpy()
    assert np.array_equal(tg.special.multigammaln(x + 1, 2).numpy(), want)
    assert np.array_equal(tg.special.erfinv(x / 3).numpy(), (x / 3).erfinv().numpy())
    assert np.array_equal(tg.special.i0(x).numpy(), tg.i0(x).numpy())
    _close(tg.mvlgamma(x + 1, 3).numpy(), sp.multigammaln(x.numpy() + 1, 3))
    assert tg.special.zeta(2.0, 1.0).item() == pytest.approx(math.pi**2 / 6, rel=1e-7)


@pytest.mark.parametrize(
    "method, call",
    [
        ("lgamma_", lambda x: x.lgamma()),
        ("digamma_", lambda x: x.digamma()),
        ("erfinv_", lambda x: (x / 4).erfinv()),
        ("i0_", lambda x: x.i0()),
    ],
)
def test_in_place_forms(method, call):
    base = tg.tensor([0.5, 1.5, 3.0], dtype=tg.float64)
    x = base.clone() / 4 if method == "erfinv_" else base.clone()
    want = call(base).numpy()
    assert getattr(x, method)() is x
    _close(x.numpy(), want)


def test_in_place_with_arguments_and_on_the_tape():
    x = tg.tensor([1.5, 2.5], dtype=tg.float64)
    assert x.polygamma_(1) is x
    _close(x.numpy(), sp.polygamma(1, [1.5, 2.5]))
    y = tg.tensor([2.5, 4.0], dtype=tg.float64)
    y.mvlgamma_(2)
    _close(y.numpy(), sp.multigammaln([2.5, 4.0], 2))
    leaf = _leaf([1.5, 2.5])
    z = leaf * 1.0
    z.lgamma_()
    (g,) = tg.autograd.grad(z.sum(), [leaf])
    _close(g.numpy(), sp.digamma([1.5, 2.5]))


def test_errors_as_pytorch():
    x = tg.tensor([1.0])
    with pytest.raises(RuntimeError, match="does not support negative n"):
        tg.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        x.polygamma_(-2)
    with pytest.raises(TypeError, match="n must be an integer"):
        x.polygamma(1.5)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        x.mvlgamma(0)
    with pytest.raises(RuntimeError, match="cannot hold"):
        tg.tensor([1, 2]).lgamma_()


def test_vmap_and_raw_backward_agree_with_the_loop():
    x = tg.tensor(np.array([[0.5, 1.5], [2.5, 3.5]]))
    got = tg.vmap(lambda r: tg.special.i1e(r) + r.polygamma(2))(x)
    rows = [tg.special.i1e(r) + r.polygamma(2) for r in (x[0], x[1])]
    _close(got.numpy(), np.stack([r.numpy() for r in rows]))


def test_incomplete_gamma_matches_scipy_and_torch():
    a, x = np.meshgrid(np.geomspace(1e-3, 200, 40), np.geomspace(1e-4, 400, 50))
    for name in ("gammainc", "gammaincc"):
        got = getattr(tg.special, name)(tg.tensor(a), tg.tensor(x)).numpy()
        want = getattr(sp, name)(a, x)
        keep = want > 1e-290  # (scipy's subnormal tail aside)
        _close(got[keep], want[keep], rtol=1e-11)
    torch = pytest.importorskip("torch")
    edges_a = np.array([0.0, 1.0, -1.0, 1.0, 0.0, 1.0, np.inf, 1.0, np.inf])
    edges_x = np.array([1.0, 0.0, 1.0, -1.0, 0.0, np.inf, 1.0, np.nan, np.inf])
    for name in ("gammainc", "gammaincc"):
        got = getattr(tg.special, name)(tg.tensor(edges_a), tg.tensor(edges_x)).numpy()
        want = getattr(torch.special, name)(torch.tensor(edges_a), torch.tensor(edges_x))
        _close(got, want.numpy())


def test_incomplete_gamma_gradients():
    torch = pytest.importorskip("torch")
    a = tg.tensor([0.5, 2.5, 7.0], dtype=tg.float64)
    x = _leaf([0.3, 1.5, 9.0])
    for name in ("gammainc", "gammaincc"):
        fn = getattr(tg.special, name)
        assert tg.autograd.gradcheck(lambda v: fn(a, v), (x,))
        assert tg.autograd.gradgradcheck(lambda v: fn(a, v), (x,))
        (g,) = tg.autograd.grad(fn(a, x).sum(), [x])
        tx = torch.tensor(x.detach().numpy(), requires_grad=True)
        (want,) = torch.autograd.grad(
            getattr(torch.special, name)(torch.tensor(a.numpy()), tx).sum(), [tx]
        )
        _close(g.numpy(), want.numpy())
        with pytest.raises(NotImplementedError, match=f"{name} with respect to a"):
            shape = _leaf([1.0])
            tg.autograd.grad(fn(shape, x[:1]).sum(), [shape])


# ---- the Bessel functions' derivatives on a wide grid, through both backward paths -------------
BESSEL_GRID = np.concatenate(
    [np.linspace(-30.0, 30.0, 2001), [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 1e-3, -1e-3]]
    + [[np.nan, np.inf, -np.inf]]  # (NaN among finite values: i1's gradient there is 1/2)
)
FINITE = np.isfinite(BESSEL_GRID)


def _bessel_derivatives(name, dtype):
    """d/dx and d²/dx² of tg.special.<name> at every grid point: the first through the raw rules
    (backward()) and recorded (create_graph=True); the second through the recorded first one,
    by backward() and by create_graph=True again."""
    fn = getattr(tg.special, name)
    x = tg.tensor(BESSEL_GRID.astype(dtype), requires_grad=True)
    fn(x).sum().backward()
    raw = x.grad.numpy().copy()
    x.grad = None
    (recorded,) = tg.autograd.grad(fn(x).sum(), [x], create_graph=True)
    (second_recorded,) = tg.autograd.grad(recorded.sum(), [x], create_graph=True)
    recorded.sum().backward()
    return raw, recorded.detach().numpy(), x.grad.numpy(), second_recorded.detach().numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_derivatives_on_a_wide_grid_match_torch_by_both_paths(name, dtype):
    torch = pytest.importorskip("torch")
    raw, recorded, second_raw, second_recorded = _bessel_derivatives(name, dtype)
    for got in (raw, recorded, second_raw, second_recorded):
        assert got.dtype == dtype
        assert not np.isnan(got[FINITE]).any(), BESSEL_GRID[FINITE][np.isnan(got[FINITE])]
    t = torch.tensor(BESSEL_GRID.astype(dtype), requires_grad=True)
    (first,) = torch.autograd.grad(getattr(torch.special, name)(t).sum(), [t], create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), [t])
    rtol, atol = (1e-4, 1e-6) if dtype == np.float32 else (1e-10, 1e-14)
    _close(raw, first.detach().numpy(), rtol=rtol, atol=atol)
    _close(recorded, first.detach().numpy(), rtol=rtol, atol=atol)
    # (both differentiate I0 - I1/x, whose terms cancel near 0: an error of a few eps / |x|)
    eps = np.finfo(dtype).eps
    conditioning = 4 * eps / np.maximum(np.abs(BESSEL_GRID), eps)
    for got in (second_raw, second_recorded):
        want = second.numpy()
        with np.errstate(invalid="ignore"):
            off = ~(np.abs(got - want) <= atol + conditioning + rtol * np.abs(want))
        off &= ~((got == want) | (np.isnan(got) & np.isnan(want)))  # (inf, NaN: exactly torch's)
        assert not off.any(), (BESSEL_GRID[off], got[off], want[off])
    # the two paths run the same rule: they agree more closely than either does with torch
    _close(raw, recorded, rtol=1e-6 if dtype == np.float32 else 1e-13)
    _close(second_raw, second_recorded, rtol=1e-6 if dtype == np.float32 else 1e-13)


def test_igamma_and_igammac_are_pytorchs_names_of_gammainc_and_gammaincc():
    torch = pytest.importorskip("torch")
    assert tg.special.gammainc is tg.igamma and tg.special.gammaincc is tg.igammac
    a_values, x_values = [0.5, 2.5, 7.0], [0.3, 1.5, 9.0]
    for name in ("igamma", "igammac"):
        a, x = tg.tensor(a_values, dtype=tg.float64), _leaf(x_values)
        ta = torch.tensor(a_values, dtype=torch.float64)
        tx = torch.tensor(x_values, dtype=torch.float64, requires_grad=True)
        got, want = getattr(tg, name)(a, x), getattr(torch, name)(ta, tx)
        _close(got.numpy(), want.detach().numpy())
        _close(getattr(a, name)(x).detach().numpy(), want.detach().numpy())
        (g,) = tg.autograd.grad(got.sum(), [x])
        (tg_want,) = torch.autograd.grad(want.sum(), [tx])
        _close(g.numpy(), tg_want.numpy())
        assert tg.autograd.gradgradcheck(lambda v: getattr(tg, name)(a, v), (x,))
        # in place: self is a; other broadcast to its shape, never the other way (PyTorch's)
        b = a.clone()
        assert getattr(b, name + "_")(x.detach()) is b
        _close(b.numpy(), want.detach().numpy())
        with pytest.raises(RuntimeError):
            getattr(tg.tensor([1.0]), name + "_")(tg.tensor([1.0, 2.0]))
        with pytest.raises(NotImplementedError, match="with respect to a"):
            shape = _leaf([1.0])
            tg.autograd.grad(getattr(tg, name)(shape, x[:1].detach()).sum(), [shape])


def test_the_one_line_registrations_are_elementwise_pointwise_and_read_their_own_module() -> None:
    # (both tables register through transcendental.elementwise_primitive: each primitive must
    # still record its own module and line, whose names its rule reads)
    import inspect

    from tapegrad.primitives import batching, special_functions, transcendental

    for module, name in ((transcendental, "sinh"), (special_functions, "lgamma")):
        prim = getattr(module, name)
        assert prim.elementwise and prim.batch is batching.pointwise
        file, line = prim.origin.rsplit(":", 1)
        assert file == module.__file__
        assert f'_p("{name}"' in inspect.getsource(module).splitlines()[int(line) - 1]
    x = tg.tensor([0.3, 1.7], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: tg.special.digamma(t.sinh()), (x,))


# ---- the incomplete gamma functions far out: large a near x (Temme's expansion) and the edges --
EDGE_VALUES = [-1.0, 0.0, 0.5, 1.0, 3.0, 250.0, 5e6, 1e20, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_at_every_pair_of_edge_values_is_torchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    a, x = np.array(np.meshgrid(EDGE_VALUES, EDGE_VALUES)).reshape(2, -1)
    ta, tx = torch.tensor(a), torch.tensor(x, requires_grad=True)
    want = getattr(torch.special, name)(ta, tx)
    (want_grad,) = torch.autograd.grad(want.sum(), [tx])
    gx = _leaf(x)
    got = getattr(tg.special, name)(tg.tensor(a), gx)
    (grad,) = tg.autograd.grad(got.sum(), [gx])
    # (PyTorch's uniform expansion is ~2e-10 off at a = x = 250: ours is within 1e-15 of SciPy)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-9, equal_nan=True)
    assert np.array_equal(np.isnan(grad.numpy()), np.isnan(want_grad.numpy()))
    finite = np.isfinite(want_grad.numpy()) & (np.abs(a) < 1e10)  # (1e20: both cancel to noise)
    np.testing.assert_allclose(grad.numpy()[finite], want_grad.numpy()[finite], rtol=1e-7)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_for_large_a_near_x_matches_scipy_and_torch(name: str) -> None:
    rng = np.random.default_rng(3)
    a = np.exp(rng.uniform(np.log(201.0), np.log(1e22), 2000))
    x = a * (1 + rng.uniform(-4.4, 4.4, a.size) / np.sqrt(a))  # (PyTorch's uniform regime)
    got = getattr(tg.special, name)(tg.tensor(a), tg.tensor(x)).numpy()
    np.testing.assert_allclose(got, getattr(sp, name)(a, x), rtol=0, atol=1e-15)
    torch = pytest.importorskip("torch")
    want = getattr(torch.special, name)(torch.tensor(a), torch.tensor(x)).numpy()
    # (PyTorch is ~1e-10 off near a = 200, and forms x / a - 1: off by ~2e-6 at a = 1e22)
    np.testing.assert_allclose(got[a < 1e12], want[a < 1e12], rtol=0, atol=2e-10)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    same = np.array([5e6, 1e12, 1e20])  # (a = x: no rounding in x - a for either)
    at_a = getattr(tg.special, name)(tg.tensor(same), tg.tensor(same)).numpy()
    want_at_a = getattr(torch.special, name)(torch.tensor(same), torch.tensor(same)).numpy()
    np.testing.assert_allclose(at_a, want_at_a, rtol=1e-11)


def test_incomplete_gamma_is_continuous_where_the_method_changes() -> None:
    # (a = 200 is the series' side, just above it the uniform expansion: the two must agree)
    a = np.array([200.0, np.nextafter(200.0, 300.0)] * 3)
    x = np.repeat([190.0, 200.0, 215.0], 2)
    p = tg.special.gammainc(tg.tensor(a), tg.tensor(x)).numpy()
    q = tg.special.gammaincc(tg.tensor(a), tg.tensor(x)).numpy()
    np.testing.assert_allclose(p[0::2], p[1::2], rtol=1e-13)
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-15)
    assert tg.special.gammainc(tg.tensor([1e6], dtype=tg.float32), tg.tensor([1e6])).dtype == (
        tg.float32
    )
