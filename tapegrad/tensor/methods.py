"""The math and shape methods of Tensor that parse arguments before recording (PyTorch's and NumPy's
spellings: `dim=`/`axis=`, `keepdim=`/`keepdims=`, varargs shapes, negative axes).

Layer L3: numpy, the rule table and the Tensor class. Each function here is one Tensor method.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import primitives as P
from .._utils import normalize_axis, one_axis, shape_args
from ..tape.composite import mark
from .coerce import coerce, explain_matmul_error, resolve_shape
from .record import apply
from .tensor import Tensor

E, R, S, L = P.elementwise, P.reduction, P.shape, P.linalg


def clip(x: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """x limited to [min, max] (either bound may be None). A bound that is a tensor requiring
    grad gets its gradient where it is the result, as PyTorch's clamp (x keeps it at ties)."""
    if (
        isinstance(min, Tensor)
        and min._requires_grad
        or isinstance(max, Tensor)
        and max._requires_grad
    ):
        if min is None and max is None:
            raise ValueError("clip needs at least one of min and max")
        out = x
        if min is not None:
            out = where(out._data < np.asarray(getattr(min, "_data", min)), min, out)
        if max is not None:
            out = where(out._data > np.asarray(getattr(max, "_data", max)), max, out)
        return out
    return apply(E.clip, x, **clip_bounds(min, max))


def clip_bounds(min: Any, max: Any) -> dict:
    """clip's parameters: bounds as constants; NumPy scalars and 0-d arrays become weak Python
    scalars (no upcast)."""
    if min is None and max is None:
        raise ValueError("clip needs at least one of min and max")
    low = None if min is None else coerce(min._data if isinstance(min, Tensor) else min)
    high = None if max is None else coerce(max._data if isinstance(max, Tensor) else max)
    return {"min": low, "max": high}


def where(condition: Any, x: Any, y: Any) -> Tensor:
    """x where condition holds, else y (all three broadcast)."""
    cond = condition if isinstance(condition, Tensor) else np.asarray(condition, dtype=bool)
    if isinstance(cond, Tensor) and cond.dtype != bool:
        cond = Tensor._make(cond._data.astype(bool))
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = Tensor(x)
    return apply(E.where, cond, coerce(x), coerce(y))


def matmul(x: Tensor, other: Any) -> Tensor:
    """x @ other with NumPy's rules: vector . vector is `dot`, matrix @ vector `mv` (as PyTorch
    names them); a vector on the left is made a one-row matrix, and that axis dropped again."""
    y = other if isinstance(other, Tensor) else Tensor(other)
    if x._data.ndim > 1 and y._data.ndim > 1:  # (matrices: the commonest case, first)
        try:
            return apply(L.matmul, x, y)
        except ValueError:
            explain_matmul_error(x.shape, y.shape)
            raise
    a_shape, b_shape = x.shape, y.shape
    if not a_shape or not b_shape:
        explain_matmul_error(a_shape, b_shape)
    try:
        if x.ndim == 1 and y.ndim == 1:
            return apply(L.dot, x, y)
        if y.ndim == 1 and x.ndim == 2:
            return apply(L.mv, x, y)
        if y.ndim == 1:
            return apply(L.matmul, x, y.reshape(-1, 1)).squeeze(-1)
        if x.ndim == 1:
            return apply(L.matmul, x.reshape(1, -1), y).squeeze(-2)
        return apply(L.matmul, x, y)
    except ValueError:
        explain_matmul_error(a_shape, b_shape)
        raise


def axes_of(x: Tensor, axis: Any, dim: Any) -> tuple | None:
    """The axes a reduction takes (`dim` is PyTorch's name for `axis`), normalised."""
    axis = dim if axis is None else axis
    return None if x.ndim == 0 else normalize_axis(axis, x.ndim)


def reduce(prim: Any, x: Tensor, axis: Any, keepdims: bool, dim: Any, keepdim: Any) -> Tensor:
    """One reduction primitive over the given axes."""
    keep = bool(keepdim) if keepdim is not None else bool(keepdims)
    if prim is R.mean and x._data.dtype.kind != "f":
        raise TypeError(
            f"mean needs a floating-point tensor, got {x.dtype}; use .astype(tg.float32)"
        )
    if axis is None and dim is None:  # (the commonest call: every axis)
        return apply(prim, x, axis=None, keepdims=keep)
    return apply(prim, x, axis=axes_of(x, axis, dim), keepdims=keep)


def var(
    x: Tensor,
    axis: Any = None,
    keepdims: bool = False,
    *,
    ddof: int = 0,
    dim: Any = None,
    keepdim: bool | None = None,
    unbiased: bool | None = None,
    correction: int | None = None,
) -> Tensor:
    """Variance; ddof=0 as NumPy and MindSpore (ddof=1, unbiased=True, correction=1: PyTorch's)."""
    if unbiased is not None:
        ddof = int(unbiased)
    if correction is not None:
        ddof = correction
    axis = dim if axis is None else axis
    keep = bool(keepdim) if keepdim is not None else keepdims
    centered = x - x.mean(axis, keepdims=True)
    squares = (centered * centered).sum(axis, keepdims=keep)
    n = x._data.size // max(squares._data.size, 1)
    return mark(squares / (n - ddof), "var", ("x",), (x,), {"axis": axis, "ddof": ddof})


