"""Searching sorted values: searchsorted (where values would go in sorted sequences, one per
line of the last axis, or one for all) and bucketize (which of a 1-D boundaries' buckets each
value falls in). Positions are integers, off the tape.

Layer L3: numpy, the storage base, coerce.py and record.py's wrap. NaN counts as the largest
value, as in PyTorch's sort.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import numpy as np

from .base import TensorBase
from .coerce import TensorLike, as_tensor
from .record import wrap

if TYPE_CHECKING:
    from .tensor import Tensor


def searchsorted(
    sorted_sequence: TensorLike,
    input: TensorLike,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: TensorLike | None = None,
) -> Tensor:
    """Where each value of input would go to keep sorted_sequence sorted along its last axis (a
    1-D sequence serves all values; else its leading axes match input's): the first such place,
    or the last with right=True / side='right'. sorter: the positions that sort the sequence.

    >>> tg.searchsorted(tg.tensor([1, 3, 5, 7]), tg.tensor([3, 6]))
    tensor([1, 3])
    """
    seq = as_tensor(sorted_sequence)._data
    scalar = not isinstance(input, TensorBase)
    values = np.asarray(input._data if isinstance(input, TensorBase) else input)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted(): side can only be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError(
                "searchsorted(): side and right can't be set to opposites, got side of left "
                "while right was True"
            )
        right = side == "right"
    if seq.ndim == 0:
        raise ValueError("searchsorted(): the sorted sequence must have at least one dimension")
    if sorter is not None:
        order = as_tensor(sorter)._data
        if order.shape != seq.shape or order.dtype.kind not in "iu":
            raise ValueError(
                f"searchsorted(): sorter must be an integer tensor of the sorted sequence's shape "
                f"{list(seq.shape)}, got {order.dtype} of shape {list(order.shape)}"
            )
        seq = np.take_along_axis(seq, order, axis=-1)
    if seq.ndim > 1 and (values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]):
        raise ValueError(
            f"searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
            f"of boundaries tensor and input value tensor must match, but we got boundaries "
            f"tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
        )
    where: Literal["left", "right"] = "right" if right else "left"
    if seq.ndim == 1:
        out = np.searchsorted(seq, values, side=where)
    else:  # (one search per line of the last axis)
        count = math.prod(seq.shape[:-1])
        lines = seq.reshape(count, seq.shape[-1])
        vals = values.reshape(count, values.shape[-1])
        out = np.zeros(vals.shape, dtype=np.int64)
        for row, (line, v) in enumerate(zip(lines, vals)):
            out[row] = np.searchsorted(line, v, side=where)
        out = out.reshape(values.shape)
    result = wrap(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))
    return result.reshape(()) if scalar else result


def bucketize(
    input: TensorLike, boundaries: TensorLike, *, out_int32: bool = False, right: bool = False
) -> Tensor:
    """Which bucket of the 1-D sorted `boundaries` each value falls in: the index i with
    boundaries[i-1] < v <= boundaries[i] (right=True: boundaries[i-1] <= v < boundaries[i]).

    >>> tg.bucketize(tg.tensor([1, 5, 9]), tg.tensor([1, 3, 5, 7, 9]))
    tensor([0, 2, 4])
    """
    edges = as_tensor(boundaries)
    if edges.ndim != 1:
        raise ValueError(
            f"bucketize: boundaries tensor must be 1 dimension, but got dim({edges.ndim})"
        )
    return searchsorted(edges, input, out_int32=out_int32, right=right)
