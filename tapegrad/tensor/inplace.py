"""In-place ops (`+=`, `**=`, add_, exp_, x[i] = v, fill_, copy_, unsqueeze_, ...): each says what
the new value is; writing.py writes it (on the tape, through views, version counters).

Layer L3: numpy, the rule table, the storage base, apply (record.py), writing.py's shared path,
coerce.py, the elementwise room's argument helpers and the indexing room's mask helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from ..primitives import elementwise as E
from ..primitives.registry import Primitive
from .base import TensorBase
from .coerce import TensorLike, as_tensor, coerce, normalize_index, split_int_indices
from .elementwise import clip_bounds, divide, scaled
from .indexing import bool_mask, fill_value
from .printing import unary_doc
from .record import apply
from .writing import inplace, reshaped_in_place, unary_

if TYPE_CHECKING:
    from .tensor import Tensor


def inplace_unary_method(prim: Primitive) -> Callable[[TensorBase], Tensor]:
    """The in-place method `t.<op>_()` of a one-input primitive, documented from its rule."""

    def method(self: TensorBase) -> Tensor:
        return unary_(self, prim.name + "_", lambda old, _: prim(old))

    method.__name__ = prim.name + "_"
    method.__doc__ = unary_doc(prim, inplace=True)
    return method


class InplaceMixin(TensorBase):
    """The in-place methods of Tensor: each changes the tensor and returns it."""

    __slots__ = ()

    # ---- arithmetic ----------------------------------------------------------------------------
    def __iadd__(self, other: TensorLike) -> Tensor:
        return inplace(self, "+=", E.add, coerce(other))

    def __isub__(self, other: TensorLike) -> Tensor:
        return inplace(self, "-=", E.sub, coerce(other))

    def __imul__(self, other: TensorLike) -> Tensor:
        return inplace(self, "*=", E.mul, coerce(other))

    def __itruediv__(self, other: TensorLike) -> Tensor:
        return inplace(self, "/=", E.div, coerce(other))

    __idiv__ = __itruediv__  # (PyTorch's Python 2 name, still a method)

    def __ipow__(self, other: TensorLike) -> Tensor:
        return unary_(self, "**=", lambda old, e: E.pow(old, e), coerce(other))

    def __ifloordiv__(self, other: TensorLike) -> Tensor:
        return unary_(self, "//=", lambda old, y: E.floor_divide(old, y), coerce(other))

    def __imod__(self, other: TensorLike) -> Tensor:
        return unary_(self, "%=", lambda old, y: E.remainder(old, y), coerce(other))

    def add_(self, other: TensorLike, alpha: Any = 1) -> Tensor:
        """In place: self + other * alpha.

        >>> x = tg.tensor([1.0, 2.0]); x.add_(tg.tensor([1.0, 1.0]), alpha=2)
        tensor([3., 4.])
        """
        if alpha == 1 and alpha is not True:  # (optimizers call add_ every step: no helper call)
            return inplace(self, "add_", E.add, coerce(other))
        return inplace(self, "add_", E.add, scaled(other, alpha, self, "add_"))

    def sub_(self, other: TensorLike, alpha: Any = 1) -> Tensor:
        """In place: self - other * alpha.

        >>> x = tg.tensor([1.0, 2.0]); x.sub_(1.0)
        tensor([0., 1.])
        """
        if alpha == 1 and alpha is not True:  # (as add_)
            return inplace(self, "sub_", E.sub, coerce(other))
        return inplace(self, "sub_", E.sub, scaled(other, alpha, self, "sub_"))

    subtract_ = sub_

    def mul_(self, other: TensorLike) -> Tensor:
        """In place: self * other.

        >>> x = tg.tensor([1.0, 2.0]); x.mul_(3.0)
        tensor([3., 6.])
        """
        return inplace(self, "mul_", E.mul, coerce(other))

    multiply_ = mul_

    def div_(self, other: TensorLike, *, rounding_mode: str | None = None) -> Tensor:
        """In place: self / other (rounding_mode "trunc" or "floor" as div; an integer tensor
        needs one, as PyTorch: a true quotient is not an integer).

        >>> x = tg.tensor([1.0, 2.0]); x.div_(2.0)
        tensor([0.5000, 1.0000])
        """
        if rounding_mode is None:
            return unary_(self, "div_", lambda old, y: E.div(old, y), coerce(other))
        return unary_(self, "div_", lambda old, y: divide(old, y, rounding_mode), coerce(other))

    divide_ = div_

    def true_divide_(self, other: TensorLike) -> Tensor:
        """In place: self / other.

        >>> x = tg.tensor([1.0, 2.0]); x.true_divide_(2.0)
        tensor([0.5000, 1.0000])
        """
        return self.div_(other)

    def floor_divide_(self, other: TensorLike) -> Tensor:
        """In place: self // other.

        >>> x = tg.tensor([7, -7]); x.floor_divide_(2)
        tensor([ 3, -4])
        """
        return self.__ifloordiv__(other)

    def remainder_(self, other: TensorLike) -> Tensor:
        """In place: self % other (the sign of other, as Python's %).

        >>> x = tg.tensor([-5.0, 5.0]); x.remainder_(3.0)
        tensor([1., 2.])
        """
        return self.__imod__(other)

    def pow_(self, exponent: TensorLike) -> Tensor:
        """self ** exponent, in place.

        >>> x = tg.tensor([2.0, 3.0]); x.pow_(2)
        tensor([4., 9.])
        """
        return unary_(self, "pow_", lambda old, e: E.pow(old, e), coerce(exponent))

    # ---- one input -----------------------------------------------------------------------------
    exp_, log_, log1p_, expm1_ = (inplace_unary_method(p) for p in (E.exp, E.log, E.log1p, E.expm1))
    sin_, cos_, tan_, tanh_ = (inplace_unary_method(p) for p in (E.sin, E.cos, E.tan, E.tanh))
    sqrt_, sigmoid_, relu_, erf_ = (
        inplace_unary_method(p) for p in (E.sqrt, E.sigmoid, E.relu, E.erf)
    )
    abs_, neg_, sign_ = (inplace_unary_method(p) for p in (E.abs, E.neg, E.sign))
    floor_, ceil_, trunc_ = (inplace_unary_method(p) for p in (E.floor, E.ceil, E.trunc))
    log10_, log2_ = inplace_unary_method(E.log10), inplace_unary_method(E.log2)
    absolute_, negative_, fix_ = abs_, neg_, trunc_  # (PyTorch's aliases)

    def rsqrt_(self) -> Tensor:
        """rsqrt in place.

        >>> x = tg.tensor([4.0, 0.25]); x.rsqrt_()
        tensor([0.5000, 2.0000])
        """
        return unary_(self, "rsqrt_", lambda old, _: E.reciprocal(E.sqrt(old)))

    def reciprocal_(self) -> Tensor:
        """reciprocal in place (an integer tensor cannot hold the result: an error, as PyTorch).

        >>> x = tg.tensor([2.0, 4.0]); x.reciprocal_()
        tensor([0.5000, 0.2500])
        """
        return unary_(self, "reciprocal_", lambda old, _: E.reciprocal(old))

    def square_(self) -> Tensor:
        """self * self, in place (a bool tensor cannot hold the int64 square: an error, as PyTorch).

        >>> x = tg.tensor([3.0]); x.square_()
        tensor([9.])
        """
        return unary_(self, "square_", lambda old, _: as_tensor(old).square())

    def round_(self, decimals: int = 0) -> Tensor:
        """round in place.

        >>> x = tg.tensor([0.4, 1.6]); x.round_()
        tensor([0., 2.])
        """
        return unary_(self, "round_", lambda old, _: E.round(old, decimals=int(decimals)))

    def frac_(self) -> Tensor:
        """frac in place.

        >>> x = tg.tensor([1.5]); x.frac_()
        tensor([0.5000])
        """
        if self._data.dtype.kind != "f":
            raise TypeError(f"frac_ needs a floating-point tensor, got {self._data.dtype}")
        return unary_(self, "frac_", lambda old, _: old - E.trunc(old))

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        """clamp in place: each element limited to [min, max] (bounds that are tensors requiring
        grad get their gradient, as with clamp).

        >>> x = tg.tensor([-1.0, 0.5, 2.0]); x.clamp_(0.0, 1.0)
        tensor([0.0000, 0.5000, 1.0000])
        """
        learned = [b for b in (min, max) if isinstance(b, TensorBase) and b._requires_grad]
        if learned:  # (on the tape through the out-of-place clamp, which routes to the bounds;
            # the bound passed as `other` puts the op on the tape even when self is a constant)
            return unary_(self, "clamp_", lambda old, _: as_tensor(old).clip(min, max), learned[0])
        bounds = clip_bounds(min, max)
        return unary_(self, "clamp_", lambda old, _: E.clip(old, **bounds))

    clip_ = clamp_

    # ---- shape, in place (the tensor takes the new sizes, as PyTorch's) -------------------------
    def unsqueeze_(self, dim: int) -> Tensor:
        """In place: a new axis of size 1 at dim.

        >>> x = tg.zeros(3); x.unsqueeze_(0).shape
        (1, 3)
        """
        return reshaped_in_place(self, "unsqueeze_", lambda t: t.unsqueeze(dim))

    def squeeze_(self, dim: Any = None) -> Tensor:
        """In place: axes of size 1 removed (all, or those given).

        >>> x = tg.zeros(1, 3); x.squeeze_().shape
        (3,)
        """
        return reshaped_in_place(self, "squeeze_", lambda t: t.squeeze(dim))

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        """In place: axes dim0 and dim1 swapped.

        >>> x = tg.zeros(2, 3); x.transpose_(0, 1).shape
        (3, 2)
        """
        return reshaped_in_place(self, "transpose_", lambda t: t.transpose(dim0, dim1))

    swapdims_ = swapaxes_ = transpose_

    def t_(self) -> Tensor:
        """In place: the transpose of a matrix (a 0-D or 1-D tensor stays as it is).

        >>> x = tg.zeros(2, 3); x.t_().shape
        (3, 2)
        """
        return reshaped_in_place(self, "t_", lambda t: t.t())

    # ---- along an axis or a diagonal, in place -------------------------------------------------
    def tril_(self, diagonal: int = 0) -> Tensor:
        """In place: zeros above the diagonal-th diagonal.

        >>> x = tg.ones(2, 2); x.tril_()
        tensor([[1., 0.],
                [1., 1.]])
        """
        return unary_(self, "tril_", lambda old, _: as_tensor(old).tril(diagonal))

    def triu_(self, diagonal: int = 0) -> Tensor:
        """In place: zeros below the diagonal-th diagonal.

        >>> x = tg.ones(2, 2); x.triu_()
        tensor([[1., 1.],
                [0., 1.]])
        """
        return unary_(self, "triu_", lambda old, _: as_tensor(old).triu(diagonal))

    def cumsum_(self, dim: int, *, dtype: Any = None) -> Tensor:
        """In place: the running sum along dim.

        >>> x = tg.tensor([1.0, 2.0, 3.0]); x.cumsum_(0)
        tensor([1., 3., 6.])
        """
        return unary_(self, "cumsum_", lambda old, _: as_tensor(old).cumsum(dim, dtype=dtype))

    def cumprod_(self, dim: int, *, dtype: Any = None) -> Tensor:
        """In place: the running product along dim.

        >>> x = tg.tensor([1.0, 2.0, 3.0]); x.cumprod_(0)
        tensor([1., 2., 6.])
        """
        return unary_(self, "cumprod_", lambda old, _: as_tensor(old).cumprod(dim, dtype=dtype))

    def fill_diagonal_(self, fill_value: Any, wrap: bool = False) -> Tensor:
        """In place: the main diagonal set to fill_value (all sizes equal, or a matrix; a tall
        matrix with wrap=True starts again every columns + 1 rows, as PyTorch and NumPy).

        >>> x = tg.zeros(2, 2); x.fill_diagonal_(5.0)
        tensor([[5., 0.],
                [0., 5.]])
        """
        shape = self._data.shape
        if len(shape) < 2:
            raise ValueError(
                f"fill_diagonal_: the tensor must have at least 2 dimensions, got {len(shape)}"
            )
        if len(shape) > 2 and len(set(shape)) != 1:
            raise ValueError(
                f"fill_diagonal_: all dimensions of the tensor must be of equal length when it has "
                f"more than 2, got shape {list(shape)}"
            )
        mask = np.zeros(shape, dtype=bool)
        np.fill_diagonal(mask, True, wrap=bool(wrap))
        return self.masked_fill_(mask, fill_value)

    # ---- filling and copying -------------------------------------------------------------------
    def zero_(self) -> Tensor:
        """Fill with zeros in place (e.g. `x.grad.zero_()`).

        >>> x = tg.tensor([1.0, 2.0]); x.zero_()
        tensor([0., 0.])
        """
        return self.fill_(0)

    def fill_(self, value: Any) -> Tensor:
        """Fill with one value in place (recorded: the old values get a zero gradient).

        >>> x = tg.tensor([1.0, 2.0]); x.fill_(7.0)
        tensor([7., 7.])
        """
        value = coerce(value)
        return inplace(self, "fill_", lambda old, v: apply(E.fill, old, value=v), value)

    def copy_(self, src: TensorLike) -> Tensor:
        """Copy src's values (broadcast to this shape) in; the gradient flows to src.

        >>> x = tg.zeros(2); x.copy_(tg.tensor([1.0, 2.0]))
        tensor([1., 2.])
        """
        return inplace(self, "copy_", None, coerce(src))

    def masked_fill_(self, mask: Any, value: Any) -> Tensor:
        """masked_fill in place (the mask may not grow the tensor's shape).

        >>> x = tg.tensor([1.0, 2.0]); x.masked_fill_(tg.tensor([True, False]), 5.0)
        tensor([5., 2.])
        """
        m = bool_mask(mask, "masked_fill_")
        v = fill_value(self, value)
        return inplace(self, "masked_fill_", lambda old, val: E.where(m, val, old), v)

    def __setitem__(self, index: Any, value: Any) -> None:
        index = normalize_index(index)
        steps = split_int_indices(index)
        if steps is not None:  # PyTorch's order: the ints first (a view), then the rest
            cast("Tensor", self)[steps[0]][steps[1]] = value
            return
        inplace(self, "__setitem__", None, coerce(value), index=index)

    def clamp_min_(self, min: Any) -> Tensor:
        """clamp_(min=min), in place.

        >>> x = tg.tensor([-1.0, 2.0]); x.clamp_min_(0.0)
        tensor([0., 2.])
        """
        return self.clamp_(min, None)

    def clamp_max_(self, max: Any) -> Tensor:
        """clamp_(max=max), in place.

        >>> x = tg.tensor([-1.0, 2.0]); x.clamp_max_(0.0)
        tensor([-1.,  0.])
        """
        return self.clamp_(None, max)

    def lerp_(self, end: TensorLike, weight: TensorLike) -> Tensor:
        """lerp in place.

        >>> x = tg.tensor([1.0, 2.0]); x.lerp_(tg.tensor([3.0, 6.0]), 0.5)
        tensor([2., 4.])
        """
        return unary_(self, "lerp_", lambda old, e: as_tensor(old).lerp(e, weight), end)

    def addcmul_(self, tensor1: TensorLike, tensor2: TensorLike, *, value: Any = 1) -> Tensor:
        """addcmul in place (Adam's second moment: v.addcmul_(g, g, value=1 - beta2)).

        >>> x = tg.ones(2); x.addcmul_(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]))
        tensor([4., 9.])
        """
        return unary_(
            self,
            "addcmul_",
            lambda old, t1: as_tensor(old).addcmul(t1, tensor2, value=value),
            tensor1,
        )

    def addcdiv_(self, tensor1: TensorLike, tensor2: TensorLike, *, value: Any = 1) -> Tensor:
        """addcdiv in place (Adam's step: p.addcdiv_(m, v.sqrt() + eps, value=-lr)).

        >>> x = tg.ones(2); x.addcdiv_(tg.tensor([1.0, 2.0]), tg.tensor([4.0, 4.0]))
        tensor([1.2500, 1.5000])
        """
        return unary_(
            self,
            "addcdiv_",
            lambda old, t1: as_tensor(old).addcdiv(t1, tensor2, value=value),
            tensor1,
        )

    def float_power_(self, exponent: TensorLike) -> Tensor:
        """float_power in place (a float64 tensor only: others cannot hold it, as PyTorch).

        >>> x = tg.tensor([2.0], dtype=tg.float64); x.float_power_(3)
        tensor([8.], dtype=float64)
        """
        if self._data.dtype != np.float64:
            raise RuntimeError(
                f"float_power_: the base given to float_power_ has dtype {self._data.dtype} but "
                f"the operation's result requires dtype float64 (as PyTorch)"
            )
        return unary_(self, "float_power_", lambda old, e: as_tensor(old).float_power(e), exponent)

    def heaviside_(self, values: TensorLike) -> Tensor:
        """heaviside in place.

        >>> x = tg.tensor([-1.0, 0.0, 2.0]); x.heaviside_(tg.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
        """
        return unary_(self, "heaviside_", lambda old, v: as_tensor(old).heaviside(v), values)

    def gcd_(self, other: TensorLike) -> Tensor:
        """gcd in place.

        >>> x = tg.tensor([12, 18]); x.gcd_(tg.tensor([8, 27]))
        tensor([4, 9])
        """
        return unary_(self, "gcd_", lambda old, o: as_tensor(old).gcd(o), other)

    def lcm_(self, other: TensorLike) -> Tensor:
        """lcm in place.

        >>> x = tg.tensor([4, 6]); x.lcm_(tg.tensor([6, 4]))
        tensor([12, 12])
        """
        return unary_(self, "lcm_", lambda old, o: as_tensor(old).lcm(o), other)
