"""Resampling layers: Upsample (F.interpolate as a layer), UpsamplingNearest2d,
UpsamplingBilinear2d (align_corners=True, as PyTorch's), PixelShuffle and PixelUnshuffle, with
PyTorch's signatures and reprs.

Layer L5: imports tensor.py and the nn package's module and functional_resampling (the math).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_resampling import channel_shuffle, interpolate, pixel_shuffle, pixel_unshuffle
from .module import Module


class Upsample(Module):
    """Resize (N, C, L), (N, C, H, W) or (N, C, D, H, W) to `size` or by `scale_factor` with
    F.interpolate's modes.

    >>> tg.nn.Upsample(scale_factor=2)(tg.ones(1, 1, 2, 3)).shape
    (1, 1, 4, 6)
    """

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor: Any = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) images.

    >>> tg.nn.UpsamplingNearest2d(scale_factor=2)(tg.ones(1, 1, 2, 2)).shape
    (1, 1, 4, 4)
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) images with align_corners=True (as PyTorch's).

    >>> tg.nn.UpsamplingBilinear2d(size=3)(tg.ones(1, 1, 2, 2)).shape
    (1, 1, 3, 3)
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r), r = upscale_factor.

    >>> tg.nn.PixelShuffle(2)(tg.ones(1, 8, 3, 3)).shape
    (1, 2, 6, 6)
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W), r = downscale_factor.

    >>> tg.nn.PixelUnshuffle(2)(tg.ones(1, 2, 6, 6)).shape
    (1, 8, 3, 3)
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """(N, C, *) -> (N, C, *) with the channels of `groups` groups interleaved.

    >>> tg.nn.ChannelShuffle(2)(tg.arange(4.0).reshape(1, 4, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
