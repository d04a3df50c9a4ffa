"""Resampling as functions: interpolate (modes 'nearest', 'nearest-exact', 'linear', 'bilinear',
with align_corners, size or scale_factor; PyTorch's deprecated upsample, upsample_nearest and
upsample_bilinear call it), pixel_shuffle / pixel_unshuffle and channel_shuffle. PyTorch's
signatures, output sizes, source coordinates and errors.

Each interpolation is linear in the input and separable: per resized axis a constant matrix (each
row the weights of one output position over the input's), applied by matmul, so its gradient is
the transposed matrices' product, to any order. The shuffles are a reshape and a permute.

Layer L5: imports tensor.py and tapegrad's composite marks.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import tensor_argument

_MODES = ("nearest", "nearest-exact", "linear", "bilinear")
_REFUSED = ("bicubic", "trilinear", "area", "lanczos")
_NEEDS = {"linear": 3, "bilinear": 4}


def _per_axis(value: Any, axes: int, name: str, kind: type) -> tuple:
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * axes
    if len(items) != axes:
        raise ValueError(
            f"Input and {name} must have the same number of spatial dimensions, but got input "
            f"with spatial dimensions of {axes} and {name} of {list(items)}. Please provide "
            f"input tensor in (N, C, d1, d2, ...,dK) format and {name} in (o1, o2, ...,oK) format."
        )
    return tuple(kind(v) for v in items)


def _weights(n: int, out: int, scale: float | None, mode: str, align: bool) -> np.ndarray:
    """(out, n): row i the weights of output position i over the input's positions.
    `scale` is the source step PyTorch uses (1/scale_factor when given, else n/out)."""
    step = n / out if scale is None else scale
    dst = np.arange(out, dtype=np.float64)
    m = np.zeros((out, n))
    if mode in ("nearest", "nearest-exact"):
        offset = 0.5 if mode == "nearest-exact" else 0.0
        src = np.minimum(np.floor((dst + offset) * step).astype(np.int64), n - 1)
        m[np.arange(out), src] = 1.0
        return m
    if align:
        src = dst * ((n - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:
        src = np.maximum((dst + 0.5) * step - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), n - 1)
    high = np.minimum(low + 1, n - 1)
    frac = src - low
    np.add.at(m, (np.arange(out), low), 1.0 - frac)
    np.add.at(m, (np.arange(out), high), frac)
    return m


def interpolate(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial axes of (N, C, L) or (N, C, H, W) to `size` or by `scale_factor`:
    'nearest' / 'nearest-exact' copy a source value, 'linear' (3-D) and 'bilinear' (4-D) weigh
    the two nearest (align_corners: the corner pixels' centres line up).

    >>> F.interpolate(tg.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear")
    tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    x = tensor_argument(input, "interpolate")
    if mode in _REFUSED:
        raise NotImplementedError(
            f"interpolate: mode {mode!r} is not supported in tapegrad; use one of {_MODES}"
        )
    if mode not in _MODES:
        raise NotImplementedError(
            f"Input Error: Only 3D and 4D input Tensors supported (got {x.ndim}D) for the modes: "
            f"{' | '.join(_MODES)} (got {mode})"
        )
    if x.ndim not in (3, 4):
        raise NotImplementedError(
            f"interpolate: Input Error: Only 3D and 4D input Tensors are supported in tapegrad "
            f"(got {x.ndim}D, shape {x.shape})"
        )
    if mode in _NEEDS and x.ndim != _NEEDS[mode]:
        raise NotImplementedError(
            f"Got {x.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input"
        )
    if align_corners is not None and mode not in _NEEDS:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | "
            "bilinear | bicubic | trilinear"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported in tapegrad")
    if x.dtype.kind != "f":
        raise TypeError(f"interpolate: the input must be floating point, got {x.dtype}")
    axes = x.ndim - 2
    sizes = x.shape[2:]
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "either size or scale_factor should be defined"
            if size is None
            else "only one of size or scale_factor should be defined"
        )
    scales: tuple = (None,) * axes
    if size is not None:
        out = _per_axis(size, axes, "size", int)
    else:
        factors = _per_axis(scale_factor, axes, "scale_factor", float)
        out = tuple(math.floor(n * f) for n, f in zip(sizes, factors))
        if not recompute_scale_factor:  # (PyTorch's source step: 1/scale_factor itself)
            scales = tuple(1.0 / f for f in factors)
    if any(o <= 0 for o in out) or any(n <= 0 for n in sizes):
        raise ValueError(
            f"interpolate: input and output sizes should be greater than 0, but got input "
            f"{tuple(sizes)} and output {out}"
        )
    align = bool(align_corners)
    mats = [_weights(n, o, s, mode, align).astype(x.dtype) for n, o, s in zip(sizes, out, scales)]
    rows = mats[0] if axes == 2 else None
    cols = mats[-1]
    result = x @ Tensor(np.ascontiguousarray(cols.T))  # (the last axis; then H for 2-D)
    if rows is not None:
        result = Tensor(rows) @ result
    params = {"mode": mode, "align_corners": align_corners}
    return mark(result, "interpolate", ("x", "A", "B"), (x, rows, cols), params)


def _factor(value: Any, name: str, fn: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{fn}: {name} must be a positive int, got {value!r}")
    return int(value)


def _shuffle_arguments(input: Any, factor: Any, name: str, fn: str) -> tuple[Tensor, int]:
    """The input (at least 3-D) and the factor of pixel_shuffle / pixel_unshuffle, checked."""
    x = tensor_argument(input, fn)
    r = _factor(factor, name, fn)
    if x.ndim < 3:
        raise RuntimeError(
            f"{fn} expects input to have at least 3 dimensions, but got input with "
            f"{x.ndim} dimension(s)"
        )
    return x, r


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=3,
    )


def upsample(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """interpolate under its old name (deprecated in PyTorch, which warns; so does tapegrad).

    >>> F.upsample(tg.ones(1, 1, 2), scale_factor=2).shape
    (1, 1, 4)
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
) -> Tensor:
    """interpolate(mode='nearest') under its old name (deprecated: it warns, as PyTorch's).

    >>> F.upsample_nearest(tg.ones(1, 1, 2, 2), scale_factor=2).shape
    (1, 1, 4, 4)
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
) -> Tensor:
    """interpolate(mode='bilinear', align_corners=True) under its old name (deprecated: it warns).

    >>> F.upsample_bilinear(tg.ones(1, 1, 2, 2), scale_factor=2).shape
    (1, 1, 4, 4)
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r): each group of r^2 channels becomes r x r
    blocks of pixels (sub-pixel upsampling).

    >>> F.pixel_shuffle(tg.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    x, r = _shuffle_arguments(input, upscale_factor, "upscale_factor", "pixel_shuffle")
    *lead, c, h, w = x.shape
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    k = len(lead)
    blocks = x.reshape(*lead, c // (r * r), r, r, h, w)
    order = tuple(range(k)) + tuple(k + i for i in (0, 3, 1, 4, 2))
    out = blocks.permute(*order).reshape(*lead, c // (r * r), h * r, w * r)
    return mark(out, "pixel_shuffle", ("x",), (x,), {"upscale_factor": r})


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W): pixel_shuffle's inverse.

    >>> F.pixel_unshuffle(tg.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    x, r = _shuffle_arguments(input, downscale_factor, "downscale_factor", "pixel_unshuffle")
    *lead, c, h, w = x.shape
    for what, n, axis in (("height", h, -2), ("width", w, -1)):
        if n % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {what} to be divisible by downscale_factor, but "
                f"input.size({axis})={n} is not divisible by {r}"
            )
    k = len(lead)
    blocks = x.reshape(*lead, c, h // r, r, w // r, r)
    order = tuple(range(k)) + tuple(k + i for i in (0, 2, 4, 1, 3))
    out = blocks.permute(*order).reshape(*lead, c * r * r, h // r, w // r)
    return mark(out, "pixel_unshuffle", ("x",), (x,), {"downscale_factor": r})


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with C = groups * k: channel g * k + i moves to i * groups + g (ShuffleNet's
    mixing of grouped convolutions' channels).

    >>> F.channel_shuffle(tg.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    x = tensor_argument(input, "channel_shuffle")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)):
        raise TypeError(f"channel_shuffle(): argument 'groups' must be int, not {type(groups)}")
    if x.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(x.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"channel_shuffle: number of groups to divide channels in must be positive, got "
            f"{groups}"
        )
    n, c, *rest = x.shape
    if c % groups:
        raise RuntimeError(
            f"channel_shuffle: number of channels must be divisible by groups. Got {c} "
            f"channels and {groups} groups."
        )
    out = x.reshape(n, groups, c // groups, *rest).swapaxes(1, 2).reshape(n, c, *rest)
    return mark(out, "channel_shuffle", ("x",), (x,), {"groups": int(groups)})
