"""Order statistics: median and nanmedian, kthvalue, mode, quantile and nanquantile, msort, the
running extremes cummax and cummin, aminmax, and logcumsumexp, as PyTorch defines them.

Layer L3: numpy, the storage base, record.py's wrap, coerce.py and the indexing room's
`along_axis`. Every value is a composition of recorded ops: the positions are found in NumPy (off
the tape) and the values picked there from the input, so the gradient goes to the chosen element
as PyTorch's does; without a dim, median and nanmedian share it among the elements equal to the
result (PyTorch's rule there too). Positions are those of a stable sort (NaN the largest): among
equal values the first in the input's order, as PyTorch's CPU kernels give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast, overload

import numpy as np

from ..primitives import shape as S
from .base import TensorBase
from .coerce import one_dim
from .elementwise import where
from .indexing import along_axis
from .record import apply, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


class _ValuesIndices(NamedTuple):
    values: Tensor
    indices: Tensor


class MedianResult(NamedTuple):
    """What median gives: the named tuple (values, indices), as torch.return_types.median."""

    values: Tensor
    indices: Tensor


class NanmedianResult(NamedTuple):
    """What nanmedian gives: the named tuple (values, indices), as torch.return_types.nanmedian."""

    values: Tensor
    indices: Tensor


class KthvalueResult(NamedTuple):
    """What kthvalue gives: the named tuple (values, indices), as torch.return_types.kthvalue."""

    values: Tensor
    indices: Tensor


class ModeResult(NamedTuple):
    """What mode gives: the named tuple (values, indices), as torch.return_types.mode."""

    values: Tensor
    indices: Tensor


class CummaxResult(NamedTuple):
    """What cummax gives: the named tuple (values, indices), as torch.return_types.cummax."""

    values: Tensor
    indices: Tensor


class CumminResult(NamedTuple):
    """What cummin gives: the named tuple (values, indices), as torch.return_types.cummin."""

    values: Tensor
    indices: Tensor


class AminmaxResult(NamedTuple):
    """What aminmax gives: the named tuple (min, max), as torch.return_types.aminmax."""

    min: Tensor
    max: Tensor


for _result in (
    MedianResult,
    NanmedianResult,
    KthvalueResult,
    ModeResult,
    CummaxResult,
    CumminResult,
    AminmaxResult,
):  # (their repr: `median(values=..., ...)`)
    _result.__name__ = _result.__qualname__ = _result.__name__.removesuffix("Result").lower()

LOGCUMSUMEXP_BLOCK = 128  # (entries per block of logcumsumexp: its memory is n * this)
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _int64(a: Any) -> Tensor:
    """Positions as an int64 tensor (off the tape)."""
    return wrap(np.asarray(a, dtype=np.int64))


def _pick(x: Tensor, positions: np.ndarray, axis: int, keepdim: bool) -> _ValuesIndices:
    """(values, indices): x's elements at `positions` (one per line along axis, kept as size 1),
    on the tape, so the gradient goes to them."""
    values = x[along_axis(positions, axis)]
    if not keepdim:
        values, positions = values.squeeze(axis), np.squeeze(positions, axis)
    return _ValuesIndices(values, _int64(positions))


def _axis(x: TensorBase, dim: Any, name: str) -> int:
    """The one axis `name` works along, checked non-empty (PyTorch's IndexError otherwise)."""
    axis = one_dim(dim, max(x.ndim, 1), name)
    if x.ndim and x.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    return axis


def _sorted_positions(data: np.ndarray, axis: int) -> np.ndarray:
    """The positions that sort each line stably (NaN last, as PyTorch)."""
    return np.argsort(data, axis=axis, kind="stable")


def _share_among_equal(x: Tensor, value: np.ndarray) -> Tensor:
    """`value` (one of x's elements) as a 0-d tensor whose gradient the elements of x equal to it
    share evenly (PyTorch's rule for median() without a dim): the max of those elements."""
    same = np.isnan(x._data) if np.isnan(value) else x._data == value
    return x[wrap(same)].amax()


def _check_float(x: TensorBase, name: str) -> None:
    if x._data.dtype.kind != "f":
        raise TypeError(
            f"{name}() input tensor must be either float or double dtype, got {x._data.dtype}; "
            f"convert it first (.float() or .double())"
        )


class OrderStatisticsMixin(TensorBase):
    """The order-statistics methods of Tensor."""

    __slots__ = ()

    # ---- medians and the k-th smallest ---------------------------------------------------------
    @overload
    def median(self, dim: None = None, keepdim: bool = False) -> Tensor: ...
    @overload
    def median(self, dim: int, keepdim: bool = False) -> MedianResult: ...
    def median(self, dim: int | None = None, keepdim: bool = False) -> Tensor | MedianResult:
        """The lower median (of the flattened tensor: a 0-d tensor, NaN if any value is NaN); with
        a dim, the named tuple (values, indices) along it.

        >>> x = tg.tensor([[1.0, 4.0, 2.0, 3.0]]); x.median(), x.median(1).indices
        (tensor(2.), tensor([2]))
        """
        return self._median(dim, keepdim, ignore_nan=False)

    @overload
    def nanmedian(self, dim: None = None, keepdim: bool = False) -> Tensor: ...
    @overload
    def nanmedian(self, dim: int, keepdim: bool = False) -> NanmedianResult: ...
    def nanmedian(self, dim: int | None = None, keepdim: bool = False) -> Tensor | NanmedianResult:
        """median ignoring NaN (NaN only where every value is NaN).

        >>> tg.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian()
        tensor(2.)
        """
        return self._median(dim, keepdim, ignore_nan=True)

    def _median(self, dim: int | None, keepdim: bool, ignore_nan: bool) -> Any:
        """median and nanmedian: the ((valid - 1) // 2)-th of each line sorted (NaN last), where
        valid counts the non-NaN values (nanmedian) or all of them; a line with a NaN is NaN,
        at its first NaN (median)."""
        x = cast("Tensor", self)
        name = "nanmedian" if ignore_nan else "median"
        if dim is None:
            data = x._data.reshape(-1)
            if data.size == 0:
                return wrap(np.full((), np.nan, dtype=data.dtype))
            order = _sorted_positions(data, 0)
            nans = int(np.isnan(data).sum()) if data.dtype.kind == "f" else 0
            valid = data.size - nans if ignore_nan else data.size
            k = max(valid - 1, 0) // 2 if (ignore_nan or not nans) else data.size - nans
            return _share_among_equal(x, data[order[k]])
        axis = _axis(x, dim, name)
        result = MedianResult if not ignore_nan else NanmedianResult
        if x.ndim == 0:
            return result(x.clone(), _int64(0))
        order = _sorted_positions(x._data, axis)
        n = x.shape[axis]
        nan_count: Any = np.isnan(x._data).sum(axis, keepdims=True) if x.dtype.kind == "f" else 0
        if ignore_nan:
            kth = np.maximum(n - nan_count - 1, 0) // 2
        else:  # (stably sorted, a line's first NaN is at n - nan_count)
            kth = np.where(nan_count > 0, n - nan_count, (n - 1) // 2)
        positions = np.take_along_axis(order, np.broadcast_to(kth, _kept(x.shape, axis)), axis)
        return result(*_pick(x, positions, axis, keepdim))

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False) -> KthvalueResult:
        """The named tuple (values, indices) of the k-th smallest element (k from 1) along dim.

        >>> tg.tensor([3.0, 1.0, 2.0]).kthvalue(2)
        kthvalue(values=tensor(2.), indices=tensor(2))
        """
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise TypeError(f"kthvalue(): k must be an int, got {k!r}")
        x = cast("Tensor", self)
        axis = _axis(x, dim, "kthvalue")
        n = x.shape[axis] if x.ndim else 1
        if not 1 <= k <= n:
            raise ValueError(
                f"kthvalue(): selected number k={k} out of range for dimension {axis}, which has "
                f"{n} element(s); k counts from 1"
            )
        if x.ndim == 0:
            return KthvalueResult(x.clone(), _int64(0))
        positions = np.take(_sorted_positions(x._data, axis), [k - 1], axis=axis)
        return KthvalueResult(*_pick(x, positions, axis, keepdim))

    def mode(self, dim: int = -1, keepdim: bool = False) -> ModeResult:
        """The named tuple (values, indices) of the most frequent value along dim (the smallest
        among equally frequent ones) and its last position, as PyTorch.

        >>> tg.tensor([2.0, 1.0, 2.0, 1.0, 3.0]).mode()
        mode(values=tensor(1.), indices=tensor(3))
        """
        x = cast("Tensor", self)
        axis = _axis(x, dim, "mode")
        if x.ndim == 0:
            return ModeResult(x.clone(), _int64(0))
        lines = np.moveaxis(x._data, axis, -1)
        flat = lines.reshape(-1, lines.shape[-1])
        n = flat.shape[1]
        last = np.empty(flat.shape[0], dtype=np.int64)
        for row, line in enumerate(flat):  # (np.unique: counts, smallest first; NaNs apart)
            values, counts = np.unique(line, return_counts=True, equal_nan=False)
            winner = values[np.argmax(counts)]
            hits = np.isnan(line) if np.isnan(winner) else line == winner
            last[row] = n - 1 - int(np.argmax(hits[::-1]))
        positions = np.expand_dims(last.reshape(lines.shape[:-1]), axis)
        return ModeResult(*_pick(x, positions, axis, keepdim))

    def msort(self) -> Tensor:
        """The values sorted along the first dimension (torch.msort: sort(0).values).

        >>> tg.tensor([[2.0, 1.0], [1.0, 3.0]]).msort()
        tensor([[1., 1.],
                [2., 3.]])
        """
        return cast("Tensor", self).sort(0).values

    # ---- extremes ------------------------------------------------------------------------------
    def aminmax(self, *, dim: int | None = None, keepdim: bool = False) -> AminmaxResult:
        """The named tuple (min, max) over dim (all elements by default); ties share the gradient,
        as amin and amax.

        >>> tg.tensor([[1.0, 5.0], [7.0, 2.0]]).aminmax(dim=1)
        aminmax(min=tensor([1., 2.]), max=tensor([5., 7.]))
        """
        x = cast("Tensor", self)
        axis = None if dim is None or x.ndim == 0 else one_dim(dim, x.ndim, "aminmax")
        if x._data.size == 0 and (axis is None or x.shape[axis] == 0):
            raise ValueError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                "identity"
            )
        if dim is None:
            low, high = x.amin(), x.amax()
            if keepdim:
                low, high = low.reshape((1,) * x.ndim), high.reshape((1,) * x.ndim)
            return AminmaxResult(low, high)
        if dim is not None and x.ndim == 0:
            one_dim(dim, 1, "aminmax")  # (a 0-d tensor takes dim 0 or -1)
        return AminmaxResult(x.amin(axis, keepdim), x.amax(axis, keepdim))

    def cummax(self, dim: int) -> CummaxResult:
        """The named tuple (values, indices) of the running maximum along dim (indices: where each
        value is, the latest among equal ones; a NaN stays, as PyTorch).

        >>> tg.tensor([1.0, 3.0, 2.0, 3.0]).cummax(0)
        cummax(values=tensor([1., 3., 3., 3.]), indices=tensor([0, 1, 1, 3]))
        """
        return CummaxResult(*self._running_extreme(dim, np.greater_equal, "cummax"))

    def cummin(self, dim: int) -> CumminResult:
        """The named tuple (values, indices) of the running minimum along dim (as cummax).

        >>> tg.tensor([3.0, 1.0, 2.0]).cummin(0)
        cummin(values=tensor([3., 1., 1.]), indices=tensor([0, 1, 1]))
        """
        return CumminResult(*self._running_extreme(dim, np.less_equal, "cummin"))

    def _running_extreme(self, dim: int, better: Any, name: str) -> _ValuesIndices:
        """cummax/cummin: walk along the axis keeping the best so far (`better`, or a NaN) and
        where it is; the values are picked there from the input (the gradient goes there)."""
        x = cast("Tensor", self)
        axis = one_dim(dim, max(x.ndim, 1), name)
        if x.ndim == 0:
            values, indices = x.reshape(1)._running_extreme(0, better, name)
            return _ValuesIndices(values.reshape(()), indices.reshape(()))
        data = np.moveaxis(x._data, axis, 0)
        positions = np.zeros(data.shape, dtype=np.int64)
        best = data[0] if len(data) else None
        for i in range(1, len(data)):  # (n steps, each over all the lines at once)
            take = better(data[i], best)
            if data.dtype.kind == "f":
                take |= np.isnan(data[i])
            best = np.where(take, data[i], best)
            positions[i] = np.where(take, i, positions[i - 1])
        return _pick(x, np.moveaxis(positions, 0, axis), axis, True)

    def logcumsumexp(self, dim: int) -> Tensor:
        """log(cumsum(exp(self))) along dim, computed stably (each entry a logsumexp of the ones up
        to it: no overflow, no underflow to -inf).

        >>> tg.tensor([0.0, 0.0, 0.0]).logcumsumexp(0)
        tensor([0.0000, 0.6931, 1.0986])
        """
        x = cast("Tensor", self)
        if x._data.dtype.kind != "f":
            raise TypeError(
                f"logcumsumexp needs a floating-point tensor, got {x._data.dtype}; convert it "
                f"first (.float() or .double())"
            )
        axis = one_dim(dim, max(x.ndim, 1), "logcumsumexp")
        if x.ndim == 0 or x.shape[axis] == 0:
            return x * 1
        # in blocks of LOGCUMSUMEXP_BLOCK entries: in a block, entry j is the logsumexp of the
        # block with the entries after j set to -inf (a block x block intermediate, the
        # logsumexp's stable rule); then logaddexp with the previous block's last entry. Memory
        # O(n * block), not O(n^2); gradients of every order come with the ops
        lines = x.movedim(axis, -1)
        n, minus_inf = lines.shape[-1], np.asarray(-np.inf, x._data.dtype)
        parts: list[Tensor] = []
        for start in range(0, n, LOGCUMSUMEXP_BLOCK):
            block = lines[..., start : start + LOGCUMSUMEXP_BLOCK]
            upto = np.tril(np.ones((block.shape[-1],) * 2, dtype=bool))  # (row j: entries <= j)
            part = where(upto, block.unsqueeze(-2), minus_inf).logsumexp(-1)
            if parts:
                part = part.logaddexp(parts[-1][..., -1:])
            parts.append(part)
        out = parts[0] if len(parts) == 1 else _concatenate(parts, lines.ndim - 1)
        return out.movedim(-1, axis)

    # ---- quantiles -----------------------------------------------------------------------------
    def quantile(
        self,
        q: Any,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
    ) -> Tensor:
        """The q-th quantiles along dim (of the flattened tensor by default), q a number or a 1-D
        tensor in [0, 1] (its values become a new first dimension); between two values by
        `interpolation`: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'. NaN where a line
        has a NaN. The gradient goes to the one or two values interpolated.

        >>> tg.tensor([1.0, 2.0, 4.0]).quantile(0.75)
        tensor(3.)
        """
        return self._quantile(q, dim, keepdim, interpolation, "quantile")

    def nanquantile(
        self,
        q: Any,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
    ) -> Tensor:
        """quantile ignoring NaN (NaN only where a line is all NaN).

        >>> tg.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5)
        tensor(2.)
        """
        return self._quantile(q, dim, keepdim, interpolation, "nanquantile")

    def _quantile(self, q: Any, dim: Any, keepdim: bool, interpolation: str, name: str) -> Tensor:
        """quantile and nanquantile: each line sorted (NaN last), the rank q * (valid - 1) taken
        between the values below and above it (valid: the non-NaN count for nanquantile; for
        quantile all of them, and a line with a NaN takes its last value, a NaN)."""
        x = cast("Tensor", self)
        _check_float(x, name)
        qs = _quantile_levels(q, x._data.dtype, name)
        if interpolation not in INTERPOLATIONS:
            raise ValueError(
                f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                f"nearest, but got {interpolation!r}"
            )
        if x._data.size == 0:
            raise ValueError(f"{name}() input tensor must be non-empty")
        if dim is None:
            lines, axis = x.reshape(-1), 0
        else:
            lines, axis = (x.reshape(1) if x.ndim == 0 else x), one_dim(dim, max(x.ndim, 1), name)
        ordered = lines.sort(axis).values
        data = ordered._data
        n = data.shape[axis]
        nans = np.isnan(data)
        if name == "nanquantile":  # (an all-NaN line: rank 0, its first value, a NaN)
            last = np.maximum(n - 1 - nans.sum(axis, keepdims=True), 0)
            nan_lines = np.zeros(last.shape, dtype=bool)
        else:  # (a line with a NaN: its last value, the NaN, wherever q points)
            last = np.full(_kept(data.shape, axis), n - 1)
            nan_lines = nans.any(axis, keepdims=True)
        last = last.astype(data.dtype)  # (the ranks in x's dtype, as PyTorch computes them)
        # (a q on the tape: the linear weight q * (valid - 1) - below carries its gradient)
        on_tape = isinstance(q, TensorBase) and q.requires_grad and interpolation == "linear"
        outs = []
        for i, level in enumerate(qs.ravel()):
            ranks = np.where(nan_lines, last, level * last)
            q_ranks = cast("Tensor", q).reshape(-1)[i] * last if on_tape else None
            outs.append(_interpolate(ordered, axis, ranks, interpolation, q_ranks))
        out = outs[0] if qs.ndim == 0 else _stack(outs)
        shift = 0 if qs.ndim == 0 else 1
        if dim is None:
            shape = out.shape[:shift] + ((1,) * x.ndim if keepdim else ())
            return out.reshape(shape)
        if not keepdim or x.ndim == 0:
            return out.squeeze(axis + shift)
        return out


