"""Fused ops and kernels: what runs where the textbook rule would make several nodes, or would
divide by zero at an edge. The table's texts stay the textbook's; `fuse` swaps these in.

`linear` is a dense layer's x @ T(w) + b as one op (as PyTorch's addmm), `addmm_nt` a recurrent
step's gates c + x @ T(w) (the step's input projection plus the hidden GEMM); the LSTM and GRU
cells' kernels are fused_recurrent.py's (in place on arrays). matmul's rules run as
products with a transposed operand (`matmul_nt`, `matmul_tn`: no transpose node), tanh's and
sigmoid's as one op each (as PyTorch's tanh_backward): a recorded backward (create_graph) stays
small. `mse` is the mean (or sum) of squared errors as one op, its rule one `mse_backward` (as
PyTorch's MseLossBackward): the loss records one node instead of three, its backward one instead
of three, and a double backward walks both once. The rules of relu, where (so elu, softplus...)
and clip select by bits (`bits.masked`; leaky_relu's rule calls where itself, whose forward
selects by bits too). pow, the reductions and normalize run guarded or keepdims-aware kernels.
Tests check each kernel equals the textbook text wherever that is defined, and the edges against
PyTorch.
Layer L1: numpy, registry and the other families.
"""

from __future__ import annotations

import math

import numpy as np

from .._state import state

from .batching import example_ndim, matrix_product, pointwise
from .bits import dropped, masked
from .elementwise import (  # noqa: F401  (kernel texts)
    add,
    clip,
    flat_at_zero,
    log,
    mul,
    pow,
    relu,
    sigmoid,
    sub,
    tanh,
    where,
    within,
)
from .linalg import T, matmul, product, rows  # noqa: F401  (rule and kernel texts use T, rows)
from .normalization import inverse_std, normalize  # noqa: F401  (kernels)
from .pooling import max_pool2d, max_pool2d_backward  # noqa: F401  (kernels)
from .reduction import (  # noqa: F401  (kernel texts)
    count,
    cumprod,
    cumprod_grad,
    expand_back,
    keep,
    logsumexp,
    max,
    mean,
    min,
    others,
    prod,
    softmax,
    spread,
    sum,
    tie_shares,
)
from .fused_recurrent import (  # noqa: F401  (kernel texts)
    gru_cell,
    gru_hidden_kernel,
    gru_input_kernel,
    gru_state_kernel,
    lstm_cell,
    lstm_gates_kernel,
    lstm_state_kernel,
)
from .registry import primitive, value  # noqa: F401  (max-pool's kernel text)
from .scattered import piece_of
from .shape import getitem, is_basic_index, reshape, scatter_add, transpose


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
    "x @ T(w) + b",
    batch=batch_linear,
    x="g @ w",
    w="T(g) @ x",
    b="sum(g, axis=0)",
)
def linear(x, w, b):
    out = product(x, w.T)
    if out.dtype is b.dtype or out.dtype == np.result_type(out, b):  # (the bias added into the
        # fresh product: one array per layer, as hand-written NumPy does)
        return np.add(out, b, out=out)
    return out + b


@primitive("matmul_nt", "x @ T(y)", batch=matrix_product, x="g @ y", y="T(g) @ x")
def matmul_nt(x, y):
    return product(x, y.swapaxes(-1, -2))  # (the method: no Python wrapper)


@primitive("matmul_tn", "T(x) @ y", batch=matrix_product, x="y @ T(g)", y="x @ g")
def matmul_tn(x, y):
    return product(x.swapaxes(-1, -2), y)


def batch_addmm_nt(level, prim, inputs, batched, params):
    """vmap: the product batched as matmul_nt's, then c added as any elementwise op."""
    (c, x, w), (bc, bx, bw) = inputs, batched
    product = (
        matrix_product(level, matmul_nt, [x, w], [bx, bw], {}) if bx or bw else matmul_nt(x, w)
    )
    return pointwise(level, add, [c, product], [bc, bx or bw], {})


# (a recurrent step's gates: c, the input's projection for the step, plus h @ T(W_hh): one op)
@primitive("addmm_nt", "c + x @ T(w)", batch=batch_addmm_nt, c="g", x="g @ w", w="T(g) @ x")
def addmm_nt(c, x, w):
    out = product(x, w.swapaxes(-1, -2))
    if out.shape == np.shape(c) and out.dtype == np.result_type(out, c):  # (into the product)
        return np.add(out, c, out=out)
    return c + out


def linear_w_grad(g, x):
    """linear's rule for w, T(g) @ x with every batch axis folded into rows: on matrices (a plain
    backward's arrays) matmul_tn's kernel straight, else the op (recorded on tensors). The op's
    dispatch and two rows() calls cost more than the GEMM of a small layer (measured: 9.5 against
    5.3 us on a 4x8 batch)."""
    if g.__class__ is np.ndarray and x.__class__ is np.ndarray and g.ndim == 2 == x.ndim:
        return product(g.T, x)  # (matmul_tn's forward, T(g) @ x, without its frame)
    return matmul_tn(rows(g), rows(x))


