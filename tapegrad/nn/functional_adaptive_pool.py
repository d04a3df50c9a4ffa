"""Adaptive pooling in 1, 2 and 3 dimensions: adaptive_avg_pool1d/3d, adaptive_max_pool1d/2d/3d.

PyTorch's windows: along an axis of n entries pooled to o, window i is [floor(i*n/o),
ceil((i+1)*n/o)). Averages are one matmul per pooled axis with an averaging matrix (the one
adaptive_avg_pool2d uses); maxima are found in NumPy, axis by axis, and the result is a gather of
the input at the winners, so the gradient goes to PyTorch's index and is linear (any order).
Layer L5: imports tensor.py, functional_pooling's averaging matrix and pool_winners' pick.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from .functional_pooling import _averaging_matrix, adaptive_avg_pool2d
from .pool_winners import flat_source, winner

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
]

_AXES = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}
_UNBATCHED = {1: "(C, L)", 2: "(C, H, W)", 3: "(C, D, H, W)"}


def adaptive_sizes(output_size: Any, sizes: tuple, dims: int, layer: str) -> tuple:
    """The pooled sizes from an int or a tuple of `dims` entries (None keeps the input's size;
    PyTorch's 1-d ops take no None).

    >>> adaptive_sizes((2, None, 1), (4, 5, 6), 3, "adaptive_avg_pool3d")
    (2, 5, 1)
    """
    items = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    ok = len(items) == dims and all(
        (v is None and dims > 1) or isinstance(v, (int, np.integer)) and not isinstance(v, bool)
        for v in items
    )
    if not ok or any(v is not None and v < 0 for v in items):
        keeps = " (None keeps the input's size)" if dims > 1 else ""
        raise ValueError(
            f"{layer}: output_size must be a non-negative int or a tuple of {dims} of them"
            f"{keeps}, got {output_size!r}"
        )
    return tuple(n if v is None else int(v) for v, n in zip(items, sizes))


def _checked(input: Any, output_size: Any, dims: int, layer: str) -> tuple:
    """The pooled sizes, after PyTorch's checks of the input (rank, dtype, no empty pooled axis)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{layer}: the input must be a tapegrad Tensor, got {type(input).__name__}")
    if input.ndim not in (dims + 1, dims + 2):
        raise ValueError(
            f"{layer}: expected a {dims + 1}-D {_UNBATCHED[dims]} unbatched or {dims + 2}-D "
            f"{_AXES[dims]} batched input, got shape {input.shape}"
        )
    if input.dtype.kind != "f":
        raise TypeError(
            f"{layer}: the input must be floating point, got {input.dtype} (e.g. x.to(tg.float32))"
        )
    if 0 in input.shape[-dims - 1 :]:
        raise ValueError(
            f"{layer}: expected input to have non-zero size for non-batch dimensions, but input "
            f"has shape {input.shape}"
        )
    return adaptive_sizes(output_size, input.shape[-dims:], dims, layer)


def adaptive_avg_pool_nd(input: Tensor, output_size: Any, *, dims: int, layer: str) -> Tensor:
    """Average into output_size windows over the last `dims` axes (one matmul per pooled axis).

    >>> adaptive_avg_pool_nd(tg.ones(1, 2, 4, 4, 4), 2, dims=3, layer="adaptive_avg_pool3d").shape
    (1, 2, 2, 2, 2)
    """
    if dims == 2:
        return adaptive_avg_pool2d(input, output_size)
    outs = _checked(input, output_size, dims, layer)
    out, matrices = input, []
    for axis, o in zip(range(input.ndim - dims, input.ndim), outs):
        n = input.shape[axis]
        matrices.append(None if o == n else _averaging_matrix(n, o, input.dtype))
        if o == n:
            continue  # (the identity: no node)
        average = Tensor(matrices[-1])
        if axis == input.ndim - 1:
            out = out @ average.T
        else:  # (the axis to rows, averaged from the left, and back)
            out = (average @ out.movedim(axis, -2)).movedim(-2, axis)
    out = out if out is not input else input.clone()
    labels = ("x",) + ("D", "A", "B")[3 - dims :]
    return mark(out, layer, labels, (input, *matrices))


def _windows(n: int, o: int) -> np.ndarray:
    """(o, k) positions of each window along an axis, the shorter ones repeating their last
    entry (which changes neither the maximum nor which entry is first or last)."""
    i = np.arange(o)
    start, end = (i * n) // o, -(-((i + 1) * n) // o)
    width = int((end - start).max()) if o else 1
    return np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)