def _kept(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    """`shape` with axis reduced to size 1."""
    return shape[:axis] + (1,) + shape[axis + 1 :]


def _quantile_levels(q: Any, dtype: np.dtype, name: str) -> np.ndarray:
    """q as an array of levels in x's dtype: a number, or a 0-d/1-D tensor of x's dtype, in
    [0, 1]."""
    if isinstance(q, TensorBase):
        if q._data.dtype != dtype:
            raise TypeError(
                f"{name}() q tensor must be same dtype as the input tensor, got {q._data.dtype} "
                f"and {dtype}"
            )
        levels = q._data
    elif isinstance(q, bool) or not isinstance(q, int | float | np.integer | np.floating):
        raise TypeError(f"{name}() q must be a number or a tensor, got {q!r}")
    else:
        levels = np.asarray(q, dtype=dtype)
    if levels.ndim > 1:
        raise ValueError(
            f"{name}() q must be a scalar or 1D tensor, got shape {list(levels.shape)}"
        )
    if not np.all((levels >= 0) & (levels <= 1)):
        raise ValueError(f"{name}() q must be in the range [0, 1] but got {levels}")
    return levels


def _interpolate(
    ordered: Tensor, axis: int, ranks: np.ndarray, interpolation: str, q_ranks: Tensor | None
) -> Tensor:
    """The value at the fractional rank `ranks` (one per line, kept as size 1 along axis) of
    sorted lines, as PyTorch interpolates: below + weight * (above - below); `q_ranks`: the ranks
    as a tensor (q * the last rank), when q's gradient is wanted (linear only)."""
    below, above = np.floor(ranks), np.ceil(ranks)
    if interpolation == "lower":
        above = below
    elif interpolation == "higher":
        below = above
    elif interpolation == "nearest":
        below = above = np.round(ranks)  # (half to even, as PyTorch's round)
    low = ordered[along_axis(below.astype(np.int64), axis)]
    if interpolation in ("lower", "higher", "nearest"):
        return low
    high = ordered[along_axis(above.astype(np.int64), axis)]
    weight: Any = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
    nearer_low = weight < 0.5
    if q_ranks is not None:
        weight = q_ranks - below
    # PyTorch's lerp: from the nearer end (the same value to the last bit)
    step = high - low
    return where(nearer_low, low + step * weight, high - step * (1 - weight))


def _stack(parts: list[Tensor]) -> Tensor:
    """Tensors of one shape stacked along a new first axis."""
    return _concatenate([p.unsqueeze(0) for p in parts], 0)


def _concatenate(parts: list[Tensor], axis: int) -> Tensor:
    """Tensors joined along an existing axis (on the tape)."""
    return apply(S.concatenate, *parts, axis=axis, sizes=tuple(p.shape[axis] for p in parts))