def extreme(
    prim: Any,
    result: type,
    x: Tensor,
    args: tuple,
    axis: Any,
    keepdims: bool,
    dim: Any,
    keepdim: Any,
) -> Any:
    """max/min in every spelling: no axis, or `axis=` (NumPy): the values; a dimension given
    positionally or as `dim=` (PyTorch, MindSpore): the named tuple (values, indices), the
    gradient going to the one position indices names; another tensor: maximum/minimum."""
    if args and isinstance(args[0], Tensor | np.ndarray):
        if len(args) > 1:
            raise TypeError(f"{prim.name}(other) takes one other tensor, got {len(args)} arguments")
        return apply(E.maximum if prim is R.max else E.minimum, x, coerce(args[0]))
    if len(args) > 2:
        raise TypeError(f"{prim.name}() takes at most a dimension and keepdim, got {args}")
    if args:
        dim = args[0]
        if len(args) == 2:
            keepdim = args[1]
    if dim is None:
        return reduce(prim, x, axis, keepdims, None, keepdim)
    if axis is not None:
        raise TypeError(f"{prim.name}() got both dim and axis; pass one")
    if not isinstance(dim, int | np.integer) or isinstance(dim, bool):
        raise TypeError(
            f"{prim.name}(dim) takes one dimension (an int), got {dim!r}; use amax/amin for several"
        )
    keep = bool(keepdim) if keepdim is not None else bool(keepdims)
    axis = one_axis(dim, x.ndim) if x.ndim else 0
    if x.ndim == 0:
        return result(x, Tensor._make(np.asarray(0, dtype=np.int64)))
    if x.shape[axis] == 0:
        raise IndexError(
            f"{prim.name}(): the dimension {dim} has size 0; an empty reduction "
            f"has no {prim.name}imum"
        )
    pick = np.argmax if prim is R.max else np.argmin
    indices = np.expand_dims(pick(x._data, axis=axis), axis)
    values = x[along_axis(indices, axis)]
    if not keep:
        values, indices = values.squeeze(axis), np.squeeze(indices, axis)
    return result(values, Tensor._make(np.asarray(indices, dtype=np.int64)))


def along_axis(indices: np.ndarray, axis: int) -> tuple:
    """The index that picks `indices` along `axis` (np.take_along_axis as an index expression)."""
    shape = indices.shape
    return tuple(
        indices
        if i == axis
        else np.arange(n).reshape((1,) * i + (n,) + (1,) * (len(shape) - i - 1))
        for i, n in enumerate(shape)
    )


def log_softmax(x: Tensor, axis: int = -1, dim: int | None = None) -> Tensor:
    """log(softmax(x)) along axis, computed stably (shifted by the max, taken as a constant)."""
    axis = dim if dim is not None else axis
    axes = None if x.ndim == 0 else normalize_axis(axis, x.ndim)
    if x._data.size == 0:  # nothing to normalise (and no max to shift by)
        return x - x.logsumexp(axes, keepdims=True)
    m = np.max(x._data, axis=axes, keepdims=True)
    shifted = x - np.where(np.isfinite(m), m, 0)  # rows of -inf: shift by 0, not nan
    out = shifted - shifted.logsumexp(axes, keepdims=True)
    return mark(out, "log_softmax", ("x",), (x,), {"dim": axis})


