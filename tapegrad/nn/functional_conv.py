"""Functional convolution: conv1d, conv2d, conv3d, and the argument checks conv-shaped ops share.

Checks and normalises the arguments (PyTorch's rules and defaults; errors name the op or layer and
the shapes), then records one primitive of primitives/nn.py. 1-D ops run as 2-D ones over a unit H
axis; 3-D ones as a sum over the kernel's depth of 2-D ones over depth slices folded into the
batch; unbatched inputs get a unit batch axis (the pools of functional_pooling.py do the same).
Layer L5: imports tensor.py and the rule table (primitives/nn.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..math import cat
from ..primitives import nn as P
from ..tape.composite import mark
from ..tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d"]

_AXES = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}
_UNBATCHED = {1: "(C, L)", 2: "(C, H, W)", 3: "(C, D, H, W)"}


def parse_ints(value: Any, name: str, dims: int, minimum: int, layer: object) -> tuple:
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


def _check_input(input: Any, dims: int, layer: object) -> bool:
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


def _conv_padding(
    padding: Any, kernel: tuple, stride: tuple, dilation: tuple, layer: object
) -> tuple:
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


def check_weight(weight: Any, groups: Any, dims: int, layout: str, layer: object) -> None:
    """A clear error unless weight is a (dims + 2)-D Tensor (`layout`, then the kernel's axes)
    and groups a positive int: the checks every convolution makes.

    >>> check_weight(tg.ones(4, 3, 5), 1, 1, "out_channels, in_channels/groups", "conv1d")
    """
    if not isinstance(weight, Tensor) or weight.ndim != dims + 2:
        raise ValueError(
            f"{layer}: weight must be a {dims + 2}-D Tensor ({layout}, "
            f"{['kernel', 'kH, kW', 'kD, kH, kW'][dims - 1]}), got "
            f"{weight.shape if isinstance(weight, Tensor) else type(weight).__name__}"
        )
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"{layer}: groups must be a positive int, got {groups!r}")


def check_bias(bias: Any, out_channels: int, layer: object) -> None:
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
    layer: object,
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
        raise RuntimeError(
            f"{layer}: weight of shape {weight.shape} has {out_channels} output channels, "
            f"not divisible by groups={groups}"
        )
    if channels != in_per_group * groups:
        raise RuntimeError(
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
        raise RuntimeError(
            f"{layer}: the kernel is larger than the padded input: padded input size per channel "
            f"{' x '.join(map(str, padded))} (input shape {input.shape}), kernel size "
            f"{' x '.join(map(str, kernel))} spanning {' x '.join(map(str, extent))} with "
            f"dilation {dilation}; pad more, or use a smaller kernel or dilation"
        )
    if dims == 3:
        x = input if batched else input.unsqueeze(0)
        out = _conv3d(x, weight, bias, stride, pads, dilation, int(groups))
        out = out if batched else out.squeeze(0)
        return mark(out, "conv3d", ("x", "w", "b"), (input, weight, bias))
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


def _conv3d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    groups: int,
) -> Tensor:
    """A batched 3-D convolution as conv2d primitives: per kernel depth tap, the depth slices it
    reads (every stride-th) folded into the batch and convolved over (H, W); the taps summed."""
    (front, back), (sd, dd) = pads[0], (stride[0], dilation[0])
    if front or back:  # (zeros along depth; H and W are padded by conv2d itself)
        zeros = [Tensor(np.zeros((*x.shape[:2], m, *x.shape[3:]), x.dtype)) for m in (front, back)]
        x = cat([zeros[0], x, zeros[1]], 2)
    n, c, depth = x.shape[:3]
    out_depth = (depth - dd * (weight.shape[2] - 1) - 1) // sd + 1
    terms = []
    for k in range(weight.shape[2]):
        part = x[:, :, k * dd : k * dd + (out_depth - 1) * sd + 1 : sd]
        flat = part.transpose(1, 2).reshape(n * out_depth, c, *x.shape[3:])
        terms.append(
            P.conv2d(
                flat,
                weight[:, :, k],
                stride=stride[1:],
                padding=_four(pads[1:]),
                dilation=dilation[1:],
                groups=groups,
            )
        )
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    out = total.reshape(n, out_depth, *total.shape[1:]).transpose(1, 2)
    return out if bias is None else out + bias.reshape(-1, 1, 1, 1)


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


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D cross-correlation of (N, C, D, H, W) or (C, D, H, W) with weight (O, C/groups, kD, kH,
    kW).

    >>> F.conv3d(tg.ones(1, 2, 3, 4, 4), tg.ones(5, 2, 2, 3, 3)).shape
    (1, 5, 2, 2, 2)
    """
    return conv_nd(input, weight, bias, stride, padding, dilation, groups, dims=3, layer="conv3d")
