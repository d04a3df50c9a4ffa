"""Resampling as functions: interpolate (modes 'nearest', 'nearest-exact' over 1, 2 or 3 axes,
'linear', 'bilinear', 'bicubic', 'trilinear', 'area' (adaptive_avg_pool) and 'lanczos'; with
align_corners, size or scale_factor, recompute_scale_factor, antialias for bilinear / bicubic /
lanczos; PyTorch's deprecated upsample, upsample_nearest and upsample_bilinear call it),
pixel_shuffle / pixel_unshuffle and channel_shuffle. PyTorch's signatures, output sizes, source
coordinates and errors.

Each interpolation is linear in the input and separable: per resized axis a constant matrix (each
row the weights of one output position over the input's; resample_weights makes them as
PyTorch's kernels do), applied by matmul, so its gradient is the transposed matrices' product, to
any order. The shuffles are a reshape and a permute.

Layer L5: imports tensor.py, tapegrad's composite marks, resample_weights and adaptive pooling.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from . import resample_weights as weights
from .functional_adaptive_pool import adaptive_avg_pool_nd
from .functional_arguments import tensor_argument

_MODES = (
    "nearest",
    "nearest-exact",
    "linear",
    "bilinear",
    "bicubic",
    "trilinear",
    "area",
    "lanczos",
)
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}
_ALIGNED = "linear | bilinear | bicubic | trilinear"


def _per_axis(value: Any, axes: int, sizes: tuple, name: str, kind: type) -> tuple:
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * axes
    if len(items) != axes:
        what = "output size of" if name == "size" else "scale_factor of shape"
        form = (
            "output size in (o1, o2, ...,oK)" if name == "size" else f"{name} in (s1, s2, ...,sK)"
        )
        raise ValueError(
            f"Input and {'output' if name == 'size' else name} must have the same number of "
            f"spatial dimensions, but got input with spatial dimensions of {list(sizes)} and "
            f"{what} {value}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            f"{form} format."
        )
    if name == "size" and not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
    ):
        raise TypeError(
            "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
            f"int], but got size with types {[type(v) for v in items]}"
        )
    return tuple(kind(v) for v in items)


def _checked_mode(x: Tensor, mode: str, align_corners: bool | None, antialias: bool) -> None:
    """PyTorch's checks of the mode against the input's rank, align_corners and antialias (after
    those of the sizes)."""
    wrong_rank = mode in _NEEDS and x.ndim != _NEEDS[mode]
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and x.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
            "a 4-D tensor as input"
        )
    if wrong_rank and mode not in ("bicubic", "lanczos") and x.ndim in (3, 4, 5):
        raise NotImplementedError(
            f"Got {x.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input"
        )
    if x.ndim not in (3, 4, 5) or mode not in _MODES or wrong_rank:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for the "
            f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact "
            f"(got {mode})"
        )
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if x.dtype.kind != "f" and not (x.dtype == np.uint8 and mode.startswith("nearest")):
        raise NotImplementedError(
            f"interpolate: mode {mode!r} is not implemented for {x.dtype} in tapegrad: the input "
            f"must be floating point (e.g. x.to(tg.float32))"
        )


def _output_sizes(
    sizes: tuple, size: Any, scale_factor: Any, recompute: bool | None, mode: str
) -> tuple[tuple, tuple]:
    """The output sizes and the source steps' scale factors (None: from the sizes), as PyTorch's
    interpolate computes them."""
    axes = len(sizes)
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if recompute and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if size is not None:
        return _per_axis(size, axes, sizes, "size", int), (None,) * axes
    factors = _per_axis(scale_factor, axes, sizes, "scale_factor", float)
    out = tuple(int(n * f) for n, f in zip(sizes, factors))
    if recompute or mode == "area":
        return out, (None,) * axes
    return out, factors


def _matrix(
    n: int, out: int, scale: Any, mode: str, align: bool, aa: bool, x: Tensor
) -> np.ndarray | None:
    """One axis's interpolation matrix (None: the identity), in the input's dtype."""
    dtype = x.dtype
    opmath = np.float64 if dtype == np.float64 else np.float32
    if mode in ("nearest", "nearest-exact"):
        m = weights.nearest(n, out, scale, mode == "nearest-exact", x.ndim == 4)
    elif aa and out == n:  # (PyTorch's antialiased kernels leave such an axis as it is)
        return None
    elif aa:
        m = weights.antialiased(n, out, scale, align, mode, opmath)
    elif mode == "bicubic":
        m = weights.cubic(n, out, scale, align, opmath)
    else:
        m = weights.linear(n, out, scale, align, opmath)
    if out == n and np.array_equal(m, np.eye(n)):
        return None
    return m.astype(dtype)


def interpolate(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial axes of (N, C, L), (N, C, H, W) or (N, C, D, H, W) to `size` or by
    `scale_factor`: 'nearest' / 'nearest-exact' copy a source value, 'linear', 'bilinear',
    'trilinear' weigh the two nearest per axis, 'bicubic' four (Keys' cubic, A = -0.75), 'area'
    averages (adaptive_avg_pool), 'lanczos' (with antialias) six; antialias=True (bilinear,
    bicubic, lanczos) widens the filter when shrinking. align_corners: the corner pixels' centres
    line up.

    >>> F.interpolate(tg.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear")
    tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """
    x = tensor_argument(input, "interpolate")
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            f"align_corners option can only be set with the interpolating modes: {_ALIGNED}"
        )
    sizes = x.shape[2:]
    out, scales = _output_sizes(sizes, size, scale_factor, recompute_scale_factor, mode)
    _checked_mode(x, mode, align_corners, antialias)
    if x.dtype == np.uint8:  # (PyTorch's nearest modes copy bytes too: exact through float64)
        wide = interpolate(x.double(), size, scale_factor, mode, None, recompute_scale_factor)
        return wide.byte()
    if any(o <= 0 for o in out) or any(n <= 0 for n in sizes):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input "
            f"({', '.join(map(str, sizes))}) and output ({', '.join(map(str, out))})"
        )
    if mode == "area":
        return adaptive_avg_pool_nd(
            x, out, dims=len(sizes), layer=f"adaptive_avg_pool{len(sizes)}d"
        )
    align = bool(align_corners)
    mats = [_matrix(n, o, s, mode, align, antialias, x) for n, o, s in zip(sizes, out, scales)]
    result = x
    for axis, m in zip(range(2, x.ndim), mats):
        if m is None:
            continue  # (the identity: no node)
        if axis == x.ndim - 1:
            result = result @ Tensor(np.ascontiguousarray(m.T))
        else:  # (the axis to rows, weighed from the left, and back)
            result = (Tensor(m) @ result.movedim(axis, -2)).movedim(-2, axis)
    result = result if result is not x else x.clone()
    params: dict[str, Any] = {"mode": mode, "align_corners": align_corners}
    params["antialias"] = antialias
    params["spatial"] = len(sizes)
    labels = ("x",) + ("D", "A", "B")[3 - len(sizes) :]
    return mark(result, "interpolate", labels, (x, *mats), params)


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
