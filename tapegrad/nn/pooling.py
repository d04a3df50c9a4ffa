"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, LPPool1d/2d/3d, AdaptiveAvg/MaxPool1d/2d/3d,
MaxUnpool1d/2d/3d (PyTorch's signatures and repr).

The settings are checked when the layer is made (PyTorch checks them at the first call); the math
is tapegrad.nn.functional_pooling's, functional_adaptive_pool's and functional_unpool's. Layer L5:
imports tensor.py and the nn package's module and those three.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_conv import parse_ints
from .functional_pooling import adaptive_avg_pool2d, adaptive_output_size, avg_pool_nd, lp_pool_nd
from .functional_pooling import max_pool_nd
from .functional_adaptive_pool import adaptive_avg_pool_nd, adaptive_max_pool_nd, adaptive_sizes
from .functional_unpool import max_unpool_nd
from .module import Module


def _checked(module: Module, dims: int, kernel_size: Any, stride: Any, padding: Any) -> None:
    name = type(module).__name__
    parse_ints(kernel_size, "kernel_size", dims, 1, name)
    if stride is not None:
        parse_ints(stride, "stride", dims, 1, name)
    parse_ints(padding, "padding", dims, 0, name)


class _MaxPoolNd(Module):
    dims = 2

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        _checked(self, self.dims, kernel_size, stride, padding)
        parse_ints(dilation, "dilation", self.dims, 1, type(self).__name__)
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)

    def forward(self, input: Tensor) -> Any:
        return max_pool_nd(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
            dims=self.dims,
            layer=self,  # (its repr is made only in an error message)
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool2d(_MaxPoolNd):
    """Max over each window of (N, C, H, W) or (C, H, W); the gradient goes to one element per
    window (its first maximum, as PyTorch).

    >>> tg.nn.MaxPool2d(2)(tg.ones(1, 6, 24, 24)).shape
    (1, 6, 12, 12)
    """

    dims = 2


class MaxPool1d(_MaxPoolNd):
    """Max over each window along the last axis of (N, C, L) or (C, L).

    >>> tg.nn.MaxPool1d(2)(tg.ones(1, 3, 8)).shape
    (1, 3, 4)
    """

    dims = 1


class MaxPool3d(_MaxPoolNd):
    """Max over each window of (N, C, D, H, W) or (C, D, H, W); the indices are flat over D*H*W.

    >>> tg.nn.MaxPool3d(2)(tg.ones(1, 2, 4, 6, 6)).shape
    (1, 2, 2, 3, 3)
    """

    dims = 3


class _AvgPoolNd(Module):
    """PyTorch's base of AvgPool1d/2d/3d (isinstance checks); the 2-D and 3-D settings."""

    dims = 2

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        _checked(self, self.dims, kernel_size, stride, padding)
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, bool(ceil_mode)
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool_nd(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
            dims=self.dims,
            layer=self,  # (its repr is made only in an error message)
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """Mean over each window of (N, C, H, W) or (C, H, W), with PyTorch's divisor rules.

    >>> tg.nn.AvgPool2d(2)(tg.ones(1, 6, 24, 24)).shape
    (1, 6, 12, 12)
    """

    dims = 2


class AvgPool3d(_AvgPoolNd):
    """Mean over each window of (N, C, D, H, W) or (C, D, H, W), with PyTorch's divisor rules.

    >>> tg.nn.AvgPool3d(2)(tg.ones(1, 2, 4, 6, 6)).shape
    (1, 2, 2, 3, 3)
    """

    dims = 3


class AvgPool1d(_AvgPoolNd):
    """Mean over each window along the last axis of (N, C, L) or (C, L).

    >>> tg.nn.AvgPool1d(3)(tg.ones(1, 3, 9)).shape
    (1, 3, 3)
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        Module.__init__(self)  # (its own settings: 1-tuples, no divisor_override, as PyTorch's)
        _checked(self, 1, kernel_size, stride, padding)
        # (PyTorch keeps AvgPool1d's settings as 1-tuples, and shows them so)
        self.kernel_size = parse_ints(kernel_size, "kernel_size", 1, 1, "AvgPool1d")
        self.stride = (
            self.kernel_size if stride is None else parse_ints(stride, "stride", 1, 1, "AvgPool1d")
        )
        self.padding = parse_ints(padding, "padding", 1, 0, "AvgPool1d")
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool_nd(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            dims=1,
            layer=self,  # (its repr is made only in an error message)
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


# ---- adaptive pooling: average and max, in 1, 2 and 3 dimensions ------------------------------
class _AdaptivePoolNd(Module):
    """What the adaptive pools share (PyTorch has no such class: _AdaptiveAvgPoolNd and
    _AdaptiveMaxPoolNd below are its bases)."""

    dims = 1
    maximum = False

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        name = type(self).__name__
        adaptive_sizes(output_size, (1,) * self.dims, self.dims, name)  # (checks it now)
        self.output_size = output_size
        self.return_indices = bool(return_indices)

    def forward(self, input: Tensor) -> Any:
        layer = f"adaptive_{'max' if self.maximum else 'avg'}_pool{self.dims}d"
        if self.maximum:
            return adaptive_max_pool_nd(
                input, self.output_size, self.return_indices, dims=self.dims, layer=layer
            )
        return adaptive_avg_pool_nd(input, self.output_size, dims=self.dims, layer=layer)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveAvgPoolNd(_AdaptivePoolNd):
    """PyTorch's base of AdaptiveAvgPool1d/2d/3d (none of them an adaptive max pool)."""


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    """PyTorch's base of AdaptiveMaxPool1d/2d/3d."""

    maximum = True


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average into a fixed output_size along L of (N, C, L) or (C, L), whatever the input's size.

    >>> tg.nn.AdaptiveAvgPool1d(3)(tg.ones(2, 4, 10)).shape
    (2, 4, 3)
    """

    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average into a fixed output_size (H_out, W_out) whatever the input's size (None keeps one).

    >>> tg.nn.AdaptiveAvgPool2d((1, 1))(tg.ones(2, 16, 5, 5)).shape
    (2, 16, 1, 1)
    """

    dims = 2

    def __init__(self, output_size: Any) -> None:
        Module.__init__(self)  # (PyTorch's AdaptiveAvgPool2d: output_size only)
        adaptive_output_size(output_size, (1, 1), "AdaptiveAvgPool2d")  # (checks it now)
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average into a fixed output_size (D, H, W) of (N, C, D, H, W) or (C, D, H, W); None: kept.

    >>> tg.nn.AdaptiveAvgPool3d((1, None, 2))(tg.ones(1, 2, 4, 5, 6)).shape
    (1, 2, 1, 5, 2)
    """

    dims = 3

    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max into a fixed output_size along L; return_indices=True also gives the argmax positions.

    >>> tg.nn.AdaptiveMaxPool1d(2)(tg.ones(1, 3, 7)).shape
    (1, 3, 2)
    """


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max into a fixed output_size (H, W) (None keeps one); the indices are flat over H*W.

    >>> tg.nn.AdaptiveMaxPool2d((2, None))(tg.ones(1, 3, 5, 4)).shape
    (1, 3, 2, 4)
    """

    dims = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max into a fixed output_size (D, H, W) (None keeps one); the indices are flat over D*H*W.

    >>> tg.nn.AdaptiveMaxPool3d(1)(tg.ones(1, 3, 4, 4, 4)).shape
    (1, 3, 1, 1, 1)
    """

    dims = 3


class _MaxUnpoolNd(Module):
    dims = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        name = type(self).__name__
        # (kept as tuples, as PyTorch shows them)
        self.kernel_size = parse_ints(kernel_size, "kernel_size", self.dims, 1, name)
        self.stride = (
            self.kernel_size if stride is None else parse_ints(stride, "stride", self.dims, 1, name)
        )
        self.padding = parse_ints(padding, "padding", self.dims, 0, name)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        return max_unpool_nd(
            input,
            indices,
            self.kernel_size,
            self.stride,
            self.padding,
            output_size,
            dims=self.dims,
            layer=f"max_unpool{self.dims}d",
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool2d(_MaxUnpoolNd):
    """MaxPool2d's partial inverse: values back at their indices (return_indices=True), zeros
    elsewhere.

    >>> pool, unpool = tg.nn.MaxPool2d(2, return_indices=True), tg.nn.MaxUnpool2d(2)
    >>> unpool(*pool(tg.ones(1, 1, 4, 4))).shape
    (1, 1, 4, 4)
    """

    dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """MaxPool3d's partial inverse: values back at their flat D*H*W indices, zeros elsewhere.

    >>> pool, unpool = tg.nn.MaxPool3d(2, return_indices=True), tg.nn.MaxUnpool3d(2)
    >>> unpool(*pool(tg.ones(1, 1, 4, 4, 4))).shape
    (1, 1, 4, 4, 4)
    """

    dims = 3


class MaxUnpool1d(_MaxUnpoolNd):
    """MaxPool1d's partial inverse along L.

    >>> pool, unpool = tg.nn.MaxPool1d(2, return_indices=True), tg.nn.MaxUnpool1d(2)
    >>> unpool(*pool(tg.ones(1, 1, 6))).shape
    (1, 1, 6)
    """

    dims = 1


class _LPPoolNd(Module):
    dims = 2

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        _checked(self, self.dims, kernel_size, stride, 0)
        # (kept as given, stride None included, as PyTorch keeps and shows them)
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool_nd(
            input,
            self.norm_type,
            self.kernel_size,
            self.stride,
            self.ceil_mode,
            dims=self.dims,
            layer=f"lp_pool{self.dims}d",
        )

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool2d(_LPPoolNd):
    """Power-average pooling over each window of (N, C, H, W) or (C, H, W): (sum x ** p) ** (1/p).

    >>> tg.nn.LPPool2d(2, 3, stride=2)(tg.ones(1, 4, 7, 7)).shape
    (1, 4, 3, 3)
    """

    dims = 2


class LPPool1d(_LPPoolNd):
    """Power-average pooling over each window along the last axis of (N, C, L) or (C, L).

    >>> tg.nn.LPPool1d(2, 3)(tg.ones(1, 4, 9)).shape
    (1, 4, 3)
    """

    dims = 1


class LPPool3d(_LPPoolNd):
    """Power-average pooling over each window of (N, C, D, H, W) or (C, D, H, W).

    >>> tg.nn.LPPool3d(2, 2)(tg.ones(1, 4, 4, 4, 4)).shape
    (1, 4, 2, 2, 2)
    """

    dims = 3
