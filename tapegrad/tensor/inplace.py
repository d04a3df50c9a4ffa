"""In-place ops (`+=`, `**=`, add_, exp_, x[i] = v, fill_, copy_, unsqueeze_, ...) and what they do
to views.

Layer L3: numpy, the rule table, the storage base, record.py (`apply`, `wrap`, views), grad.py's
set_history, coerce.py and the indexing room's mask helpers. On the tape an in-place op is recorded
out of place on a copy of the old value; the result is then written into the tensor's memory. A view
writes through to its root (recorded as the view's inverse: index_put, reshape, transpose), and
every live view of that root is brought up to date, so a view made before the change sees it in its
gradient too (as PyTorch). Each change bumps the version counter the root shares with its views: a
stale saved value raises at backward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from .._state import overrides, state
from ..primitives import elementwise as E
from ..primitives import shape as S
from ..primitives.registry import Primitive
from .base import TensorBase
from .coerce import TensorLike, as_tensor, coerce, normalize_index, split_int_indices
from .elementwise import clip_bounds, divide, scaled
from .grad import set_history
from .indexing import bool_mask, fill_value
from .printing import unary_doc
from .record import apply, live_views, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


def _inplace_unary(prim: Primitive) -> Callable[[TensorBase], Tensor]:
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
    exp_, log_, log1p_, expm1_ = (_inplace_unary(p) for p in (E.exp, E.log, E.log1p, E.expm1))
    sin_, cos_, tan_, tanh_ = (_inplace_unary(p) for p in (E.sin, E.cos, E.tan, E.tanh))
    sqrt_, sigmoid_, relu_, erf_ = (_inplace_unary(p) for p in (E.sqrt, E.sigmoid, E.relu, E.erf))
    abs_, neg_, sign_ = (_inplace_unary(p) for p in (E.abs, E.neg, E.sign))
    floor_, ceil_, trunc_ = (_inplace_unary(p) for p in (E.floor, E.ceil, E.trunc))
    log10_, log2_ = _inplace_unary(E.log10), _inplace_unary(E.log2)
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


def reshaped_in_place(t: TensorBase, name: str, view_op: Callable[[Tensor], Tensor]) -> Tensor:
    """unsqueeze_, t_, ...: t takes the sizes of `view_op(t)` (the op out of place, a view of the
    same memory) and its place on the tape, as PyTorch changes a tensor's sizes and strides. The
    version counter moves on: a saved value of the old shape is stale."""
    recorded = t._requires_grad and state._enabled
    if recorded and t._grad_fn is None and getattr(t, "_base", None) is None:
        raise RuntimeError(
            f"a leaf tensor that requires grad is used in an in-place operation ({name}); use the "
            f"out-of-place {name.rstrip('_')} (or do it inside `with tg.no_grad():`)"
        )
    if recorded and live_views(cast("Tensor", t)):
        raise RuntimeError(
            f"{name}: this tensor has views on the tape, which describe it in its old shape; use "
            f"the out-of-place {name.rstrip('_')} (y = x.{name.rstrip('_')}(...))"
        )
    new = view_op(cast("Tensor", t))
    t._data = new._data
    if recorded:
        set_history(t, new._grad_fn, new._requires_grad)
        if getattr(t, "_base", None) is not None:  # (a view: its steps from the root grow by one)
            t._base = new._base
    t._version_counter()[0] += 1
    t._inplace_op = name
    return cast("Tensor", t)


def unary_(self: TensorBase, name: str, fn: Any, other: Any = None) -> Tensor:
    """In place: self becomes fn(self, other) (recorded when on the tape), where fn takes Tensors or
    arrays. A result the tensor's dtype cannot hold (exp_ of an int tensor) is an error, as in
    PyTorch."""

    def op(old: Any, value: Any) -> Any:
        new = fn(old, value)
        if not np.can_cast(new.dtype, old.dtype, casting="same_kind"):
            raise RuntimeError(
                f"{name}: the result has dtype {new.dtype}, which this {old.dtype} tensor "
                f"cannot hold (as PyTorch refuses); use the out-of-place {_out_of_place(name)} "
                f"(or convert with .float() first)"
            )
        return new

    return inplace(self, name, op, other)


def _out_of_place(name: str) -> str:
    """The out-of-place spelling of an in-place op: `exp` for exp_, `x & y` for &=."""
    return f"x {name[:-1]} y" if name.endswith("=") else name.rstrip("_")


# ---- the shared path ----------------------------------------------------------------------------
UFUNCS: dict[Any, Any] = {
    E.add: np.add,
    E.sub: np.subtract,
    E.mul: np.multiply,
    E.div: np.true_divide,
}


NO_INDEX = object()  # (None is an index: `x[None] = v`)


def inplace(
    t: TensorBase, name: str, op: Primitive | Callable | None, other: Any, index: Any = NO_INDEX
) -> Tensor:
    """The shared path of in-place ops: `op(old, other)` is the new value (None: `other` itself,
    broadcast; with `index`: t with t[index] = other), recorded when t or other requires grad,
    else computed straight into t's memory."""
    if index is not NO_INDEX:
        op = _put_at(index)
    if overrides[0] and state.vmap_levels:  # inside vmap: batched tensors have their own path
        from . import batched  # (it subclasses Tensor, which this room is part of: read on use)

        if batched.level_of(t) is not None:
            return _inplace_batched(t, name, op or _copy_from, other, index)
        if batched.batched_levels(other) or batched.batched_levels(index):
            raise _shared_error(name)
        other = batched.unwrapped(other)
    other_req = isinstance(other, TensorBase) and other._requires_grad
    if (t._requires_grad or other_req) and state._enabled:
        if t._grad_fn is None and t._requires_grad and getattr(t, "_base", None) is None:
            raise RuntimeError(
                f"a leaf tensor that requires grad is used in an in-place operation ({name}); do "
                f"it inside `with tg.no_grad():` (as optimizers do) or use an out-of-place op"
            )
        old = wrap(t._data.copy(), t._grad_fn)  # the value before, on the tape
        old._requires_grad = t._requires_grad
        if op is None:  # copy_: the source's values, and a zero gradient for the old ones
            op = _copy_from
        result = op(old, other)
        check_shape(name, result._data, t._data)
        write(t, result, name)
    else:
        _check_writable(t, name)
        value = other._data if isinstance(other, TensorBase) else other
        ufunc = UFUNCS.get(op)
        try:  # straight into the buffer, as NumPy's own `a -= b`
            if index is not NO_INDEX:
                t._data[index] = value
            elif op is None:
                t._data[...] = value
            elif ufunc is not None:
                ufunc(t._data, value, t._data)  # (out positional; casting: same_kind)
            else:
                result = op(t._data, value)
                result = result._data if isinstance(result, TensorBase) else result
                check_shape(name, result, t._data)
                t._data[...] = result
        except (ValueError, TypeError) as e:  # broadcasting or casting problems: say them clearly
            if index is not NO_INDEX or ufunc is None:
                raise ValueError(f"{name}: {e}") from None
            result = op.forward(t._data, value)  # type: ignore[union-attr]
            check_shape(name, result, t._data)
            if not np.can_cast(result.dtype, t._data.dtype, casting="same_kind"):
                raise RuntimeError(
                    f"{name}: the result has dtype {result.dtype}, which this {t._data.dtype} "
                    f"tensor cannot hold (as PyTorch refuses); use the out-of-place "
                    f"{_out_of_place(name)} (or convert with .float() first)"
                ) from None
            t._data[...] = result
    t._version_counter()[0] += 1
    t._inplace_op = name
    return t  # type: ignore[return-value]  # (a TensorBase is a Tensor; cast() costs a call per op)


