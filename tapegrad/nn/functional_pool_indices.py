"""PyTorch's `_with_indices` spellings of the max pools: max_pool1d/2d/3d_with_indices and
adaptive_max_pool1d/2d/3d_with_indices always return (values, indices), whatever return_indices
says (PyTorch's boolean dispatch calls them when return_indices=True).

Layer L5: imports functional_pooling's and functional_adaptive_pool's max pools.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_adaptive_pool import adaptive_max_pool_nd
from .functional_pooling import max_pool_nd

__all__ = [
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
]


def _max_pool(dims: int, input: Tensor, *args: Any) -> tuple[Tensor, Tensor]:
    kernel_size, stride, padding, dilation, ceil_mode = args
    out, indices = max_pool_nd(
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        True,
        dims=dims,
        layer=f"max_pool{dims}d",
    )
    return out, indices


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool1d's values and each maximum's index along L, always both.

    >>> F.max_pool1d_with_indices(tg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)[1]
    tensor([[[1, 2]]])
    """
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool2d's values and each maximum's flat index over H*W, always both.

    >>> F.max_pool2d_with_indices(tg.arange(16.0).reshape(1, 1, 4, 4), 2)[1]
    tensor([[[[ 5,  7],
              [13, 15]]]])
    """
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool3d's values and each maximum's flat index over D*H*W, always both.

    >>> F.max_pool3d_with_indices(tg.arange(8.0).reshape(1, 1, 2, 2, 2), 2)[1]
    tensor([[[[[7]]]]])
    """
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode)


def _adaptive(dims: int, input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    layer = f"adaptive_max_pool{dims}d"
    out, indices = adaptive_max_pool_nd(input, output_size, True, dims=dims, layer=layer)
    return out, indices


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool1d's values and each maximum's index along L, always both.

    >>> F.adaptive_max_pool1d_with_indices(tg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)[1]
    tensor([[[1, 2]]])
    """
    return _adaptive(1, input, output_size)


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool2d's values and each maximum's flat index over H*W, always both.

    >>> F.adaptive_max_pool2d_with_indices(tg.arange(16.0).reshape(1, 1, 4, 4), 2)[1]
    tensor([[[[ 5,  7],
              [13, 15]]]])
    """
    return _adaptive(2, input, output_size)


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool3d's values and each maximum's flat index over D*H*W, always both.

    >>> F.adaptive_max_pool3d_with_indices(tg.arange(8.0).reshape(1, 1, 2, 2, 2), 1)[1]
    tensor([[[[[7]]]]])
    """
    return _adaptive(3, input, output_size)
