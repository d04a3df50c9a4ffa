"""Functional pooling: max/avg/lp_pool1d/2d/3d and adaptive_avg_pool2d.

Checks and normalises the arguments as functional_conv does (PyTorch's rules and defaults), then
records one primitive of primitives/pooling.py; 1-D pools run as 2-D ones over a unit H axis, 3-D
ones are functional_pool3d's compositions.
adaptive_avg_pool2d is two matmuls with averaging matrices; lp_pool is PyTorch's
composition of avg_pool (or max_pool for p = +-inf). Layer L5: imports tensor.py, the rule
table (primitives/pooling.py) and functional_conv's argument checks.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..primitives import pooling
from ..tape.composite import mark
from ..autograd import enable_grad, grad, no_grad
from ..tensor import Tensor
from .functional_activation import relu
from .functional_conv import _as_2d, _check_input, _four, _from_2d, _wrapped, parse_ints
from .functional_pool3d import avg_pool_volume, max_pool_volume

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
]


def _pool_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output length: in ceil mode the last window must start inside the input
    or its left padding."""
    span = n + 2 * p - d * (k - 1) - 1
    size = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (size - 1) * s >= n + p:
        size -= 1
    return size


def pool_geometry(
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    *,
    dims: int,
    layer: object,
    max_pool: bool,
) -> tuple:
    """Checked pooling arguments: (batched, kernel, stride, pads, dilation, out_sizes), one entry
    per pooled axis; pads are (before, after) pairs, ceil_mode's extra rows in the after padding.

    >>> x = tg.ones(1, 1, 5, 5)
    >>> pool_geometry(x, 2, None, 0, 1, True, dims=2, layer="max_pool2d", max_pool=True)[-1]
    (3, 3)
    """
    batched = _check_input(input, dims, layer)
    kernel = parse_ints(kernel_size, "kernel_size", dims, 1, layer)
    no_stride = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    stride = kernel if no_stride else parse_ints(stride, "stride", dims, 1, layer)
    pads = parse_ints(padding, "padding", dims, 0, layer)
    dilation = parse_ints(dilation, "dilation", dims, 1, layer)
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    for p, k, e in zip(pads, kernel, extent):
        if 2 * p > (e if max_pool else k):
            raise ValueError(
                f"{layer}: padding must be at most half of the kernel's extent, got padding="
                f"{padding!r} with kernel_size={kernel_size!r}"
                + (f" and dilation={dilation}" if max_pool else "")
            )
    sizes = input.shape[-dims:]
    outs = tuple(
        _pool_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(sizes, kernel, stride, pads, dilation)
    )
    if any(o < 1 for o in outs):
        raise ValueError(
            f"{layer}: input of shape {input.shape} is too small for kernel_size={kernel_size!r} "
            f"(padding={padding!r}, dilation={dilation!r}): the output would have size "
            f"{' x '.join(map(str, outs))}"
        )
    afters = tuple(
        max(0, (o - 1) * s + e - n - p) for n, o, s, e, p in zip(sizes, outs, stride, extent, pads)
    )
    return batched, kernel, stride, tuple(zip(pads, afters)), dilation, outs


def _planar(kernel: tuple, stride: tuple, pads: tuple, dilation: tuple) -> dict:
    """A 1-D or 2-D pool's geometry as the 2-D primitives take it (a unit H axis for 1-D)."""
    one = (1,) * (2 - len(kernel))
    return {
        "kernel_size": one + kernel,
        "stride": one + stride,
        "padding": _four(pads),
        "dilation": one + dilation,
    }


