"""Shape primitives: reshape, transpose, expand, indexing (get, scatter back, put) and concatenate.

Conventions as in registry.py. Views (reshape, transpose, expand, basic indexing) share memory with
their input in NumPy, so they share its version counter too (see Tensor._record, which checks that
the output really is a view: advanced indexing and some reshapes copy).
Layer L1: numpy and registry only.
"""

from __future__ import annotations

import numpy as np

from .registry import primitive


@primitive("reshape", "x.reshape(shape)", "g.reshape(x.shape)", saves=False, view=True)
def reshape(x, *, shape):
    return np.reshape(x, shape)


reshape.defvjp(lambda g, out, x, *, shape: reshape(g, shape=x.shape))


@primitive("transpose", "x.transpose(axes)", "g.transpose(inverse of axes)", saves=False, view=True)
def transpose(x, *, axes):
    return x.transpose(axes)  # (the method: np.transpose's wrapper costs more than it does)


transpose.defvjp(lambda g, out, x, *, axes: transpose(g, axes=tuple(np.argsort(axes))))


@primitive(
    "expand",
    "broadcast_to(x, shape)",
    "g summed back to x.shape (by the engine)",
    saves=False,
    view=True,
)
def expand(x, *, shape):
    return broadcast(x, shape)


def broadcast(x, shape):
    """np.broadcast_to(x, shape) without its Python overhead (about 10x less on small arrays): a
    read-only view with zero strides on the broadcast axes. Falls back to NumPy for the cases it
    does not cover (non-contiguous x) and for the error message of an impossible shape."""
    x = np.asarray(x)
    if x.ndim == 0:  # (a scalar to a shape, e.g. the gradient of a full sum: the common case)
        return np.ndarray(shape, x.dtype, memoryview(x).toreadonly(), 0, (0,) * len(shape))
    lead = len(shape) - x.ndim
    if lead < 0 or not x.flags.c_contiguous:
        return np.broadcast_to(x, shape)
    strides = [0] * lead
    for n, m, stride in zip(x.shape, shape[lead:], x.strides):
        if n == m:
            strides.append(stride)
        elif n == 1:
            strides.append(0)
        else:
            return np.broadcast_to(x, shape)  # raises NumPy's clear error
    # a read-only buffer makes a read-only view: writing through zero strides would hit one
    # element many times (and NumPy's own broadcast_to is read-only too)
    return np.ndarray(shape, x.dtype, memoryview(x).toreadonly(), 0, tuple(strides))


expand.defvjp(lambda g, out, x, *, shape: g)


def is_basic_index(index) -> bool:
    """Ints, slices, None and Ellipsis only: no position can be selected twice."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice)) for i in items)


@primitive(
    "getitem",
    "x[index]",
    "zeros like x, with g added at index (repeats accumulate)",
    saves=False,
    view=True,
)  # a view for basic indices (Tensor._record checks the memory)
def getitem(x, *, index):
    out = x[index]
    return out


getitem.defvjp(lambda g, out, x, *, index: scatter_add(g, shape=x.shape, index=index))


@primitive("scatter_add", "zeros(shape) with x added at index", "g[index]", saves=False)
def scatter_add(x, *, shape, index):
    z = np.zeros(shape, dtype=x.dtype)
    if is_basic_index(index):
        z[index] = x
    else:
        np.add.at(z, index, x)
    return z


scatter_add.defvjp(lambda g, out, x, *, shape, index: getitem(g, index=index))


@primitive("index_put", "x with x[index] = v", "g, with 0 at index", "g[index]", saves=False)
def index_put(x, v, *, index):
    z = np.array(x, copy=True)
    z[index] = v
    return z


def _index_put_grad_v(g, out, x, v, *, index):
    gv = getitem(g, index=index)
    if v.ndim > gv.ndim:  # NumPy let v carry extra leading 1s (x[0] = v with v of shape (1, n))
        gv = reshape(gv, shape=(1,) * (v.ndim - gv.ndim) + gv.shape)
    return gv  # any broadcasting of v is summed back by the engine


index_put.defvjp(lambda g, out, x, v, *, index: index_put(g, 0.0, index=index), _index_put_grad_v)


@primitive("concatenate", "concatenate(xs, axis)", "the slice of g that x_i occupies", saves=False)
def concatenate(*xs, axis):
    return np.concatenate(xs, axis=axis)


def _concatenate_grads(g, out, *xs, axis):
    # axis is non-negative here (Tensor code normalises it before recording)
    grads, start = [], 0
    for x in xs:
        stop = start + x.shape[axis]
        grads.append(getitem(g, index=(slice(None),) * axis + (slice(start, stop),)))
        start = stop
    return tuple(grads)


concatenate.defvjp_all(_concatenate_grads)
