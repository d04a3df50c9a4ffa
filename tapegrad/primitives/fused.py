"""Fused ops: one node (and fewer temporaries) where the textbook rule would make several.

`linear` is a dense layer's x @ W^T + b as one op (as PyTorch's addmm). matmul's rules run as
products with a transposed operand (`matmul_nt`, `matmul_tn`: no transpose node), tanh's and
sigmoid's as one op each (as PyTorch's tanh_backward): a recorded backward (create_graph) stays
small. The rules of relu, where (so elu, softplus...) and clip select by bits (`bits.masked`;
leaky_relu's rule calls where itself, whose forward selects by bits too). `fuse` swaps them in for
the table's rules; tests check both give the same values.
Layer L1: numpy, registry and the other families.
"""

from __future__ import annotations

import numpy as np

from .batching import example_ndim, matrix_product, pointwise
from .bits import masked
from .elementwise import add, clip, relu, sigmoid, tanh, where, within
from .reduction import sum  # noqa: F401  (linear's rule text for b)
from .linalg import matmul, product, rows  # noqa: F401  (linear's rule text uses rows)
from .registry import primitive
from .shape import reshape, transpose


def batch_linear(level, prim, inputs, batched, params):
    """Weights shared by the batch: one linear for all of it (the batch's rows are more rows of
    x); weights or bias per example: x @ w^T + b as a batched product."""
    (x, w, b), (bx, bw, bb) = inputs, batched
    if not bw and not bb:
        if x.ndim > 2:  # (one GEMM for every row: NumPy's matmul would run one per leading index)
            out = linear(reshape(x, shape=(-1, x.shape[-1])), w, b)
            return reshape(out, shape=tuple(x.shape[:-1]) + (out.shape[-1],))
        return linear(x, w, b)
    wt = transpose(w, axes=(0, 2, 1)) if bw else transpose(w, axes=(1, 0))
    vector = example_ndim(x, bx) == 1
    if vector:  # (a one-row matrix per example)
        shape = tuple(x.shape)
        x = reshape(x, shape=shape[:1] + (1,) + shape[1:] if bx else (1,) + shape)
    out = matrix_product(level, matmul, [x, wt], [bx, bw], {})
    if vector:
        out = reshape(out, shape=(level.size, out.shape[-1]))
    return pointwise(level, add, [out, b], [True, bb], {})


@primitive(
    "linear",
    "x @ w.T + b",
    batch=batch_linear,
    x="g @ w",
    w="matmul_tn(rows(g), rows(x))",
    b="sum(rows(g), axis=(0,), keepdims=False)",
)
def linear(x, w, b):
    out = product(x, w.T)
    if out.dtype == np.result_type(out, b):  # (the bias added into the fresh product: one
        return np.add(out, b, out=out)  # array per layer, as hand-written NumPy does)
    return out + b


@primitive("matmul_nt", "x @ y.T", batch=matrix_product, x="matmul(g, y)", y="matmul_tn(g, x)")
def matmul_nt(x, y):
    return product(x, y.swapaxes(-1, -2))  # (the method: no Python wrapper)


@primitive("matmul_tn", "x.T @ y", batch=matrix_product, x="matmul_nt(y, g)", y="matmul(x, g)")
def matmul_tn(x, y):
    return product(x.swapaxes(-1, -2), y)


# Below this many elements a fresh temporary is cheaper than NumPy's handling of out= (measured).
_REUSE_FROM = 16384


def _times_g(g, t):
    """g * t for a temporary array t: written into t when g has its shape and dtype, so a backward
    pass allocates one array per layer instead of three (as hand-written NumPy would)."""
    if g.__class__ is np.ndarray and g.shape == t.shape and g.dtype == t.dtype:
        return np.multiply(g, t, out=t)
    return g * t


# (their inputs: dy, the gradient tanh's rule got; y, tanh's output)
@primitive(
    "tanh_backward", "dy * (1 - y * y)", batch=pointwise, dy="g * (1 - y * y)", y="-2 * g * dy * y"
)
def tanh_backward(dy, y):
    t = y * y
    if t.__class__ is np.ndarray and t.size >= _REUSE_FROM:
        return _times_g(dy, np.subtract(1, t, out=t))
    return dy * (1 - t)


@primitive(
    "sigmoid_backward",
    "dy * y * (1 - y)",
    batch=pointwise,
    dy="g * y * (1 - y)",
    y="g * dy * (1 - 2 * y)",
)
def sigmoid_backward(dy, y):
    t = 1 - y
    if t.__class__ is np.ndarray and t.size >= _REUSE_FROM:
        return _times_g(dy, np.multiply(y, t, out=t))
    return dy * (y * t)


def relu_grad(g, out):
    """relu's rule, where(out <= 0, 0, g): on arrays by `masked`, on Tensors as the table says."""
    if g.__class__ is np.ndarray and out.__class__ is np.ndarray and out.ndim:
        drop = out <= 0
        return masked(g, np.logical_not(drop, out=drop))
    return where(out <= 0, 0, g)


def where_grad(g, cond, taken):
    """where's rules, where(cond, g, 0) for x (`taken`) and where(cond, 0, g) for y: by `masked`
    on arrays of one shape (cond bool), else as the table says."""
    if g.__class__ is np.ndarray and cond.__class__ is np.ndarray and cond.dtype == bool:
        return masked(g, cond if taken else np.logical_not(cond))
    return where(cond, g, 0) if taken else where(cond, 0, g)


def clip_grad(g, x, low, high):
    """clip's rule, where(within(x, min, max), g, 0): by `masked` on arrays."""
    if g.__class__ is np.ndarray:
        return masked(g, within(x, low, high))
    return where(within(x, low, high), g, 0)


def fuse() -> None:
    """Run the rules of matmul, tanh, sigmoid, relu, where and clip as the functions above (same
    values, tested)."""
    matmul.override(x=lambda g, out, x, y: matmul_nt(g, y), y=lambda g, out, x, y: matmul_tn(x, g))
    tanh.override(x=lambda g, out, x: tanh_backward(g, out))
    sigmoid.override(x=lambda g, out, x: sigmoid_backward(g, out))
    relu.override(x=lambda g, out, x: relu_grad(g, out))
    where.override(
        x=lambda g, out, cond, x, y: where_grad(g, cond, True),
        y=lambda g, out, cond, x, y: where_grad(g, cond, False),
    )
    clip.override(x=lambda g, out, x, min, max: clip_grad(g, x, min, max))


fuse()
