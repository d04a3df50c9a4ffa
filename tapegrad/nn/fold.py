"""Fold and Unfold: PyTorch's col2im and im2col layers over F.fold / F.unfold (their signatures
and repr; the settings are kept as given).

Layer L5: imports tensor.py and the nn package's module and functional_fold.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_fold import fold, unfold
from .module import Module


class Unfold(Module):
    """(N, C, H, W) -> (N, C * kH * kW, L): the sliding blocks as columns (im2col).

    >>> tg.nn.Unfold(kernel_size=(2, 3))(tg.ones(2, 5, 3, 4)).shape
    (2, 30, 4)
    """

    def __init__(
        self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )


class Fold(Module):
    """(N, C * kH * kW, L) -> (N, C, *output_size): columns put back as blocks, overlaps summed
    (col2im).

    >>> tg.nn.Fold(output_size=(4, 5), kernel_size=(2, 2))(tg.ones(1, 12, 12)).shape
    (1, 3, 4, 5)
    """

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )
