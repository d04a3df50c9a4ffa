"""Transposed convolution layers: ConvTranspose1d, 2d and 3d, with PyTorch's signatures,
weight layout (in_channels, out_channels / groups, *kernel_size), init, repr and forward's
output_size.

Layer L5: imports tensor/ and the nn package's conv (the parameters, init and repr every
convolution shares) and functional_conv_transpose (the math).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..tensor import Tensor
from .conv import _ConvBase
from .functional_conv import parse_ints
from .functional_conv_transpose import conv_transpose_nd, output_geometry


class _ConvTransposeNd(_ConvBase):
    """What ConvTranspose1d and ConvTranspose2d share: padding, output_padding, output_size."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        name, dims = type(self).__name__, self.dims
        self._conv_parameters(
            in_channels, out_channels, kernel_size, stride, dilation, groups, bias, dtype
        )
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if isinstance(padding, str):
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, got {padding!r}")
        self.padding = parse_ints(padding, "padding", dims, 0, name)
        self.output_padding = parse_ints(output_padding, "output_padding", dims, 0, name)
        self.padding_mode = padding_mode
        self.to(device=device)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> tuple:
        """self.output_padding, or what makes the output output_size (PyTorch's rule)."""
        if output_size is None:
            return self.output_padding
        dims, sizes = self.dims, tuple(int(n) for n in output_size)
        if len(sizes) == dims + 2 or len(sizes) == dims + 1 and input.ndim == dims + 1:
            sizes = sizes[-dims:]  # (the whole shape given: its spatial sizes)
        if len(sizes) != dims:
            raise ValueError(
                f"ConvTranspose{dims}D: for {input.ndim}D input, output_size must have {dims} or "
                f"{dims + 2} elements (got {len(output_size)})"
            )
        nothing = (0,) * dims
        smallest = output_geometry(
            input.shape[-dims:],
            self.kernel_size,
            self.stride,
            self.padding,
            nothing,
            self.dilation,
            repr(self),
        )
        largest = tuple(m + s - 1 for m, s in zip(smallest, self.stride))
        if any(not lo <= n <= hi for n, lo, hi in zip(sizes, smallest, largest)):
            raise ValueError(
                f"requested an output size of {sizes}, but valid sizes range from "
                f"{list(smallest)} to {list(largest)} (for an input of {input.shape[-dims:]})"
            )
        return tuple(n - m for n, m in zip(sizes, smallest))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        """The transposed convolution; output_size picks output_padding (within one stride)."""
        if not isinstance(input, Tensor):
            raise TypeError(f"{self!r}: the input must be a tapegrad Tensor, got {type(input)}")
        return conv_transpose_nd(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
            dims=self.dims,
            layer=self,  # (its repr is made only in an error message)
        )


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (the gradient of Conv2d with respect to its input) over
    (N, C, H, W) or unbatched (C, H, W) inputs; upsamples by `stride`.

    >>> tg.nn.ConvTranspose2d(3, 8, 3, stride=2, padding=1, output_padding=1)(
    ...     tg.ones(1, 3, 4, 4)).shape
    (1, 8, 8, 8)
    """

    dims = 2


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over (N, C, L) or unbatched (C, L) inputs.

    >>> tg.nn.ConvTranspose1d(3, 4, 3, stride=2)(tg.ones(2, 3, 5)).shape
    (2, 4, 11)
    """

    dims = 1


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over (N, C, D, H, W) or unbatched (C, D, H, W) inputs.

    >>> tg.nn.ConvTranspose3d(2, 4, 3, stride=2)(tg.ones(1, 2, 3, 3, 3)).shape
    (1, 4, 7, 7, 7)
    """

    dims = 3
