"""Functional convolution and pooling: conv1d, conv2d, max/avg_pool1d/2d, adaptive_avg_pool2d.

Checks and normalises the arguments (PyTorch's rules and defaults; errors name the op or layer and
the shapes), then records one primitive of primitives/nn.py. 1-D ops run as 2-D ones over a unit H
axis; unbatched inputs get a unit batch axis. adaptive_avg_pool2d is two matmuls with averaging
matrices. Layer L5: imports tensor.py and the rule table (primitives/nn.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..primitives import nn as P
from ..primitives import pooling
from ..tape.composite import mark
from ..tensor import Tensor

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "max_pool1d",
    "max_pool2d",
]

_AXES = {1: "(N, C, L)", 2: "(N, C, H, W)"}
_UNBATCHED = {1: "(C, L)", 2: "(C, H, W)"}


def parse_ints(value: Any, name: str, dims: int, minimum: int, layer: str) -> tuple:
    """An int or a tuple of `dims` ints, each >= minimum, as a tuple (the helper the layers share).

    >>> parse_ints(3, "kernel_size", 2, 1, "conv2d")
    (3, 3)
    """
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
    if len(items) == 1:  # (one value for every axis: PyTorch takes (1,) for a 2-D op)
        items *= dims
    if len(items) != dims or not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
    ):
        raise TypeError(f"{layer}: {name} must be an int or a tuple of {dims} ints, got {value!r}")
    if any(v < minimum for v in items):
        what = "non-negative" if minimum == 0 else "positive"
        raise ValueError(f"{layer}: {name} must be {what}, got {value!r}")
    return tuple(int(v) for v in items)


def _check_input(input: Any, dims: int, layer: str) -> bool:
    """Whether input is batched; a clear error for a non-Tensor or a wrong number of axes."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{layer}: the input must be a tapegrad Tensor, got {type(input).__name__}")
    if input.ndim not in (dims + 1, dims + 2):
        raise ValueError(
            f"{layer}: expected a {dims + 1}-D {_UNBATCHED[dims]} unbatched or {dims + 2}-D "
            f"{_AXES[dims]} batched input, got shape {input.shape}"
        )
    return input.ndim == dims + 2


def _as_2d(t: Tensor, dims: int, batched: bool) -> Tensor:
    """t as (N, C, H, W): a unit batch axis if unbatched, a unit H axis for 1-D ops."""
    shape = t.shape if batched else (1,) + t.shape
    return t.reshape(shape[:2] + (1,) * (2 - dims) + shape[2:])


def _from_2d(t: Tensor, dims: int, batched: bool) -> Tensor:
    shape = t.shape[:2] + t.shape[4 - dims :]
    return t.reshape(shape if batched else shape[1:])


