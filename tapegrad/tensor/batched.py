"""Tensors inside vmap: `BatchedTensor` (what the vmapped function sees: one example) and `apply`,
which runs an op on them by its primitive's batching rule.

Layer L3: numpy, the L0 state, the rule table (batching rules, BatchedArray) and the Tensor class.
A BatchedTensor's `_data` is a BatchedArray holding the physical tensor: the whole batch, examples
along axis 0 (or, not batched, one tensor the batch shares). An op on it runs its primitive's
batching rule on the physical tensors, so it is recorded there (a tape outside vmap sees it); when
something differentiates inside vmap at this level (a `grad` in the vmapped function), the op is
also recorded at this level, by `record`, on the BatchedTensors themselves: their backward then runs
batched too, and gives each example its own gradient.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes
from .._state import state
from .._utils import normalize_axis, one_axis
from ..primitives.batched_array import BatchedArray, Level, top_level
from .record import use_batching
from .reduction import MaxResult, MinResult
from .tensor import Tensor

_new = object.__new__


class BatchedTensor(Tensor):
    """A tensor inside vmap: its shape, values and ops are one example's; behind it is the batch
    (`_data` is a BatchedArray). Made by tg.vmap; returned from it as the stacked tensor.

    >>> tg.vmap(lambda x: x.shape[0] + 0 * x.sum())(tg.ones(5, 3))  # each example has 3 values
    tensor([3., 3., 3., 3., 3.])
    """

    __slots__ = ()
    _data: Any  # (a BatchedArray)

    # ---- what NumPy computes from one example's values, as tensors (Tensor's versions would
    # turn the values into one array, which the batch cannot be)
    def __lt__(self, other: Any) -> Tensor:
        return _values_op(np.less, self, other)

    def __le__(self, other: Any) -> Tensor:
        return _values_op(np.less_equal, self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _values_op(np.greater, self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _values_op(np.greater_equal, self, other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _values_op(np.equal, self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _values_op(np.not_equal, self, other)

    __hash__ = object.__hash__

    def argmax(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The position of the largest value of each example (over one axis, or all)."""
        keep = bool(keepdim if keepdims is None else keepdims)
        return _arg_extreme(np.argmax, self, dim if axis is None else axis, keep)

    def argmin(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The position of the smallest value of each example (over one axis, or all)."""
        keep = bool(keepdim if keepdims is None else keepdims)
        return _arg_extreme(np.argmin, self, dim if axis is None else axis, keep)

    def all(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """Whether every element of each example is true (over dim)."""
        keep = bool(keepdim if keepdims is None else keepdims)
        return _logical(np.all, self, dim if axis is None else axis, keep)

    def any(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """Whether some element of each example is true (over dim)."""
        keep = bool(keepdim if keepdims is None else keepdims)
        return _logical(np.any, self, dim if axis is None else axis, keep)

    def max(self, *args: Any, **kwargs: Any) -> Any:
        """As Tensor.max; with a dimension, (values, indices) of each example."""
        return _extreme(self, np.argmax, MaxResult, "max", args, kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        """As Tensor.min; with a dimension, (values, indices) of each example."""
        return _extreme(self, np.argmin, MinResult, "min", args, kwargs)

    def astype(self, dtype: Any) -> Tensor:
        """A cast; differentiable between floating dtypes."""
        dtype = dtypes.as_dtype(dtype)
        if dtype == self._data.dtype:
            return self
        if dtype.kind != "f" or self._data.dtype.kind != "f":
            return from_values(self._data.astype(dtype))
        return super().astype(dtype)

    # ---- the tape ---------------------------------------------------------------------------
    def detach(self) -> Tensor:
        """The same values, cut from the tape at every level."""
        values = self._data
        t = wrap(BatchedArray(physical(self).detach(), values.level, values.batched))
        t._vc = self._version_counter()
        return t

    @property
    def data(self) -> Tensor:
        """A detached tensor sharing this one's values."""
        return self.detach()

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    def backward(self, *args: Any, **kwargs: Any) -> None:
        """Not inside vmap: each example would add into one shared .grad."""
        raise RuntimeError(
            "vmap: backward() was called on a batched tensor inside vmap; use "
            "tapegrad.func.grad / vjp (or tg.grad) inside the vmapped function, which give each "
            "example its gradient"
        )

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data.__array__()  # (raises: the batch is not one array)

    def __repr__(self) -> str:
        values = self._data
        how = f"batch of {values.level.size}" if values.batched else "shared by the batch"
        return f"BatchedTensor(level {values.level.depth}, {how}, value=\n{physical(self)!r})"

    __str__ = __repr__


# ---- making them -------------------------------------------------------------------------------
def wrap(values: BatchedArray, grad_fn: Any = None) -> BatchedTensor:
    """A BatchedTensor holding `values` (on the tape behind `grad_fn` when given)."""
    t = _new(BatchedTensor)
    t._data = values
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._vc = None
    return t


def from_values(values: Any) -> Tensor:
    """A tensor of values NumPy computed: batched ones as a BatchedTensor, others as a Tensor."""
    if values.__class__ is BatchedArray:
        return wrap(values)
    return Tensor._make(np.asarray(values))


def batched(physical_tensor: Tensor, level: Level, is_batched: bool = True) -> BatchedTensor:
    """The BatchedTensor of `level` over a physical tensor (examples along axis 0 if batched)."""
    return wrap(BatchedArray(physical_tensor, level, is_batched))


def physical(t: Any) -> Any:
    """The tensor behind a BatchedTensor (the batch along axis 0, unless shared by it)."""
    values: Any = t._data
    if values.tensor is not None:
        return values.tensor
    return from_values(values.physical)


def level_of(x: Any) -> Level | None:
    """The vmap level a tensor (or array) lives at; None outside vmap."""
    values = getattr(x, "_data", x)
    return values.level if values.__class__ is BatchedArray else None


def is_batched_at(x: Any, level: Level) -> bool:
    """Whether x holds one value per example of `level`'s batch (at that level or one inside)."""
    values = getattr(x, "_data", x)
    while values.__class__ is BatchedArray:
        if values.level is level:
            return bool(values.batched)
        values = values.physical
    return False


def differentiated_below(t: Tensor, level: Level) -> bool:
    """Whether a differentiation outside `level` (a tape below it) follows t."""
    if level_of(t) is level:
        t = physical(t)
    while not t._requires_grad:
        if level_of(t) is None:
            return False
        t = physical(t)
    return True


def at_level(t: Tensor, level: Level) -> BatchedTensor:
    """t as a tensor of `level` that the batch shares (to differentiate with respect to it there:
    each example then gets its own gradient)."""
    if level_of(t) is level:
        return t  # type: ignore[return-value]
    return batched(t, level, False)


def fresh_leaf(t: Tensor, keep_below: bool) -> BatchedTensor:
    """A new tensor of t's level with t's values and no history at that level; its physical tensor
    keeps its own (a differentiation outside sees through it) if `keep_below`, else is detached."""
    values: Any = t._data
    below = physical(t)
    leaf = wrap(BatchedArray(below if keep_below else below.detach(), values.level, values.batched))
    return leaf


# ---- ops --------------------------------------------------------------------------------------
def apply(prim: Any, args: tuple, params: dict, record: Callable) -> Tensor | None:
    """Run one op whose inputs include batched tensors (None: none do): by its batching rule at
    the innermost level among them, recorded at that level by `record` when something there
    requires grad."""
    level = _innermost(args, params)
    if level is None:
        return None
    inputs, flags, needs = [], [], 0
    for i, a in enumerate(args):
        values = getattr(a, "_data", a)
        if values.__class__ is BatchedArray and values.level is level:
            is_tensor = isinstance(a, Tensor)
            inputs.append(physical(a) if is_tensor else values.physical)
            flags.append(values.batched)
            if is_tensor and a._requires_grad:
                needs |= 1 << i
        else:
            inputs.append(a)
            flags.append(False)
    per_example = [k for k, v in params.items() if _holds(v, level)]
    if per_example and not getattr(prim.batch, "reads_batched_params", False):
        raise RuntimeError(
            f"vmap: {prim.name} got a value that differs between examples as its parameter "
            f"{per_example[0]!r}, which its batching rule cannot take; pass it as a tensor input"
        )
    if any(flags) or per_example:
        if prim.batch is None:
            raise RuntimeError(
                f"vmap: the primitive {prim.name!r} has no batching rule, so it cannot run inside "
                f"vmap; give it one (`batch=` where it is declared, see primitives/batching.py)"
            )
        out, out_batched = prim.batch(level, prim, inputs, flags, params), True
    else:  # (only tensors the batch shares, living at this level to be differentiated there)
        out, out_batched = prim(*inputs, **params), False
    values = BatchedArray(out, level, out_batched)
    if needs and state._enabled:
        t = record(prim, values, args, params, needs)
        t.__class__ = BatchedTensor  # (record makes a Tensor; the slots are the same)
        return t
    return wrap(values)


def _innermost(args: tuple, params: dict) -> Level | None:
    """The innermost running vmap level among the inputs and parameters (None: none)."""
    return top_level([values for v in (*args, *params.values()) for values in _values_in(v)])


def _values_in(v: Any) -> list:
    """The BatchedArrays in an input or parameter (a tensor, an array, or a tuple of them)."""
    values = getattr(v, "_data", v)
    if values.__class__ is BatchedArray:
        return [values]
    if isinstance(v, tuple):
        return [x for item in v for x in _values_in(item)]
    return []


def _holds(v: Any, level: Level) -> bool:
    return any(values.level is level for values in _values_in(v))


# ---- the methods that read values --------------------------------------------------------------
def _values_op(ufunc: Any, x: Any, y: Any) -> Tensor:
    values = [v._data if isinstance(v, Tensor) else v for v in (x, y)]
    return from_values(ufunc(*values))


def _arg_extreme(pick: Any, x: BatchedTensor, axis: Any, keepdims: bool) -> Tensor:
    if axis is not None:
        if not isinstance(axis, int | np.integer) or isinstance(axis, bool):
            raise TypeError(f"argmax/argmin take one axis (an int), got {axis!r}")
        axis = None if x.ndim == 0 else one_axis(axis, x.ndim)
    return from_values(pick(x._data, axis=axis, keepdims=keepdims))


def _logical(pick: Any, x: BatchedTensor, axis: Any, keepdims: bool) -> Tensor:
    axes = normalize_axis(axis, x.ndim) if x.ndim else None
    return from_values(pick(x._data, axis=axes, keepdims=keepdims))


def _extreme(x: BatchedTensor, pick: Any, result: Any, name: str, args: tuple, kw: dict) -> Any:
    """max/min: with a dimension, each example's (values, indices); otherwise as Tensor's."""
    dim = kw.get("dim")
    if args and isinstance(args[0], int | np.integer) and not isinstance(args[0], bool):
        dim = args[0]
        if len(args) > 1:
            kw = {**kw, "keepdim": args[1]}
    elif args or dim is None:
        return getattr(Tensor, name)(x, *args, **kw)
    keep = bool(kw.get("keepdim") if kw.get("keepdim") is not None else kw.get("keepdims", False))
    axis = one_axis(dim, x.ndim) if x.ndim else 0
    indices = np.expand_dims(pick(x._data, axis=axis), axis) if x.ndim else pick(x._data)
    values = x[_along(indices, axis, x.ndim)] if x.ndim else x
    if not keep and x.ndim:
        values, indices = values.squeeze(axis), np.squeeze(indices, axis)
    return result(values, from_values(indices.astype(np.int64)))


def _along(indices: Any, axis: int, ndim: int) -> tuple:
    """The index picking `indices` along `axis` (np.take_along_axis as an index expression)."""
    return tuple(
        indices if i == axis else np.arange(n).reshape((1,) * i + (n,) + (1,) * (ndim - i - 1))
        for i, n in enumerate(indices.shape)
    )


def batched_levels(x: Any) -> set:
    """The vmap levels at which x (a tensor, array, or tuple of them: an index) differs between
    examples."""
    if isinstance(x, tuple):
        return set().union(*[batched_levels(i) for i in x])
    out, values = set(), getattr(x, "_data", x)
    while values.__class__ is BatchedArray:
        if values.batched:
            out.add(values.level)
        values = values.physical
    return out


def unwrapped(x: Any) -> Any:
    """A tensor the batch shares, as the tensor outside vmap it stands for."""
    while isinstance(x, Tensor) and level_of(x) is not None:
        x = physical(x)
    return x


use_batching(apply, wrap)  # (record.py runs ops through these inside vmap; it cannot import us)
