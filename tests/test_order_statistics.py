"""Order statistics (tensor/order_statistics.py): median and nanmedian, kthvalue, mode, msort,
quantile and nanquantile, cummax and cummin, aminmax and logcumsumexp.

Values are picked from the input by positions found off the tape, so gradients go to the chosen
elements (shared by the equal ones for median without a dim): checked by finite differences
(second order where smooth), by closed forms, and against torch (float64) where it is installed,
result structure (named tuples, dtypes) too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)
NAN = float("nan")


def _torch():
    return pytest.importorskip("torch")


def _both(name: str, data: np.ndarray, *args, method: bool = True, **kwargs):
    """(tapegrad's result, torch's, tapegrad's input, torch's input) of x.<name>(*args)."""
    torch = _torch()
    x, t = tg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    if method:
        return getattr(x, name)(*args, **kwargs), getattr(t, name)(*args, **kwargs), x, t
    return getattr(tg, name)(x, *args, **kwargs), getattr(torch, name)(t, *args, **kwargs), x, t


def _same(mine, theirs) -> None:
    """The same values, shape and dtype (NaN equal to NaN)."""
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


# ---- (values, indices) named tuples --------------------------------------------------------------
PAIRS = [
    ("median", (1,), {}),
    ("median", (0,), {"keepdim": True}),
    ("nanmedian", (1,), {}),
    ("kthvalue", (2,), {}),
    ("kthvalue", (3, 0, True), {}),
    ("mode", (), {}),
    ("mode", (0,), {}),
    ("cummax", (1,), {}),
    ("cummin", (0,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", PAIRS)
def test_named_pairs_match_torch(name, args, kwargs):
    data = RNG.integers(0, 3, size=(4, 5)).astype(np.float64)  # (ties: their indices too)
    data[1, 2] = NAN if name != "mode" else data[1, 2]
    mine, theirs, x, t = _both(name, data, *args, **kwargs)
    assert type(mine).__name__ == name and mine._fields == ("values", "indices")
    _same(mine.values, theirs.values)
    if name not in ("kthvalue", "mode"):  # (theirs order ties unspecified: checked below)
        _same(mine.indices, theirs.indices)
    axis = (args[1] if len(args) > 1 else -1) if name == "kthvalue" else (args or (-1,))[0]
    indices = mine.indices.numpy()
    indices = indices if indices.ndim == data.ndim else np.expand_dims(indices, axis)
    picked = np.take_along_axis(data, indices, axis=axis)  # (the indices name the values)
    np.testing.assert_array_equal(picked.reshape(mine.values.shape), mine.values.detach().numpy())
    mine.values.sum().backward()
    theirs.values.sum().backward()
    if name in ("median", "nanmedian", "cummax", "cummin"):
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy().sum(), t.grad.numpy().sum())


def test_median_without_dim_is_the_lower_median_sharing_its_gradient():
    torch = _torch()
    data = np.array([3.0, 1.0, 2.0, 2.0, 5.0, 0.0])
    x, t = tg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    m, tm = x.median(), t.median()
    assert m.shape == () and m.item() == tm.item() == 2.0  # (lower of 2 and 2... and 3)
    m.backward()
    tm.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0.5, 0.5, 0, 0])
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    assert math.isnan(tg.tensor([1.0, NAN, 0.0]).median().item())
    assert tg.tensor([1.0, NAN, 0.0, 4.0]).nanmedian().item() == 1.0
    assert math.isnan(tg.tensor([NAN, NAN]).nanmedian().item())
    assert math.isnan(tg.tensor([]).median().item())
    assert tg.median(tg.tensor([4, 1, 3, 2])).dtype == tg.int64


def test_median_of_all_nan_line_and_of_0d():
    torch = _torch()
    data = np.array([[NAN, NAN, NAN], [1.0, NAN, 0.0]])
    for name in ("median", "nanmedian"):
        mine, theirs, _, _ = _both(name, data, 1)
        _same(mine.values, theirs.values)
        _same(mine.indices, theirs.indices)
    one = tg.tensor(3.0, requires_grad=True).median(0)
    assert one.values.item() == 3.0 and one.indices.item() == 0
    assert one.values.shape == torch.tensor(3.0).median(0).values.shape


def test_order_statistics_gradcheck():
    data = RNG.standard_normal((3, 5))  # (distinct: the picks are locally constant)
    cases = [
        lambda x: x.median(),
        lambda x: x.median(1).values,
        lambda x: x.nanmedian(0, keepdim=True).values,
        lambda x: x.kthvalue(2, 1).values,
        lambda x: x.cummax(1).values,
        lambda x: x.cummin(0).values,
        lambda x: x.msort(),
        lambda x: tg.stack(list(x.aminmax(dim=0))),
        lambda x: x.logcumsumexp(1),
        lambda x: x.quantile(0.3, dim=1),
        lambda x: x.nanquantile(0.7),
        lambda x: x.quantile(tg.tensor([0.25, 0.5], dtype=tg.float64), 0, interpolation="midpoint"),
    ]
    for fn in cases:
        x = tg.tensor(data, requires_grad=True)
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_kthvalue_and_mode_values_and_errors():
    x = tg.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])
    assert x.kthvalue(1).values.tolist() == [1.0, 0.0]
    assert x.kthvalue(3, 1).indices.tolist() == [0, 1]
    assert tg.kthvalue(x, 2, 0, keepdim=True).values.shape == (1, 3)
    with pytest.raises(ValueError, match="k=4 out of range"):
        x.kthvalue(4)
    with pytest.raises(ValueError, match="k=0 out of range"):
        x.kthvalue(0)
    with pytest.raises(TypeError, match="k must be an int"):
        x.kthvalue(1.5)  # type: ignore[arg-type]
    m = tg.tensor([2, 1, 2, 1, 3]).mode()
    assert (m.values.item(), m.indices.item()) == (1, 3)  # (the smallest of the most frequent)
    with pytest.raises(IndexError, match="non-zero size"):
        tg.zeros(2, 0).mode()
    with pytest.raises(IndexError, match="non-zero size"):
        tg.zeros(2, 0).median(1)


def test_cummax_keeps_nan_and_latest_ties_as_torch():
    data = np.array([1.0, 3.0, 3.0, NAN, 2.0, NAN])
    for name in ("cummax", "cummin"):
        mine, theirs, _, _ = _both(name, data, 0)
        _same(mine.values, theirs.values)
        _same(mine.indices, theirs.indices)
    b = tg.tensor(True).cummax(0)
    assert b.values.dtype == tg.bool_ and b.indices.dtype == tg.int64
    ints = tg.tensor([[2, 5, 1]]).cummin(1)
    assert ints.values.tolist() == [[2, 2, 1]] and ints.indices.tolist() == [[0, 0, 2]]


def test_aminmax():
    torch = _torch()
    data = RNG.standard_normal((3, 4))
    for kwargs in ({}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"keepdim": True}):
        mine, theirs, x, t = _both("aminmax", data, **kwargs)
        assert type(mine).__name__ == "aminmax" and mine._fields == ("min", "max")
        _same(mine.min, theirs.min)
        _same(mine.max, theirs.max)
        (mine.min + 2 * mine.max).sum().backward()
        (theirs.min + 2 * theirs.max).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    with pytest.raises(ValueError, match="empty dimension"):
        tg.zeros(0).aminmax()
    assert tg.zeros(0, 3).aminmax(dim=1).min.shape == torch.zeros(0, 3).aminmax(dim=1).min.shape


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (None, True), (0, False), (-1, True)])
def test_quantile_matches_torch(interpolation, dim, keepdim):
    torch = _torch()
    data = RNG.standard_normal((4, 6))
    data[2, 3] = NAN
    levels = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    for name in ("quantile", "nanquantile"):
        for q in (0.4, levels):
            x, t = tg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
            qx = q if isinstance(q, float) else tg.tensor(q)
            qt = q if isinstance(q, float) else torch.tensor(q)
            kw = {"dim": dim, "keepdim": keepdim, "interpolation": interpolation}
            mine, theirs = getattr(x, name)(qx, **kw), getattr(torch, name)(t, qt, **kw)
            np.testing.assert_allclose(
                mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-14, equal_nan=True
            )
            assert mine.shape == tuple(theirs.shape)
            finite = torch.nan_to_num(theirs.detach(), 0.0).numpy()
            (mine * tg.tensor(finite)).nan_to_num(0.0).sum().backward()
            (theirs * torch.tensor(finite)).nan_to_num(0.0).sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-14)


def test_quantile_gradient_reaches_q():
    torch = _torch()
    data = np.array([1.0, 2.0, 4.0, 8.0])
    q = np.array([0.3, 0.5])
    qx, qt = tg.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    tg.tensor(data).quantile(qx).sum().backward()
    torch.tensor(data).quantile(qt).sum().backward()
    np.testing.assert_allclose(qx.grad.numpy(), qt.grad.numpy())  # (3 * the step: 3, 6)
    x = tg.tensor(data)
    assert gradgradcheck(lambda level: x.quantile(level), (tg.tensor(q, requires_grad=True),))


def test_quantile_errors():
    x = tg.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        x.quantile(1.5)
    with pytest.raises(TypeError, match="same dtype"):
        x.quantile(tg.tensor([0.5], dtype=tg.float64))
    with pytest.raises(ValueError, match="scalar or 1D"):
        x.quantile(tg.tensor([[0.5]]))
    with pytest.raises(ValueError, match="interpolation must be one of"):
        x.quantile(0.5, interpolation="cubic")
    with pytest.raises(ValueError, match="non-empty"):
        tg.tensor([]).quantile(0.5)
    with pytest.raises(TypeError, match="float or double"):
        tg.tensor([1, 2]).nanquantile(0.5)


def test_logcumsumexp_is_stable_and_matches_torch():
    data = np.array([[-1000.0, 0.0, 1000.0, -np.inf], [0.5, -np.inf, 2.0, 3.0]])
    mine, theirs, x, t = _both("logcumsumexp", data, 1)
    _same(mine, theirs)
    assert mine[0, 0].item() == -1000.0  # (no underflow to -inf)
    mine.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    data = RNG.standard_normal((3, 4))
    mine, theirs, _, _ = _both("logcumsumexp", data, 0)
    _same(mine, theirs)
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([1, 2]).logcumsumexp(0)


def test_free_functions_are_the_methods():
    x = tg.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert tg.median(x, 1).values.tolist() == x.median(1).values.tolist() == [2.0, 4.0]
    assert tg.msort(x).tolist() == [[0.0, 1.0, 2.0], [3.0, 5.0, 4.0]]
    assert tg.quantile(x, 0.5).item() == 2.5
    assert tg.cummax(x, 1).values.tolist() == [[3.0, 3.0, 3.0], [0.0, 5.0, 5.0]]
    assert tg.aminmax(x).max.item() == 5.0


def test_order_statistics_refuse_vmap_clearly():
    x = tg.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    for fn in (lambda v: v.median(0).values, lambda v: v.quantile(0.5), lambda v: v.mode().values):
        with pytest.raises((TypeError, IndexError, RuntimeError), match="vmap"):
            tg.vmap(fn)(x)
    batched = tg.vmap(lambda v: v.logcumsumexp(0))(x)  # (a composition of batched ops)
    np.testing.assert_allclose(batched.numpy(), np.logaddexp.accumulate(x.numpy(), axis=1))


@pytest.mark.parametrize("block", [1, 3, 128])
def test_logcumsumexp_in_blocks_matches_torch(monkeypatch, block):
    import sys

    torch = _torch()
    monkeypatch.setattr(
        sys.modules["tapegrad.tensor.order_statistics"], "LOGCUMSUMEXP_BLOCK", block
    )
    data = RNG.standard_normal((2, 300)) * 30
    data[0, :5] = -np.inf  # (their gradient is NaN, as PyTorch's)
    weights = RNG.standard_normal((2, 300))
    with np.errstate(all="ignore"):  # (NumPy's warnings about the -inf entries)
        mine, theirs, x, t = _both("logcumsumexp", data, 1)
        (mine * tg.tensor(weights)).sum().backward()
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-13)
    (theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-12)
    y = tg.tensor(RNG.standard_normal((2, 7)), requires_grad=True)
    assert gradcheck(lambda v: v.logcumsumexp(1), (y,))
    assert gradgradcheck(lambda v: v.logcumsumexp(1), (y,))


def test_mode_counts_each_nan_apart_as_torch():
    torch = _torch()
    data = [NAN, 1.0, 1.0, NAN, NAN]  # (NaN never equals NaN: 1.0 is the most frequent)
    mine, theirs = tg.tensor(data).mode(), torch.tensor(data).mode()
    assert (mine.values.item(), mine.indices.item()) == (
        theirs.values.item(),
        theirs.indices.item(),
    )
