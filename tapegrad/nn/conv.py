"""Convolution layers: Conv1d, Conv2d and Conv3d, with PyTorch's signatures, weight layout, init
and repr.

Weight (out_channels, in_channels / groups, *kernel_size), initialised as PyTorch does
(kaiming_uniform with a=sqrt(5), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))), so weights move between
tapegrad and PyTorch as plain arrays. Layer L5: imports tensor.py, dtypes and the nn package's
module, parameter, init and functional_conv.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import init as _init
from .functional_conv import conv_nd, parse_ints
from .module import Module
from .parameter import Parameter

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


class _ConvBase(Module):
    """What convolutions and transposed convolutions share (PyTorch's _ConvNd): the channel and
    group checks, kernel_size/stride/dilation, weight and bias with PyTorch's init, the repr."""

    dims = 2
    _transposed = False  # weight (in, out / groups, *k) instead of (out, in / groups, *k)

    def _conv_parameters(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any,
        dilation: Any,
        groups: int,
        bias: bool,
        dtype: Any,
    ) -> None:
        name, dims = type(self).__name__, self.dims
        for arg, n in (("in_channels", in_channels), ("out_channels", out_channels)):
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
                raise ValueError(f"{name}: {arg} must be a positive int, got {n!r}")
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups <= 0:
            raise ValueError(f"{name}: groups must be a positive int, got {groups!r}")
        for arg, n in (("in_channels", in_channels), ("out_channels", out_channels)):
            if n % groups:
                raise ValueError(
                    f"{name}: {arg} must be divisible by groups (got {arg}={n}, groups={groups})"
                )
        self.kernel_size = parse_ints(kernel_size, "kernel_size", dims, 1, name)
        self.stride = parse_ints(stride, "stride", dims, 1, name)
        self.dilation = parse_ints(dilation, "dilation", dims, 1, name)
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.groups = int(groups)
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        if self._transposed:
            first, second = self.in_channels, self.out_channels
        else:
            first, second = self.out_channels, self.in_channels
        self.weight = Parameter(np.empty((first, second // self.groups) + self.kernel_size, dtype))
        if bias:
            self.bias = Parameter(np.empty((self.out_channels,), dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's init: weight kaiming_uniform(a=sqrt(5)), bias U(-1/sqrt(fan_in), ...), fan_in
        from the weight's layout (its second axis times the kernel).

        >>> tg.nn.Conv1d(1, 1, 1, bias=False).reset_parameters()
        """
        _init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1.0 / math.sqrt(_init.calculate_fan_in_and_fan_out(self.weight)[0])
            _init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * self.dims:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self.dims:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.dims:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _ConvNd(_ConvBase):
    """What Conv1d, Conv2d and Conv3d share: padding (ints, 'valid', 'same') and padding modes."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        name, dims = type(self).__name__, self.dims
        self._conv_parameters(
            in_channels, out_channels, kernel_size, stride, dilation, groups, bias, dtype
        )
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"{name}: padding must be an int, a tuple of ints, 'valid' or 'same', "
                    f"got {padding!r}"
                )
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError(
                    f"{name}: padding='same' is not supported for strided convolutions "
                    f"(stride={self.stride}); pad explicitly with an int or a tuple"
                )
            self.padding: Any = padding
        else:
            self.padding = parse_ints(padding, "padding", dims, 0, name)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"{name}: padding_mode must be one of {_PADDING_MODES}, got {padding_mode!r}"
            )
        self.padding_mode = padding_mode
        self.output_padding = (0,) * dims  # (PyTorch's Conv has it too, always zeros)
        self.to(device=device)  # (only the CPU exists: anything else is a clear error)

    def _check_input(self, input: Any) -> None:
        """The layer's own view of a bad input: its repr, the shape, what it expects."""
        dims = self.dims
        axes = {1: "L)", 2: "H, W)", 3: "D, H, W)"}[dims]
        if not isinstance(input, Tensor):
            raise TypeError(f"{self!r}: the input must be a tapegrad Tensor, got {type(input)}")
        if input.ndim not in (dims + 1, dims + 2):
            hint = ""
            if input.ndim == dims and self.in_channels == 1:  # one image or signal, no channel axis
                hint = "; for one single-channel input add the channel axis: x.unsqueeze(0)"
            raise RuntimeError(
                f"{self!r}: expected a {dims + 2}-D (N, C, {axes} batched or {dims + 1}-D "
                f"(C, {axes} unbatched input, got shape {input.shape}{hint}"
            )
        channels = input.shape[-dims - 1]
        if channels != self.in_channels:
            raise RuntimeError(
                f"{self!r}: expected an input with {self.in_channels} channels (axis "
                f"{input.ndim - dims - 1}), got shape {input.shape} with {channels}; check the "
                f"previous layer's output channels"
            )

    def _pad_by_mode(self, input: Tensor) -> Tensor:
        """reflect / replicate / circular padding, as an index into the input (differentiable)."""
        if self.padding == "valid":
            return input
        if self.padding == "same":
            totals = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)]
            pads = [(t // 2, t - t // 2) for t in totals]
        else:
            pads = [(p, p) for p in self.padding]
        index: list = [slice(None)] * (input.ndim - self.dims)
        for axis, (before, after) in enumerate(pads):
            n = input.shape[input.ndim - self.dims + axis]
            too_big = max(before, after) >= n if self.padding_mode == "reflect" else n == 0
            if too_big or self.padding_mode == "circular" and max(before, after) > n:
                raise ValueError(
                    f"{self!r}: padding {before, after} is too large for {self.padding_mode} "
                    f"padding of an axis of size {n} (input shape {input.shape})"
                )
            mode: Any = _NUMPY_MODE[self.padding_mode]
            taps = np.pad(np.arange(n), (before, after), mode=mode)
            shape = [1] * self.dims
            shape[axis] = taps.size
            index.append(taps.reshape(shape))
        return input[tuple(index)]

    def forward(self, input: Tensor) -> Tensor:
        self._check_input(input)
        padding = self.padding
        if self.padding_mode != "zeros":
            input, padding = self._pad_by_mode(input), 0
        return conv_nd(
            input,
            self.weight,
            self.bias,
            self.stride,
            padding,
            self.dilation,
            self.groups,
            dims=self.dims,
            layer=self,  # (its repr is made only in an error message)
        )


class Conv2d(_ConvNd):
    """2-D convolution (cross-correlation) over (N, C, H, W) or unbatched (C, H, W) inputs.

    >>> conv = tg.nn.Conv2d(1, 6, 5, padding="same"); conv(tg.ones(64, 1, 28, 28)).shape
    (64, 6, 28, 28)
    """

    dims = 2


class Conv1d(_ConvNd):
    """1-D convolution (cross-correlation) over (N, C, L) or unbatched (C, L) inputs.

    >>> tg.nn.Conv1d(3, 4, 3, stride=2)(tg.ones(2, 3, 10)).shape
    (2, 4, 4)
    """

    dims = 1


class Conv3d(_ConvNd):
    """3-D convolution (cross-correlation) over (N, C, D, H, W) or unbatched (C, D, H, W) inputs.

    >>> tg.nn.Conv3d(2, 4, (1, 3, 3), padding=(0, 1, 1))(tg.ones(1, 2, 3, 8, 8)).shape
    (1, 4, 3, 8, 8)
    """

    dims = 3