def _inplace_batched(t: TensorBase, name: str, op: Callable, other: Any, index: Any) -> Tensor:
    """An in-place op on a tensor inside vmap: computed on the batch, written into the batch's
    tensor with an in-place op there (so views and versions there follow), and recorded at the
    vmap's level as `inplace` records it (a view writes through to its root)."""
    from . import batched  # (as in inplace(): read on use)

    written = batched.batched_levels(other) | batched.batched_levels(index)
    if not written <= batched.batched_levels(t):
        raise _shared_error(name)
    level: Any = batched.level_of(t)
    values: Any = t._data
    other_req = isinstance(other, TensorBase) and other._requires_grad
    recorded = (t._requires_grad or other_req) and state._enabled
    view = getattr(t, "_base", None)
    if recorded:
        leaf = t if view is None else view[0]
        if leaf._grad_fn is None and leaf._requires_grad:
            raise RuntimeError(
                f"a leaf tensor (or a view of one) that requires grad is used in an in-place "
                f"operation ({name}); do it inside `with tg.no_grad():` or out of place"
            )
    old = batched.batched(batched.physical(t).clone(), level, values.batched)  # (the value
    old._grad_fn, old._requires_grad = t._grad_fn, t._requires_grad  # before, on the tape)
    new = op(old, other)
    if tuple(new.shape) != tuple(t.shape):
        raise RuntimeError(
            f"in-place {name}: the result has shape {list(new.shape)}, which does not match the "
            f"tensor's shape {list(t.shape)}; use an out-of-place op"
        )
    target = batched.physical(t)
    value = batched.physical(new) if batched.level_of(new) is level else new
    if values.batched and not batched.is_batched_at(new, level):
        value = value.expand(*((level.size,) + tuple(target.shape[1:])))
    target.copy_(value)  # (in place on the batch's tensor)
    if recorded and view is None:
        set_history(t, new._grad_fn, new._requires_grad)
    elif recorded:
        root, steps = view  # type: ignore[misc]  # (a view: (root, steps))
        new_root = _put_back(root, steps, new, name)
        set_history(root, new_root._grad_fn, new_root._requires_grad)
        for v in live_views(root):
            _refresh(v)
    t._version_counter()[0] += 1
    t._inplace_op = name
    return cast("Tensor", t)


