"""Matrix products: x @ y for operands of two or more axes (batch axes broadcast), matrix @
vector (`mv`) and vector . vector (`dot`), as PyTorch splits them.

Conventions as in elementwise.py. The rules are the textbook ones, with one transpose notation,
T(m) (the last two axes swapped, written m^T in LaTeX); broadcast batch axes are summed back by the
engine.
Layer L1: numpy, registry, batching and the shape, elementwise and reduction families (mv's and
dot's batching rules).
"""

from __future__ import annotations

import numpy as np

from .batching import matrix_product, padded
from .elementwise import mul
from .reduction import sum
from .registry import primitive
from .shape import reshape, transpose


def product(x, y, out=None):
    """x @ y on arrays (into `out` if given); an outer product (x's last axis and y's second-last
    of size 1) as a broadcast multiply, the same values: NumPy's matmul runs a slow non-BLAS loop
    there (4-8x slower, measured: a batch-of-one weight gradient, a Linear(1, n), a depthwise
    conv)."""
    if x.ndim > 1 and y.ndim > 1 and x.shape[-1] == 1 and y.shape[-2] == 1:
        return np.multiply(x, y, out=out)
    return np.matmul(x, y, out=out)


@primitive("matmul", "x @ y", batch=matrix_product, x="g @ T(y)", y="T(x) @ g")
def matmul(x, y):
    return product(x, y)


def batch_mv(level, prim, inputs, batched, params):
    """A batched vector is a one-column matrix per example (NumPy's matmul would take a stack of
    vectors for a matrix); a batched matrix alone keeps mv."""
    (x, v), (bx, bv) = inputs, batched
    if not bv:
        return mv(x, v)
    column = reshape(v, shape=tuple(v.shape) + (1,))
    out = matmul(padded(x, bx, 2), column)
    return reshape(out, shape=tuple(out.shape[:-1]))


def batch_dot(level, prim, inputs, batched, params):
    """dot with a shared vector is a matrix-vector product; of two batched ones, a row sum."""
    (x, y), (bx, by) = inputs, batched
    if bx and by:
        return sum(mul(x, y), axis=(1,), keepdims=False)
    return mv(x, y) if bx else mv(y, x)


@primitive("mv", "x @ y  (a matrix and a vector)", batch=batch_mv, x="outer(g, y)", y="T(x) @ g")
def mv(x, y):
    return np.matmul(x, y)


@primitive("dot", "sum(x * y)  (two vectors)", batch=batch_dot, x="g * y", y="g * x")
def dot(x, y):
    return np.dot(x, y)


def expand_dims(v, axis):
    """v with a new axis of size 1 at `axis`."""
    return reshape(v, shape=np.expand_dims(np.empty(v.shape, bool), axis).shape)


def outer(u, v):
    """u's entries times v, one row each: u[..., i] * v[j] at [..., i, j]."""
    return expand_dims(u, -1) * v


def T(m):
    """m with its last two axes swapped (the matrix transpose of every matrix in a batch)."""
    n = m.ndim
    return transpose(m, axes=tuple(range(n - 2)) + (n - 1, n - 2))


def rows(m):
    """m as one matrix: every leading axis folded into the rows."""
    return m if m.ndim == 2 else reshape(m, shape=(-1, m.shape[-1]))
