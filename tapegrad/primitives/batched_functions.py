"""NumPy's functions on the values of batched tensors (BatchedArray): each one as it would run on
every example, computed once on the stacked values (np.where, reductions along an example's axes,
reshapes, joins, ...). A function without a rule here is a clear error (batched_array.py).

Layer L1: numpy and batched_array. Importing this module registers the rules.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .batched_array import (
    FUNCTIONS,
    BatchedArray,
    any_batched,
    implements,
    operand,
    result,
    shifted,
    top_level,
)


def _lifted(func: Any) -> Callable:
    """A NumPy function of arrays (and keywords) applied as to elementwise operands."""

    def rule(*args: Any, **kwargs: Any) -> Any:
        level = top_level(args)
        rank = max(np.ndim(a) for a in args)
        out = func(*[operand(a, level, rank) for a in args], **kwargs)
        return result(out, level, any_batched(args, level))

    return rule


def _where(condition: Any, *xy: Any) -> Any:
    if not xy:
        raise TypeError("vmap: np.where(mask) gives a data-dependent shape; use tg.where(c, x, y)")
    return _lifted(np.where)(condition, *xy)


implements(np.where)(_where)
_f: Any
for _f in (np.clip, np.isclose, np.round, np.around):
    implements(_f)(_lifted(_f))


def _reducer(func: Any) -> Callable:
    def rule(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        if not a.batched:
            return func(a.physical, axis, *args, **kwargs)
        return result(func(a.physical, shifted(axis, a.ndim), *args, **kwargs), a.level, True)

    return rule


for _f in (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.any, np.all):
    implements(_f)(_reducer(_f))
for _f in (np.std, np.var, np.count_nonzero, np.nansum, np.nanmax, np.nanmin):
    implements(_f)(_reducer(_f))


def _along_one_axis(func: Any, default: Any) -> Callable:
    """argmax, argmin, cumsum, sort...: one axis, None meaning the flattened example."""

    def rule(a: Any, axis: Any = default, *args: Any, **kwargs: Any) -> Any:
        if not a.batched:
            return func(a.physical, axis, *args, **kwargs)
        keep, size = kwargs.pop("keepdims", False), a.level.size
        if axis is None:  # (over each example flattened)
            out = func(a.physical.reshape(size, -1), 1, *args, **kwargs)
            if keep:
                out = out.reshape((size,) + (1,) * a.ndim)
        else:
            axis = int(axis) % max(a.ndim, 1) + 1
            out = func(a.physical, axis, *args, **kwargs)
            if keep:
                out = np.expand_dims(out, axis)
        return result(out, a.level, True)

    return rule


for _f in (np.argmax, np.argmin, np.cumsum, np.cumprod):
    implements(_f)(_along_one_axis(_f, None))
for _f in (np.sort, np.argsort):
    implements(_f)(_along_one_axis(_f, -1))


@implements(np.expand_dims)
def _expand_dims(a: Any, axis: Any) -> Any:
    if not a.batched:
        return np.expand_dims(a.physical, axis)
    n = a.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    return result(np.expand_dims(a.physical, shifted(axis, n)), a.level, True)


@implements(np.squeeze)
def _squeeze(a: Any, axis: Any = None) -> Any:
    if not a.batched:
        return np.squeeze(a.physical, axis)
    if axis is None:
        axis = tuple(i for i, n in enumerate(a.shape) if n == 1)
    return result(np.squeeze(a.physical, shifted(axis, a.ndim)), a.level, True)


@implements(np.reshape)
def _reshape(a: Any, shape: Any, *args: Any, **kwargs: Any) -> Any:
    if not a.batched:
        return np.reshape(a.physical, shape, *args, **kwargs)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return result(np.reshape(a.physical, (a.level.size,) + shape), a.level, True)


@implements(np.ravel)
def _ravel(a: Any, *args: Any) -> Any:
    return _reshape(a, (-1,))


@implements(np.transpose)
def _transpose(a: Any, axes: Any = None) -> Any:
    if not a.batched:
        return np.transpose(a.physical, axes)
    axes = tuple(range(a.ndim - 1, -1, -1)) if axes is None else axes
    return result(np.transpose(a.physical, (0,) + shifted(tuple(axes), a.ndim)), a.level, True)


@implements(np.swapaxes)
def _swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    axes = list(range(a.ndim))
    i, j = int(axis1) % a.ndim, int(axis2) % a.ndim
    axes[i], axes[j] = axes[j], axes[i]
    return _transpose(a, axes)


@implements(np.moveaxis)
def _moveaxis(a: Any, source: Any, destination: Any) -> Any:
    if not a.batched:
        return np.moveaxis(a.physical, source, destination)
    moved = np.moveaxis(a.physical, shifted(source, a.ndim), shifted(destination, a.ndim))
    return result(moved, a.level, True)


@implements(np.broadcast_to)
def _broadcast_to(a: Any, shape: Any, *args: Any, **kwargs: Any) -> Any:
    if not a.batched:
        return np.broadcast_to(a.physical, shape)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    values = operand(a, a.level, len(shape))
    return result(np.broadcast_to(values, (a.level.size,) + shape), a.level, True)


def _joined(func: Any) -> Callable:
    """concatenate/stack: pieces shared by the batch are broadcast to it first."""

    def rule(arrays: Any, axis: int = 0, *args: Any, **kwargs: Any) -> Any:
        level = top_level(arrays)
        ndim = max(np.ndim(a) for a in arrays) + (func is np.stack)
        pieces = []
        for a in arrays:
            if a.__class__ is BatchedArray and a.level is level and a.batched:
                pieces.append(a.physical)
            else:
                p = a.physical if a.__class__ is BatchedArray and a.level is level else a
                pieces.append(np.broadcast_to(p, (level.size,) + np.shape(p)))
        return result(func(pieces, shifted(axis, ndim), *args, **kwargs), level, True)

    return rule


for _f in (np.concatenate, np.stack):
    implements(_f)(_joined(_f))


@implements(np.shape)
def _shape(a: Any) -> tuple:
    return a.shape


@implements(np.ndim)
def _ndim(a: Any) -> int:
    return a.ndim


@implements(np.size)
def _size(a: Any, axis: Any = None) -> int:
    return a.size if axis is None else a.shape[axis]


@implements(np.result_type)
def _result_type(*args: Any) -> np.dtype:
    return np.result_type(*[a.dtype if a.__class__ is BatchedArray else a for a in args])


@implements(np.may_share_memory, np.shares_memory)
def _shares(a: Any, b: Any, *args: Any) -> bool:
    return bool(np.may_share_memory(_values(a), _values(b)))  # (the batches share it)


def _values(a: Any) -> Any:
    return a.physical if a.__class__ is BatchedArray else a


@implements(np.copy)
def _copy(a: Any, *args: Any, **kwargs: Any) -> Any:
    return a.copy()


def _like(fill: Any) -> Callable:
    def rule(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> np.ndarray:
        return np.full(a.shape, fill, dtype or a.dtype)  # (the same for every example)

    return rule


FUNCTIONS[np.zeros_like] = _like(0)
FUNCTIONS[np.ones_like] = _like(1)
FUNCTIONS[np.empty_like] = _like(0)


@implements(np.full_like)
def _full_like(a: Any, fill_value: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
    return np.full(a.shape, fill_value, dtype or a.dtype)
