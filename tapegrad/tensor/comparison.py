"""Comparison and ordering: `<`, `==` and their method names (eq, gt, greater, ...: bool tensors,
off the tape, and their in-place forms eq_, ...), allclose, isnan/isinf/isfinite, all/any,
sort, argsort, topk (the values carry the gradient back to where they came from) and unique (off
the tape). The bitwise and logical operators are the bitwise room's.

Layer L3: numpy, L0 dtypes (two dtypes are compared in PyTorch's common one), the rule table's fill
(eq_ on the tape), the storage base, record.py's apply and wrap, coerce.py, the indexing room's
`along_axis` and writing.py's `unary_` (for eq_, ...). Sorting is stable (equal values keep their
order; NaN counts as the largest, as in PyTorch).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal, NamedTuple, cast, overload

import numpy as np

from .. import dtypes
from .._state import is_grad_enabled
from .._utils import normalize_axis
from ..primitives import elementwise as E
from .base import TensorBase
from .coerce import TensorLike, coerce, one_dim
from .indexing import along_axis
from .writing import unary_
from .record import apply, wrap

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
        return wrap(compared(np.less, self._data, values_of(other)))

    def __le__(self, other: TensorLike) -> Tensor:
        return wrap(compared(np.less_equal, self._data, values_of(other)))

    def __gt__(self, other: TensorLike) -> Tensor:
        return wrap(compared(np.greater, self._data, values_of(other)))

    def __ge__(self, other: TensorLike) -> Tensor:
        return wrap(compared(np.greater_equal, self._data, values_of(other)))

    # (elementwise, as in PyTorch and NumPy: not object's bool, hence the ignore)
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return wrap(compared(np.equal, self._data, values_of(other)))

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return wrap(compared(np.not_equal, self._data, values_of(other)))

    # PyTorch's method names of the comparisons (and their in-place forms, which write 1 or 0 in
    # the tensor's own dtype)
    def eq(self, other: TensorLike) -> Tensor:
        """self == other, elementwise (a bool tensor).

        >>> tg.tensor([1.0, 2.0]).eq(2.0)
        tensor([False,  True])
        """
        return self == other

    def ne(self, other: TensorLike) -> Tensor:
        """self != other, elementwise (a bool tensor).

        >>> tg.tensor([1.0, 2.0]).ne(2.0)
        tensor([ True, False])
        """
        return self != other

    def lt(self, other: TensorLike) -> Tensor:
        """self < other, elementwise (a bool tensor).

        >>> tg.tensor([1.0, 2.0]).lt(2.0)
        tensor([ True, False])
        """
        return self < other

    def le(self, other: TensorLike) -> Tensor:
        """self <= other, elementwise (a bool tensor).

        >>> tg.tensor([1.0, 3.0]).le(2.0)
        tensor([ True, False])
        """
        return self <= other

    def gt(self, other: TensorLike) -> Tensor:
        """self > other, elementwise (a bool tensor).

        >>> tg.tensor([1.0, 3.0]).gt(2.0)
        tensor([False,  True])
        """
        return self > other

    def ge(self, other: TensorLike) -> Tensor:
        """self >= other, elementwise (a bool tensor).

        >>> tg.tensor([1.0, 2.0]).ge(2.0)
        tensor([False,  True])
        """
        return self >= other

    not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge

    def eq_(self, other: TensorLike) -> Tensor:
        """In place: 1 where self == other, else 0 (in self's dtype).

        >>> x = tg.tensor([1.0, 2.0]); x.eq_(2.0)
        tensor([0., 1.])
        """
        return compare_in_place(self, "eq_", np.equal, other)

    def ne_(self, other: TensorLike) -> Tensor:
        """In place: 1 where self != other, else 0 (in self's dtype).

        >>> x = tg.tensor([1.0, 2.0]); x.ne_(2.0)
        tensor([1., 0.])
        """
        return compare_in_place(self, "ne_", np.not_equal, other)

    def lt_(self, other: TensorLike) -> Tensor:
        """In place: 1 where self < other, else 0 (in self's dtype).

        >>> x = tg.tensor([1.0, 2.0]); x.lt_(2.0)
        tensor([1., 0.])
        """
        return compare_in_place(self, "lt_", np.less, other)

    def le_(self, other: TensorLike) -> Tensor:
        """In place: 1 where self <= other, else 0 (in self's dtype).

        >>> x = tg.tensor([1.0, 3.0]); x.le_(2.0)
        tensor([1., 0.])
        """
        return compare_in_place(self, "le_", np.less_equal, other)

    def gt_(self, other: TensorLike) -> Tensor:
        """In place: 1 where self > other, else 0 (in self's dtype).

        >>> x = tg.tensor([1.0, 3.0]); x.gt_(2.0)
        tensor([0., 1.])
        """
        return compare_in_place(self, "gt_", np.greater, other)

    def ge_(self, other: TensorLike) -> Tensor:
        """In place: 1 where self >= other, else 0 (in self's dtype).

        >>> x = tg.tensor([1.0, 2.0]); x.ge_(2.0)
        tensor([0., 1.])
        """
        return compare_in_place(self, "ge_", np.greater_equal, other)

    not_equal_, less_, less_equal_, greater_, greater_equal_ = ne_, lt_, le_, gt_, ge_

    # ---- what kind of number -------------------------------------------------------------------
    def isnan(self) -> Tensor:
        """Whether each element is NaN: a bool tensor.

        >>> tg.tensor([1.0, float("nan")]).isnan()
        tensor([False,  True])
        """
        return wrap(np.isnan(self._data))

    def isinf(self) -> Tensor:
        """Whether each element is +inf or -inf: a bool tensor.

        >>> tg.tensor([1.0, float("-inf")]).isinf()
        tensor([False,  True])
        """
        return wrap(np.isinf(self._data))

    def isfinite(self) -> Tensor:
        """Whether each element is finite (not inf or NaN): a bool tensor.

        >>> tg.tensor([1.0, float("inf")]).isfinite()
        tensor([ True, False])
        """
        return wrap(np.isfinite(self._data))

    def allclose(
        self, other: TensorLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
    ) -> bool:
        """Whether |self - other| <= atol + rtol * |other| everywhere (NaNs equal if equal_nan).

        >>> tg.tensor([1.0]).allclose(tg.tensor([1.0 + 1e-7]))
        True
        """
        theirs = operand(other)
        return bool(np.allclose(self._data, theirs, rtol=rtol, atol=atol, equal_nan=equal_nan))

    def isclose(
        self, other: TensorLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
    ) -> Tensor:
        """Where |self - other| <= atol + rtol * |other| (bools; NaNs equal if equal_nan).

        >>> tg.tensor([1.0, 2.0]).isclose(tg.tensor([1.0 + 1e-7, 2.1]))
        tensor([ True, False])
        """
        theirs = operand(other)
        return wrap(np.isclose(self._data, theirs, rtol=rtol, atol=atol, equal_nan=equal_nan))

    def equal(self, other: TensorLike) -> bool:
        """Whether other has self's shape and the same values everywhere (NaN never equals).

        >>> tg.tensor([1.0, 2.0]).equal(tg.tensor([1.0, 2.0]))
        True
        """
        theirs = np.asarray(operand(other))
        return self._data.shape == theirs.shape and bool(np.array_equal(self._data, theirs))

    # ---- all and any ---------------------------------------------------------------------------
    def all(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """Whether every element is true (over dim; one int or a tuple), as PyTorch: a bool tensor
        (uint8 for a uint8 tensor).

        >>> tg.tensor([[True, False], [True, True]]).all(1)
        tensor([False,  True])
        """
        return self._logical(np.all, dim if axis is None else axis, keepdim, keepdims)

    def any(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """Whether some element is true (over dim; one int or a tuple), as PyTorch.

        >>> tg.tensor([0.0, 2.0]).any()
        tensor(True)
        """
        return self._logical(np.any, dim if axis is None else axis, keepdim, keepdims)

    def _logical(self, pick: Any, axis: Any, keepdim: bool, keepdims: bool | None) -> Tensor:
        """all/any over axes (no gradient)."""
        keep = bool(keepdim if keepdims is None else keepdims)
        axes = normalize_axis(axis, self.ndim) if self.ndim else None
        result = np.asarray(pick(self._data, axis=axes, keepdims=keep))
        return wrap(result.astype(np.uint8) if self._data.dtype == np.uint8 else result)

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

    @overload
    def unique(
        self,
        sorted: bool = ...,
        return_inverse: Literal[False] = ...,
        return_counts: Literal[False] = ...,
        dim: int | None = ...,
    ) -> Tensor: ...
    @overload
    def unique(
        self,
        sorted: bool = ...,
        return_inverse: bool = ...,
        return_counts: bool = ...,
        dim: int | None = ...,
    ) -> Tensor | tuple[Tensor, ...]: ...
    def unique(
        self,
        sorted: bool = True,
        return_inverse: bool = False,
        return_counts: bool = False,
        dim: int | None = None,
    ) -> Tensor | tuple[Tensor, ...]:
        """The distinct values in ascending order (dim=None: of the flattened tensor; else the
        distinct slices along dim), with where each element went (return_inverse) and how often
        each value occurs (return_counts): a tensor, or a tuple as PyTorch returns.

        >>> tg.tensor([2, 0, 2, 1]).unique(return_counts=True)
        (tensor([0, 1, 2]), tensor([1, 1, 2]))
        """
        if self.requires_grad and is_grad_enabled():  # (PyTorch fails later, at backward)
            raise RuntimeError(
                "unique has no derivative (PyTorch's backward refuses it too); call it on "
                "x.detach(), or inside tg.no_grad()"
            )
        axis = None if dim is None else one_dim(dim, max(self.ndim, 1), "unique")
        data = self._data.reshape(1) if self.ndim == 0 and axis is not None else self._data
        # (np.unique sorts: sorted=False is allowed to sort, as PyTorch's CPU kernel may)
        values, inverse, counts = np.unique(
            data, return_inverse=True, return_counts=True, axis=axis, equal_nan=False
        )
        if axis is None:
            inverse = inverse.reshape(self.shape)
        extra = [_int64(inverse)] if return_inverse else []
        extra += [_int64(counts)] if return_counts else []
        out = wrap(values)
        return (out, *extra) if extra else out


def _int64(a: np.ndarray) -> Tensor:
    """Positions as an int64 tensor (off the tape)."""
    return wrap(np.asarray(a, dtype=np.int64))


# ---- helpers of the in-place comparisons (and of the bitwise room's logical_and_, ...) ---------
def operand(other: Any) -> Any:
    """The values of an operand (a tensor's array; numbers and arrays as coerce makes them)."""
    other = coerce(other)
    return other._data if isinstance(other, TensorBase) else other


def compare_in_place(
    t: TensorBase, name: str, test: Callable[[Any, Any], Any], other: Any
) -> Tensor:
    """In place: t = 1 where test(t, other) holds, else 0, in t's dtype (PyTorch's eq_, ...);
    on the tape the old values get a zero gradient, as there."""
    value = None if other is None else operand(other)
    dtype = t._data.dtype

    def op(old: Any, v: Any) -> Any:
        holds = np.asarray(compared(test, values_of(old), v)).astype(dtype)
        if not isinstance(old, TensorBase):
            return holds
        return apply(E.fill, old, value=0) + holds  # (old: on the tape, a zero gradient)

    return unary_(t, name, op, value)


def compared(test: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """test(a, b) for an array a, as PyTorch compares: beside an array of another dtype both are
    cast to their common dtype first (dtypes.result_dtype: float32 vector == 0-d float64 0.1 is
    compared in float32, so 0.1 equals itself; NumPy would compare in float64). A Python number
    is NumPy 2's weak scalar, which is PyTorch's rule already (an int wrapped into an integer
    array's dtype, as PyTorch casts it)."""
    if isinstance(b, np.generic):  # (a NumPy scalar is a Python number to PyTorch: weak)
        b = b.item()
    if b.__class__ is np.ndarray and a.dtype is not b.dtype and a.__class__ is np.ndarray:
        common = dtypes.arrays_dtype(a, b)
        a, b = a.astype(common, copy=False), b.astype(common, copy=False)
    elif b.__class__ is int and a.__class__ is np.ndarray and a.dtype.kind in "iu":
        b = dtypes.wrapped(b, a.dtype)  # (as PyTorch casts it: uint8 tensor < -2 compares with 254)
    return test(a, b)


def values_of(x: Any) -> Any:
    """The array behind a tensor (anything else as it is)."""
    return x._data if isinstance(x, TensorBase) else x
