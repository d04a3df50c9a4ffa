"""F.unfold (im2col) and F.fold (col2im): sliding blocks of an image as columns, and back.

unfold is a grouped convolution with a one-hot kernel per (channel, kernel position), so each
output channel copies one pixel of every window; fold, its adjoint, is the transposed convolution
with the same kernel (overlapping blocks add up). Both are then differentiable to any order by
the convolution rules. PyTorch's shapes, channel order (c * kH * kW + i * kW + j) and errors.
Layer L5: imports tensor.py and the nn package's functional_conv and functional_conv_transpose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from .functional_conv import conv2d, parse_ints
from .functional_conv_transpose import conv_transpose2d

__all__ = ["fold", "unfold"]


def _geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any, who: str) -> tuple:
    """(kernel, dilation, padding, stride) as pairs, after PyTorch's checks."""
    kernel = _pair(kernel_size, "kernel_size", who)
    dilation, padding, stride = (
        _pair(v, n, who)
        for v, n in ((dilation, "dilation"), (padding, "padding"), (stride, "stride"))
    )
    for name, pair, least in (
        ("kernel size", kernel, 1),
        ("dilation", dilation, 1),
        ("stride", stride, 1),
    ):
        if min(pair) < least:
            raise RuntimeError(f"{who}: {name} should be greater than zero, but got {pair}")
    if min(padding) < 0:
        raise RuntimeError(f"{who}: padding should be non-negative, but got {padding}")
    return kernel, dilation, padding, stride


def _pair(value: Any, name: str, who: str) -> tuple:
    """An int or a pair of ints (range checks are the caller's, with PyTorch's messages)."""
    return parse_ints(value, name, 2, -(2**62), who)


def _blocks(size: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple:
    """The number of sliding blocks along H and W."""
    return tuple(
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, d, p, s in zip(size, kernel, dilation, padding, stride)
    )


def _one_hot_kernel(channels: int, kernel: tuple, dtype: Any) -> Tensor:
    """(C * kH * kW, 1, kH, kW): output channel c * kH * kW + i * kW + j reads position (i, j)."""
    per = kernel[0] * kernel[1]
    eye = np.eye(per, dtype=dtype).reshape(per, 1, *kernel)
    return Tensor(np.tile(eye, (channels, 1, 1, 1)))


def _floating(input: Tensor, who: str) -> None:
    if input.dtype.kind not in "fb":
        raise NotImplementedError(
            f"{who} is not implemented for {input.dtype}: the input must be floating point (or "
            f"bool, as PyTorch), e.g. x.to(tg.float32)"
        )


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """(N, C, H, W) or (C, H, W) -> (N, C * kH * kW, L): each column one sliding block, L blocks.

    >>> F.unfold(tg.arange(9.0).reshape(1, 1, 3, 3), 2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold: the input must be a tapegrad Tensor, got {type(input).__name__}")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError(
            f"unfold: Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    _floating(input, "unfold")
    if input.dtype == np.bool_:  # (copies only: the float result, read back as bool)
        return unfold(input.to(np.float32), kernel_size, dilation, padding, stride) != 0
    kernel, dilation, padding, stride = _geometry(kernel_size, dilation, padding, stride, "unfold")
    blocks = _blocks(input.shape[-2:], kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(
            f"unfold: Given input with spatial size {input.shape[-2:]}, kernel_size={kernel}, "
            f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding "
            f"blocks as {blocks}, but its components must be at least one."
        )
    channels = input.shape[-3]
    weight = _one_hot_kernel(channels, kernel, input.dtype)
    columns = conv2d(input, weight, None, stride, padding, dilation, groups=channels)
    out = columns.reshape(*columns.shape[:-2], blocks[0] * blocks[1])
    params = {"kernel": kernel, "dilation": dilation, "padding": padding, "stride": stride}
    return mark(out, "unfold", ("x",), (input,), params)


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """(N, C * kH * kW, L) or (C * kH * kW, L) -> (N, C, *output_size): each column put back as a
    block, overlapping blocks summed (unfold's adjoint).

    >>> F.fold(tg.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fold: the input must be a tapegrad Tensor, got {type(input).__name__}")
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(
            f"fold: Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    _floating(input, "fold")
    if input.dtype == np.bool_:  # (overlaps added: true where any block is, as PyTorch)
        return fold(input.to(np.float32), output_size, kernel_size, dilation, padding, stride) != 0
    size = _pair(output_size, "output_size", "fold")
    kernel, dilation, padding, stride = _geometry(kernel_size, dilation, padding, stride, "fold")
    per = kernel[0] * kernel[1]
    rows, length = input.shape[-2:]
    if rows % per:
        raise RuntimeError(
            f"fold: Expected size of input's dimension {input.ndim - 2} to be divisible by the "
            f"product of kernel_size, but got input.size({input.ndim - 2})={rows} and "
            f"kernel_size={kernel}."
        )
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if min(blocks) < 1 or blocks[0] * blocks[1] != length:
        raise RuntimeError(
            f"fold: Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension "
            f"{input.ndim - 1} to match the calculated number of sliding blocks {blocks[0]} * "
            f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size({input.ndim - 1})={length}."
        )
    channels = rows // per
    weight = _one_hot_kernel(channels, kernel, input.dtype)
    # (the rows and columns the last blocks do not reach: the transposed convolution's
    # output_padding, always below the stride)
    reach = tuple(
        (b - 1) * s - 2 * p + d * (k - 1) + 1
        for b, s, p, d, k in zip(blocks, stride, padding, dilation, kernel)
    )
    extra = tuple(n - r for n, r in zip(size, reach))
    grid = input.reshape(*input.shape[:-1], *blocks)
    out = conv_transpose2d(grid, weight, None, stride, padding, extra, channels, dilation)
    params = {"kernel": kernel, "dilation": dilation, "padding": padding, "stride": stride}
    return mark(out, "fold", ("x",), (input,), {**params, "output_size": size})
