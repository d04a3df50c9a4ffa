"""Elementwise ops: the arithmetic operators and their method names (add, sub, mul, div with
PyTorch's alpha= and rounding_mode=, ...), the one-input math methods (exp, log, log10, sin, ...)
and the others that work element by element (pow, maximum, minimum, clamp, where, round,
remainder, ...).

Layer L3: numpy, the rule table, the storage base, record.py's apply and wrap, coerce.py and
printing.py (the one-input methods' docstrings). Each method records primitives of the rule table,
so its derivative is theirs. Operators are the hot path: each is one function calling `apply`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from ..primitives import elementwise as E
from ..primitives import shape as S
from ..primitives.registry import Primitive
from .base import AS_IS, TensorBase
from .coerce import TensorLike, as_tensor, coerce, one_dim
from .printing import unary_doc
from .record import apply, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


def unary_method(prim: Primitive) -> Callable[[TensorBase], Tensor]:
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


def scaled(other: Any, alpha: Any, x: TensorBase, name: str) -> Any:
    """add/sub's `other * alpha` (other itself when alpha is 1), alpha checked as PyTorch does: no
    float alpha for an integer tensor, only a bool one for bools."""
    kind = x._data.dtype.kind
    if kind in "iu" and isinstance(alpha, float | np.floating):
        raise TypeError(
            f"{name}: for integer tensors alpha must not be a floating-point number (got "
            f"{alpha!r}); convert the tensor (x.double()) or pass an int"
        )
    if kind == "b" and not isinstance(alpha, bool | np.bool_) and alpha != 1:
        raise TypeError(f"{name}: for bool tensors alpha must be a bool, got {alpha!r}")
    other = other if other.__class__ in AS_IS else coerce(other)
    if alpha is True or (alpha == 1 and not isinstance(alpha, bool)):
        return other
    return other * alpha


def clamp_learned(x: TensorBase, low: Any, high: Any) -> Tensor:
    """clamp with bounds on the tape: each element is x, low or high where PyTorch's clamp routes
    the gradient there (x: low <= x <= high; low: x < low < high; high: x > high or high < low),
    else the value itself as a constant (a NaN, or low == high < x: no gradient, as PyTorch)."""
    if low is None and high is None:
        raise ValueError("clip needs at least one of min and max")
    xv = x._data
    lv = None if low is None else np.asarray(getattr(low, "_data", low))
    hv = None if high is None else np.asarray(getattr(high, "_data", high))
    value = xv if lv is None else np.maximum(xv, lv)  # (NaN from either side, as PyTorch)
    value = value if hv is None else np.minimum(value, hv)
    nowhere = np.zeros((), dtype=bool)
    with np.errstate(invalid="ignore"):
        if lv is None:
            to_x, to_low, to_high = xv <= hv, nowhere, xv > hv
        elif hv is None:
            to_x, to_low, to_high = xv >= lv, xv < lv, nowhere
        else:
            to_x = (xv >= lv) & (xv <= hv)
            to_low, to_high = (xv < lv) & (lv < hv), (xv > hv) | (hv < lv)
    out = coerce(np.asarray(value, dtype=np.result_type(value)))
    if high is not None:
        out = where(to_high, high, out)
    if low is not None:
        out = where(to_low, low, out)
    return where(to_x, x, out)


ROUNDING_MODES = (None, "trunc", "floor")


def divide(x: Any, y: Any, rounding_mode: str | None) -> Tensor:
    """x / y with PyTorch's rounding_mode: None (true division), "trunc" (toward zero) or "floor"
    (down, as Python's //). A rounded quotient is piecewise constant: zero gradients."""
    y = y if y.__class__ in AS_IS else coerce(y)
    if rounding_mode is None:
        return apply(E.div, x, y)
    if rounding_mode not in ROUNDING_MODES:
        raise ValueError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"{rounding_mode!r}"
        )
    kinds = {getattr(getattr(v, "_data", v), "dtype", np.dtype(type(v))).kind for v in (x, y)}
    if kinds == {"b"}:
        raise TypeError(f"div(rounding_mode={rounding_mode!r}) is not defined for bool tensors")
    if rounding_mode == "floor":
        return apply(E.floor_divide, x, y)
    if kinds <= {"i", "u", "b"}:  # integers: toward zero, exactly (no float quotient)
        a, b = getattr(x, "_data", x), getattr(y, "_data", y)
        q = E.floor_divide.forward(a, b)
        q = q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))
        return wrap(np.asarray(q))
    return apply(E.trunc, apply(E.div, x, y))


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

    __div__, __rdiv__ = __truediv__, __rtruediv__  # (PyTorch keeps Python 2's names as methods)

    def __pow__(self, other: TensorLike) -> Tensor:
        return apply(_POW, self, other if other.__class__ in AS_IS else coerce(other))

    def __rpow__(self, other: TensorLike) -> Tensor:
        return apply(_POW, other if other.__class__ in AS_IS else coerce(other), self)

    def __floordiv__(self, other: TensorLike) -> Tensor:
        return apply(E.floor_divide, self, other if other.__class__ in AS_IS else coerce(other))

    def __rfloordiv__(self, other: TensorLike) -> Tensor:
        return apply(E.floor_divide, other if other.__class__ in AS_IS else coerce(other), self)

    def __mod__(self, other: TensorLike) -> Tensor:
        return apply(E.remainder, self, other if other.__class__ in AS_IS else coerce(other))

    def __rmod__(self, other: TensorLike) -> Tensor:
        return apply(E.remainder, other if other.__class__ in AS_IS else coerce(other), self)

    def __neg__(self) -> Tensor:
        return apply(E.neg, self)

    def __pos__(self) -> Tensor:
        return cast("Tensor", self)

    def __abs__(self) -> Tensor:
        return apply(E.abs, self)

    # ---- one input -----------------------------------------------------------------------------
    exp, log, sin, cos = (
        unary_method(E.exp),
        unary_method(E.log),
        unary_method(E.sin),
        unary_method(E.cos),
    )
    tan, tanh, sigmoid, relu = (
        unary_method(E.tan),
        unary_method(E.tanh),
        unary_method(E.sigmoid),
        unary_method(E.relu),
    )
    sqrt, abs, sign = unary_method(E.sqrt), unary_method(E.abs), unary_method(E.sign)
    log1p, expm1, neg = unary_method(E.log1p), unary_method(E.expm1), unary_method(E.neg)
    erf, floor, ceil, trunc = (
        unary_method(E.erf),
        unary_method(E.floor),
        unary_method(E.ceil),
        unary_method(E.trunc),
    )
    log10, log2 = unary_method(E.log10), unary_method(E.log2)
    absolute, negative, fix = abs, neg, trunc  # (PyTorch's aliases)

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
        """self * self (bools square as int64, as PyTorch).

        >>> tg.tensor([-2.0, 3.0]).square()
        tensor([4., 9.])
        """
        x = self if self._data.dtype.kind != "b" else wrap(self._data.astype(np.int64))
        return apply(E.mul, x, x)

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

    # ---- the operators' method names (PyTorch's, with their keywords) --------------------------
    def add(self, other: TensorLike, *, alpha: Any = 1) -> Tensor:
        """self + alpha * other.

        >>> tg.tensor([1.0, 2.0]).add(tg.tensor([1.0, 1.0]), alpha=2)
        tensor([3., 4.])
        """
        return apply(_ADD, self, scaled(other, alpha, self, "add"))

    def sub(self, other: TensorLike, *, alpha: Any = 1) -> Tensor:
        """self - alpha * other.

        >>> tg.tensor([1.0, 2.0]).sub(1.0, alpha=2)
        tensor([-1.,  0.])
        """
        return apply(_SUB, self, scaled(other, alpha, self, "sub"))

    subtract = sub

    def mul(self, other: TensorLike) -> Tensor:
        """self * other.

        >>> tg.tensor([1.0, 2.0]).mul(3.0)
        tensor([3., 6.])
        """
        return apply(_MUL, self, other if other.__class__ in AS_IS else coerce(other))

    multiply = mul

    def div(self, other: TensorLike, *, rounding_mode: str | None = None) -> Tensor:
        """self / other; rounding_mode "trunc" rounds the quotient toward zero, "floor" down (both
        keep integers integer, as PyTorch).

        >>> tg.tensor([7.0, -7.0]).div(2.0, rounding_mode="floor")
        tensor([ 3., -4.])
        """
        return divide(self, other, rounding_mode)

    divide = div

    def true_divide(self, other: TensorLike) -> Tensor:
        """self / other, always a true division.

        >>> tg.tensor([1, 2]).true_divide(2)
        tensor([0.5000, 1.0000])
        """
        return apply(_DIV, self, other if other.__class__ in AS_IS else coerce(other))

    def floor_divide(self, other: TensorLike) -> Tensor:
        """self // other: the quotient rounded down (as Python's //).

        >>> tg.tensor([7, -7]).floor_divide(2)
        tensor([ 3, -4])
        """
        return self.__floordiv__(other)

    def remainder(self, other: TensorLike) -> Tensor:
        """self % other, with the sign of other (as Python's % and torch.remainder).

        >>> tg.tensor([-5.0, 5.0]).remainder(3.0)
        tensor([1., 2.])
        """
        return self.__mod__(other)

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
        """self limited to [min, max] (either may be None; a NaN anywhere gives NaN, as PyTorch).
        A bound that is a tensor requiring grad gets its gradient where it is the result, with
        PyTorch's rules at ties and NaN (self keeps it at ties; min > max: max wins).

        >>> tg.tensor([-1.0, 0.5, 2.0]).clip(0.0, 1.0)
        tensor([0.0000, 0.5000, 1.0000])
        """
        if (
            isinstance(min, TensorBase)
            and min._requires_grad
            or isinstance(max, TensorBase)
            and max._requires_grad
        ):
            return clamp_learned(self, min, max)
        return apply(E.clip, self, **clip_bounds(min, max))

    clamp = clip

    def clamp_min(self, min: Any) -> Tensor:
        """clamp(min=min), PyTorch's spelling.

        >>> tg.tensor([-1.0, 2.0]).clamp_min(0.0)
        tensor([0., 2.])
        """
        return self.clip(min, None)

    def clamp_max(self, max: Any) -> Tensor:
        """clamp(max=max), PyTorch's spelling.

        >>> tg.tensor([-1.0, 2.0]).clamp_max(0.0)
        tensor([-1.,  0.])
        """
        return self.clip(None, max)

    def where(self, condition: Any, other: TensorLike) -> Tensor:
        """self where condition holds, else other (as torch.Tensor.where).

        >>> tg.tensor([1.0, 2.0]).where(tg.tensor([True, False]), 0.0)
        tensor([1., 0.])
        """
        return where(condition, self, other)

    def diff(self, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
        """The n-th forward difference along dim, out[i] = x[i + 1] - x[i] (n times), after
        joining prepend and append there (bools: logical xor, as PyTorch).

        >>> tg.tensor([1.0, 4.0, 9.0, 16.0]).diff()
        tensor([3., 5., 7.])
        """
        if self.ndim == 0:
            raise ValueError("diff expects input to be at least one-dimensional")
        if n < 0:
            raise ValueError(f"order must be non-negative but got {n}")
        axis = one_dim(dim, self.ndim, "diff")
        if n == 0:  # (prepend and append unused, as PyTorch)
            return cast("Tensor", self)
        parts = [as_tensor(p) for p in (prepend, self, append) if p is not None]
        sizes = tuple(p.shape[axis] for p in parts)
        x = parts[0] if len(parts) == 1 else apply(S.concatenate, *parts, axis=axis, sizes=sizes)
        for _ in range(n):
            size = max(x.shape[axis] - 1, 0)  # (fewer than 2: an empty result)
            later, earlier = x.narrow(axis, min(1, size), size), x.narrow(axis, 0, size)
            x = later ^ earlier if x.dtype == np.bool_ else later - earlier
        return x

    # ---- PyTorch's fused arithmetic (compositions: their gradients are the parts') ---------------
    def lerp(self, end: TensorLike, weight: TensorLike) -> Tensor:
        """self + weight * (end - self), computed from the nearer end as PyTorch does (exact at
        weight 0 and 1).

        >>> tg.tensor([1.0, 2.0]).lerp(tg.tensor([3.0, 6.0]), 0.5)
        tensor([2., 4.])
        """
        start, stop = cast("Tensor", self), as_tensor(end)
        w = weight if isinstance(weight, TensorBase) else coerce(weight)
        span = stop - start
        if not isinstance(w, TensorBase):  # (a number: one branch)
            return start + span * w if abs(w) < 0.5 else stop - span * (1 - w)
        near_start, tw = np.abs(w._data) < 0.5, cast("Tensor", w)
        return where(near_start, start + span * tw, stop - span * (1 - tw))

    def addcmul(self, tensor1: TensorLike, tensor2: TensorLike, *, value: Any = 1) -> Tensor:
        """self + value * tensor1 * tensor2.

        >>> tg.ones(2).addcmul(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]), value=0.5)
        tensor([2.5000, 5.0000])
        """
        product = as_tensor(tensor1) * coerce(tensor2)
        return self + (product if value == 1 else product * value)

    def addcdiv(self, tensor1: TensorLike, tensor2: TensorLike, *, value: Any = 1) -> Tensor:
        """self + value * tensor1 / tensor2 (integer tensors refused, as PyTorch: their division
        used to truncate).

        >>> tg.ones(2).addcdiv(tg.tensor([1.0, 2.0]), tg.tensor([4.0, 4.0]), value=2)
        tensor([1.5000, 2.0000])
        """
        top, bottom = as_tensor(tensor1), as_tensor(tensor2)
        if top.dtype.kind in "biu" and bottom.dtype.kind in "biu":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported (as in PyTorch): use "
                "input + value * torch.trunc(tensor1 / tensor2) for the old behavior, or floats"
            )
        quotient = top / bottom
        return self + (quotient if value == 1 else quotient * value)

    def float_power(self, exponent: TensorLike) -> Tensor:
        """self ** exponent computed in float64 (as torch.float_power).

        >>> tg.tensor([2, 3]).float_power(2)
        tensor([4., 9.], dtype=float64)
        """
        other = cast("Tensor", exponent).double() if isinstance(exponent, TensorBase) else exponent
        return cast("Tensor", self).double() ** other

    def heaviside(self, values: TensorLike) -> Tensor:
        """The step function: 0 below 0, 1 above, `values` at 0 (off the tape: PyTorch has no
        gradient for it).

        >>> tg.tensor([-1.0, 0.0, 2.0]).heaviside(tg.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
        """
        other = values._data if isinstance(values, TensorBase) else np.asarray(values)
        if other.dtype != self._data.dtype:
            raise TypeError(
                f"heaviside: input ({self._data.dtype}) and values ({other.dtype}) must have the "
                f"same dtype, as in PyTorch"
            )
        x = self._data  # (x == 0 takes values, else x > 0: NaN gives 0, as PyTorch)
        with np.errstate(invalid="ignore"):
            return wrap(np.where(x == 0, other, x > 0).astype(x.dtype))

    def positive(self) -> Tensor:
        """self itself (as +self; bools refused, as PyTorch).

        >>> tg.tensor([-1.0]).positive()
        tensor([-1.])
        """
        if self._data.dtype == np.bool_:
            raise TypeError("The `+` operator, on a bool tensor is not supported.")
        return cast("Tensor", self)

    def gcd(self, other: TensorLike) -> Tensor:
        """The greatest common divisor, elementwise (integer tensors; no gradient).

        >>> tg.tensor([12, 18]).gcd(tg.tensor([8, 27]))
        tensor([4, 9])
        """
        return wrap(np.gcd(self._data, _integers_of(self, other, "gcd")))

    def lcm(self, other: TensorLike) -> Tensor:
        """The least common multiple, elementwise (integer tensors; no gradient).

        >>> tg.tensor([4, 6]).lcm(tg.tensor([6, 4]))
        tensor([12, 12])
        """
        return wrap(np.lcm(self._data, _integers_of(self, other, "lcm")))


def _integers_of(x: TensorBase, other: Any, name: str) -> Any:
    """gcd/lcm's operands: both integer (PyTorch refuses floats)."""
    theirs = other._data if isinstance(other, TensorBase) else np.asarray(other)
    if x._data.dtype.kind not in "iu" or theirs.dtype.kind not in "iu":
        raise TypeError(f'"{name}_cpu" not implemented for floating or bool tensors: pass integers')
    return theirs
