"""The normalization primitives (batch norm's and layer norm's core) and the statistics around
them: `normalize`, and `affine_normalize`, normalize followed by a per-channel scale and shift
(batch norm in training with its affine: one node instead of three).

Conventions as in elementwise.py; the rules are in ops that record, so every order of derivative
follows (fused_normalization.py runs closed-form kernels in their place on arrays).
Layer L1: numpy, registry, batching, the elementwise and reduction families.
"""

from __future__ import annotations

import math

import numpy as np

from .batching import normalization, pointwise, reads_batched_params
from .elementwise import add, mul, sqrt
from .reduction import mean
from .registry import primitive


def over_channels(axes, ndim) -> bool:
    """Whether `axes` are batch norm's on (N, C, ...) inputs: every axis but the channels' (1)."""
    return ndim > 2 and tuple(axes) == (0,) + tuple(range(2, ndim))


# Arrays of x's size are made a few samples at a time in a scratch array of about this many
# bytes, which stays in cache, rather than whole: a fresh array of megabytes is page-faulted in
# at every training step (measured on BatchNorm2d's backward, (32, 16, 32, 32) float32).
_CHUNK = 1 << 18


def sample_chunks(x):
    """Slices of axis 0 (samples) of about _CHUNK bytes of x each."""
    n = x.shape[0]
    step = max(1, _CHUNK // max(1, x[:1].nbytes))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


# One sample's worth of per-channel values is made only up to this many bytes (channel_rows).
_ROWS_MAX = 1 << 20


def channel_rows(v, x):
    """Per-channel values v (1, C, 1, ...) spread over one sample of x (N, C, ...), contiguous
    (v itself where a sample is over _ROWS_MAX bytes: no copies of a large image).
    Speed: a ufunc over x with a broadcast (1, C, 1, 1) operand runs 2-3x slower than with this
    one-sample operand, whose inner loop is two contiguous runs (measured: a (32, 16, 32, 32)
    float32 multiply 0.23 -> 0.10 ms)."""
    shape = (1,) + x.shape[1:]
    if math.prod(shape) * v.itemsize > _ROWS_MAX:
        return v
    return np.ascontiguousarray(np.broadcast_to(v, shape))


def channel_sums(a, axes):
    """The sum of a per channel (over `axes`, kept as size-1 axes)."""
    return np.add.reduce(a, axis=axes, keepdims=True)


def centered_dot(x, mean, axes, other=None):
    """sum((x - mean) * other) over `axes` (other None: of (x - mean) squared), kept as size-1
    axes; on (N, C, ...) by one dot product per sample and channel over a few samples at a time
    (no array of x's size)."""
    if not (over_channels(axes, x.ndim) and x.size):
        centered = x - mean
        return channel_sums(centered * (centered if other is None else other), axes)
    c, length = x.shape[1], math.prod(x.shape[2:])
    dtype = np.result_type(x, mean, 1.0 if other is None else other)
    scratch = np.empty((sample_chunks(x)[0].stop, c, length), dtype)
    total = np.zeros((1, c) + (1,) * (x.ndim - 2), dtype)
    flat_mean = channel_rows(mean, x).reshape(1, c, -1)
    for s in sample_chunks(x):
        k = s.stop - s.start
        centered = np.subtract(x[s].reshape(k, c, length), flat_mean, out=scratch[:k])
        right = centered if other is None else other[s].reshape(k, c, length)
        dots = np.matmul(centered[:, :, None, :], right[:, :, :, None])  # (samples, C, 1, 1)
        total += np.add.reduce(dots, axis=0).reshape(total.shape)
    return total


def moments(x, axes):
    """x's mean and (biased) variance over `axes`, each kept as size-1 axes (arrays)."""
    n = math.prod([x.shape[a] for a in axes])
    mean = channel_sums(x, axes) / n
    if over_channels(axes, x.ndim):
        return mean, centered_dot(x, mean, axes) / n
    centered = x - mean
    squares = np.multiply(centered, centered, out=centered)
    return mean, channel_sums(squares, axes) / n


def inverse_std(x, axes, eps, stats=None):
    """1 / sqrt(var(x) + eps) over `axes` (kept as size 1): on arrays from the forward's `stats`
    when it had them; on Tensors in ops that record (create_graph: higher orders see x in it)."""
    if stats is not None and x.__class__ is np.ndarray:
        return 1 / np.sqrt(stats[1] + eps)
    return 1 / sqrt(var(x, axes) + eps)


def avg(v, axes):
    """v's mean over `axes`, kept as size-1 axes (so it broadcasts back against v)."""
    return mean(v, axis=axes, keepdims=True)


def var(x, axes):
    """x's (biased) variance over `axes`, kept as size-1 axes."""
    centered = x - avg(x, axes)
    return avg(centered * centered, axes)


@primitive(
    "normalize",
    "(x - avg(x, axes)) / sqrt(var(x, axes) + eps)",
    batch=normalization,
    x="(g - avg(g, axes) - out * avg(g * out, axes)) / sqrt(var(x, axes) + eps)",
)
def normalize(x, *, axes, eps, stats=None):
    # (one primitive rather than the composite's six ops: its backward makes a third of the
    # passes over x, and batch and layer norm are in most models. `stats`, x's `moments`, come
    # from callers that need them too (batch norm's running statistics): neither the forward nor
    # a plain backward computes them again)
    mean, var = moments(x, axes) if stats is None else stats
    centered = x - mean
    return np.multiply(centered, 1 / np.sqrt(var + eps), out=centered)


@reads_batched_params
def batch_affine_normalize(level, prim, inputs, batched, params):
    """affine_normalize under vmap: normalize's batching rule, then the scale and shift as the
    pointwise ops they are."""
    (x, w, b), (bx, bw, bb) = inputs, batched
    if bx:
        xhat = normalization(level, normalize, [x], [bx], params)
    else:
        xhat = normalize(x, **params)
    scaled = pointwise(level, mul, [xhat, w], [bx, bw], {})
    return pointwise(level, add, [scaled, b], [bx or bw, bb], {})


@primitive(
    "affine_normalize",
    "normalize(x, axes, eps) * w + b",
    batch=batch_affine_normalize,
    x=(
        "w * (g - avg(g, axes) - normalize(x, axes=axes, eps=eps)"
        " * avg(g * normalize(x, axes=axes, eps=eps), axes)) / sqrt(var(x, axes) + eps)"
    ),
    w="g * normalize(x, axes=axes, eps=eps)",
    b="g",
)
def affine_normalize(x, w, b, *, axes, eps, stats=None):
    # (batch norm's three nodes, normalize, * w and + b, as one, and in two passes over x as
    # PyTorch's: x * scale + shift with per-channel scale = w * inv_std, shift = b - mean * scale)
    mean, var = moments(x, axes) if stats is None else stats
    scale = w / np.sqrt(var + eps)
    shift = b - mean * scale
    if over_channels(axes, x.ndim) and x.ndim == scale.ndim == shift.ndim:
        scale, shift = channel_rows(scale, x), channel_rows(shift, x)  # (for speed, see there)
    out = np.multiply(x, scale, dtype=np.result_type(x, w, b))
    return np.add(out, shift, out=out)
