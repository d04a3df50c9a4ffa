"""Gradients that are zero but at one index, summed without their zeros.

The gradient of `x[index]` is zeros of x's shape with g at `index`. A tensor read at T indices (an
RNN's time steps, `x[:, t]` in a loop, `unbind`, `chunk`) would get T such full-size arrays, each
made and added: O(T^2) work for T reads. In a raw backward (no create_graph) getitem's rule gives
a `Scattered` piece instead, which the engine adds into one array of its own (`Total`), written
in place: O(T). The sums are the same, element for element and in the same order (0 + v is v).

Layer L1: numpy only (getitem's kernel in fused.py makes the pieces, tape/ sums them). The
engine turns a piece or a total into a plain array before anything else sees it (a node's rules,
hooks, targets, a leaf's .grad, the teaching tools): nothing outside the tape meets these classes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# Below this many elements in x, a dense gradient costs no more than the bookkeeping (and a
# leaf's small gradients are gathered and summed at the end, plan.GATHER_MAX, which this keeps
# pieces out of); a piece is kept only when it is at most a quarter of x.
SCATTER_FROM = 4097
_LARGEST_PART = 4


class Scattered:
    """zeros(shape, dtype) with `values` at `index` (a basic index: ints, slices, None, ...)."""

    __slots__ = ("shape", "dtype", "index", "values")

    def __init__(self, shape: tuple, dtype: Any, index: Any, values: np.ndarray) -> None:
        self.shape, self.dtype, self.index, self.values = shape, dtype, index, values

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def dense(self) -> np.ndarray:
        """The piece as a full array."""
        total = np.zeros(self.shape, self.dtype)
        total[self.index] = self.values
        return total


class Total:
    """A sum of gradients in an array the engine made, so that more are added in place."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    @property
    def shape(self) -> tuple:
        return self.array.shape

    @property
    def dtype(self) -> Any:
        return self.array.dtype

    @property
    def size(self) -> int:
        return self.array.size

    def dense(self) -> np.ndarray:
        return self.array

    def add(self, g: Any) -> Total:
        """This sum plus g (a dense array or a piece), in place where the dtype allows."""
        total = self.array
        if g.dtype != total.dtype:  # (a wider dtype: a new array, as `total + g` promotes)
            total = self.array = total.astype(np.result_type(total, g.dtype))
        if g.__class__ is Scattered:
            total[g.index] += g.values
        elif g.__class__ is Total:
            np.add(total, g.array, out=total)
        else:
            np.add(total, g, out=total)
        return self


PARTIAL = (Scattered, Total)


def summed(prev: Any, g: Any) -> Any:
    """prev + g for gradients where either may be a piece or a total (an array otherwise).

    >>> summed(np.ones(2), np.ones(2))
    array([2., 2.])
    """
    if prev.__class__ is Total:
        return prev.add(g)
    if prev.__class__ is Scattered:
        return Total(prev.dense()).add(g)
    if g.__class__ is Scattered or g.__class__ is Total:
        return Total(np.array(prev, dtype=np.result_type(prev, g.dtype))).add(g)
    return prev + g


def dense(g: Any) -> Any:
    """g as an array when it is a piece or a total; anything else as it is."""
    return g.dense() if g.__class__ in PARTIAL else g


def piece_of(g: Any, shape: tuple, index: Any) -> Scattered | None:
    """getitem's gradient as a piece, when it pays: a raw backward's array g, a basic index, x of
    at least SCATTER_FROM elements and g at most a quarter of it (None: make it dense)."""
    if g.__class__ is not np.ndarray:  # (inside vmap: a batched array, made dense)
        return None
    size = math.prod(shape)
    if size < SCATTER_FROM or g.size * _LARGEST_PART > size:
        return None
    return Scattered(tuple(shape), g.dtype, index, g)
