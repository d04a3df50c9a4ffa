"""Convolution primitives (NCHW arrays; 1-D ops reach them through a unit H axis), and the window
geometry pooling.py shares.

Conventions as in elementwise.py. Each family is closed under its VJPs, so every order of
derivative is one of these ops again: conv2d's gradients are conv2d_input_grad (a transposed
convolution) and conv2d_weight_grad, whose own gradients are the three conv ops. Parameters arrive
normalised by
tapegrad.nn.functional_conv: tuples of ints, padding as (top, bottom, left, right) with
ceil_mode's extra rows already in bottom/right.
Layer L1: numpy, registry, batching, the elementwise, reduction and shape families, bits (masked).
Under vmap the batch folds into N (shared conv weights) or into the groups (per-example conv
weights).
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import depthwise
from .batching import stacked
from .elementwise import add
from .linalg import product
from .reduction import sum  # noqa: F401  (conv2d's rule for b)
from .registry import primitive
from .shape import reshape, transpose

# ---- geometry ------------------------------------------------------------------------------------


def out_size(n: int, k: int, s: int, before: int, after: int, d: int) -> int:
    """Output length of a window of k taps (d apart) sliding by s over n padded elements."""
    return (n + before + after - d * (k - 1) - 1) // s + 1


def _out_hw(shape, kernel, stride, padding, dilation):
    (kh, kw), (sh, sw), (pt, pb, pl, pr), (dh, dw) = kernel, stride, padding, dilation
    return out_size(shape[2], kh, sh, pt, pb, dh), out_size(shape[3], kw, sw, pl, pr, dw)


def _padded(x, padding, fill=0):
    """x with its spatial axes padded by `fill` (x itself when there is no padding)."""
    pt, pb, pl, pr = padding
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    xp = np.empty((n, c, h + pt + pb, w + pl + pr), x.dtype)
    xp.fill(fill)  # (a fresh np.full costs the same; one code path for zeros and -inf)
    xp[:, :, pt : pt + h, pl : pl + w] = x
    return xp


def _tap(a, i, j, out_hw, stride, dilation):
    """The view of (padded) `a` that kernel tap (i, j) reads, one element per output position."""
    (ho, wo), (sh, sw), (dh, dw) = out_hw, stride, dilation
    return a[
        :, :, i * dh : i * dh + sh * (ho - 1) + 1 : sh, j * dw : j * dw + sw * (wo - 1) + 1 : sw
    ]


def _cropped(ap, shape, padding):
    pt, _, pl, _ = padding
    return ap[:, :, pt : pt + shape[2], pl : pl + shape[3]]


# ---- convolution -------------------------------------------------------------------------------

# The columns (and col2im's padded gradient) are a conv's largest temporaries, megabytes a call.
# Made afresh each call, glibc's default allocator can hand them back to the system once freed,
# and the next training step page-faults them in again (the LeNet benchmark, batch 64: 1,227
# faults a step, 401 with these kept; the rest are activations). One scratch array per purpose and
# thread, kept while its shape stays the same (up to _SCRATCH_MAX bytes: a bigger one is not held).
_scratch = threading.local()
_SCRATCH_MAX = 1 << 24


def _workspace(purpose, shape, dtype):
    """A scratch array for `purpose` (its contents undefined), reused while shape and dtype stay
    the same; never returned to callers, so a conv's result is always an array of its own."""
    held = _scratch.__dict__
    buf = held.get(purpose)
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        buf = np.empty(shape, dtype)
        held[purpose] = buf if buf.nbytes <= _SCRATCH_MAX else None
    return buf


# Two layouts of the columns (row (c, i, j): what kernel tap (i, j) of channel c sees), chosen by
# the length of the contiguous runs their copies move, since NumPy's cost per run, not per element,
# dominates short ones:
# - per sample, (N, K, Ho*Wo): runs one output row long; the GEMMs are batched over N and read and
#   write NCHW as it is, with no transposing copy. Taken when output rows are at least 16 long (or
#   as long as the batch): LeNet's first conv 1.7x, a 32x32 one 3.5x faster than batch-last. At
#   stride 1 its rows are a flat padded plane long instead (_flat_windows): copies 3.7x faster.
# - batch-last, (K, Ho*Wo*N): runs N long, at the price of transposing copies of x, y and g. Taken
#   for short rows and larger batches (LeNet's second conv, 8 wide, batch 64: 1.5x faster).


