"""Shape primitives: reshape, transpose, expand, indexing (get, scatter back, put) and concatenate.

Conventions as in elementwise.py. Views (reshape, transpose, expand, basic indexing) share memory
with their input in NumPy, so the Tensor layer makes them share its version counter too (it checks
that the output really is a view: advanced indexing and some reshapes copy).
Layer L1: numpy, registry and batched_index (for the batching rules, which follow the forwards).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .batched_index import physical_index
from .registry import primitive


# ---- batching rules (see batching.py; here since they call this family's primitives) -----------
def batch_reshape(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    (x,) = inputs
    return reshape(x, shape=(level.size,) + tuple(params["shape"]))


def batch_transpose(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    (x,) = inputs
    n = x.ndim - 1
    return transpose(x, axes=(0,) + tuple(int(a) % n + 1 for a in params["axes"]))


def batch_expand(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    (x,) = inputs
    shape = tuple(params["shape"])
    return expand(with_ndim(x, len(shape)), shape=(level.size,) + shape)


def with_ndim(x: Any, ndim: int) -> Any:
    """A batched array with 1s behind its batch axis up to `ndim` axes per example."""
    shape = tuple(x.shape)
    missing = ndim - (len(shape) - 1)
    return x if missing <= 0 else reshape(x, shape=shape[:1] + (1,) * missing + shape[1:])


def example(x: Any, batched: bool, size: int) -> tuple[Any, tuple]:
    """x with the batch along axis 0 (a broadcast view if the batch shares it), and the shape of
    one example."""
    shape = tuple(x.shape[1:]) if batched else tuple(np.shape(x))
    return (x if batched else expand(x, shape=(size,) + shape)), shape


def batch_getitem(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    x, shape = example(inputs[0], batched[0], level.size)
    where = physical_index(params["index"], level, shape)
    out = getitem(x, index=where.index)
    return out if where.order is None else transpose(out, axes=where.order)


def batch_scatter_add(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    shape = tuple(params["shape"])
    where = physical_index(params["index"], level, shape)
    x, _ = example(inputs[0], batched[0], level.size)
    x = with_ndim(x, len(where.shape))
    if where.order is not None:  # into the layout NumPy's indexing of the batch gives
        x = transpose(x, axes=inverse(where.order))
    return scatter_add(x, shape=(level.size,) + shape, index=where.index)


def batch_index_put(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    (x, v), (bx, bv) = inputs, batched
    x, shape = example(x, bx, level.size)
    where = physical_index(params["index"], level, shape)
    v, v_shape = example(v, bv, level.size)
    extra = len(v_shape) - len(where.shape)  # (NumPy lets v carry extra leading 1s)
    if extra > 0:
        v = reshape(v, shape=(level.size,) + v_shape[extra:])
    v = with_ndim(v, len(where.shape))
    if where.order is not None:
        v = transpose(v, axes=inverse(where.order))
    return index_put(x, v, index=where.index)


def batch_concatenate(level: Any, prim: Any, inputs: list, batched: list, params: dict) -> Any:
    pieces = [example(x, b, level.size)[0] for x, b in zip(inputs, batched)]
    n = pieces[0].ndim - 1
    return concatenate(*pieces, axis=int(params["axis"]) % n + 1, sizes=params["sizes"])


for _rule in (batch_getitem, batch_scatter_add, batch_index_put):
    _rule.reads_batched_params = True  # type: ignore[attr-defined]  # (an index may be batched)


# ---- the primitives --------------------------------------------------------------------------


@primitive(
    "reshape", "x.reshape(shape)", view=True, batch=batch_reshape, x="reshape(g, shape=x.shape)"
)
def reshape(x, *, shape):
    return np.reshape(x, shape)


@primitive(
    "transpose",
    "x.transpose(axes)",
    view=True,
    batch=batch_transpose,
    x="transpose(g, axes=inverse(axes))",
)
def transpose(x, *, axes):
    return x.transpose(axes)  # (the method: np.transpose's wrapper costs more than it does)


def inverse(axes):
    """The permutation that undoes `axes`."""
    if len(axes) == 2:  # (a swap undoes itself: every matrix transpose's rule, cheaply)
        return (int(axes[0]), int(axes[1]))
    return tuple(sorted(range(len(axes)), key=axes.__getitem__))  # (no NumPy call: ~10x less)


@primitive(
    "expand",
    "broadcast_to(x, shape)",
    view=True,
    batch=batch_expand,
    x="g",  # the engine sums g back
)
def expand(x, *, shape):
    return broadcast(x, shape)


def broadcast(x, shape):
    """np.broadcast_to(x, shape) without its Python overhead (about 10x less on small arrays): a
    read-only view with zero strides on the broadcast axes; NumPy's own for the cases it does not
    cover (non-contiguous x) and for the error message of an impossible shape."""
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
    # read-only, as NumPy's: writing through zero strides would hit one element many times
    return np.ndarray(shape, x.dtype, memoryview(x).toreadonly(), 0, tuple(strides))


def is_basic_index(index) -> bool:
    """Ints, slices, None and Ellipsis only: no position can be selected twice."""
    # (a loop: all() over a generator costs a frame, and a GeneratorExit when it stops early)
    for i in index if isinstance(index, tuple) else (index,):
        if not (i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))):
            return False
    return True


@primitive(
    "getitem",
    "x[index]",
    view=True,  # for basic indices (the Tensor layer checks the memory)
    batch=batch_getitem,
    x="scatter_add(g, shape=x.shape, index=index)",
)
def getitem(x, *, index):
    out = x[index]
    if out.__class__ is not np.ndarray:  # every axis taken by an int: NumPy gives a scalar copy,
        items = index if isinstance(index, tuple) else (index,)  # a trailing ... gives a 0-d view
        return x[items + (Ellipsis,)] if Ellipsis not in items else np.asarray(out)
    if not is_basic_index(index) and not out.flags.c_contiguous:
        out = np.ascontiguousarray(out)  # a fresh array laid out as PyTorch's (so .view() works)
    return out


@primitive(
    "scatter_add",
    "zeros(shape) with x added at index",
    batch=batch_scatter_add,
    x="getitem(g, index=index)",
)
def scatter_add(x, *, shape, index):
    z = np.zeros(shape, dtype=x.dtype)
    if is_basic_index(index):
        z[index] = x
    elif not _add_rows_sorted(z, x, index):
        np.add.at(z, index, x)
    return z


# From this many looked-up rows, sorting them and summing runs of equal rows (np.add.reduceat)
# beats np.add.at's element-wise loop (measured: 5.7x for 768 rows of 128 into 65, an embedding's
# gradient); below it add.at is as fast or faster.
_SORTED_ROWS_FROM = 256


def _add_rows_sorted(z, x, index) -> bool:
    """z[index] += x for one integer array indexing z's first axis (an embedding's gradient):
    the sums np.add.at makes (up to float rounding); False (z untouched) for any other index."""
    rows = index[0] if isinstance(index, tuple) and len(index) == 1 else index
    if not (isinstance(rows, np.ndarray) and rows.dtype.kind in "iu"):
        return False
    if rows.size < _SORTED_ROWS_FROM or x.shape != rows.shape + z.shape[1:]:
        return False
    flat = rows.reshape(-1)
    if flat.dtype.kind == "i" and flat.min() < 0:
        flat = np.where(flat < 0, flat + z.shape[0], flat)  # (-1 and n - 1 are one row)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    values = x.reshape(flat.size, -1)[order]
    z.reshape(z.shape[0], -1)[ordered[starts]] = np.add.reduceat(values, starts, axis=0)
    return True


@primitive(
    "index_put",
    "x with x[index] = v",
    batch=batch_index_put,
    x="index_put(g, 0.0, index=index)",
    v="reshape(getitem(g, index=index), shape=value_shape(v.shape, g, index))",
)
def index_put(x, v, *, index):
    z = np.array(x, copy=True)
    z[index] = v
    return z


def value_shape(v_shape, g, index):
    """The shape g[index] has as v: NumPy lets v carry extra leading 1s (x[0] = v of shape (1, n));
    a v that was broadcast keeps g[index]'s shape (the engine sums it back)."""
    selected = np.shape(np.empty(g.shape, dtype=bool)[index])
    lead = len(v_shape) - len(selected)
    return (1,) * lead + selected if lead > 0 else selected


@primitive(
    "concatenate", "concatenate(xs, axis)", batch=batch_concatenate, xs="split_at(g, sizes, axis)"
)
def concatenate(*xs, axis, sizes):
    return np.concatenate(xs, axis=axis)


def split_at(g, sizes, axis):
    """g cut along `axis` into pieces of the given sizes (one gradient per concatenated input)."""
    pieces, start = [], 0
    for n in sizes:
        pieces.append(getitem(g, index=(slice(None),) * axis + (slice(start, start + n),)))
        start += n
    return tuple(pieces)