def _conv_padding(padding: Any, kernel: tuple, stride: tuple, dilation: tuple, layer: str) -> tuple:
    """(before, after) per spatial axis: from ints, or PyTorch's 'valid' / 'same' (an uneven total
    goes to the right / bottom, as PyTorch does)."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * len(kernel)
        if padding != "same":
            raise ValueError(
                f"{layer}: padding must be an int, a tuple of ints, 'valid' or 'same', "
                f"got {padding!r}"
            )
        if any(s != 1 for s in stride):
            raise ValueError(
                f"{layer}: padding='same' is not supported for strided convolutions "
                f"(stride={stride}); pad explicitly with an int or a tuple"
            )
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    return tuple((p, p) for p in parse_ints(padding, "padding", len(kernel), 0, layer))


def _four(pads: tuple) -> tuple:
    """((before, after), ...) for 1 or 2 axes as (top, bottom, left, right)."""
    return ((0, 0) + pads[0]) if len(pads) == 1 else pads[0] + pads[1]


def check_weight(weight: Any, groups: Any, dims: int, layout: str, layer: str) -> None:
    """A clear error unless weight is a (dims + 2)-D Tensor (`layout`, then the kernel's axes)
    and groups a positive int: the checks every convolution makes.

    >>> check_weight(tg.ones(4, 3, 5), 1, 1, "out_channels, in_channels/groups", "conv1d")
    """
    if not isinstance(weight, Tensor) or weight.ndim != dims + 2:
        raise ValueError(
            f"{layer}: weight must be a {dims + 2}-D Tensor ({layout}, "
            f"{'kernel' if dims == 1 else 'kH, kW'}), got "
            f"{weight.shape if isinstance(weight, Tensor) else type(weight).__name__}"
        )
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"{layer}: groups must be a positive int, got {groups!r}")


def check_bias(bias: Any, out_channels: int, layer: str) -> None:
    """A clear error unless bias is None or a Tensor of shape (out_channels,).

    >>> check_bias(tg.zeros(4), 4, "conv1d")
    """
    if bias is not None and (not isinstance(bias, Tensor) or bias.shape != (out_channels,)):
        got = bias.shape if isinstance(bias, Tensor) else type(bias).__name__
        raise ValueError(f"{layer}: bias must be a Tensor of shape ({out_channels},), got {got}")


def conv_nd(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
    *,
    dims: int,
    layer: str,
) -> Tensor:
    """conv1d / conv2d, checked and recorded as one conv2d primitive (`layer` names the caller in
    errors: the functional name or the layer's repr).

    >>> x, w = tg.ones(1, 1, 4, 4), tg.ones(1, 1, 3, 3)
    >>> conv_nd(x, w, None, 1, 0, 1, 1, dims=2, layer="conv2d").shape
    (1, 1, 2, 2)
    """
    batched = _check_input(input, dims, layer)
    check_weight(weight, groups, dims, "out_channels, in_channels/groups", layer)
    if input.dtype.kind not in "fiu" or weight.dtype != input.dtype:  # (integers too, as PyTorch)
        raise TypeError(
            f"{layer}: input and weight must have the same dtype (floating or integer), got "
            f"input {input.dtype} and weight {weight.dtype}; convert one with .to(dtype)"
        )
    out_channels, in_per_group = weight.shape[:2]
    channels = input.shape[1 if batched else 0]
    if out_channels % groups:
        raise ValueError(
            f"{layer}: weight of shape {weight.shape} has {out_channels} output channels, "
            f"not divisible by groups={groups}"
        )
    if channels != in_per_group * groups:
        raise ValueError(
            f"{layer}: weight of shape {weight.shape} with groups={groups} expects an input with "
            f"{in_per_group * groups} channels, got input of shape {input.shape} with {channels}"
        )
    check_bias(bias, out_channels, layer)
    if bias is not None and bias.dtype != input.dtype:
        raise TypeError(f"{layer}: bias has dtype {bias.dtype}, input and weight {input.dtype}")
    kernel = weight.shape[2:]
    stride = parse_ints(stride, "stride", dims, 1, layer)
    dilation = parse_ints(dilation, "dilation", dims, 1, layer)
    pads = _conv_padding(padding, kernel, stride, dilation, layer)
    sizes = input.shape[-dims:]
    padded = tuple(n + a + b for n, (a, b) in zip(sizes, pads))
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < e for p, e in zip(padded, extent)):
        raise ValueError(
            f"{layer}: the kernel is larger than the padded input: padded input size per channel "
            f"{' x '.join(map(str, padded))} (input shape {input.shape}), kernel size "
            f"{' x '.join(map(str, kernel))} spanning {' x '.join(map(str, extent))} with "
            f"dilation {dilation}; pad more, or use a smaller kernel or dilation"
        )
    one = (1,) * (2 - dims)
    x = _as_2d(input, dims, batched)
    w = weight.reshape(weight.shape[:2] + one + kernel)
    args = (x, w) if bias is None else (x, w, bias)
    out = P.conv2d(
        *args,
        stride=one + stride,
        padding=_four(pads),
        dilation=one + dilation,
        groups=int(groups),
    )
    if dims == 2 and batched:  # (one conv2d node: nothing to fold)
        return out
    return mark(
        _from_2d(out, dims, batched), f"conv{dims}d", ("x", "w", "b"), (input, weight, bias)
    )


def _wrapped(out: Tensor, name: str, input: Tensor, dims: int, batched: bool) -> Tensor:
    """A pooling's 2-D result given the input's layout back, marked as one call of `name`."""
    if dims == 2 and batched:  # (one node: nothing to fold)
        return out
    return mark(_from_2d(out, dims, batched), name, ("x",), (input,))


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D cross-correlation of input (N, C, H, W) or (C, H, W) with weight (O, C/groups, kH, kW).

    >>> F.conv2d(tg.ones(1, 3, 5, 5), tg.ones(8, 3, 3, 3), padding="same").shape
    (1, 8, 5, 5)
    """
    return conv_nd(input, weight, bias, stride, padding, dilation, groups, dims=2, layer="conv2d")


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D cross-correlation of input (N, C, L) or (C, L) with weight (O, C/groups, k).

    >>> F.conv1d(tg.ones(2, 3, 10), tg.ones(4, 3, 3), stride=2).shape
    (2, 4, 4)
    """
    return conv_nd(input, weight, bias, stride, padding, dilation, groups, dims=1, layer="conv1d")


# ---- pooling -------------------------------------------------------------------------------------


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
    layer: str,
    max_pool: bool,
) -> tuple:
    """Checked pooling arguments: (batched, kernel, stride, padding4, dilation, out_sizes), as the
    primitives take them (ceil_mode's extra rows in the bottom / right padding).

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
    one = (1,) * (2 - dims)
    pad4 = _four(tuple(zip(pads, afters)))
    return batched, one + kernel, one + stride, pad4, one + dilation, outs


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
    layer: str,
) -> Any:
    """max_pool1d / max_pool2d for the functional spellings and the layers (`layer` names the
    caller in errors).

    >>> max_pool_nd(tg.ones(1, 1, 4, 4), 2, dims=2, layer="max_pool2d").shape
    (1, 1, 2, 2)
    """
    batched, kernel, stride, pad4, dilation, _ = pool_geometry(
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
    x = _as_2d(input, dims, batched)
    params = dict(kernel_size=kernel, stride=stride, padding=pad4, dilation=dilation)
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
    layer: str,
) -> Tensor:
    """avg_pool1d / avg_pool2d for the functional spellings and the layers.

    >>> avg_pool_nd(tg.ones(1, 1, 4, 4), 2, dims=2, layer="avg_pool2d").shape
    (1, 1, 2, 2)
    """
    batched, kernel, stride, pad4, _, outs = pool_geometry(
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
    else:
        x2 = _as_2d(input, dims, batched)
        (h, w), (ho, wo) = x2.shape[2:], (1,) * (2 - dims) + outs
        full_h, real_h = _divisors(h, ho, kernel[0], stride[0], pad4[0])
        full_w, real_w = _divisors(w, wo, kernel[1], stride[1], pad4[2])
        rows, cols = (full_h, full_w) if count_include_pad else (real_h, real_w)
        divisor = np.multiply.outer(rows, cols).astype(input.dtype)
    out = pooling.avg_pool2d(
        _as_2d(input, dims, batched),
        kernel_size=kernel,
        stride=stride,
        padding=pad4,
        divisor=divisor,
    )
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


def adaptive_output_size(output_size: Any, sizes: tuple, layer: str) -> tuple:
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
