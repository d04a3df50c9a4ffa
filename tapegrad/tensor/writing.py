"""Writing in place: the shared path every in-place op takes (`inplace`, and `unary_` for a result
that must fit the tensor's dtype), and what it does to views.

Layer L3: numpy, the L0 state and dtypes (PyTorch's promotion and casting rules), the rule table,
the storage base, record.py (`apply`, `wrap`, views) and grad.py's set_history (batched.py, for
tensors inside vmap, is read on use). On the tape an in-place op is recorded out of place on a copy
of the old value; the result is then written into the tensor's memory. A view writes through to its
root (recorded as the view's inverse: index_put, reshape, transpose), and every live view of that
root is brought up to date, so a view made before the change sees it in its gradient too (as
PyTorch). Each change bumps the version counter the root shares with its views: a stale saved value
raises at backward. Off the tape the result goes straight into the tensor's memory. An operand of
another dtype is first cast to the dtype PyTorch computes in, and a result the tensor's dtype cannot
hold (by PyTorch's rule: floating into integers, anything into bools) is an error, as in PyTorch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from .. import dtypes
from .._utils import ShapeError
from .._state import overrides, state
from ..primitives import elementwise as E
from ..primitives import shape as S
from ..primitives.registry import Primitive
from .base import TensorBase
from .grad import set_history
from .record import WRAPPING_OPS, apply, live_views, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


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
    version = t._version_counter()  # (while t still holds its node's output: that node sees it)
    t._data = new._data
    if recorded:
        set_history(t, new._grad_fn, new._requires_grad)
        if getattr(t, "_base", None) is not None:  # (a view: its steps from the root grow by one)
            t._base = new._base
    version[0] += 1
    t._inplace_op = name
    return cast("Tensor", t)


def unary_(self: TensorBase, name: str, fn: Any, other: Any = None) -> Tensor:
    """In place: self becomes fn(self, other) (recorded when on the tape), where fn takes Tensors or
    arrays. A result the tensor's dtype cannot hold (exp_ of an int tensor) is an error, as in
    PyTorch."""

    def op(old: Any, value: Any) -> Any:
        new = fn(old, value)
        if not dtypes.castable(new.dtype, old.dtype):
            raise _cannot_hold(name, new.dtype, old.dtype)
        return new

    return inplace(self, name, op, other)


def _cast_operand(t: TensorBase, name: str, other: Any, value: np.ndarray) -> Any:
    """`other` (a tensor or array of another dtype than t's) cast to the dtype PyTorch computes
    t <op>= other in (dtypes.arrays_dtype: float16 vector -= 0-d float32 0.1 subtracts float16's
    0.1); an error where that dtype's values cannot be written into t (dtypes.castable)."""
    common = dtypes.arrays_dtype(t._data, value)
    if not dtypes.castable(common, t._data.dtype):
        raise _cannot_hold(name, common, t._data.dtype)
    if common == value.dtype:
        return other
    if isinstance(other, TensorBase):
        return apply(E.cast, other, dtype=common)  # (on the tape: other's gradient in its dtype)
    return value.astype(common)


def _cannot_hold(name: str, result: np.dtype, dtype: np.dtype) -> RuntimeError:
    """The error for an in-place result of a dtype the tensor's cannot hold (PyTorch refuses)."""
    return RuntimeError(
        f"{name}: the result has dtype {result}, which this {dtype} tensor cannot hold (as "
        f"PyTorch refuses); use the out-of-place {_out_of_place(name)} (or convert with "
        f".float() first)"
    )


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
    value = other._data if isinstance(other, TensorBase) else other
    if op is E.sub:  # (NumPy's ufunc would subtract bools in place: refused as the op refuses them)
        E.refuse_bools("subtraction", t._data, value)
    if value.__class__ is np.ndarray and value.dtype is not t._data.dtype:
        if index is NO_INDEX and isinstance(op, Primitive):  # (add_, mul_, ...: index puts and
            other = _cast_operand(t, name, other, value)  # copy_ cast values as they go, and
            # unary_'s ops, comparisons among them, promote as their out-of-place forms do)
    elif value.__class__ is int and t._data.dtype.kind in "iu" and op in WRAPPING_OPS:
        other = dtypes.wrapped(value, t._data.dtype)  # (as PyTorch casts it: uint8.add_(300))
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
        if result._data.dtype != t._data.dtype:  # (on the tape in t's dtype, as PyTorch's result)
            result = result.astype(t._data.dtype)
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
                kind = ShapeError if isinstance(e, ValueError) else ValueError
                raise kind(f"{name}: {e}") from None
            try:  # (the op again, out of place: it says what failed, or gives the value to cast)
                result = op.forward(t._data, value)  # type: ignore[union-attr]
            except ValueError as again:
                raise ShapeError(f"{name}: {again}") from None
            check_shape(name, result, t._data)
            if not dtypes.castable(result.dtype, t._data.dtype):
                raise _cannot_hold(name, result.dtype, t._data.dtype) from None
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