def linear_b_grad(g):
    """linear's rule for b, g summed over every batch axis: on a matrix (a plain backward's array)
    sum's kernel straight (as linear_w_grad, for the same reason), else the op."""
    if g.__class__ is np.ndarray and g.ndim == 2:
        return np.add.reduce(g, axis=0)  # (sum's forward, without its frame)
    return sum(rows(g), axis=(0,), keepdims=False)


# Below this many elements a fresh temporary is cheaper than NumPy's handling of out= (measured).
_REUSE_FROM = 16384


def _times_g(g, t):
    """g * t for a temporary array t: written into t when g has its shape and dtype, so a backward
    pass allocates one array per layer instead of three (as hand-written NumPy would)."""
    if g.__class__ is np.ndarray and g.shape == t.shape and g.dtype == t.dtype:
        return np.multiply(g, t, out=t)
    return g * t


# A one of each common float dtype: `_one_minus` subtracts from it, not from a Python 1, whose
# promotion NumPy 2 pays on every call (callgrind, 16 floats: 7.6k instructions against 4.4k)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_ONE32, _ONE64 = np.ones((), _F32), np.ones((), _F64)


def _one_minus(t):
    """1 - t for a small temporary t, the one in t's own dtype where it is float32 or float64."""
    if t.__class__ is np.ndarray:
        if t.dtype is _F32:
            return np.subtract(_ONE32, t)
        if t.dtype is _F64:
            return np.subtract(_ONE64, t)
    return 1 - t


# (their inputs: dy, the gradient tanh's rule got; y, tanh's output)
@primitive(
    "tanh_backward", "dy * (1 - y * y)", batch=pointwise, dy="g * (1 - y * y)", y="-2 * g * dy * y"
)
def tanh_backward(dy, y):
    t = y * y
    if t.__class__ is np.ndarray and t.size >= _REUSE_FROM:
        return _times_g(dy, np.subtract(1, t, out=t))
    return dy * _one_minus(t)


@primitive(
    "sigmoid_backward",
    "dy * y * (1 - y)",
    batch=pointwise,
    dy="g * y * (1 - y)",
    y="g * dy * (1 - 2 * y)",
)
def sigmoid_backward(dy, y):
    t = _one_minus(y)
    if t.__class__ is np.ndarray and t.size >= _REUSE_FROM:
        return _times_g(dy, np.multiply(y, t, out=t))
    return dy * (y * t)


def mse_count(x, y, reduction):
    """What a squared-error loss divides by: the number of squared errors for 'mean' (x and y
    broadcast together), 1 for 'sum' and for an empty loss (its gradient is empty whatever it is
    divided by; 2 / 0 would raise instead)."""
    if reduction != "mean":
        return 1
    xs, ys = getattr(x, "shape", ()), getattr(y, "shape", ())  # (arrays, tensors, numbers)
    return math.prod(xs if xs == ys else np.broadcast_shapes(xs, ys)) or 1


def batch_mse(level, prim, inputs, batched, params):
    """Each example's own loss: its squared errors reduced over the example's own axes."""
    d = pointwise(level, sub, inputs, batched, {})
    reduce = sum if params.get("reduction") == "sum" else mean
    return reduce(mul(d, d), axis=tuple(range(1, d.ndim)), keepdims=False)


@primitive(
    "mse",
    "mean((x - y) ** 2)  (reduction='sum': sum((x - y) ** 2))",
    batch=batch_mse,
    x="2 * g * (x - y) / mse_count(x, y, reduction)",
    y="-2 * g * (x - y) / mse_count(x, y, reduction)",
)
def mse(x, y, *, reduction="mean"):
    d = np.subtract(x, y)
    squares = np.multiply(d, d, out=d) if d.__class__ is np.ndarray else d * d
    total = np.add.reduce(squares, axis=None)
    return total / squares.size if reduction == "mean" else total


# (dy: the gradient mse's rule got; scale: 2 / N for a mean, 2 for a sum, negated for y)
@primitive(
    "mse_backward",
    "scale * dy * (x - y)",
    batch=pointwise,
    dy="scale * g * (x - y)",
    x="scale * g * dy",
    y="-scale * g * dy",
)
def mse_backward(dy, x, y, *, scale):
    d, s = np.subtract(x, y), np.multiply(dy, scale)
    if d.__class__ is np.ndarray and s.size == 1 and s.ndim <= d.ndim and s.dtype == d.dtype:
        return np.multiply(d, s, out=d)  # (d is this op's own temporary: one array, not two)
    return d * s


def relu_grad(g, out):
    """relu's rule, where(out <= 0, 0, g): on arrays by `dropped`, on Tensors as the table says."""
    if g.__class__ is np.ndarray and out.__class__ is np.ndarray and out.ndim:
        return dropped(g, out <= 0)
    return where(out <= 0, 0, g)


