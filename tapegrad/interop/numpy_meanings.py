"""NumPy's meaning of tapegrad ops named as PyTorch names them: np.cumsum, np.cumprod and np.flip
work over every axis by default, np.sort gives the values only, np.outer flattens, np.tril takes
k=, np.var and np.std divide by n (ddof=0), np.roll takes axis=, np.fix is trunc, ...

Layer L5: imports math only. numpy_protocols.py dispatches these NumPy functions here, called with
the caller's arguments as NumPy's signature names them (its harmless keywords already dropped).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import math as tgmath
from .._utils import one_axis

__all__ = ["NUMPY_MEANING"]


def _ndim(a: Any) -> int:
    return len(np.shape(a.numpy() if hasattr(a, "numpy") else a))


def _flat(a: Any) -> Any:
    return tgmath.reshape(a, -1)


def cumsum(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """np.cumsum: axis=None runs over the flattened array."""
    if axis is None:
        a, axis = _flat(a), 0
    return tgmath.cumsum(a, axis, dtype=dtype)


def cumprod(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    """np.cumprod: axis=None runs over the flattened array."""
    if axis is None:
        a, axis = _flat(a), 0
    return tgmath.cumprod(a, axis, dtype=dtype)


def flip(m: Any, axis: Any = None) -> Any:
    """np.flip: axis=None reverses every axis."""
    axes = range(_ndim(m)) if axis is None else axis if isinstance(axis, (tuple, list)) else [axis]
    return tgmath.flip(m, tuple(axes))


def sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Any:
    """np.sort: the sorted values (the gradient goes back to where each came from)."""
    if order is not None:
        raise TypeError("np.sort(..., order=...) sorts by fields; tapegrad tensors have none")
    if axis is None:
        a, axis = _flat(a), 0
    return tgmath.sort(a, one_axis(axis, _ndim(a))).values


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
    """np.trace of a matrix (main diagonal); other diagonals or axes are refused clearly."""
    if offset or (axis1, axis2) != (0, 1) or _ndim(a) != 2:
        raise TypeError(
            "np.trace on a tapegrad Tensor takes a matrix's main diagonal only (offset=0, "
            "axis1=0, axis2=1); for others write it with tapegrad ops, e.g. tg.diag(t, k).sum()"
        )
    out = tgmath.trace(a)
    return out if dtype is None else out.astype(dtype)


def outer(a: Any, b: Any) -> Any:
    """np.outer: the outer product of the flattened inputs."""
    return tgmath.outer(_flat(a), _flat(b))


def tile(A: Any, reps: Any) -> Any:
    return tgmath.tile(A, reps)


def tril(m: Any, k: int = 0) -> Any:
    return tgmath.tril(m, k)


def triu(m: Any, k: int = 0) -> Any:
    return tgmath.triu(m, k)


def diag(v: Any, k: int = 0) -> Any:
    return tgmath.diag(v, k)


def einsum(*operands: Any, optimize: Any = False, dtype: Any = None) -> Any:
    """np.einsum("ij,jk->ik", a, b); (optimize= only changes NumPy's evaluation order)."""
    if not operands or not isinstance(operands[0], str):
        raise TypeError("np.einsum on tapegrad Tensors takes the subscripts string first")
    out = tgmath.einsum(operands[0], *operands[1:])
    return out if dtype is None else out.astype(dtype)


# NumPy function -> its adapter: numpy_protocols.py adds them to its table of NumPy functions.
def var(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: float = 0,
    keepdims: bool = False,
) -> Any:
    """np.var: ddof=0 by default (tapegrad's var, as PyTorch's, divides by n - 1)."""
    _no_out("np.var", out)
    a = a if dtype is None else tgmath.as_tensor(a).astype(dtype)
    return tgmath.var(a, axis=axis, keepdims=keepdims, ddof=ddof)


def std(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: float = 0,
    keepdims: bool = False,
) -> Any:
    """np.std: ddof=0 by default."""
    _no_out("np.std", out)
    a = a if dtype is None else tgmath.as_tensor(a).astype(dtype)
    return tgmath.std(a, axis=axis, keepdims=keepdims, ddof=ddof)


def _no_out(what: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{what}(..., out=...) is not supported on tapegrad Tensors; write y = ...")


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """np.roll: shift along axis (None: the flattened array, reshaped back)."""
    return tgmath.roll(a, shift, axis)


def fix(x: Any) -> Any:
    """np.fix: rounded toward zero (tapegrad's trunc)."""
    return tgmath.trunc(x)


NUMPY_MEANING = {
    getattr(np, f.__name__): f
    for f in (cumsum, cumprod, flip, sort, trace, outer, tile, tril, triu, diag, einsum)
    + (var, std, roll, fix)
}