def _max_indices(x: np.ndarray, outs: tuple) -> np.ndarray:
    """Flat index over the pooled axes of each window's maximum. Axis by axis from the last:
    row-major first maximum (and last NaN) of a box is that of its rows' winners."""
    dims = len(outs)
    spatial = x.shape[-dims:]
    values = x
    flat = np.broadcast_to(np.arange(math.prod(spatial)).reshape(spatial), x.shape)
    for axis in range(x.ndim - 1, x.ndim - dims - 1, -1):
        window = _windows(x.shape[axis], outs[axis - x.ndim])
        v, f = np.take(values, window, axis), np.take(flat, window, axis)
        pick = np.expand_dims(winner(v, axis + 1), axis + 1)
        values = np.take_along_axis(v, pick, axis + 1).squeeze(axis + 1)
        flat = np.take_along_axis(f, pick, axis + 1).squeeze(axis + 1)
    return flat.astype(np.int64)


def adaptive_max_pool_nd(
    input: Tensor, output_size: Any, return_indices: bool = False, *, dims: int, layer: str
) -> Any:
    """Max into output_size windows over the last `dims` axes; with return_indices, also each
    maximum's flat index over those axes (int64), as PyTorch.

    >>> adaptive_max_pool_nd(tg.ones(1, 3, 8), 2, dims=1, layer="adaptive_max_pool1d").shape
    (1, 3, 2)
    """
    outs = _checked(input, output_size, dims, layer)
    indices = _max_indices(input.numpy(), outs)
    lead = input.shape[:-dims]
    picked = input.reshape(*lead, -1).gather(-1, indices.reshape(*lead, -1))
    out = mark(
        picked.reshape(*lead, *outs),
        layer,
        ("x",),
        (input,),
        {"source": lambda: flat_source(indices, input.shape[-dims:])},
    )
    return (out, Tensor(indices)) if return_indices else out


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average over output_size windows spread evenly along L of (N, C, L) or (C, L).

    >>> F.adaptive_avg_pool1d(tg.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2)
    tensor([[[1.5000, 3.5000]]])
    """
    return adaptive_avg_pool_nd(input, output_size, dims=1, layer="adaptive_avg_pool1d")


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average over output_size windows spread evenly over D, H and W (None keeps one).

    >>> F.adaptive_avg_pool3d(tg.ones(1, 2, 4, 4, 4), (1, None, 2)).shape
    (1, 2, 1, 4, 2)
    """
    return adaptive_avg_pool_nd(input, output_size, dims=3, layer="adaptive_avg_pool3d")


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over output_size windows spread evenly along L (and the indices, if asked).

    >>> F.adaptive_max_pool1d(tg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    return adaptive_max_pool_nd(
        input, output_size, return_indices, dims=1, layer="adaptive_max_pool1d"
    )


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over output_size windows spread evenly over H and W (and the flat H*W indices).

    >>> F.adaptive_max_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return adaptive_max_pool_nd(
        input, output_size, return_indices, dims=2, layer="adaptive_max_pool2d"
    )


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over output_size windows spread evenly over D, H and W (and the flat D*H*W indices).

    >>> F.adaptive_max_pool3d(tg.ones(1, 2, 4, 4, 4), 1).shape
    (1, 2, 1, 1, 1)
    """
    return adaptive_max_pool_nd(
        input, output_size, return_indices, dims=3, layer="adaptive_max_pool3d"
    )