def arg_extreme(pick: Any, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
    """argmax/argmin over one axis (an int) or all."""
    if axis is not None:
        if not isinstance(axis, int | np.integer) or isinstance(axis, bool):
            raise TypeError(f"argmax/argmin take one axis (an int), got {axis!r}")
        axis = None if x.ndim == 0 else one_axis(axis, x.ndim)
    return Tensor._make(np.asarray(pick(x._data, axis=axis, keepdims=keepdims)))


def logical(pick: Any, x: Tensor, axis: Any) -> Tensor:
    """all/any over axes (no gradient)."""
    axes = normalize_axis(axis, x.ndim)
    return Tensor._make(np.asarray(pick(x._data, axis=axes if x.ndim else None)))


# ---- shape ------------------------------------------------------------------------------------
def reshape(x: Tensor, shape: tuple) -> Tensor:
    """x with a new shape of as many elements (one size may be -1)."""
    shape = shape_args(shape)
    try:
        target = resolve_shape(x._data.size, shape)
    except ValueError as e:
        raise ValueError(
            f"cannot reshape a tensor of shape {list(x.shape)} ({x._data.size} "
            f"elements) into {list(shape)}: {e}"
        ) from None
    return x if target == x._data.shape else apply(S.reshape, x, shape=target)


def view(x: Tensor, shape: tuple) -> Tensor:
    """reshape that must share memory (PyTorch's view): a layout that would need a copy raises."""
    out = reshape(x, shape)
    if out is not x and x._data.size and not np.may_share_memory(out._data, x._data):
        raise RuntimeError(
            f"view: a tensor of shape {list(x.shape)} with strides {list(x._data.strides)} cannot "
            f"be viewed as {list(out.shape)} without a copy (its memory is not laid out in that "
            f"order); use .reshape(...) (which copies when it must), or .contiguous() first"
        )
    return out


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Axes start_dim..end_dim merged into one."""
    if x.ndim == 0:
        return x.reshape(1)
    s, e = one_axis(start_dim, x.ndim), one_axis(end_dim, x.ndim)
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    return x.reshape(x.shape[:s] + (int(np.prod(x.shape[s : e + 1])),) + x.shape[e + 1 :])


def permute(x: Tensor, dims: tuple) -> Tensor:
    """The axes in a new order."""
    axes = shape_args(dims)
    if sorted(a % max(x.ndim, 1) for a in axes) != list(range(x.ndim)):
        raise ValueError(f"permute: {list(axes)} is not a permutation of the {x.ndim} axes")
    axes = tuple(a % x.ndim for a in axes)
    return x if axes == tuple(range(x.ndim)) else apply(S.transpose, x, axes=axes)


def transpose(x: Tensor, dims: tuple) -> Tensor:
    """No dims: the axes reversed; two ints: those swapped (PyTorch); a tuple: a permutation."""
    if not dims:
        return x.T
    if len(dims) == 2 and all(isinstance(d, int | np.integer) for d in dims):
        axes = list(range(x.ndim))
        a, b = one_axis(dims[0], x.ndim), one_axis(dims[1], x.ndim)
        axes[a], axes[b] = axes[b], axes[a]
        return permute(x, tuple(axes))
    return permute(x, dims)


def squeeze(x: Tensor, axis: Any = None) -> Tensor:
    """Axes of size 1 removed (all, or those in `axis`)."""
    axes = normalize_axis(axis, x.ndim)
    if axes is None:
        return x.reshape(tuple(n for n in x.shape if n != 1))
    return x.reshape(tuple(n for i, n in enumerate(x.shape) if not (i in axes and n == 1)))


def unsqueeze(x: Tensor, axis: int) -> Tensor:
    """A new axis of size 1 at `axis`."""
    axis = one_axis(axis, x.ndim + 1)
    return x.reshape(x.shape[:axis] + (1,) + x.shape[axis:])


def expand(x: Tensor, shape: tuple) -> Tensor:
    """x broadcast to `shape` (a view; -1 keeps an axis; new axes go in front)."""
    shape = shape_args(shape)
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError(
            f"cannot expand a tensor of shape {list(x.shape)} to {list(shape)}: give "
            f"at least one size per axis ({x.ndim}); new axes go in front"
        )
    for i, n in enumerate(shape):
        if n == -1 and i < lead or n < -1:
            why = (
                f"-1 (keep the size) is not allowed in a new leading axis ({i})"
                if n == -1
                else f"sizes must be >= 0 (or -1 to keep an existing axis), got {n}"
            )
            raise ValueError(
                f"cannot expand a tensor of shape {list(x.shape)} to {list(shape)}: {why}"
            )
    shape = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(shape))
    try:
        fits = np.broadcast_shapes(x.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"cannot expand a tensor of shape {list(x.shape)} to {list(shape)}: "
            f"only axes of size 1 can grow"
        )
    return x if shape == x.shape else apply(S.expand, x, shape=shape)


def split(x: Tensor, split_size_or_sections: Any, axis: int = 0) -> tuple:
    """Pieces of `split_size` along axis (PyTorch), or of the given sizes if a list."""
    axis = one_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(split_size_or_sections, int | np.integer):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"split size must be positive, got {size}")
        sizes = [min(size, n - s) for s in range(0, n, size)] or [0]  # (an empty axis: one
    else:  # empty piece, as PyTorch)
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n:
            raise ValueError(f"split sizes {sizes} do not add up to the axis length {n}")
    pieces, start = [], 0
    for s in sizes:
        pieces.append(x[(slice(None),) * axis + (slice(start, start + s),)])
        start += s
    return tuple(pieces)


def chunk(x: Tensor, chunks: int, axis: int = 0) -> tuple:
    """At most `chunks` pieces of equal size along axis (the last may be smaller), as PyTorch."""
    if isinstance(chunks, bool) or not isinstance(chunks, int | np.integer) or chunks < 1:
        raise ValueError(f"chunk needs a positive number of chunks, got {chunks!r}")
    axis = one_axis(axis, x.ndim)
    return split(x, max(1, -(-x.shape[axis] // int(chunks))), axis)
