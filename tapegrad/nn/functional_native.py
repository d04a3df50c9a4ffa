"""PyTorch's ATen-level spellings at torch.*: the `native_` normalizations (native_layer_norm,
native_batch_norm, native_group_norm: the normalized output, recorded by F.layer_norm / batch_norm /
group_norm, with the statistics a backward keeps, the mean and 1 / sqrt(var + eps), as PyTorch
returns them: layer and batch norm's need no gradient, as PyTorch's; group norm's are recorded) and
grid_sampler(_2d, _3d) (F.grid_sample with its modes as ATen's integer codes). torch.constant_pad_nd
and the other top-level spellings of F functions are in tapegrad/functional_spellings.py.

Layer L5: numpy, the Tensor layer and the F functions it names (the math lives there once).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .functional_group_norm import group_norm
from .functional_norm import batch_norm, layer_norm

__all__ = [
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "native_batch_norm",
    "native_group_norm",
    "native_layer_norm",
]


def _statistics(x: np.ndarray, axes: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    """(mean, 1 / sqrt(biased var + eps)) of x over axes, kept as size-1 axes, x's dtype."""
    mean = np.mean(x, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(np.mean(np.square(x - mean), axis=axes, keepdims=True) + eps)
    return Tensor(mean.astype(x.dtype)), Tensor(rstd.astype(x.dtype))


def native_layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """(F.layer_norm(...), mean, rstd), the statistics over the normalized (last) axes, kept as
    size-1 axes: input (2, 3, 4) over (4,) gives mean of shape (2, 3, 1).

    >>> out, mean, rstd = tg.native_layer_norm(tg.ones(2, 3), (3,), None, None, 1e-5)
    >>> mean.shape
    (2, 1)
    """
    shape = tuple(normalized_shape)
    out = layer_norm(input, shape, weight, bias, eps)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    mean, rstd = _statistics(input.detach().numpy(), axes, eps)
    return out, mean, rstd


def native_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """(F.batch_norm(...), save_mean, save_invstd): in training the batch's per-channel mean and
    1 / sqrt(var + eps) (the running statistics, if given, updated as F.batch_norm does); in
    evaluation two empty tensors, as PyTorch returns.

    >>> x = tg.ones(4, 2)
    >>> out, mean, invstd = tg.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    >>> mean.shape
    (2,)
    """
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            "native_batch_norm: running_mean and running_var must be given in evaluation mode "
            "(training=False); pass them, or training=True to use the batch's statistics"
        )
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = np.empty((0,), input.dtype)
        return out, Tensor(empty), Tensor(empty.copy())
    axes = (0,) + tuple(range(2, input.ndim))
    mean, invstd = _statistics(input.detach().numpy(), axes, eps)
    channels = (input.shape[1],)
    return out, mean.reshape(channels), invstd.reshape(channels)


def native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:
    """(F.group_norm(input, group, weight, bias, eps), mean, rstd), the statistics per sample and
    group, of shape (N, group), recorded (they require grad, as PyTorch's; their gradients are
    the true ones, where PyTorch's backward drops them); N, C and HxW describe input (N, C, ...).

    >>> out, mean, rstd = tg.native_group_norm(tg.ones(2, 4, 3), None, None, 2, 4, 3, 2, 1e-5)
    >>> mean.shape
    (2, 2)
    """
    described = (N, C, HxW)
    actual = (input.shape[0], input.shape[1], math.prod(input.shape[2:])) if input.ndim >= 2 else ()
    if actual != described:
        raise RuntimeError(
            f"native_group_norm: N, C, HxW = {described} do not describe an input of shape "
            f"{tuple(input.shape)} (expected N, C and the product of its spatial sizes: {actual})"
        )
    out = group_norm(input, group, weight, bias, eps)
    # (recorded, unlike the other two: PyTorch's mean and rstd here require grad, so they are on
    # the tape, with their true gradients, where PyTorch's backward drops what reaches them)
    grouped = input.reshape(N, group, (C // group) * HxW)
    mean = grouped.mean(2)
    rstd = ((grouped - mean.unsqueeze(2)).square().mean(2) + eps).rsqrt()
    return out, mean, rstd


_INTERPOLATION = ("bilinear", "nearest", "bicubic")  # (ATen's codes 0, 1, 2)
_PADDING = ("zeros", "border", "reflection")


def grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """F.grid_sample(input, grid, mode, padding_mode, align_corners) with the modes given as ATen's
    codes: interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
    2 reflection.

    >>> tg.grid_sampler(tg.ones(1, 1, 2, 2), tg.zeros(1, 1, 1, 2), 0, 0, False)
    tensor([[[[1.]]]])
    """
    codes = (interpolation_mode, padding_mode)
    if not all(isinstance(c, int) and 0 <= c <= 2 for c in codes):
        raise RuntimeError(
            f"grid_sampler: interpolation_mode and padding_mode are codes 0, 1 or 2 (bilinear / "
            f"nearest / bicubic; zeros / border / reflection), got {codes}"
        )
    mode, padding = _INTERPOLATION[interpolation_mode], _PADDING[padding_mode]
    return F.grid_sample(input, grid, mode, padding, bool(align_corners))


def grid_sampler_2d(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """grid_sampler on a 4-D input (N, C, H, W) and grid (N, Ho, Wo, 2).

    >>> tg.grid_sampler_2d(tg.ones(1, 1, 2, 2), tg.zeros(1, 1, 1, 2), 1, 0, True).shape
    (1, 1, 1, 1)
    """
    if input.ndim != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, got {input.ndim}D input")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """grid_sampler on a 5-D input (N, C, D, H, W) and grid (N, Do, Ho, Wo, 3).

    >>> tg.grid_sampler_3d(tg.ones(1, 1, 2, 2, 2), tg.zeros(1, 1, 1, 1, 3), 0, 0, True).shape
    (1, 1, 1, 1, 1)
    """
    if input.ndim != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, got {input.ndim}D input")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)
