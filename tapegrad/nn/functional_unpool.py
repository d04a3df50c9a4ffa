"""F.max_unpool1d / 2d / 3d: max pooling's partial inverse, each value put back at the
position its indices (from max_pool with return_indices=True) name, zeros elsewhere.

A scatter of the input into zeros over the flattened output plane, so the gradient is a gather
of the output's gradient at the indices (any order). PyTorch's default output size, its
output_size rule and its errors. Layer L5: imports tensor.py and functional_conv's argument
parsing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from .functional_conv import parse_ints

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _output_sizes(
    input: Tensor, kernel: tuple, stride: tuple, padding: tuple, output_size: Any, layer: str
) -> tuple:
    """PyTorch's output size: (n - 1) * stride - 2 * padding + kernel per axis, or output_size's
    last entries if each is within a stride of that."""
    dims = len(kernel)
    default = tuple(
        (n - 1) * s - 2 * p + k for n, k, s, p in zip(input.shape[-dims:], kernel, stride, padding)
    )
    if output_size is None:
        return default
    sizes = tuple(int(v) for v in output_size)
    if len(sizes) == dims + 2 or (len(sizes) == dims + 1 and input.ndim == dims + 1):
        sizes = sizes[-dims:]
    if len(sizes) != dims:
        raise ValueError(
            f"{layer}: output_size must have {dims} or {dims + 2} elements (got {len(sizes)})"
        )
    for d, (size, want, s) in enumerate(zip(sizes, default, stride)):
        if not want - s < size < want + s:
            raise ValueError(
                f'{layer}: invalid output_size "{tuple(sizes)}" (dim {d} must be between '
                f"{want - s} and {want + s})"
            )
    return sizes


def max_unpool_nd(
    input: Tensor,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
    *,
    dims: int,
    layer: str | None = None,
) -> Tensor:
    """max_unpool over the last `dims` axes: the one implementation of the functional spellings
    and the layers (errors name `layer`, max_unpool{dims}d unless given).

    >>> x, i = F.max_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 2, return_indices=True)
    >>> max_unpool_nd(x, i, 2, dims=2).shape
    (1, 1, 4, 4)
    """
    layer = layer or f"max_unpool{dims}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{layer}: the input must be a tapegrad Tensor, got {type(input).__name__}")
    index = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    if index.dtype != np.int64:
        raise TypeError(f"{layer}: elements in indices should be type int64 but got: {index.dtype}")
    if input.ndim not in (dims + 1, dims + 2) or index.shape != input.shape:
        raise ValueError(
            f"{layer}: expected a {dims + 1}-D or {dims + 2}-D input and indices of the same "
            f"shape, got input {input.shape} and indices {index.shape}"
        )
    kernel = parse_ints(kernel_size, "kernel_size", dims, 1, layer)
    stride = kernel if stride is None else parse_ints(stride, "stride", dims, 1, layer)
    padding = parse_ints(padding, "padding", dims, 0, layer)
    sizes = _output_sizes(input, kernel, stride, padding, output_size, layer)
    plane = int(np.prod(sizes))
    if index.size and (index.min() < 0 or index.max() >= plane):
        bad = index[(index < 0) | (index >= plane)].flat[0]
        raise IndexError(
            f"{layer}: Found an invalid max index: {bad} (output volumes are of size "
            f"{'x'.join(map(str, sizes))})"
        )
    lead = input.shape[:-dims]
    flat = Tensor(np.zeros((*lead, plane), input.dtype))
    window = int(np.prod(input.shape[-dims:]))  # (not -1: an empty batch reshapes too)
    out = flat.scatter(-1, index.reshape(*lead, window), input.reshape(*lead, window))
    out = out.reshape(*lead, *sizes)
    return mark(out, layer, ("x",), (input,), {"indices": index, "dims": dims})


def max_unpool2d(
    input: Tensor,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Each value of (N, C, H, W) put back at its flat H_out*W_out index, zeros elsewhere.

    >>> x, i = F.max_pool2d(tg.tensor([[[[1.0, 2.0], [4.0, 3.0]]]]), 2, return_indices=True)
    >>> F.max_unpool2d(x, i, 2)
    tensor([[[[0., 0.],
              [4., 0.]]]])
    """
    return max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, dims=2)


def max_unpool1d(
    input: Tensor,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Each value of (N, C, L) put back at its index along L_out, zeros elsewhere.

    >>> x, i = F.max_pool1d(tg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2, return_indices=True)
    >>> F.max_unpool1d(x, i, 2)
    tensor([[[0., 3., 2., 0.]]])
    """
    return max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, dims=1)


def max_unpool3d(
    input: Tensor,
    indices: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Each value of (N, C, D, H, W) put back at its flat D_out*H_out*W_out index, zeros elsewhere.

    >>> x, i = F.max_pool3d(tg.arange(8.0).reshape(1, 1, 2, 2, 2), 2, return_indices=True)
    >>> F.max_unpool3d(x, i, 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    return max_unpool_nd(input, indices, kernel_size, stride, padding, output_size, dims=3)
