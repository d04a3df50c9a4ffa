"""Comparison, logic and ordering: `<`, `==`, `&`, `~` (bool tensors, off the tape), all/any, and
sort, argsort, topk (the values carry the gradient back to where they came from).

Layer L3: numpy, the storage base, record.py's `wrap`, coerce.py and the indexing room's
`along_axis`. Sorting is stable (equal values keep their order; NaN counts as the largest, as in
PyTorch).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from .._utils import normalize_axis
from .base import TensorBase
from .coerce import TensorLike, one_dim
from .indexing import along_axis
from .record import wrap

if TYPE_CHECKING:
    from .tensor import Tensor


class SortResult(NamedTuple):
    """What sort gives: the named tuple (values, indices), as torch.return_types.sort."""

    values: Tensor
    indices: Tensor


class TopkResult(NamedTuple):
    """What topk gives: the named tuple (values, indices), as torch.return_types.topk."""

    values: Tensor
    indices: Tensor


SortResult.__name__ = SortResult.__qualname__ = "sort"  # (their repr: `sort(values=..., ...)`)
TopkResult.__name__ = TopkResult.__qualname__ = "topk"


def _order(data: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The positions that sort `data` along axis, stably (equal values keep their order; NaN
    counts as the largest, as in PyTorch)."""
    if not descending:
        return np.argsort(data, axis=axis, kind="stable")
    # sort the reversed data ascending, then reverse: descending, and still stable
    rev = np.argsort(np.flip(data, axis), axis=axis, kind="stable")
    return data.shape[axis] - 1 - np.flip(rev, axis)


class ComparisonMixin(TensorBase):
    """The comparison, logical and ordering methods of Tensor."""

    __slots__ = ()

    # ---- comparisons and logic: bool tensors, off the tape --------------------------------------
    def __lt__(self, other: TensorLike) -> Tensor:
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.less(self._data, other))

    def __le__(self, other: TensorLike) -> Tensor:
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.less_equal(self._data, other))

    def __gt__(self, other: TensorLike) -> Tensor:
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.greater(self._data, other))

    def __ge__(self, other: TensorLike) -> Tensor:
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.greater_equal(self._data, other))

    # (elementwise, as in PyTorch and NumPy: not object's bool, hence the ignore)
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.equal(self._data, other))

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.not_equal(self._data, other))

    def __and__(self, other: TensorLike) -> Tensor:
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.logical_and(self._data, other))

    def __or__(self, other: TensorLike) -> Tensor:
        other = other._data if isinstance(other, TensorBase) else other
        return wrap(np.logical_or(self._data, other))

    def __invert__(self) -> Tensor:
        return wrap(~self._data)

    def all(self, axis: Any = None, *, dim: Any = None) -> Tensor:
        """Whether every element is true (over axis).

        >>> tg.tensor([[True, False], [True, True]]).all(1)
        tensor([False,  True])
        """
        return self._logical(np.all, dim if axis is None else axis)

    def any(self, axis: Any = None, *, dim: Any = None) -> Tensor:
        """Whether some element is true (over axis).

        >>> tg.tensor([0.0, 2.0]).any()
        tensor(True)
        """
        return self._logical(np.any, dim if axis is None else axis)

    def _logical(self, pick: Any, axis: Any) -> Tensor:
        """all/any over axes (no gradient)."""
        axes = normalize_axis(axis, self.ndim)
        return wrap(np.asarray(pick(self._data, axis=axes if self.ndim else None)))

    # ---- ordering ------------------------------------------------------------------------------
    def sort(self, dim: int = -1, descending: bool = False, *, stable: bool = False) -> SortResult:
        """The named tuple (values, indices) of the elements sorted along dim; the values carry the
        gradient back to where they came from. (tapegrad's sort is always stable.)

        >>> tg.tensor([3.0, 1.0, 2.0]).sort()
        sort(values=tensor([1., 2., 3.]), indices=tensor([1, 2, 0]))
        """
        x = cast("Tensor", self)
        if x.ndim == 0:
            values, indices = x.reshape(1).sort(0, descending)
            return SortResult(values.reshape(()), indices.reshape(()))
        axis = one_dim(dim, x.ndim, "sort")
        order = _order(x._data, axis, descending)
        return SortResult(x[along_axis(order, axis)], _int64(order))

    def argsort(self, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
        """The positions that sort the tensor along dim (an int64 tensor).

        >>> tg.tensor([3.0, 1.0, 2.0]).argsort()
        tensor([1, 2, 0])
        """
        if self.ndim == 0:
            return _int64(np.zeros((), np.int64))
        return _int64(_order(self._data, one_dim(dim, self.ndim, "argsort"), descending))

    def topk(
        self, k: int, dim: int | None = None, largest: bool = True, sorted: bool = True
    ) -> TopkResult:
        """The named tuple (values, indices) of the k largest (largest=False: smallest) elements
        along dim (the last by default), largest first; gradients go back to the picked positions.

        >>> tg.tensor([1.0, 3.0, 2.0]).topk(2)
        topk(values=tensor([3., 2.]), indices=tensor([1, 2]))
        """
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise TypeError(f"topk: k must be an int, got {k!r}")
        x = cast("Tensor", self)
        x = x.reshape(1) if x.ndim == 0 else x
        axis = one_dim(-1 if dim is None else dim, x.ndim, "topk")
        n = x.shape[axis]
        if not 0 <= k <= n:
            raise ValueError(
                f"topk: k={k} is out of range: dimension {axis} has {n} element(s); k must be in "
                f"0..{n}"
            )
        order = _order(x._data, axis, descending=largest)
        picked = np.take(order, np.arange(k), axis=axis)
        values, indices = x[along_axis(picked, axis)], _int64(picked)
        if self.ndim == 0:
            values, indices = values.reshape(()), indices.reshape(())
        return TopkResult(values, indices)


def _int64(a: np.ndarray) -> Tensor:
    """Positions as an int64 tensor (off the tape)."""
    return wrap(np.asarray(a, dtype=np.int64))