def getitem_grad(g, shape, index):
    """getitem's rule, scatter_add(g, shape=x.shape, index=index): in a raw backward a piece the
    engine adds into x's other gradients without making its zeros (scattered.py) where that pays;
    else on arrays scatter_add's forward (also vmap's batched arrays), on Tensors the op."""
    raw = state.raw_backward
    if raw and g.__class__ is np.ndarray and is_basic_index(index):
        piece = piece_of(g, shape, index)
        if piece is not None:
            return piece
    if raw or g.__class__ is np.ndarray:
        return scatter_add.forward(g, shape=shape, index=index)
    return scatter_add(g, shape=shape, index=index)


def where_grad(g, cond, taken):
    """where's rules, where(cond, g, 0) for x (`taken`) and where(cond, 0, g) for y: by `masked`
    and `dropped` on arrays of one shape (cond bool), else as the table says."""
    if g.__class__ is np.ndarray and cond.__class__ is np.ndarray and cond.dtype == bool:
        return masked(g, cond) if taken else dropped(g, cond)
    return where(cond, g, 0) if taken else where(cond, 0, g)


def clip_grad(g, x, low, high):
    """clip's rule, where(within(x, min, max), g, 0): by `masked` on arrays."""
    if g.__class__ is np.ndarray:
        return masked(g, within(x, low, high))
    return where(within(x, low, high), g, 0)


def fuse() -> None:
    """Run the kernels below instead of the table's textbook rules (same values, tested)."""
    matmul.override(
        "products with a transposed operand: no transpose node",
        x="matmul_nt(g, y)",
        y="matmul_tn(x, g)",
    )
    matmul_nt.override("products with a transposed operand", y="matmul_tn(g, x)")
    matmul_tn.override("products with a transposed operand", x="matmul_nt(y, g)")
    linear.override(
        "any number of batch axes folded into rows, one GEMM per gradient",
        w="linear_w_grad(g, x)",
        b="linear_b_grad(g)",
    )
    addmm_nt.override("any number of batch axes folded into rows", w="linear_w_grad(g, x)")
    lstm_cell.override(
        "in place on arrays, the gates' gradients written into one array",
        gates="lstm_gates_kernel(g, out, hc)",
        hc="lstm_state_kernel(g, out, hc)",
    )
    gru_cell.override(
        "in place on arrays, the gates' gradients written into one array",
        xg="gru_input_kernel(g, out, h, hg)",
        hg="gru_hidden_kernel(g, out, h, hg)",
        h="gru_state_kernel(g, out, h)",
    )
    tanh.override("one op, as PyTorch's tanh_backward", x="tanh_backward(g, out)")
    sigmoid.override("one op, as PyTorch's sigmoid_backward", x="sigmoid_backward(g, out)")
    mse.override(
        "one op, as PyTorch's mse_loss_backward",
        x="mse_backward(g, x, y, scale=2 / mse_count(x, y, reduction))",
        y="mse_backward(g, x, y, scale=-2 / mse_count(x, y, reduction))",
    )
    relu.override("selection by bits", x="relu_grad(g, out)")
    getitem.override("pieces summed without their zeros", x="getitem_grad(g, x.shape, index)")
    where.override(
        "selection by bits", x="where_grad(g, cond, True)", y="where_grad(g, cond, False)"
    )
    clip.override("selection by bits", x="clip_grad(g, x, min, max)")
    # At the edges, as PyTorch: d/dx is 0 at 0 ** 0 (not 0 * inf); d/dy is 0 at x == 0 where
    # y >= 0 (0 ** y is 0 or 1 there: log(1) stands in for log(0)), and out * log(0) where y < 0.
    pow.override(
        "PyTorch's limits where the textbook divides by zero: 0 ** 0 and log(0)",
        x="g * y * pow(where((x == 0) & (y == 0), 1, x), y - 1)",
        y="g * out * log(where(flat_at_zero(x, y), 1, x))",
    )
    # the reductions: keepdims read off the op, g broadcast by the multiply (no expand node)
    sum.override("keepdims from the op", x="expand_back(g, x.shape, axis, keepdims)")
    mean.override(
        "keepdims from the op, g divided before it is broadcast",
        x="expand_back(g / count(x.shape, axis), x.shape, axis, keepdims)",
    )
    for extreme in (max, min):
        extreme.override(
            "an infinite g gives 0 off the extreme, not inf * 0",
            x="spread(keep(g, x.shape, axis, keepdims), tie_shares(x, out, axis))",
        )
    prod.override("zeros in x", x="keep(g, x.shape, axis, keepdims) * others(x, out, axis)")
    cumprod.override("zeros in x", x="cumprod_grad(g, x, out, axis)")
    logsumexp.override(
        "g broadcast by the multiply", x="keep(g, x.shape, axis, keepdims) * softmax(x, axis)"
    )
    normalize.override(
        "the inverse std from the forward's moments (stats), in one pass",
        x=(
            "(g - mean(g, axis=axes, keepdims=True) - out * mean(g * out, axis=axes,"
            " keepdims=True)) * inverse_std(x, axes, eps, stats)"
        ),
    )
    max_pool2d.override(
        "the winners taken as constants (value): no edges to x in a recorded backward",
        x=(
            "max_pool2d_backward(g, value(x), value(out), kernel_size=kernel_size"
            ", stride=stride, padding=padding, dilation=dilation)"
        ),
    )


fuse()
