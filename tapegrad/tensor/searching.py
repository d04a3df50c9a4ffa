"""Locating values: searchsorted (where values would go in sorted sequences, one per line of the
last axis, or one for all), bucketize (which of a 1-D boundaries' buckets each value falls in),
isin (whether each value is among others) and unravel_index (flat positions as coordinates).
Positions and answers are integers and bools, off the tape.

Layer L3: numpy, the storage base, coerce.py and record.py's wrap. NaN counts as the largest
value, as in PyTorch's sort; NaN is in nothing, as NaN equals nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal, Sequence

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


def isin(
    elements: TensorLike,
    test_elements: TensorLike,
    *,
    assume_unique: bool = False,
    invert: bool = False,
) -> Tensor:
    """Whether each of `elements` is among `test_elements` (either may be a number; invert=True:
    whether it is not), a bool tensor of elements' shape.

    >>> tg.isin(tg.tensor([1, 2, 3]), tg.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, TensorBase) and not isinstance(test_elements, TensorBase):
        raise TypeError(
            f"isin() needs a tensor for elements or for test_elements, got "
            f"{type(elements).__name__} and {type(test_elements).__name__}"
        )
    for name, given in (("elements", elements), ("test_elements", test_elements)):
        if isinstance(given, list | tuple):
            raise TypeError(
                f"isin(): {name} must be a tensor or a number, got a {type(given).__name__}"
            )
    values = as_tensor(elements)._data
    among = as_tensor(test_elements)._data.reshape(-1)
    found = np.isin(values, among, assume_unique=assume_unique, invert=invert)
    return wrap(np.asarray(found, dtype=np.bool_))


def unravel_index(indices: TensorLike, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """The coordinates in an array of `shape` of each flat (row-major) index: one int64 tensor per
    axis, each of indices' shape. As PyTorch, an index outside the shape wraps around.

    >>> tg.unravel_index(tg.tensor([4, 1]), (2, 3))
    (tensor([1, 0]), tensor([1, 1]))
    """
    flat = as_tensor(indices)._data
    if flat.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {flat.dtype}")
    if isinstance(shape, TensorBase) or not isinstance(shape, int | Sequence):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    sizes = (shape,) if isinstance(shape, int) else tuple(shape)
    for n in sizes:
        if not isinstance(n, int | np.integer) or isinstance(n, bool):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(n)}")
    if any(n < 0 for n in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(sizes)}")
    if 0 in sizes:
        raise RuntimeError(f"unravel_index: shape {tuple(sizes)} has no element to index")
    flat = flat.astype(np.int64)
    coordinates = []
    stride = math.prod(sizes)
    for n in sizes:  # (floor division and modulo, as PyTorch: out-of-range indices wrap)
        stride //= n
        coordinates.append(wrap(np.asarray(np.floor_divide(flat, stride) % n, dtype=np.int64)))
    return tuple(coordinates)
