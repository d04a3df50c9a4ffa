"""NaN-ignoring reductions, counts, bins and integrals: nansum, nanmean, count_nonzero (and cov,
corrcoef) in tensor/statistics.py with bincount and histc; bucketize and searchsorted
(tensor/searching.py); trapezoid, trapz and cumulative_trapezoid (tensor/integration.py).

Values, dtypes and gradients against torch (float64) where it is installed, gradients by finite
differences (second order where smooth), and clear errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(12)
NAN = float("nan")


def _torch():
    return pytest.importorskip("torch")


def _same(mine, theirs, rtol: float = 1e-12) -> None:
    """The same values, shape and dtype (NaN equal to NaN)."""
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, (a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12, equal_nan=True)


# ---- nansum, nanmean, count_nonzero ------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}])
def test_nansum_and_nanmean_match_torch(kwargs):
    torch = _torch()
    data = RNG.standard_normal((3, 4))
    data[0, 1] = data[2, 2] = NAN  # (an all-NaN line: below)
    for name in ("nansum", "nanmean"):
        x, t = tg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        mine, theirs = getattr(x, name)(**kwargs), getattr(torch, name)(t, **kwargs)
        _same(mine, theirs)
        weights = np.arange(1.0, 1.0 + theirs.numel()).reshape(tuple(theirs.shape))
        mine.nan_to_num(0.0).mul(tg.tensor(weights)).sum().backward()
        theirs.nan_to_num(0.0).mul(torch.tensor(weights)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())  # (0 at the NaNs)


def test_nansum_dtypes_and_errors():
    torch = _torch()
    for data, kwargs in (([1, 2], {}), ([True, False], {}), ([1, 2], {"dtype": tg.float32})):
        tkw = {"dtype": torch.float32} if kwargs else {}
        assert str(tg.tensor(data).nansum(**kwargs).dtype) in str(
            torch.tensor(data).nansum(**tkw).dtype
        )
    assert tg.tensor([1, 2]).nanmean(dtype=tg.float64).item() == 1.5
    with pytest.raises(TypeError, match="floating point"):
        tg.tensor([1, 2]).nanmean()
    assert np.isnan(tg.tensor([NAN]).nanmean().item())
    assert tg.tensor([[NAN, NAN], [1.0, NAN]]).nansum(1).tolist() == [0.0, 1.0]
    x = tg.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda v: v.nansum(1), (x,)) and gradgradcheck(lambda v: v.nanmean(0), (x,))


def test_count_nonzero():
    torch = _torch()
    data = np.array([[1.0, 0.0, NAN], [0.0, 0.0, -2.0]])
    for dim in (None, 0, 1, (0, 1), [1]):
        mine = tg.count_nonzero(tg.tensor(data), dim)
        theirs = torch.count_nonzero(torch.tensor(data), dim)
        _same(mine, theirs)
    assert tg.tensor([[True, False]]).count_nonzero(-1).tolist() == [1]


# ---- bincount and histc ------------------------------------------------------------------------
def test_bincount_matches_torch():
    torch = _torch()
    data = np.array([1, 1, 3, 0, 3, 3])
    for kwargs in ({}, {"minlength": 7}, {"minlength": 2}):
        _same(tg.tensor(data).bincount(**kwargs), torch.tensor(data).bincount(**kwargs))
    for w in (np.array([0.5, 1, 2, 3, 4, 5], np.float32), np.arange(6.0), np.arange(6)):
        _same(
            tg.bincount(tg.tensor(data), tg.tensor(w)),
            torch.bincount(torch.tensor(data), torch.tensor(w)),
        )
    _same(tg.tensor(np.zeros(0, np.int64)).bincount(), torch.zeros(0, dtype=torch.long).bincount())


def test_bincount_errors():
    for bad in ([-1, 2], [[1]], [1.0]):
        with pytest.raises(ValueError, match="1-d non-negative integral"):
            tg.tensor(bad).bincount()
    with pytest.raises(ValueError, match="same length"):
        tg.tensor([1, 2]).bincount(tg.tensor([1.0]))
    with pytest.raises(ValueError, match="minlength should be >= 0"):
        tg.tensor([1]).bincount(minlength=-1)


def test_histc_matches_torch():
    torch = _torch()
    data = RNG.standard_normal(50).astype(np.float32)
    for kwargs in ({}, {"bins": 7}, {"bins": 4, "min": -1, "max": 1}, {"bins": 3, "min": 0}):
        _same(tg.tensor(data).histc(**kwargs), torch.tensor(data).histc(**kwargs))
    _same(tg.histc(tg.tensor([1.0, 1.0]), 4), torch.histc(torch.tensor([1.0, 1.0]), 4))
    _same(tg.tensor([0.0, 3.0]).histc(3, 0, 3), torch.tensor([0.0, 3.0]).histc(3, 0, 3))
    with pytest.raises(ValueError, match="not finite"):
        tg.tensor([1.0, NAN]).histc(4)
    with pytest.raises(ValueError, match="max must be larger than min"):
        tg.tensor([1.0]).histc(4, min=3, max=0)
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([1, 2]).histc()


# ---- bucketize and searchsorted ----------------------------------------------------------------
def test_searchsorted_and_bucketize_match_torch():
    torch = _torch()
    seq = np.array([1.0, 3.0, 3.0, 5.0, 7.0])  # (NaN among the values: the largest)
    values = np.array([[0.0, 3.0, 4.0], [5.0, 9.0, NAN]])
    for kwargs in ({}, {"right": True}, {"side": "right"}, {"side": "left", "out_int32": True}):
        mine = tg.searchsorted(tg.tensor(seq), tg.tensor(values), **kwargs)
        _same(mine, torch.searchsorted(torch.tensor(seq), torch.tensor(values), **kwargs))
    lines = np.array([[1, 3, 5], [2, 4, 6]])
    _same(
        tg.searchsorted(tg.tensor(lines), tg.tensor([[3, 6], [1, 4]]), side="right"),
        torch.searchsorted(torch.tensor(lines), torch.tensor([[3, 6], [1, 4]]), side="right"),
    )
    order = np.array([1, 2, 0])
    _same(
        tg.searchsorted(tg.tensor([5, 1, 3]), tg.tensor([3, 4]), sorter=tg.tensor(order)),
        torch.searchsorted(
            torch.tensor([5, 1, 3]), torch.tensor([3, 4]), sorter=torch.tensor(order)
        ),
    )
    assert tg.searchsorted(tg.tensor([1, 3, 5]), 3).shape == ()
    edges = np.array([1, 3, 5, 7, 9])
    for right in (False, True):
        _same(
            tg.bucketize(tg.tensor([1, 5, 9, 10]), tg.tensor(edges), right=right),
            torch.bucketize(torch.tensor([1, 5, 9, 10]), torch.tensor(edges), right=right),
        )
    assert tg.bucketize(3, tg.tensor(edges)).item() == 1


def test_searchsorted_errors():
    with pytest.raises(ValueError, match="can't be set to opposites"):
        tg.searchsorted(tg.tensor([1, 3]), tg.tensor([2]), side="left", right=True)
    with pytest.raises(ValueError, match="side can only be"):
        tg.searchsorted(tg.tensor([1, 3]), tg.tensor([2]), side="middle")
    with pytest.raises(ValueError, match="first N-1 dimensions"):
        tg.searchsorted(tg.tensor([[1, 3]]), tg.tensor([2]))
    with pytest.raises(ValueError, match="must be 1 dimension"):
        tg.bucketize(tg.tensor([2]), tg.tensor([[1, 3]]))


# ---- cov and corrcoef --------------------------------------------------------------------------
COV_CASES = [
    {},
    {"correction": 0},
    {"fweights": np.array([1, 2, 1, 3])},
    {"aweights": np.array([0.5, 1.0, 2.0, 0.25])},
    {"fweights": np.array([1, 2, 1, 3]), "aweights": np.array([0.5, 1.0, 2.0, 0.25])},
]


@pytest.mark.parametrize("kwargs", COV_CASES)
def test_cov_matches_torch(kwargs):
    torch = _torch()
    data = RNG.standard_normal((3, 4))
    mine_kw = {k: tg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    their_kw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    for rows in (data, data[0]):
        x, t = tg.tensor(rows, requires_grad=True), torch.tensor(rows, requires_grad=True)
        mine, theirs = x.cov(**mine_kw), torch.cov(t, **their_kw)
        _same(mine, theirs)
        mine.sum().backward()
        theirs.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-12)
        assert gradcheck(lambda v: v.cov(**mine_kw), (tg.tensor(rows, requires_grad=True),))
        assert gradgradcheck(lambda v: v.cov(**mine_kw), (tg.tensor(rows, requires_grad=True),))


def test_cov_weights_get_gradients_in_their_dtype():
    torch = _torch()
    data, f, a = np.array([1.0, 2.0, 4.0]), np.array([1, 2, 1], np.int32), np.float32([1, 3, 2])
    weights = tg.tensor(a, requires_grad=True)
    tw = torch.tensor(a, requires_grad=True)
    tg.tensor(data).cov(fweights=tg.tensor(f), aweights=weights).backward()
    torch.cov(torch.tensor(data), fweights=torch.tensor(f), aweights=tw).backward()
    assert weights.grad.dtype == tg.float32
    np.testing.assert_allclose(weights.grad.numpy(), tw.grad.numpy(), rtol=1e-6)


def test_cov_and_corrcoef_edges_and_errors():
    torch = _torch()
    ints = [[1, 2, 4], [0, 1, 5]]  # (in the default dtype, float32)
    _same(tg.tensor(ints).cov(), torch.tensor(ints).cov(), rtol=1e-6)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert np.isnan(tg.tensor([1.0]).cov().item())
    with pytest.raises(ValueError, match="two or fewer dimensions"):
        tg.ones(2, 2, 2).cov()
    with pytest.raises(TypeError, match="integral dtype"):
        tg.tensor([1.0, 2.0]).cov(fweights=tg.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="floating point dtype"):
        tg.tensor([1.0, 2.0]).cov(aweights=tg.tensor([1, 2]))
    with pytest.raises(ValueError, match="cannot be negative"):
        tg.tensor([1.0, 2.0]).cov(fweights=tg.tensor([1, -2]))
    with pytest.raises(ValueError, match="same numel"):
        tg.tensor([1.0, 2.0]).cov(fweights=tg.tensor([1]))
    data = RNG.standard_normal((3, 5))
    x, t = tg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    _same(x.corrcoef(), torch.corrcoef(t))
    x.corrcoef().sum().backward()
    torch.corrcoef(t).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a constant variable: NaN, without NumPy's warning)
        one = tg.tensor([2.0, 2.0]).corrcoef()
    assert np.isnan(one.item()) == bool(torch.isnan(torch.tensor([2.0, 2.0]).corrcoef()))
    assert tg.corrcoef(tg.tensor([1.0, 2.0, 4.0])).item() == 1.0


# ---- trapezoid ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid_matches_torch(name):
    torch = _torch()
    y = RNG.standard_normal((3, 4))
    points = np.sort(RNG.standard_normal(4))
    grid = np.sort(RNG.standard_normal((3, 4)), axis=1)
    calls = [((), {}), ((), {"dx": 0.5}), ((points,), {}), ((grid,), {}), ((), {"dim": 0})]
    for args, kwargs in calls:
        ys, ts = tg.tensor(y, requires_grad=True), torch.tensor(y, requires_grad=True)
        xs = [tg.tensor(a, requires_grad=True) for a in args]
        txs = [torch.tensor(a, requires_grad=True) for a in args]
        mine, theirs = (
            getattr(tg, name)(ys, *xs, **kwargs),
            getattr(torch, name)(ts, *txs, **kwargs),
        )
        _same(mine, theirs)
        mine.sum().backward()
        theirs.sum().backward()
        np.testing.assert_allclose(ys.grad.numpy(), ts.grad.numpy(), atol=1e-12)
        for a, b in zip(xs, txs):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=1e-12)
    assert gradgradcheck(
        lambda a, b: getattr(tg, name)(a, b),
        (tg.tensor(y, requires_grad=True), tg.tensor(grid, requires_grad=True)),
    )


def test_trapezoid_edges_and_errors():
    torch = _torch()
    _same(tg.trapezoid(tg.tensor([1, 2, 4])), torch.trapezoid(torch.tensor([1, 2, 4])))
    _same(tg.trapezoid(tg.ones(2, 0)), torch.trapezoid(torch.ones(2, 0)))
    _same(
        tg.cumulative_trapezoid(tg.tensor([1.0])), torch.cumulative_trapezoid(torch.tensor([1.0]))
    )
    with pytest.raises(ValueError, match="one `x` value for each sample point"):
        tg.trapezoid(tg.tensor([1.0, 2.0, 4.0]), tg.tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="not both"):
        tg.trapezoid(tg.tensor([1.0, 2.0]), tg.tensor([0.0, 1.0]), dx=1.0)
    with pytest.raises(ValueError, match="at least one dimension"):
        tg.trapezoid(tg.tensor(1.0))


def test_nan_reductions_and_counts_under_vmap():
    x = tg.tensor([[3.0, NAN, 2.0], [0.0, 5.0, 0.0]])
    for fn in (lambda v: v.nansum(), lambda v: v.nanmean(), lambda v: v.count_nonzero()):
        batched = tg.vmap(fn)(x)
        one_by_one = tg.stack([fn(row) for row in x])
        assert batched.dtype == one_by_one.dtype
        np.testing.assert_array_equal(batched.numpy(), one_by_one.numpy())
    with pytest.raises((TypeError, IndexError, RuntimeError), match="vmap"):
        tg.vmap(lambda v: v.median())(x)  # (positions found in NumPy: a clear refusal)
