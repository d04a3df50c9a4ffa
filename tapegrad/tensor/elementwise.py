"""Elementwise ops: the arithmetic operators, the one-input math methods (exp, log, sin, ...) and
the others that work element by element (pow, maximum, minimum, clamp, where, round, ...).

Layer L3: numpy, the rule table, the storage base, record.py's apply and wrap, coerce.py and
printing.py (the one-input methods' docstrings). Each method records primitives of the rule table,
so its derivative is theirs. Operators are the hot path: each is one function calling `apply`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from ..primitives import elementwise as E
from ..primitives.registry import Primitive
from .base import AS_IS, TensorBase
from .coerce import TensorLike, as_tensor, coerce
from .printing import unary_doc
from .record import apply, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


def _unary(prim: Primitive) -> Callable[[TensorBase], Tensor]:
    """The method `t.<op>()` of a one-input primitive, documented from its rule."""

    def method(self: TensorBase) -> Tensor:
        return apply(prim, self)

    method.__name__ = prim.name
    method.__doc__ = unary_doc(prim)
    return method


def clip_bounds(min: Any, max: Any) -> dict[str, Any]:
    """clip's parameters: bounds as constants; NumPy scalars and 0-d arrays become weak Python
    scalars (no upcast)."""
    if min is None and max is None:
        raise ValueError("clip needs at least one of min and max")
    low = None if min is None else coerce(min._data if isinstance(min, TensorBase) else min)
    high = None if max is None else coerce(max._data if isinstance(max, TensorBase) else max)
    return {"min": low, "max": high}


def where(condition: Any, x: Any, y: Any) -> Tensor:
    """x where condition holds, else y (all three broadcast)."""
    cond = condition if isinstance(condition, TensorBase) else np.asarray(condition, dtype=bool)
    if isinstance(cond, TensorBase) and cond.dtype != bool:
        cond = wrap(cond._data.astype(bool))
    if not isinstance(x, TensorBase) and not isinstance(y, TensorBase):
        x = as_tensor(x)  # (as tg.tensor(x): Python floats make float32)
    return apply(E.where, cond, coerce(x), coerce(y))


# The operators' primitives as module globals: the hot path reads one global, not a global and a
# module attribute (36 fewer instructions per `x * 2.0`, counted with callgrind).
_ADD, _SUB, _MUL, _DIV, _POW = E.add, E.sub, E.mul, E.div, E.pow


class ElementwiseMixin(TensorBase):
    """The elementwise methods and operators of Tensor."""

    __slots__ = ()

    # ---- operators -----------------------------------------------------------------------------
    # (the commonest operands, Tensors and Python numbers, need no coerce call: AS_IS)
    def __add__(self, other: TensorLike) -> Tensor:
        return apply(_ADD, self, other if other.__class__ in AS_IS else coerce(other))

    def __radd__(self, other: TensorLike) -> Tensor:
        return apply(_ADD, other if other.__class__ in AS_IS else coerce(other), self)

    def __sub__(self, other: TensorLike) -> Tensor:
        return apply(_SUB, self, other if other.__class__ in AS_IS else coerce(other))

    def __rsub__(self, other: TensorLike) -> Tensor:
        return apply(_SUB, other if other.__class__ in AS_IS else coerce(other), self)

    def __mul__(self, other: TensorLike) -> Tensor:
        return apply(_MUL, self, other if other.__class__ in AS_IS else coerce(other))

    def __rmul__(self, other: TensorLike) -> Tensor:
        return apply(_MUL, other if other.__class__ in AS_IS else coerce(other), self)

    def __truediv__(self, other: TensorLike) -> Tensor:
        return apply(_DIV, self, other if other.__class__ in AS_IS else coerce(other))

    def __rtruediv__(self, other: TensorLike) -> Tensor:
        other = coerce(other)
        if other.__class__ is float or other.__class__ is int:  # as PyTorch: a reciprocal times
            return apply(E.mul, apply(E.reciprocal, self), other)  # the number (saves no input)
        return apply(E.div, other, self)

    def __pow__(self, other: TensorLike) -> Tensor:
        return apply(_POW, self, other if other.__class__ in AS_IS else coerce(other))

    def __rpow__(self, other: TensorLike) -> Tensor:
        return apply(_POW, other if other.__class__ in AS_IS else coerce(other), self)

    def __neg__(self) -> Tensor:
        return apply(E.neg, self)

    def __pos__(self) -> Tensor:
        return cast("Tensor", self)

    def __abs__(self) -> Tensor:
        return apply(E.abs, self)

    # ---- one input -----------------------------------------------------------------------------
    exp, log, sin, cos = _unary(E.exp), _unary(E.log), _unary(E.sin), _unary(E.cos)
    tan, tanh, sigmoid, relu = _unary(E.tan), _unary(E.tanh), _unary(E.sigmoid), _unary(E.relu)
    sqrt, abs, sign = _unary(E.sqrt), _unary(E.abs), _unary(E.sign)
    log1p, expm1, neg = _unary(E.log1p), _unary(E.expm1), _unary(E.neg)
    erf, floor, ceil, trunc = _unary(E.erf), _unary(E.floor), _unary(E.ceil), _unary(E.trunc)

    def rsqrt(self) -> Tensor:
        """1 / sqrt(self), elementwise (its gradient -g / (2 x^1.5), as PyTorch's).

        >>> tg.tensor([4.0, 0.25]).rsqrt()
        tensor([0.5000, 2.0000])
        """
        return apply(E.reciprocal, apply(E.sqrt, self))

    def reciprocal(self) -> Tensor:
        """1 / self, elementwise (floats for an integer tensor, as PyTorch).

        >>> tg.tensor([2.0, 4.0]).reciprocal()
        tensor([0.5000, 0.2500])
        """
        return apply(E.reciprocal, self)

    def square(self) -> Tensor:
        """self * self.

        >>> tg.tensor([-2.0, 3.0]).square()
        tensor([4., 9.])
        """
        return apply(E.mul, self, self)

    def round(self, decimals: int = 0) -> Tensor:
        """Each element rounded to `decimals` digits, halves to even; gradient 0 (as PyTorch).

        >>> tg.tensor([0.5, 1.5, 2.46]).round(decimals=1)
        tensor([0.5000, 1.5000, 2.5000])
        """
        return apply(E.round, self, decimals=int(decimals))

    def frac(self) -> Tensor:
        """The fractional part, self - trunc(self) (its gradient is 1).

        >>> tg.tensor([1.5, -2.25]).frac()
        tensor([ 0.5000, -0.2500])
        """
        if self._data.dtype.kind != "f":
            raise TypeError(f"frac needs a floating-point tensor, got {self._data.dtype}")
        return apply(E.sub, self, apply(E.trunc, self))

    # ---- two or three inputs -------------------------------------------------------------------
    def pow(self, exponent: TensorLike) -> Tensor:
        """self ** exponent.

        >>> tg.tensor([2.0, 3.0]).pow(2)
        tensor([4., 9.])
        """
        return apply(E.pow, self, coerce(exponent))

    def maximum(self, other: TensorLike) -> Tensor:
        """The larger of self and other, elementwise (ties share the gradient).

        >>> tg.tensor([1.0, 5.0]).maximum(tg.tensor([3.0, 2.0]))
        tensor([3., 5.])
        """
        return apply(E.maximum, self, coerce(other))

    def minimum(self, other: TensorLike) -> Tensor:
        """The smaller of self and other, elementwise (ties share the gradient).

        >>> tg.tensor([1.0, 5.0]).minimum(tg.tensor([3.0, 2.0]))
        tensor([1., 2.])
        """
        return apply(E.minimum, self, coerce(other))

    def clip(self, min: Any = None, max: Any = None) -> Tensor:
        """self limited to [min, max] (either may be None). A bound that is a tensor requiring grad
        gets its gradient where it is the result, as PyTorch's clamp (self keeps it at ties).

        >>> tg.tensor([-1.0, 0.5, 2.0]).clip(0.0, 1.0)
        tensor([0.0000, 0.5000, 1.0000])
        """
        if (
            isinstance(min, TensorBase)
            and min._requires_grad
            or isinstance(max, TensorBase)
            and max._requires_grad
        ):
            out = cast("Tensor", self)
            if min is not None:
                out = where(out._data < np.asarray(getattr(min, "_data", min)), min, out)
            if max is not None:
                out = where(out._data > np.asarray(getattr(max, "_data", max)), max, out)
            return out
        return apply(E.clip, self, **clip_bounds(min, max))

    clamp = clip

    def where(self, condition: Any, other: TensorLike) -> Tensor:
        """self where condition holds, else other (as torch.Tensor.where).

        >>> tg.tensor([1.0, 2.0]).where(tg.tensor([True, False]), 0.0)
        tensor([1., 0.])
        """
        return where(condition, self, other)