def max_pool_nd(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
    *,
    dims: int,
    layer: object,
) -> Any:
    """max_pool1d / max_pool2d for the functional spellings and the layers (`layer` names the
    caller in errors).

    >>> max_pool_nd(tg.ones(1, 1, 4, 4), 2, dims=2, layer="max_pool2d").shape
    (1, 1, 2, 2)
    """
    geometry = pool_geometry(
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        dims=dims,
        layer=layer,
        max_pool=True,
    )
    batched, kernel, stride, pads, dilation, outs = geometry
    if dims == 3:
        return max_pool_volume(input, batched, kernel, stride, pads, dilation, outs, return_indices)
    x = _as_2d(input, dims, batched)
    params = _planar(kernel, stride, pads, dilation)
    out = pooling.max_pool2d(x, **params)
    if not return_indices:
        return _wrapped(out, f"max_pool{dims}d", input, dims, batched)
    indices = Tensor(pooling.max_pool2d_indices(x.numpy(), out.numpy(), **params))
    return _from_2d(out, dims, batched), _from_2d(indices, dims, batched)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Max over each kH x kW window; the gradient goes to one element per window (the first max).

    >>> F.max_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    return max_pool_nd(
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        return_indices,
        dims=2,
        layer="max_pool2d",
    )


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Max over each window of k along the last axis of (N, C, L) or (C, L).

    >>> F.max_pool1d(tg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    return max_pool_nd(
        input,
        kernel_size,
        stride,
        padding,
        dilation,
        ceil_mode,
        return_indices,
        dims=1,
        layer="max_pool1d",
    )


def _divisors(n: int, out: int, k: int, s: int, p: int) -> tuple:
    """Per output position along one axis: the window's length counting padding (up to n + p, as
    PyTorch), and the number of real elements in it."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    return end - start, np.minimum(end, n) - np.maximum(start, 0)


def avg_pool_nd(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
    *,
    dims: int,
    layer: object,
) -> Tensor:
    """avg_pool1d / avg_pool2d for the functional spellings and the layers.

    >>> avg_pool_nd(tg.ones(1, 1, 4, 4), 2, dims=2, layer="avg_pool2d").shape
    (1, 1, 2, 2)
    """
    batched, kernel, stride, pads, _, outs = pool_geometry(
        input, kernel_size, stride, padding, 1, ceil_mode, dims=dims, layer=layer, max_pool=False
    )
    if input.dtype.kind != "f" and input.dtype != np.int64:
        raise NotImplementedError(  # (PyTorch's error: of the integers, only int64 is averaged)
            f"{layer} is not implemented for {input.dtype}: the input must be floating point or "
            f"int64 (whose averages are cut toward zero), e.g. x.to(tg.float32)"
        )
    if divisor_override is not None:
        if isinstance(divisor_override, bool) or not isinstance(
            divisor_override, (int, np.integer)
        ):
            raise TypeError(f"{layer}: divisor_override must be an int, got {divisor_override!r}")
        if divisor_override == 0:
            raise ValueError(f"{layer}: divisor_override must be non-zero")
        divisor: Any = int(divisor_override)
    else:  # (per axis the windows' lengths; a window's divisor is their product)
        sizes = input.shape[-dims:]
        lengths = [
            _divisors(n, o, k, s, p)[0 if count_include_pad else 1]
            for n, o, k, s, (p, _) in zip(sizes, outs, kernel, stride, pads)
        ]
        divisor = functools.reduce(np.multiply.outer, lengths).astype(input.dtype)
    if dims == 3:
        volume = (batched, kernel, stride, pads, outs)

        def window_sum(x: Tensor) -> Tensor:
            return avg_pool_volume(x, *volume, 1)

        out = avg_pool_volume(input, *volume, divisor)
        rule = {"divisor": divisor, "window_sum": _on_arrays(window_sum)}
        rule["spread"] = _transposed(window_sum, input.shape, input.dtype)
        return mark(out, "avg_pool3d", ("x",), (input,), rule)
    params = _planar(kernel, stride, pads, (1,) * dims)
    del params["dilation"]
    out = pooling.avg_pool2d(_as_2d(input, dims, batched), **params, divisor=divisor)
    return _wrapped(out, f"avg_pool{dims}d", input, dims, batched)


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Mean over each kH x kW window (PyTorch's divisor rules for padding and ceil_mode).

    >>> F.avg_pool2d(tg.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5,  4.5],
              [10.5, 12.5]]]])
    """
    return avg_pool_nd(
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        dims=2,
        layer="avg_pool2d",
    )


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """Mean over each window of k along the last axis of (N, C, L) or (C, L).

    >>> F.avg_pool1d(tg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[2., 1.]]])
    """
    return avg_pool_nd(
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        dims=1,
        layer="avg_pool1d",
    )


def _averaging_matrix(n: int, out: int, dtype: Any) -> np.ndarray:
    """(out, n): row i averages PyTorch's adaptive window [floor(i*n/out), ceil((i+1)*n/out))."""
    a = np.zeros((out, n), dtype)
    for i in range(out):
        start, end = (i * n) // out, -(-((i + 1) * n) // out)
        a[i, start:end] = 1.0 / (end - start)
    return a


def adaptive_output_size(output_size: Any, sizes: tuple, layer: object) -> tuple:
    """(Ho, Wo) from an int or a pair whose None entries keep the input's size.

    >>> adaptive_output_size((3, None), (8, 8), "adaptive_avg_pool2d")
    (3, 8)
    """
    items = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    ok = len(items) == 2 and all(
        v is None or isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
    )
    if not ok or any(v is not None and v < 0 for v in items):
        raise ValueError(
            f"{layer}: output_size must be a non-negative int or a pair of them (None keeps the "
            f"input's size), got {output_size!r}"
        )
    return tuple(n if v is None else int(v) for v, n in zip(items, sizes))


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average over output_size windows spread evenly over H and W (PyTorch's start/end formula).

    >>> F.adaptive_avg_pool2d(tg.ones(2, 3, 7, 5), (2, 1)).shape
    (2, 3, 2, 1)
    """
    _check_input(input, 2, "adaptive_avg_pool2d")
    if input.dtype.kind != "f":
        raise TypeError(f"adaptive_avg_pool2d: the input must be floating point, got {input.dtype}")
    h, w = input.shape[-2:]
    if h == 0 or w == 0:
        raise ValueError(f"adaptive_avg_pool2d: the input of shape {input.shape} is empty")
    ho, wo = adaptive_output_size(output_size, (h, w), "adaptive_avg_pool2d")
    out, rows, cols = input, None, None
    if wo != w:  # each axis is averaged by a matrix: the windows of H and W are independent
        cols = _averaging_matrix(w, wo, input.dtype)
        out = out @ Tensor(cols.T)
    if ho != h:
        rows = _averaging_matrix(h, ho, input.dtype)
        out = Tensor(rows) @ out
    out = out if out is not input else input.clone()
    return mark(out, "adaptive_avg_pool2d", ("x", "A", "B"), (input, rows, cols))


def lp_pool_nd(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
    *,
    dims: int,
    layer: str,
) -> Tensor:
    """lp_pool1d / lp_pool2d for the functional spellings and the layers: PyTorch's formula,
    (k * avg_pool(x ** p)) ** (1 / p) through sign(s) * relu(|s|), so a window whose sum is 0
    gets gradient 0; p = inf / -inf are the max / min of |x| over each window.

    >>> lp_pool_nd(tg.ones(1, 1, 4), 2, 2, dims=1, layer="lp_pool1d")
    tensor([[[1.4142, 1.4142]]])
    """
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float, np.number)):
        raise TypeError(f"{layer}: norm_type must be a number, got {norm_type!r}")
    if norm_type == float("inf"):
        return max_pool_nd(
            input.abs(), kernel_size, stride, 0, 1, ceil_mode, dims=dims, layer=layer
        )
    if norm_type == -float("inf"):
        low = max_pool_nd(
            -input.abs(), kernel_size, stride, 0, 1, ceil_mode, dims=dims, layer=layer
        )
        return -low
    if norm_type == 0:  # (PyTorch fails dividing 1 by it: ZeroDivisionError)
        raise ValueError(f"{layer}: norm_type must be non-zero (the result is the sum ** (1/p))")
    count = int(np.prod(parse_ints(kernel_size, "kernel_size", dims, 1, layer)))

    def window_sum(x: Tensor) -> Tensor:  # (PyTorch's: the average, padding 0, times k)
        return avg_pool_nd(x, kernel_size, stride, 0, ceil_mode, dims=dims, layer=layer) * count

    total = window_sum(input.pow(norm_type))
    # (sign * relu(|s|) is s itself, but with gradient 0 at s = 0, as PyTorch's)
    out = (total.sign() * relu(total.abs())).pow(1.0 / norm_type)
    rule = {"p": norm_type, "window_sum": _on_arrays(window_sum)}
    rule["spread"] = _transposed(window_sum, input.shape, input.dtype)
    return mark(out, layer, ("x",), (input,), rule)


def _on_arrays(linear: Any) -> Any:
    """A function of tensors run on arrays, off the tape (a textbook rule's symbol)."""

    def run(a: np.ndarray) -> np.ndarray:
        with no_grad():
            return linear(Tensor(a)).numpy()

    return run


def _transposed(linear: Any, shape: tuple, dtype: Any) -> Any:
    """The transpose of a linear function of tensors of `shape`, on arrays: its vector-Jacobian
    product, the same at every point (a textbook rule's symbol; it keeps no activation alive)."""

    def run(h: np.ndarray) -> np.ndarray:
        with enable_grad():
            zero = Tensor(np.zeros(shape, dtype), requires_grad=True)
            (back,) = grad(linear(zero), zero, Tensor(np.asarray(h, dtype)))
        return back.numpy()

    return run


def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """Power-average pooling over each kH x kW window: (sum of x ** p) ** (1 / p).

    >>> F.lp_pool2d(tg.ones(1, 1, 4, 4), 1, 2)
    tensor([[[[4., 4.],
              [4., 4.]]]])
    """
    return lp_pool_nd(input, norm_type, kernel_size, stride, ceil_mode, dims=2, layer="lp_pool2d")


def lp_pool1d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """Power-average pooling over each window of k along the last axis of (N, C, L) or (C, L).

    >>> F.lp_pool1d(tg.tensor([[[3.0, 4.0]]]), 2, 2)
    tensor([[[5.]]])
    """
    return lp_pool_nd(input, norm_type, kernel_size, stride, ceil_mode, dims=1, layer="lp_pool1d")


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Max over each kD x kH x kW window of (N, C, D, H, W) or (C, D, H, W); indices flat over
    D*H*W.

    >>> F.max_pool3d(tg.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[7.]]]]])
    """
    args = (kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    return max_pool_nd(input, *args, dims=3, layer="max_pool3d")


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Mean over each kD x kH x kW window (PyTorch's divisor rules for padding and ceil_mode).

    >>> F.avg_pool3d(tg.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[3.5000]]]]])
    """
    args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return avg_pool_nd(input, *args, dims=3, layer="avg_pool3d")


def lp_pool3d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """Power-average pooling over each kD x kH x kW window: (sum of x ** p) ** (1 / p).

    >>> F.lp_pool3d(tg.ones(1, 1, 2, 2, 2), 1, 2)
    tensor([[[[[8.]]]]])
    """
    return lp_pool_nd(input, norm_type, kernel_size, stride, ceil_mode, dims=3, layer="lp_pool3d")