def _per_sample(n, wo):
    """Whether the per-sample column layout suits a batch of n with output rows wo long."""
    return wo >= 16 or wo >= n


# Per-sample columns are made a few samples at a time, about _CHUNK bytes, so that the GEMM reads
# them from cache rather than memory, and a batch's columns (9x its input for a 3x3 kernel) are
# never held at once (measured on a 32x16x32x32 conv: forward 6.0 -> 5.0 ms, weight grad 7.7 ->
# 6.2).
_CHUNK = 1 << 21


def _chunks(n, sample_bytes):
    """Slices of the batch axis, each about _CHUNK bytes of columns (one empty slice for n = 0)."""
    step = max(1, _CHUNK // max(1, sample_bytes))
    return [slice(a, min(a + step, n)) for a in range(0, max(n, 1), step)]


def _windows(x, kernel, stride, padding, dilation):
    """Each sample's view of every kernel tap, (N, C, kh, kw, Ho, Wo): padded x, strided (no copy);
    reshaped to (N, C*kh*kw, Ho*Wo), a slice of it is the columns of those samples."""
    xp = _padded(x, padding)
    n, c = x.shape[:2]
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = _out_hw(x.shape, kernel, stride, padding, dilation)
    s_n, s_c, s_h, s_w = xp.strides
    return as_strided(
        xp,
        (n, c, kh, kw, ho, wo),
        (s_n, s_c, dh * s_h, dw * s_w, sh * s_h, sw * s_w),
        writeable=False,
    )


def _flat_windows(x, kernel, padding, dilation):
    """At stride 1: what each kernel tap reads at every column of a flat row, (N, C, kh, kw, Ho*S),
    from x's padded planes laid flat in rows S long (depthwise.flat_planes); and Ho and S. Each
    row of it is one contiguous run Ho*S long, where _windows' runs are one output row long:
    copied into columns 3.7x faster (measured on (32, 16, 32, 32), 3x3), at the price of S - Wo
    columns of the product that are discarded."""
    flat, ho, _, wp = depthwise.flat_planes(x, padding, kernel, dilation, x.dtype, _workspace)
    (kh, kw), (dh, dw) = kernel, dilation
    s_n, s_c, s_l = flat.strides
    shape = (x.shape[0], x.shape[1], kh, kw, ho * wp)
    strides = (s_n, s_c, dh * wp * s_l, dw * s_l, s_l)
    return as_strided(flat, shape, strides, writeable=False), ho, wp


def _col2im_per_sample(cols, dxp, stride, dilation):
    """The adjoint of the columns: each entry of cols (N, C, kh, kw, Ho, Wo) added into padded dxp
    where it was read from (one add per kernel tap, as _col2im)."""
    kh, kw, ho, wo = cols.shape[2:]
    for i in range(kh):
        for j in range(kw):
            view = _tap(dxp, i, j, (ho, wo), stride, dilation)
            view += cols[:, :, i, j]  # (in place on the view: `dxp[...] +=` would copy back)


def _batch_last(x, padding):
    """x (N, C, H, W) as a zero-padded (C, Hp, Wp, N) array (one transposing copy)."""
    pt, pb, pl, pr = padding
    n, c, h, w = x.shape
    if not (pt or pb or pl or pr):
        return np.ascontiguousarray(x.transpose(1, 2, 3, 0))
    xp = np.zeros((c, h + pt + pb, w + pl + pr, n), x.dtype)
    xp[:, pt : pt + h, pl : pl + w] = x.transpose(1, 2, 3, 0)
    return xp


def _im2col(x, kernel, stride, padding, dilation):
    """The columns of x, (C*kh*kw, Ho*Wo*N): one strided view of x made batch-last, one copy."""
    xp = _batch_last(x, padding)
    n, c = x.shape[:2]
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = _out_hw(x.shape, kernel, stride, padding, dilation)
    s_c, s_h, s_w, s_n = xp.strides
    windows = as_strided(
        xp,
        (c, kh, kw, ho, wo, n),
        (s_c, dh * s_h, dw * s_w, sh * s_h, sw * s_w, s_n),
        writeable=False,
    )
    cols = _workspace("columns", (c * kh * kw, ho * wo * n), x.dtype)
    np.copyto(cols.reshape(c, kh, kw, ho, wo, n), windows)  # (the copy)
    return cols


def _col2im(cols, shape, kernel, stride, padding, dilation):
    """The adjoint of _im2col: every column entry added back where it was read from (one add per
    kernel tap, over all channels, positions and samples at once)."""
    n, c, h, w = shape
    (kh, kw), (sh, sw), (dh, dw), (pt, pb, pl, pr) = kernel, stride, dilation, padding
    ho, wo = _out_hw(shape, kernel, stride, padding, dilation)
    cols = cols.reshape(c, kh, kw, ho, wo, n)
    dxp = _workspace("col2im", (c, h + pt + pb, w + pl + pr, n), cols.dtype)
    dxp.fill(0)
    for i in range(kh):
        for j in range(kw):
            view = dxp[
                :,
                i * dh : i * dh + sh * (ho - 1) + 1 : sh,
                j * dw : j * dw + sw * (wo - 1) + 1 : sw,
            ]
            view += cols[:, i, j]  # (in place on the view: no copy back)
    return np.ascontiguousarray(dxp[:, pt : pt + h, pl : pl + w].transpose(3, 0, 1, 2))


def _grad_matrix(g):
    """g (N, O, Ho, Wo) as the (O, Ho*Wo*N) matrix the GEMMs take. Two copies beat one here: the
    direct transposition reads with a stride of O*Ho*Wo elements, often a power of two that makes
    the reads collide in the cache (measured 5x slower on LeNet's second conv)."""
    n, o, ho, wo = g.shape
    by_channel = np.ascontiguousarray(g.transpose(1, 0, 2, 3)).reshape(o, n, ho * wo)
    return by_channel.transpose(0, 2, 1).reshape(o, ho * wo * n)


def _grouped(m, groups):
    """A (rows, cols) matrix as `groups` stacked blocks of rows: (groups, rows/groups, cols)."""
    return m.reshape(groups, m.shape[0] // groups, m.shape[1])


# ---- batching: the batch folds into N, or, for weights per example, into the groups ----------


def _into_n(x):
    """(B, N, ...) as (B*N, ...)."""
    return reshape(x, shape=(x.shape[0] * x.shape[1],) + tuple(x.shape[2:]))


def _out_of_n(y, size):
    """(B*N, ...) back to (B, N, ...)."""
    return reshape(y, shape=(size, y.shape[0] // size) + tuple(y.shape[1:]))


def _into_channels(x):
    """(B, N, C, H, W) as (N, B*C, H, W): each example's channels one more block of groups."""
    b, n, c = x.shape[:3]
    return reshape(transpose(x, axes=(1, 0, 2, 3, 4)), shape=(n, b * c) + tuple(x.shape[3:]))


def _out_of_channels(y, size):
    """(N, B*C, H, W) back to (B, N, C, H, W)."""
    n, bc = y.shape[:2]
    y = reshape(y, shape=(n, size, bc // size) + tuple(y.shape[2:]))
    return transpose(y, axes=(1, 0, 2, 3, 4))


def _grouped_params(params, size, **shapes):
    """conv parameters for the batch folded into groups: B times the groups, shapes with B*O or
    B*C channels."""
    out = {**params, "groups": params["groups"] * size}
    for name, axis in shapes.items():
        shape = list(params[name])
        shape[axis] *= size
        out[name] = tuple(shape)
    return out


def batch_conv2d(level, prim, inputs, batched, params):
    """Shared weights: the batch is more samples (folded into N); weights per example: each
    example's channels are their own groups."""
    x, w, b = (list(inputs) + [None])[:3]
    bx, bw, bb = (list(batched) + [False])[:3]
    size = level.size
    if not bw:
        x = _into_n(stacked(x, bx, size))
        y = _out_of_n(conv2d(x, w, None if bb else b, **params), size)
        if bb:
            y = add(y, reshape(b, shape=(size, 1, b.shape[-1], 1, 1)))
        return y
    if b is not None:
        b = reshape(stacked(b, bb, size), shape=(size * b.shape[-1],))
    wg = reshape(w, shape=(size * w.shape[1],) + tuple(w.shape[2:]))
    y = conv2d(_into_channels(stacked(x, bx, size)), wg, b, **_grouped_params(params, size))
    return _out_of_channels(y, size)


def batch_conv2d_input_grad(level, prim, inputs, batched, params):
    """As conv2d: shared weights fold the batch into N, per-example weights into the groups."""
    (dy, w), (bdy, bw), size = inputs, batched, level.size
    if not bw:
        shape = params["input_shape"]
        folded = {**params, "input_shape": (size * shape[0],) + tuple(shape[1:])}
        return _out_of_n(conv2d_input_grad(_into_n(stacked(dy, bdy, size)), w, **folded), size)
    wg = reshape(w, shape=(size * w.shape[1],) + tuple(w.shape[2:]))
    grouped = _grouped_params(params, size, input_shape=1)
    return _out_of_channels(
        conv2d_input_grad(_into_channels(stacked(dy, bdy, size)), wg, **grouped), size
    )


def batch_conv2d_weight_grad(level, prim, inputs, batched, params):
    """A gradient per example: each example's channels are their own groups."""
    (dy, x), (bdy, bx), size = inputs, batched, level.size
    grouped = _grouped_params(params, size, weight_shape=0)
    dw = conv2d_weight_grad(
        _into_channels(stacked(dy, bdy, size)), _into_channels(stacked(x, bx, size)), **grouped
    )
    return reshape(dw, shape=(size,) + tuple(params["weight_shape"]))


@primitive(
    "conv2d",
    "cross-correlation of x (N,C,H,W) with w (O,C/groups,kh,kw), plus b per output channel",
    batch=batch_conv2d,
    x=(
        "conv2d_input_grad(g, w, input_shape=x.shape"
        ", stride=stride, padding=padding, dilation=dilation, groups=groups)"
    ),
    w=(
        "conv2d_weight_grad(g, x, weight_shape=w.shape"
        ", stride=stride, padding=padding, dilation=dilation, groups=groups)"
    ),
    b="sum(g, axis=(0, 2, 3))",
)
def conv2d(x, w, b=None, *, stride, padding, dilation, groups):
    n, o = x.shape[0], w.shape[0]
    if depthwise.fits(
        x, w.shape, stride, groups, np.result_type(x, w)
    ):  # (shifted multiply-adds: no columns)
        y = depthwise.conv(x, w, padding, dilation, _workspace)
        return y if b is None else np.add(y, np.reshape(b, (o, 1, 1)), out=y)
    ho, wo = _out_hw(x.shape, w.shape[2:], stride, padding, dilation)
    if _per_sample(n, wo) and stride == (1, 1):  # (columns a plane wide, see _flat_windows)
        y = _conv_flat(x, w, padding, dilation, groups)
        return y if b is None else np.add(y, np.reshape(b, (o, 1, 1)), out=y)
    if _per_sample(n, wo):  # (N, G, O/G, Ho*Wo): NCHW as it comes out of the batched GEMMs
        windows = _windows(x, w.shape[2:], stride, padding, dilation)
        wm = w.reshape(o, -1)
        wg = _grouped(wm, groups)
        y = np.empty((n, groups, o // groups, ho * wo), np.result_type(x, w))
        chunks = _chunks(n, wm.size // o * ho * wo * x.itemsize)
        held = _workspace("sample columns", (chunks[0].stop,) + windows.shape[1:], x.dtype)
        for s in chunks:
            cols = held[: s.stop - s.start]
            np.copyto(cols, windows[s])  # (the copy)
            product(wg, cols.reshape(-1, groups, wg.shape[2], ho * wo), out=y[s])
        y = y.reshape(n, o, ho, wo)
        return y if b is None else np.add(y, np.reshape(b, (o, 1, 1)), out=y)
    cols = _im2col(x, w.shape[2:], stride, padding, dilation)
    if groups == 1:
        y = product(w.reshape(o, -1), cols)  # the one GEMM: (O, K) @ (K, Ho*Wo*N)
    else:  # one GEMM per group, in one call
        y = product(w.reshape(groups, o // groups, -1), _grouped(cols, groups))
    y = y.reshape(o, ho, wo, n).transpose(3, 0, 1, 2)
    out = np.empty((n, o, ho, wo), y.dtype)
    if b is None:
        np.copyto(out, y)
    else:  # the bias rides on the copy to NCHW
        np.add(y, np.reshape(b, (o, 1, 1)), out=out)
    return out


def _conv_flat(x, w, padding, dilation, groups):
    """conv2d at stride 1 on per-sample columns a padded plane wide: the products come out at
    every padded column, and each output row is cropped to Wo as it is copied into the result."""
    n, o = x.shape[0], w.shape[0]
    windows, ho, wp = _flat_windows(x, w.shape[2:], padding, dilation)
    wo = _out_hw(x.shape, w.shape[2:], (1, 1), padding, dilation)[1]
    wg = _grouped(w.reshape(o, -1), groups)
    dtype = np.result_type(x, w)
    y = np.empty((n, o, ho, wo), dtype)
    chunks = _chunks(n, wg.shape[2] * groups * ho * wp * x.itemsize)
    held = _workspace("sample columns", (chunks[0].stop,) + windows.shape[1:], x.dtype)
    wide = _workspace("wide products", (chunks[0].stop, groups, o // groups, ho * wp), dtype)
    for s in chunks:
        k = s.stop - s.start
        cols = held[:k]
        np.copyto(cols, windows[s])  # (the copy)
        product(wg, cols.reshape(k, groups, wg.shape[2], ho * wp), out=wide[:k])
        y[s] = wide[:k].reshape(k, o, ho, wp)[..., :wo]
    return y


@primitive(
    "conv2d_input_grad",
    "col2im(w^T @ dy): d/dx of <dy, conv2d(x, w)>, of shape input_shape",
    batch=batch_conv2d_input_grad,
    dy=("conv2d(g, w, None, stride=stride, padding=padding, dilation=dilation, groups=groups)"),
    w=(
        "conv2d_weight_grad(dy, g, weight_shape=w.shape"
        ", stride=stride, padding=padding, dilation=dilation, groups=groups)"
    ),
)
def conv2d_input_grad(dy, w, *, input_shape, stride, padding, dilation, groups):
    g = dy
    n, o, ho, wo = g.shape
    if stride == (1, 1) and w.shape[2] * w.shape[3] > 1 and w.shape[1] >= o // groups:
        return _transposed_conv(g, w, padding, dilation, groups)  # (see there for when it pays)
    wm = w.reshape(o, -1)
    if _per_sample(n, wo):
        (pt, pb, pl, pr), (c, h, width) = padding, input_shape[1:]
        per_group = g.reshape(n, groups, o // groups, ho * wo)
        wt = _grouped(wm, groups).transpose(0, 2, 1)
        dxp = np.zeros((n, c, h + pt + pb, width + pl + pr), np.result_type(w, g))
        for s in _chunks(n, wm.size // o * ho * wo * dxp.itemsize):
            cols = product(wt, per_group[s])  # (samples, G, K/G, Ho*Wo)
            _col2im_per_sample(cols.reshape(-1, c, *w.shape[2:], ho, wo), dxp[s], stride, dilation)
        return np.ascontiguousarray(_cropped(dxp, input_shape, padding))
    cols = _workspace("columns", (groups * wm.shape[1], ho * wo * n), np.result_type(w, g))
    if groups == 1:
        product(wm.T, _grad_matrix(g), out=cols)
    else:
        wt = _grouped(wm, groups).transpose(0, 2, 1)
        product(wt, _grouped(_grad_matrix(g), groups), out=_grouped(cols, groups))
    return _col2im(cols, input_shape, w.shape[2:], stride, padding, dilation)


def _transposed_conv(g, w, padding, dilation, groups):
    """conv2d_input_grad at stride 1, as a convolution of g with w flipped and its channel axes
    swapped (per group): g padded by what the kernel's reach leaves of the forward's padding (or
    cropped where the forward padded beyond it). It copies g's columns once where col2im's adds
    read and write the input's columns once per tap: 1.7-2x faster on 3x3 kernels with as many
    input channels as output ones (measured); with fewer (LeNet's 6 -> 16) its GEMM has too few
    rows, and a 1x1 kernel has no adds to save, so there col2im stays."""
    o, cg, kh, kw = w.shape
    per_group = w.reshape(groups, o // groups, cg, kh, kw).transpose(0, 2, 1, 3, 4)
    flipped = per_group.reshape(groups * cg, o // groups, kh, kw)[:, :, ::-1, ::-1]
    reach = (dilation[0] * (kh - 1),) * 2 + (dilation[1] * (kw - 1),) * 2
    pads = [r - p for r, p in zip(reach, padding)]
    t, b, left, right = [max(0, -p) for p in pads]  # (rows and columns no window reads)
    g = g[:, :, t : g.shape[2] - b, left : g.shape[3] - right]
    pads = tuple(max(0, p) for p in pads)
    return conv2d.forward(
        g, flipped, None, stride=(1, 1), padding=pads, dilation=dilation, groups=groups
    )


@primitive(
    "conv2d_weight_grad",
    "dy @ im2col(x)^T: d/dw of <dy, conv2d(x, w)>, of shape weight_shape",
    batch=batch_conv2d_weight_grad,
    dy=("conv2d(x, g, None, stride=stride, padding=padding, dilation=dilation, groups=groups)"),
    x=(
        "conv2d_input_grad(dy, g, input_shape=x.shape"
        ", stride=stride, padding=padding, dilation=dilation, groups=groups)"
    ),
)
def conv2d_weight_grad(dy, x, *, weight_shape, stride, padding, dilation, groups):
    g = dy
    if depthwise.fits(x, weight_shape, stride, groups, np.result_type(g, x)):
        return depthwise.weight_grad(g, x, weight_shape, padding, dilation, _workspace)
    n, o, ho, wo = g.shape
    # (columns a plane wide, see _flat_windows; with one input channel per group the columns are
    # few and widening g costs more than their faster copy saves: LeNet's first conv 1.18 ms by
    # _windows, 1.27 ms flat, where (32, 16, 32, 32) 3x3 goes 5.57 -> 5.31 ms, measured)
    if _per_sample(n, wo) and stride == (1, 1) and weight_shape[1] > 1:
        return _weight_grad_flat(g, x, weight_shape, padding, dilation, groups)
    if _per_sample(n, wo):  # one GEMM per sample and group, summed over the samples
        windows = _windows(x, weight_shape[2:], stride, padding, dilation)
        per_group = g.reshape(n, groups, o // groups, ho * wo).swapaxes(-1, -2)
        rows = math.prod(weight_shape[1:])  # (per group)
        dw_t = None  # (dw transposed: cols @ g^T has many rows, which BLAS runs 1.7x faster
        chunks = _chunks(n, rows * groups * ho * wo * x.itemsize)  # than few, measured)
        held = _workspace("sample columns", (chunks[0].stop,) + windows.shape[1:], x.dtype)
        for s in chunks:
            cols = held[: s.stop - s.start]
            np.copyto(cols, windows[s])
            part = np.add.reduce(
                product(cols.reshape(-1, groups, rows, ho * wo), per_group[s]), axis=0
            )
            dw_t = part if dw_t is None else np.add(dw_t, part, out=dw_t)
        return np.ascontiguousarray(dw_t.swapaxes(-1, -2)).reshape(weight_shape)
    cols = _im2col(x, weight_shape[2:], stride, padding, dilation)
    if groups == 1:
        dw = product(_grad_matrix(g), cols.T)  # the one GEMM: (O, Ho*Wo*N) @ (Ho*Wo*N, K)
    else:
        dw = product(_grouped(_grad_matrix(g), groups), _grouped(cols, groups).transpose(0, 2, 1))
    return dw.reshape(weight_shape)


def _weight_grad_flat(g, x, weight_shape, padding, dilation, groups):
    """conv2d_weight_grad at stride 1 on per-sample columns a padded plane wide (as _conv_flat),
    with g widened to match: zeros at the columns past Wo, so they add nothing."""
    n, o, ho, wo = g.shape
    windows, _, wp = _flat_windows(x, weight_shape[2:], padding, dilation)
    rows = math.prod(weight_shape[1:])  # (per group)
    dtype = np.result_type(g, x)
    chunks = _chunks(n, rows * groups * ho * wp * x.itemsize)
    held = _workspace("sample columns", (chunks[0].stop,) + windows.shape[1:], x.dtype)
    wide = _workspace("wide gradient", (chunks[0].stop, o, ho, wp), dtype)
    wide[..., wo:] = 0  # (never written below)
    dw_t = None  # (dw transposed: cols @ g^T has many rows, which BLAS runs 1.7x faster)
    for s in chunks:
        k = s.stop - s.start
        cols = held[:k]
        np.copyto(cols, windows[s])
        wide[:k, :, :, :wo] = g[s]
        per_group = wide[:k].reshape(k, groups, o // groups, ho * wp).swapaxes(-1, -2)
        part = np.add.reduce(product(cols.reshape(k, groups, rows, ho * wp), per_group), axis=0)
        dw_t = part if dw_t is None else np.add(dw_t, part, out=dw_t)
    return np.ascontiguousarray(dw_t.swapaxes(-1, -2)).reshape(weight_shape)
