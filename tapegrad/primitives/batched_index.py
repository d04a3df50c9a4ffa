"""Indexing under vmap: the index that picks `x[index]` for every example at once from the stacked
array (examples along axis 0), and how to bring NumPy's result into (batch, *one example's result).

Layer L1: numpy and batched_array. Each example's index is read with NumPy's rules; a batched
integer index (a class label per example) is paired with `arange(batch)` along the batch axis.
Advanced indices (arrays, and ints beside them) that sit together keep their place in the result,
apart they go first (NumPy's rule), so the batch axis may land elsewhere: `order` moves it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .batched_array import BatchedArray, Level


@dataclass(frozen=True)
class Where:
    """How to index the stacked array: `index` (its first item takes the batch axis), `order`
    (the transposition that makes its result (batch, *result); None: it already is), whether some
    index item is batched (`batched`), `shared` (the index for values the batch shares, when
    nothing is batched) and one example's result shape."""

    index: tuple
    order: tuple | None
    batched: bool
    shared: Any
    shape: tuple


def _items(index: Any, level: Level, ndim: int) -> list:
    """The index as (kind, value, shape, batched) per item: kind is "slice", "none", "int" (an int
    or a 0-d array) or "array"; Ellipsis spelled out as slices, boolean masks as their integer
    positions (what NumPy does with them), this level's unbatched values as plain arrays."""
    raw = list(index) if isinstance(index, tuple) else [index]
    items: list = []
    for item in raw:
        if isinstance(item, list):
            item = np.asarray(item)
        if item.__class__ is BatchedArray and item.level is level:
            if item.dtype == bool:
                raise IndexError(
                    "vmap: indexing with a boolean mask that differs between examples gives each "
                    "example a different shape; use tg.where(mask, x, other) instead"
                )
            if not item.batched:
                item = item.physical
            else:
                kind = "array" if item.ndim else "int"
                items.append((kind, item, item.shape, True))
                continue
        if item is None:
            items.append(("none", None, (), False))
        elif item is Ellipsis or isinstance(item, slice):
            items.append(("ellipsis" if item is Ellipsis else "slice", item, (), False))
        elif isinstance(item, bool):
            raise IndexError("vmap: a Python bool as an index is not supported inside vmap")
        elif isinstance(item, (int, np.integer)):
            items.append(("int", item, (), False))
        elif np.dtype(getattr(item, "dtype", "O")) == np.bool_:
            if item.__class__ is BatchedArray:
                raise IndexError("vmap: a boolean mask of an outer vmap as an index: use tg.where")
            items.extend(("array", i, i.shape, False) for i in np.nonzero(item))
        else:
            kind = "array" if np.ndim(item) else "int"
            items.append((kind, item, np.shape(item), False))
    if any(k == "ellipsis" for k, *_ in items):
        used = sum(k in ("slice", "int", "array") for k, *_ in items)
        at = next(i for i, (k, *_) in enumerate(items) if k == "ellipsis")
        fill = [("slice", slice(None), (), False)] * (ndim - used)
        items = items[:at] + fill + [it for it in items[at + 1 :] if it[0] != "ellipsis"]
    return items


def physical_index(index: Any, level: Level, shape: tuple) -> Where:
    """For values of one example's `shape` stacked along axis 0: how to pick `values[index]` of
    every example at once."""
    items = _items(index, level, len(shape))
    if sum(k in ("slice", "int", "array") for k, *_ in items) > len(shape):
        raise IndexError(f"too many indices for an example of shape {tuple(shape)}")
    size = level.size
    has_arrays = any(k == "array" for k, *_ in items)
    advanced = [i for i, (k, *_) in enumerate(items) if k == "array" or (k == "int" and has_arrays)]
    bcast = np.broadcast_shapes(*[s for k, _, s, _ in items if k in ("array", "int")])
    # one example's result: the axes of slices and Nones (and the untouched ones at the end),
    # with the advanced indices' broadcast shape in place when they sit together, else first
    kept, before, dim = [], 0, 0
    for i, (kind, value, _, _) in enumerate(items):
        if kind == "none":
            kept.append(1)
        elif kind == "slice":
            kept.append(len(range(*value.indices(shape[dim]))))
        if advanced and i < advanced[0] and kind in ("none", "slice"):
            before += 1
        dim += kind != "none"
    kept.extend(shape[dim:])
    together = bool(advanced) and advanced == list(range(advanced[0], advanced[-1] + 1))
    if not has_arrays:
        result_shape = tuple(kept)
    elif together:
        result_shape = tuple(kept[:before]) + bcast + tuple(kept[before:])
    else:
        result_shape = bcast + tuple(kept)
    shared = tuple(v for _, v, _, _ in items)
    batched = any(b for *_, b in items)
    r = len(bcast)
    if not batched:  # the batch axis taken whole, in front
        order = None
        if has_arrays and not together:  # NumPy puts the advanced axes first, then the batch's
            order = (r,) + tuple(range(r)) + tuple(range(r + 1, r + 1 + len(kept)))
        return Where((slice(None),) + shared, order, False, shared, result_shape)
    # a batched index: each example's index paired with its row, arange(batch) in front; the
    # result is (batch, broadcast shape, the other axes), as NumPy puts advanced axes first
    rows = np.arange(size).reshape((size,) + (1,) * r)
    picks: list = [rows]
    for _, value, item_shape, is_batched in items:
        if is_batched:
            p = value.physical
            value = p.reshape((size,) + (1,) * (r - len(item_shape)) + tuple(item_shape))
        picks.append(value)
    order = None
    if has_arrays and together and before:
        tail = len(kept) - before
        order = (
            (0,)
            + tuple(range(r + 1, r + 1 + before))
            + tuple(range(1, r + 1))
            + tuple(range(r + 1 + before, r + 1 + before + tail))
        )
    return Where(tuple(picks), order, True, shared, result_shape)
