"""Reducing scatters: the values sent to one position combined by a reduction (sum, prod, mean,
amax, amin) with, or without, the value already there: scatter_reduce (positions per element, as
scatter's) and index_reduce (whole slices, as index_add's).

Layer L3: numpy, scatter.py's argument checks, and Tensor ops for the combining, so that each
gradient is theirs: sum and mean through scatter_add; prod, amax and amin through the reduction
over a padded table (one row per position written, one column per value sent there, the rest the
reduction's identity), so prod handles zeros as `prod` does and amax/amin split the gradient
evenly among ties as PyTorch does. The table has (positions written) x (most values sent to one
position) entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..primitives import shape as S
from .base import TensorBase
from .coerce import as_tensor
from .record import apply
from .scatter import check_source, positions, same_dtype, whole_slices
from .writing import unary_

if TYPE_CHECKING:
    from .tensor import Tensor

REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce: str, dtype: np.dtype) -> Any:
    """The value that leaves a reduction unchanged, in dtype (the padded table's filler)."""
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _slots(groups: np.ndarray) -> np.ndarray:
    """Each entry's rank among the earlier entries of its group (0, 1, 2, ... per group)."""
    order = np.argsort(groups, kind="stable")
    ordered = groups[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    run_start = np.repeat(starts, np.diff(np.append(starts, ordered.size)))
    slots = np.empty_like(order)
    slots[order] = np.arange(ordered.size) - run_start
    return slots


def reduce_into(
    x: Tensor, targets: np.ndarray, values: Tensor, reduce: str, include_self: bool
) -> Tensor:
    """x (flattened) with the values sent to each flat position in `targets` combined by reduce
    (with x's own value when include_self); positions sent nothing keep x's value."""
    flat = x.reshape(-1)
    written, group = np.unique(targets, return_inverse=True)
    counts = np.bincount(group, minlength=written.size)
    own = flat[written] if include_self else None  # (recorded: self's gradient flows back)
    if reduce in ("sum", "mean"):
        combined = apply(S.scatter_add, values, shape=(written.size,), index=(group,))
        if own is not None:
            combined, counts = own + combined, counts + 1
        if reduce == "mean":
            divisor = counts.astype(x.dtype)
            floor = x.dtype.kind in "iub"  # (integers: the floored mean, as PyTorch)
            combined = combined // divisor if floor else combined / divisor
    else:
        slots = _slots(group) + 1  # (column 0: self's value)
        filler = _identity(reduce, x.dtype)
        table = np.full((written.size, int(slots.max()) + 1), filler, dtype=x.dtype)
        if own is None and reduce != "prod":
            table[:, 0] = _tied_self(flat._data[written], values._data, group, reduce, filler)
        padded = apply(S.index_put, table, values, index=(group, slots))
        if own is not None:
            padded = apply(S.index_put, padded, own, index=(slice(None), 0))
        combined = getattr(padded, reduce)(1)  # (prod, amax or amin along the row)
    return apply(S.index_put, flat, combined, index=(written,)).reshape(*x.shape)


def _tied_self(
    own: np.ndarray, values: np.ndarray, group: np.ndarray, reduce: str, filler: Any
) -> np.ndarray:
    """Column 0 of amax/amin's table without include_self: self's value (off the tape) where it
    equals the result, else the filler. PyTorch counts such a self among the ties when it splits
    the gradient (the values sent there get 1/(ties + 1) each) though self takes no part."""
    result = np.full(own.shape, filler, dtype=own.dtype)
    (np.maximum if reduce == "amax" else np.minimum).at(result, group, values)
    return np.where(own == result, own, filler)


def _check_reduce(reduce: Any, allowed: tuple, name: str) -> None:
    """reduce one of `allowed` (else PyTorch's error, saying which are)."""
    if reduce not in allowed:
        raise ValueError(f"{name}: reduce must be one of {', '.join(allowed)}, got {reduce!r}")


class ScatterReduceMixin(TensorBase):
    """The reducing scatter methods of Tensor."""

    __slots__ = ()

    def scatter_reduce(
        self, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
    ) -> Tensor:
        """A copy of self where src[i][j] is sent to [index[i][j]][j] (dim=0; and so on) and the
        values sent to one position are combined by reduce ("sum", "prod", "mean", "amax" or
        "amin"), with self's value there too when include_self.

        >>> tg.zeros(2).scatter_reduce(0, tg.tensor([0, 0, 1]), tg.tensor([1.0, 3.0, 2.0]), "amax")
        tensor([3., 2.])
        """
        _check_reduce(reduce, REDUCES, "scatter_reduce")
        if not isinstance(src, TensorBase | np.ndarray):  # (arrays: from the in-place form)
            raise TypeError(f"scatter_reduce: src must be a tensor, got {type(src).__name__}")
        src = as_tensor(src)
        axis, idx = positions(self, dim, index, "scatter_reduce")
        same_dtype(self, src, "scatter_reduce")
        if src.ndim != idx.ndim or any(n > m for n, m in zip(idx.shape, src.shape)):
            raise ValueError(
                f"scatter_reduce: src of shape {list(src.shape)} must have index's number of "
                f"dimensions and be at least as large as index (shape {list(idx.shape)}) in each"
            )
        x = cast("Tensor", self)
        if idx.size == 0:
            return x.clone()
        values = cast("Tensor", src)[tuple(slice(0, n) for n in idx.shape)].reshape(-1)
        if self.ndim == 0:
            targets = np.zeros(idx.size, dtype=np.int64)
        else:
            coords: list[np.ndarray] = list(np.indices(idx.shape))
            coords[axis] = idx % self.shape[axis]
            targets = np.ravel_multi_index(tuple(coords), self.shape).reshape(-1)
        return reduce_into(x, targets, values, reduce, include_self)

    def index_reduce(
        self, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True
    ) -> Tensor:
        """A copy of self where source's slices along dim are sent to the slices `index` names
        and combined by reduce ("prod", "mean", "amax" or "amin"), with self's slice too when
        include_self.

        >>> tg.ones(2).index_reduce(0, tg.tensor([0, 0]), tg.tensor([2.0, 3.0]), "prod")
        tensor([6., 1.])
        """
        _check_reduce(reduce, REDUCES[1:], "index_reduce")
        axis, where = whole_slices(self, dim, index, "index_reduce")
        picked = where[-1]
        count = int(picked.sum()) if picked.dtype.kind == "b" else picked.size
        src = check_source(self, source, axis, count, "index_reduce")
        x = cast("Tensor", self)
        if self.ndim == 0:
            return x.scatter_reduce(
                0, np.zeros(src.shape, np.int64), src, reduce, include_self=include_self
            )
        shape = [1] * self.ndim
        shape[axis] = count
        per_element = np.broadcast_to(picked.reshape(shape), src.shape)
        return x.scatter_reduce(axis, per_element, src, reduce, include_self=include_self)

    # ---- in place -----------------------------------------------------------------------------
    def scatter_reduce_(
        self, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
    ) -> Tensor:
        """scatter_reduce in place.

        >>> x = tg.ones(2); x.scatter_reduce_(0, tg.tensor([1, 1]), tg.tensor([2.0, 3.0]), "sum")
        tensor([1., 6.])
        """
        return unary_(
            self,
            "scatter_reduce_",
            lambda old, s: as_tensor(old).scatter_reduce(
                dim, index, s, reduce, include_self=include_self
            ),
            src,
        )

    def index_reduce_(
        self, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True
    ) -> Tensor:
        """index_reduce in place.

        >>> x = tg.ones(2); x.index_reduce_(0, tg.tensor([1]), tg.tensor([5.0]), "amax")
        tensor([1., 5.])
        """
        return unary_(
            self,
            "index_reduce_",
            lambda old, s: as_tensor(old).index_reduce(
                dim, index, s, reduce, include_self=include_self
            ),
            source,
        )