def _shared_error(name: str) -> RuntimeError:
    return RuntimeError(
        f"vmap: in-place {name} would write values that differ between the examples of the "
        f"batch into a tensor they share (one not vmapped over, or made outside vmap). Use the "
        f"out-of-place op instead (y = x + v rather than x += v)"
    )


def _put_at(index: Any) -> Callable:
    """The recorded op of `t[index] = v`."""
    return lambda old, v: apply(S.index_put, old, v, index=index)


def _copy_from(old: Tensor, src: Any) -> Tensor:
    """copy_'s recorded op: src broadcast to old's shape, on the tape behind both (as PyTorch's
    CopyBackwards), so the tensor stays on the tape even when src is a constant."""
    return apply(E.where, np.True_, src, old)


def _check_writable(t: TensorBase, name: str) -> None:
    if not t._data.flags.writeable:
        raise RuntimeError(
            f"{name}: this tensor's memory is read-only (an expanded/broadcast view, where "
            f"several elements share one memory location); make a copy first (x.clone())"
        )


def check_shape(name: str, result: Any, data: np.ndarray) -> None:
    """An in-place result must keep the tensor's shape."""
    if np.shape(result) != data.shape:
        raise RuntimeError(
            f"in-place {name}: the result has shape {list(np.shape(result))}, which does not "
            f"match the tensor's shape {list(data.shape)}; use an out-of-place op"
        )


def write(t: TensorBase, value: Tensor, name: str) -> None:
    """Make t hold `value` (a recorded tensor of t's shape): its memory is overwritten, a view
    writes through to its root on the tape, and the root's live views are brought up to date."""
    view = getattr(t, "_base", None)
    if view is None:
        _check_writable(t, name)
        t._data[...] = value._data
        set_history(t, value._grad_fn, value._requires_grad)
        root, new_root = cast("Tensor", t), None
    else:
        root, steps = view
        if root._grad_fn is None and root._requires_grad:
            raise RuntimeError(
                f"a view of a leaf tensor that requires grad is used in an in-place operation "
                f"({name}); do it inside `with tg.no_grad():` or on a copy (x.clone())"
            )
        new_root = _put_back(root, steps, value, name)  # (reads the root's old values)
        _check_writable(t, name)
        t._data[...] = value._data
        set_history(root, new_root._grad_fn, new_root._requires_grad)
    if root._requires_grad:
        for v in live_views(root):
            _refresh(v)


def _put_back(root: Tensor, steps: tuple, value: Tensor, name: str) -> Tensor:
    """The root with the viewed part replaced by `value`, recorded: each view op undone in turn."""
    chain = [wrap(root._data, root._grad_fn)]
    chain[0]._requires_grad = root._requires_grad
    for prim, params in steps[:-1]:
        chain.append(apply(prim, chain[-1], **params))
    new = value
    for (prim, params), parent in zip(reversed(steps), reversed(chain)):
        if prim is S.getitem:
            new = apply(S.index_put, parent, new, index=params["index"])
        elif prim is S.reshape:
            new = apply(S.reshape, new, shape=parent.shape)
        elif prim is S.transpose:
            new = apply(S.transpose, new, axes=S.inverse(params["axes"]))
        else:  # expand: one element of the root stands for many of the view
            raise RuntimeError(
                f"in-place {name} on a broadcast (expanded) view: several of its elements "
                f"share one memory location; make a copy first (x.expand(...).clone())"
            )
    return new


def _refresh(view: Tensor) -> None:
    """Re-derive a view's history from its root's (after an in-place change of that memory)."""
    cur, steps = view._base
    for prim, params in steps:
        cur = apply(prim, cur, **params)
    set_history(view, cur._grad_fn, cur._requires_grad)
