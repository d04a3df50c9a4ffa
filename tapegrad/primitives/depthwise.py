"""Depthwise convolution (one input channel per group, as many output channels as groups) at
stride 1 from flat shifted slices: conv2d's and conv2d_weight_grad's kernel for that case (they
call it; the rules stay theirs).

Each (sample, channel) plane is zero-padded and laid flat in rows S long (flat_planes), with the
output computed at every column of a flat row: then kernel tap (i, j) reads one contiguous slice
of the flat plane, shifted by i * dh * S + j * dw, and the columns past the output's width are
discarded at the end.
The forward copies the taps' slices (rows a plane long) into per-channel columns, a few samples
at a time, and runs one (1, kh*kw) @ (kh*kw, Ho*S) product per sample and channel; the weight
gradient is one batched dot product per tap. Where im2col would copy 9x the input with runs one
output row long for a GEMM with one row per group (measured on (32, 32, 32, 32), 3x3: forward
15 -> 7.6 ms by shifted multiply-adds, 8.4 -> 5.3 ms by these columns; weight gradient 5.6 ->
3.6 ms).
Layer L1: numpy only.
"""

from __future__ import annotations

import numpy as np

# Samples are taken a few at a time so that their columns stay in cache (about this many bytes).
_CHUNK = 1 << 20


def fits(x, weight_shape, stride, groups, dtype) -> bool:
    """Whether conv2d(x, w) is depthwise at stride 1 with a multi-tap kernel (this module's case),
    for w of `weight_shape` and a result of `dtype`."""
    return (
        stride == (1, 1)
        and groups > 1
        and groups == x.shape[1] == weight_shape[0]
        and weight_shape[1] == 1
        and weight_shape[2] * weight_shape[3] > 1
        and x.size > 0
        and np.dtype(dtype).kind == "f"
    )


def flat_planes(x, padding, kernel, dilation, dtype, workspace=None):
    """x zero-padded, each plane flat, with the slack the last tap's slice reads past its end:
    (N, C, Hp*S + dw*(kw-1)); and the output's height and width, and S, the flat row length.
    Rows share their zero padding: S = W + max(left, right) zeros between two rows serve as the
    right padding of one and the left padding of the next (S >= Wo still, so an output row fits in
    a flat one). Fewer columns than W + left + right: the products at the columns past Wo are
    wasted work, 2 of 18 a row for a 16-wide 3x3 conv, 1 of 17 this way. `workspace` (purpose,
    shape, dtype) -> a scratch array, if given, holds it (only its border is zeroed: no fresh
    array of the input's size, page-faulted in at every step)."""
    n, c, h, w = x.shape
    pt, pb, pl, pr = padding
    hp, wo = h + pt + pb, w + pl + pr - dilation[1] * (kernel[1] - 1)
    row = max(w + max(pl, pr), wo)
    shape = (n, c, hp * row + dilation[1] * (kernel[1] - 1))
    if workspace is None:
        flat = np.zeros(shape, dtype)
    else:
        flat = workspace("flat planes", shape, np.dtype(dtype))
        flat[:, :, hp * row :] = 0
        border = flat[:, :, : hp * row].reshape(n, c, hp, row)
        border[:, :, :pt] = border[:, :, pt + h :] = 0
        border[:, :, :, :pl] = border[:, :, :, pl + w :] = 0
    flat[:, :, : hp * row].reshape(n, c, hp, row)[:, :, pt : pt + h, pl : pl + w] = x
    return flat, hp - dilation[0] * (kernel[0] - 1), wo, row


def _offsets(kernel, dilation, wp):
    """Where each tap's slice starts in a flat plane, taps in row-major order."""
    return [
        i * dilation[0] * wp + j * dilation[1] for i in range(kernel[0]) for j in range(kernel[1])
    ]


def _samples(n, row_bytes):
    step = max(1, _CHUNK // max(1, row_bytes))
    return [slice(a, min(a + step, n)) for a in range(0, n, step)]


def conv(x, w, padding, dilation, workspace=None):
    """conv2d(x, w) for depthwise w (C, 1, kh, kw) at stride 1, of shape (N, C, Ho, Wo)
    (`workspace`: see flat_planes)."""
    n, c = x.shape[:2]
    kernel = w.shape[2:]
    dtype = np.result_type(x, w)
    flat, ho, wo, wp = flat_planes(x, padding, kernel, dilation, dtype, workspace)
    span = ho * wp  # (the output at every column of a flat row: one contiguous slice per tap)
    offsets = _offsets(kernel, dilation, wp)
    # (contiguous: a flipped kernel, the input gradient's, reshapes to a view with a negative
    # stride, which matmul runs without BLAS, 2x slower)
    taps = np.ascontiguousarray(w.reshape(c, 1, -1), dtype=dtype)
    out = np.empty((n, c, ho, wo), dtype)
    chunks = _samples(n, c * len(offsets) * span * out.itemsize)
    held = np.empty((chunks[0].stop, c, len(offsets), span), dtype)
    for s in chunks:
        cols = held[: s.stop - s.start]
        for k, start in enumerate(offsets):
            cols[:, :, k] = flat[s, :, start : start + span]
        products = np.matmul(taps, cols)  # (samples, C, 1, Ho*S)
        out[s] = products.reshape(-1, c, ho, wp)[..., :wo]
    return out


def weight_grad(g, x, weight_shape, padding, dilation, workspace=None):
    """conv2d_weight_grad(g, x) for depthwise weights (C, 1, kh, kw) at stride 1: per tap, the
    products of g with the tap's slice summed per channel (one batched dot product per tap;
    `workspace`: see flat_planes)."""
    n, c, ho, wo = g.shape
    kernel = weight_shape[2:]
    dtype = np.result_type(g, x)
    flat, _, _, wp = flat_planes(x, padding, kernel, dilation, dtype, workspace)
    span = ho * wp
    if workspace is None:  # (g at every padded column, 0 past the output's width)
        gp = np.zeros((n, c, 1, span), dtype)
    else:
        gp = workspace("widened gradient", (n, c, 1, span), np.dtype(dtype))
        gp.reshape(n, c, ho, wp)[..., wo:] = 0
    gp.reshape(n, c, ho, wp)[..., :wo] = g
    dw = np.empty((c, len(_offsets(kernel, dilation, wp))), dtype)
    for k, start in enumerate(_offsets(kernel, dilation, wp)):
        dots = np.matmul(gp, flat[:, :, start : start + span, None])  # (N, C, 1, 1)
        np.add.reduce(dots.reshape(n, c), axis=0, out=dw[:, k])
    return dw.reshape(weight_shape)
