"""Pooling primitives: max-pool (with PyTorch's choice of winner) and average pool, NCHW arrays.

Conventions as in elementwise.py. Closed under their VJPs: max-pool scatters g to each window's
winner and gathers at the winners; avg-pool and its backward are each other's adjoint.
Layer L1: numpy, registry, batching, bits (masked) and nn.py's window geometry. Under vmap the
batch folds into N.
"""

from __future__ import annotations

import numpy as np

from .batching import fold_into_n
from .bits import masked
from .nn import _cropped, _out_hw, _padded, _tap
from .registry import primitive

# ---- max pooling -------------------------------------------------------------------------------


def _winners(x, out, kernel_size, stride, padding, dilation):
    """Yield (i, j, mask) for each kernel tap in row-major order, the mask saying where the tap is
    its window's winner. One winner per window, as PyTorch picks it: the first maximum, or the
    last NaN in a window that has one (max-pool's output is then NaN)."""
    xp = _padded(x, padding, _lowest(x.dtype))
    out_hw = out.shape[2:]
    taps = [(i, j) for i in range(kernel_size[0]) for j in range(kernel_size[1])]
    nan_windows = np.isnan(out) if out.dtype.kind == "f" else None
    if nan_windows is not None and nan_windows.any():
        last_nan = np.full(out.shape, -1)
        for k, (i, j) in enumerate(taps):
            np.copyto(last_nan, k, where=np.isnan(_tap(xp, i, j, out_hw, stride, dilation)))
    else:
        nan_windows = None
    taken = np.zeros(out.shape, bool)
    for k, (i, j) in enumerate(taps):
        hit = np.greater(_tap(xp, i, j, out_hw, stride, dilation) == out, taken)  # first max
        if nan_windows is not None:
            hit = np.where(nan_windows, last_nan == k, hit)
        taken |= hit
        yield i, j, hit


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool2d_indices(x, out, *, kernel_size, stride, padding, dilation):
    """PyTorch's `return_indices`: each window's winner as a flat index into its H*W input plane."""
    h, w = x.shape[2:]
    ho, wo = out.shape[2:]
    rows = np.arange(ho) * stride[0] - padding[0]
    cols = np.arange(wo) * stride[1] - padding[2]
    idx = np.zeros(out.shape, np.int64)
    for i, j, hit in _winners(x, out, kernel_size, stride, padding, dilation):
        flat = (rows[:, None] + i * dilation[0]) * w + (cols[None, :] + j * dilation[1])
        np.copyto(idx, flat, where=hit)
    return idx


@primitive(
    "max_pool2d",
    "max of x over each window",
    batch=fold_into_n,
    x=(
        "max_pool2d_backward(g, x, out, kernel_size=kernel_size"
        ", stride=stride, padding=padding, dilation=dilation)"
    ),
)
def max_pool2d(x, *, kernel_size, stride, padding, dilation):
    xp = _padded(x, padding, _lowest(x.dtype))
    out_hw = _out_hw(x.shape, kernel_size, stride, padding, dilation)
    out = _tap(xp, 0, 0, out_hw, stride, dilation).copy()
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            if i or j:
                np.maximum(out, _tap(xp, i, j, out_hw, stride, dilation), out=out)  # (NaN wins)
    return out


@primitive(
    "max_pool2d_backward",
    "dy placed at each window's winner in x (max-pool's gradient), 0 elsewhere",
    batch=fold_into_n,
    dy=(
        "max_pool2d_gather(g, x, pooled, kernel_size=kernel_size"
        ", stride=stride, padding=padding, dilation=dilation)"
    ),
    x=None,  # (the winners are piecewise constant in x)
    pooled=None,
)
def max_pool2d_backward(dy, x, pooled, *, kernel_size, stride, padding, dilation):
    g, out = dy, pooled
    n, c, h, w = x.shape
    pt, pb, pl, pr = padding
    dxp = np.zeros((n, c, h + pt + pb, w + pl + pr), g.dtype)
    apart = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation))
    for i, j, hit in _winners(x, out, kernel_size, stride, padding, dilation):
        view = _tap(dxp, i, j, out.shape[2:], stride, dilation)
        if apart:  # no two taps read the same element: write g where hit straight into place
            masked(g, hit, out=view)
        else:  # (`masked`, not g * hit: an infinite g must give 0 off the winners, not NaN)
            view += masked(g, hit)
    return _cropped(dxp, x.shape, padding)


@primitive(
    "max_pool2d_gather",
    "dy (shaped as x) read at each window's winner in x",
    batch=fold_into_n,
    dy=(
        "max_pool2d_backward(g, x, pooled, kernel_size=kernel_size"
        ", stride=stride, padding=padding, dilation=dilation)"
    ),
    x=None,
    pooled=None,
)
def max_pool2d_gather(dy, x, pooled, *, kernel_size, stride, padding, dilation):
    g, out = dy, pooled
    gp = _padded(g, padding)
    picked = np.zeros(out.shape, g.dtype)
    for i, j, hit in _winners(x, out, kernel_size, stride, padding, dilation):
        picked += masked(_tap(gp, i, j, out.shape[2:], stride, dilation), hit)
    return picked


# ---- average pooling ---------------------------------------------------------------------------


@primitive(
    "avg_pool2d",
    "sum of x over each window / divisor",
    batch=fold_into_n,
    x=(
        "avg_pool2d_backward(g, input_shape=x.shape, kernel_size=kernel_size"
        ", stride=stride, padding=padding, divisor=divisor)"
    ),
)
def avg_pool2d(x, *, kernel_size, stride, padding, divisor):
    xp = _padded(x, padding)
    out_hw = _out_hw(x.shape, kernel_size, stride, padding, (1, 1))
    total = _tap(xp, 0, 0, out_hw, stride, (1, 1)).copy()
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            if i or j:
                total += _tap(xp, i, j, out_hw, stride, (1, 1))
    if total.dtype.kind in "iu":  # integers: the quotient cut toward zero (C's, as PyTorch's)
        return np.sign(total) * np.sign(divisor) * (np.abs(total) // np.abs(divisor))
    return np.true_divide(total, divisor, out=total)


@primitive(
    "avg_pool2d_backward",
    "dy / divisor added to every element of its window, of shape input_shape",
    batch=fold_into_n,
    dy=("avg_pool2d(g, kernel_size=kernel_size, stride=stride, padding=padding, divisor=divisor)"),
)
def avg_pool2d_backward(dy, *, input_shape, kernel_size, stride, padding, divisor):
    g = dy
    share = g / divisor
    n, c, h, w = input_shape
    pt, pb, pl, pr = padding
    dxp = np.zeros((n, c, h + pt + pb, w + pl + pr), share.dtype)
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            view = _tap(dxp, i, j, g.shape[2:], stride, (1, 1))
            view += share
    return np.ascontiguousarray(_cropped(dxp, input_shape, padding))
