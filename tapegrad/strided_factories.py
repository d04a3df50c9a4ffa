"""Factories of uninitialised tensors laid out in memory as asked: empty_strided (strides given
in elements, over fresh memory) and empty_permuted (dense, the axes in a given physical order).
from_numpy keeps the layout (tensor() would copy into a compact one).

Layer L4: numpy, dtypes, devices' placement checks and creation.py's shape parsing.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import dtypes as _dt
from .creation import DTypeLike, from_numpy, shape_of
from .devices import DeviceLike, check_placement, layout as Layout
from .tensor import Tensor

__all__ = ["empty_permuted", "empty_strided"]


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of `size` laid out with `stride` (in elements) in fresh memory.

    >>> tg.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    dims, steps = shape_of((), size, "empty_strided"), tuple(int(s) for s in stride)
    if len(dims) != len(steps):
        raise RuntimeError(
            f"dimensionality of sizes ({len(dims)}) must match dimensionality of strides "
            f"({len(steps)})"
        )
    if any(s < 0 for s in steps):
        raise RuntimeError(f"empty_strided: strides must be 0 or more, got {list(steps)}")
    check_placement("empty_strided", device, layout, pin_memory)
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    room = 1 + sum((n - 1) * s for n, s in zip(dims, steps)) if all(dims) else 0
    memory = np.empty(room, kind)
    values = np.ndarray(dims, kind, buffer=memory, strides=[s * kind.itemsize for s in steps])
    t = from_numpy(values)  # (not tensor(): it would copy into a compact layout)
    return t.requires_grad_(requires_grad)


def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of `size` whose axes lie in memory in the order `physical_layout`
    (outermost first), dense: (2, 3, 4) with (2, 0, 1) has strides (3, 1, 6).

    >>> tg.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
    (3, 1, 6)
    """
    dims, order = shape_of((), size, "empty_permuted"), tuple(int(d) for d in physical_layout)
    if len(dims) != len(order):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(dims)} is not equal to len(physical_layout) = {len(order)}"
        )
    if sorted(order) != list(range(len(dims))):
        raise RuntimeError(
            "Duplicate dim not allowed"
            if len(set(order)) < len(order)
            else f"empty_permuted: physical_layout must order the axes 0..{len(dims) - 1}, "
            f"got {list(order)}"
        )
    check_placement("empty_permuted", device, layout, pin_memory)
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    memory = np.empty(tuple(dims[d] for d in order), kind)
    t = from_numpy(memory.transpose(np.argsort(order)))  # (from_numpy keeps the layout)
    return t.requires_grad_(requires_grad)
