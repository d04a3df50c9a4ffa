"""Bits and truth values: `&`, `|`, `^`, `~`, `<<`, `>>` (on integers bit by bit, on bools logical,
as PyTorch; floats refused), their reflected and in-place forms (`1 | t`, `t &= m`: the same
tensor, never rebound), bitwise_and/or/xor/not and the shifts by name, and logical_and/or/xor/not
(any dtype, a bool result). All off the tape: integers and bools have no gradient.

Layer L3: numpy, the storage base, record.py's wrap, coerce.py, writing.py's unary_ (the in-place
forms) and the comparison room's operand helpers (logical_and_ writes 1 or 0 as eq_ does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .base import TensorBase
from .coerce import TensorLike
from .comparison import compare_in_place, operand, values_of
from .record import wrap
from .writing import unary_

if TYPE_CHECKING:
    from .tensor import Tensor


class BitwiseMixin(TensorBase):
    """The bitwise and logical methods and operators of Tensor."""

    __slots__ = ()

    # ---- bitwise (integers) and logical (bools): `&`, `|`, `^`, `~` ----------------------------
    def __and__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.bitwise_and, "&", self, other)

    def __rand__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.bitwise_and, "&", other, self)

    def __or__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.bitwise_or, "|", self, other)

    def __ror__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.bitwise_or, "|", other, self)

    def __xor__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.bitwise_xor, "^", self, other)

    def __rxor__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.bitwise_xor, "^", other, self)

    def __invert__(self) -> Tensor:
        _integers_only("~", self._data)
        return wrap(np.invert(self._data))

    def __iand__(self, other: TensorLike) -> Tensor:
        return _bitwise_(self, "&=", np.bitwise_and, other)

    def __ior__(self, other: TensorLike) -> Tensor:
        return _bitwise_(self, "|=", np.bitwise_or, other)

    def __ixor__(self, other: TensorLike) -> Tensor:
        return _bitwise_(self, "^=", np.bitwise_xor, other)

    def __lshift__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.left_shift, "<<", self, other)

    def __rlshift__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.left_shift, "<<", other, self)

    def __rshift__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.right_shift, ">>", self, other)

    def __rrshift__(self, other: TensorLike) -> Tensor:
        return _bitwise(np.right_shift, ">>", other, self)

    def __ilshift__(self, other: TensorLike) -> Tensor:
        return _bitwise_(self, "<<=", np.left_shift, other)

    def __irshift__(self, other: TensorLike) -> Tensor:
        return _bitwise_(self, ">>=", np.right_shift, other)

    def bitwise_left_shift(self, other: TensorLike) -> Tensor:
        """self << other: the bits moved left (times 2 ** other; 0 once they are all gone).

        >>> tg.tensor([1, 3]).bitwise_left_shift(2)
        tensor([ 4, 12])
        """
        return _bitwise(np.left_shift, "bitwise_left_shift", self, other)

    def bitwise_right_shift(self, other: TensorLike) -> Tensor:
        """self >> other: the bits moved right (floor division by 2 ** other, sign kept).

        >>> tg.tensor([8, -8]).bitwise_right_shift(2)
        tensor([ 2, -2])
        """
        return _bitwise(np.right_shift, "bitwise_right_shift", self, other)

    def bitwise_left_shift_(self, other: TensorLike) -> Tensor:
        """In place: self << other.

        >>> x = tg.tensor([1, 3]); x.bitwise_left_shift_(1)
        tensor([2, 6])
        """
        return _bitwise_(self, "bitwise_left_shift_", np.left_shift, other)

    def bitwise_right_shift_(self, other: TensorLike) -> Tensor:
        """In place: self >> other.

        >>> x = tg.tensor([8, -8]); x.bitwise_right_shift_(1)
        tensor([ 4, -4])
        """
        return _bitwise_(self, "bitwise_right_shift_", np.right_shift, other)

    def bitwise_and(self, other: TensorLike) -> Tensor:
        """self & other: bit by bit for integers, logical for bools (floats refused, as PyTorch).

        >>> tg.tensor([6, 5]).bitwise_and(3)
        tensor([2, 1])
        """
        return _bitwise(np.bitwise_and, "bitwise_and", self, other)

    def bitwise_or(self, other: TensorLike) -> Tensor:
        """self | other: bit by bit for integers, logical for bools.

        >>> tg.tensor([6, 5]).bitwise_or(3)
        tensor([7, 7])
        """
        return _bitwise(np.bitwise_or, "bitwise_or", self, other)

    def bitwise_xor(self, other: TensorLike) -> Tensor:
        """self ^ other: bit by bit for integers, logical for bools.

        >>> tg.tensor([6, 5]).bitwise_xor(3)
        tensor([5, 6])
        """
        return _bitwise(np.bitwise_xor, "bitwise_xor", self, other)

    def bitwise_not(self) -> Tensor:
        """~self: every bit flipped for integers, logical not for bools.

        >>> tg.tensor([0, 5]).bitwise_not()
        tensor([-1, -6])
        """
        _integers_only("bitwise_not", self._data)
        return wrap(np.invert(self._data))

    def bitwise_and_(self, other: TensorLike) -> Tensor:
        """In place: self & other.

        >>> x = tg.tensor([6, 5]); x.bitwise_and_(3)
        tensor([2, 1])
        """
        return _bitwise_(self, "bitwise_and_", np.bitwise_and, other)

    def bitwise_or_(self, other: TensorLike) -> Tensor:
        """In place: self | other.

        >>> x = tg.tensor([6, 5]); x.bitwise_or_(3)
        tensor([7, 7])
        """
        return _bitwise_(self, "bitwise_or_", np.bitwise_or, other)

    def bitwise_xor_(self, other: TensorLike) -> Tensor:
        """In place: self ^ other.

        >>> x = tg.tensor([6, 5]); x.bitwise_xor_(3)
        tensor([5, 6])
        """
        return _bitwise_(self, "bitwise_xor_", np.bitwise_xor, other)

    def bitwise_not_(self) -> Tensor:
        """In place: ~self.

        >>> x = tg.tensor([0, 5]); x.bitwise_not_()
        tensor([-1, -6])
        """
        _integers_only("bitwise_not_", self._data)
        return _bitwise_(self, "bitwise_not_", lambda a, _: np.invert(a), None)

    def logical_and(self, other: TensorLike) -> Tensor:
        """Whether both are true (non-zero), elementwise: a bool tensor, for any dtype.

        >>> tg.tensor([0.0, 2.0]).logical_and(tg.tensor([1, 1]))
        tensor([False,  True])
        """
        return wrap(np.logical_and(self._data, operand(other)))

    def logical_or(self, other: TensorLike) -> Tensor:
        """Whether either is true (non-zero), elementwise: a bool tensor.

        >>> tg.tensor([0.0, 2.0]).logical_or(tg.tensor([0, 0]))
        tensor([False,  True])
        """
        return wrap(np.logical_or(self._data, operand(other)))

    def logical_xor(self, other: TensorLike) -> Tensor:
        """Whether exactly one is true (non-zero), elementwise: a bool tensor.

        >>> tg.tensor([0.0, 2.0]).logical_xor(tg.tensor([1, 1]))
        tensor([ True, False])
        """
        return wrap(np.logical_xor(self._data, operand(other)))

    def logical_not(self) -> Tensor:
        """Whether each element is false (zero): a bool tensor.

        >>> tg.tensor([0.0, 2.0]).logical_not()
        tensor([ True, False])
        """
        return wrap(np.logical_not(self._data))

    def logical_and_(self, other: TensorLike) -> Tensor:
        """In place: logical_and, as 1 or 0 in self's dtype.

        >>> x = tg.tensor([0.0, 2.0]); x.logical_and_(tg.tensor([1, 1]))
        tensor([0., 1.])
        """
        return compare_in_place(self, "logical_and_", np.logical_and, other)

    def logical_or_(self, other: TensorLike) -> Tensor:
        """In place: logical_or, as 1 or 0 in self's dtype.

        >>> x = tg.tensor([0.0, 2.0]); x.logical_or_(0)
        tensor([0., 1.])
        """
        return compare_in_place(self, "logical_or_", np.logical_or, other)

    def logical_xor_(self, other: TensorLike) -> Tensor:
        """In place: logical_xor, as 1 or 0 in self's dtype.

        >>> x = tg.tensor([0.0, 2.0]); x.logical_xor_(1)
        tensor([1., 0.])
        """
        return compare_in_place(self, "logical_xor_", np.logical_xor, other)

    def logical_not_(self) -> Tensor:
        """In place: logical_not, as 1 or 0 in self's dtype.

        >>> x = tg.tensor([0.0, 2.0]); x.logical_not_()
        tensor([1., 0.])
        """
        return compare_in_place(self, "logical_not_", lambda a, _: np.logical_not(a), None)


def _integers_only(name: str, *values: Any) -> None:
    """Bitwise ops take integers and bools; a float (or complex) is a clear error, as PyTorch."""
    for v in values:
        if isinstance(v, bool | int):
            continue
        what = f"a Python {type(v).__name__}" if isinstance(v, float | complex) else v.dtype
        if isinstance(v, float | complex) or v.dtype.kind not in "biu":
            raise TypeError(
                f"{name} is defined on integer and bool tensors only (bit by bit, or logical for "
                f"bools), got {what}; compare first for a mask (x > 0), or use "
                f"logical_and/logical_or/logical_xor/logical_not, which take any dtype"
            )


def _bitwise(ufunc: Any, name: str, x: Any, y: Any) -> Tensor:
    """x <op> y for bitwise `ufunc` (either may be the number), checked and off the tape."""
    a, b = operand(x), operand(y)
    _integers_only(name, a, b)
    if ufunc in _SHIFTS and _is_bool(a) and _is_bool(b):
        raise TypeError(
            f"{name}: shifting bools by bools is not defined (as PyTorch); use integers"
        )
    return wrap(ufunc(a, b))


_SHIFTS = (np.left_shift, np.right_shift)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool) or getattr(v, "dtype", None) == np.bool_


def _bitwise_(t: TensorBase, name: str, ufunc: Callable[[Any, Any], Any], other: Any) -> Tensor:
    """In place: t = ufunc(t, other), a result t's dtype can hold (else an error, as PyTorch)."""
    value = None if other is None else operand(other)
    if value is not None:
        _integers_only(name, t._data, value)
    return unary_(t, name, lambda old, v: np.asarray(ufunc(values_of(old), v)), value)
