"""Transposed convolutions as functions: conv_transpose1d, 2d and 3d (PyTorch's signatures,
output sizes and errors).

A transposed convolution is the gradient of a convolution with respect to its input: with weight
(C_in, C_out / groups, *kernel), it is conv2d_input_grad of the convolution taking C_out channels
to C_in with that same weight, recorded as that one primitive (whose rules give every order of
derivative). 1-D runs as 2-D over a unit H axis; 3-D as a sum over the kernel's depth taps of 2-D
ones over the depth slices folded into the batch, spread along depth (as conv3d is composed);
unbatched inputs get a unit batch axis.

Layer L5: imports tensor.py, the rule table (primitives/nn.py) and functional_conv's helpers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..math import cat
from ..primitives import nn as P
from ..tape.composite import mark
from ..tensor import Tensor
from ..autograd import enable_grad, grad, no_grad
from .functional_conv import _as_2d, _check_input, _from_2d, check_bias, check_weight, conv_nd
from .functional_conv import parse_ints


def output_geometry(
    sizes: tuple,
    kernel: tuple,
    stride: tuple,
    padding: tuple,
    output_padding: tuple,
    dilation: tuple,
    layer: object,
) -> tuple:
    """The output's spatial sizes, (n - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1 per axis, after PyTorch's checks."""
    if any(p >= s and p >= d for p, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")[3 - len(sizes) :]
        told = " ".join(
            f"{what}_{n}: {v}"
            for what, values in (
                ("output_padding", output_padding),
                ("stride", stride),
                ("dilation", dilation),
            )
            for n, v in zip(names, values)
        )
        raise RuntimeError(
            f"{layer}: output padding must be smaller than either stride or dilation, but got "
            f"{told}"
        )
    out = tuple(
        (n - 1) * s - 2 * p + d * (k - 1) + op + 1
        for n, k, s, p, op, d in zip(sizes, kernel, stride, padding, output_padding, dilation)
    )
    if any(o <= 0 for o in out):
        raise RuntimeError(
            f"{layer}: Given input size per channel: ({' x '.join(map(str, sizes))}). Calculated "
            f"output size per channel: ({' x '.join(map(str, out))}). Output size is too small"
        )
    return out


def conv_transpose_nd(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
    *,
    dims: int,
    layer: object,
) -> Tensor:
    """conv_transpose1d / 2d, checked and recorded as conv2d_input_grad (+ bias); `layer` names
    the caller in errors.

    >>> conv_transpose_nd(tg.ones(1, 1, 2, 2), tg.ones(1, 1, 2, 2), None, 2, 0, 0, 1, 1,
    ...                   dims=2, layer="conv_transpose2d").shape
    (1, 1, 4, 4)
    """
    batched = _check_input(input, dims, layer)
    check_weight(weight, groups, dims, "in_channels, out_channels/groups", layer)
    if input.dtype.kind != "f" or weight.dtype != input.dtype:
        raise TypeError(
            f"{layer}: input and weight must have the same floating dtype, got input "
            f"{input.dtype} and weight {weight.dtype}; convert one with .to(dtype)"
        )
    in_channels, out_per_group = weight.shape[:2]
    channels = input.shape[1 if batched else 0]
    if channels != in_channels:
        raise RuntimeError(
            f"{layer}: Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {in_channels} channels, but got {channels} channels "
            f"instead"
        )
    if in_channels % groups:
        raise ValueError(
            f"{layer}: weight of shape {weight.shape} has {in_channels} input channels, not "
            f"divisible by groups={groups}"
        )
    out_channels = out_per_group * groups
    check_bias(bias, out_channels, layer)
    if bias is not None and bias.dtype != input.dtype:  # (PyTorch adds it in the input's dtype)
        bias = bias.to(input.dtype)
    kernel = weight.shape[2:]
    stride = parse_ints(stride, "stride", dims, 1, layer)
    pads = parse_ints(padding, "padding", dims, 0, layer)
    extra = parse_ints(output_padding, "output_padding", dims, 0, layer)
    dilation = parse_ints(dilation, "dilation", dims, 1, layer)
    sizes = output_geometry(input.shape[-dims:], kernel, stride, pads, extra, dilation, layer)
    if dims == 3:
        x = input if batched else input.unsqueeze(0)
        out = _volume(x, weight, stride, pads, extra, dilation, int(groups), sizes)
        if bias is not None:
            out = out + bias.reshape(1, out_channels, 1, 1, 1)
        out = out if batched else out.squeeze(0)
        rule = _volume_rule(weight.shape, stride, pads, dilation, int(groups))
        return mark(out, "conv_transpose3d", ("x", "w", "b"), (input, weight, bias), rule)
    one, zero = (1,) * (2 - dims), (0,) * (2 - dims)  # (a unit H axis for 1-D)
    x = _as_2d(input, dims, batched)
    w = weight.reshape(weight.shape[:2] + one + kernel)
    geometry = (one + stride, zero + pads, zero + extra, one + dilation, int(groups))
    out, params = _planar(x, w, *geometry, one + sizes)
    if bias is not None:
        out = out + bias.reshape(1, out_channels, 1, 1)
    params = {**params, "dims": dims, "shapes": (x.shape, params["shapes"], out.shape)}
    return mark(
        _from_2d(out, dims, batched),
        f"conv_transpose{dims}d",
        ("x", "w", "b"),
        (input, weight, bias),
        params,
    )


def _planar(
    x: Tensor,
    w: Tensor,
    stride: tuple,
    pads: tuple,
    extra: tuple,
    dilation: tuple,
    groups: int,
    sizes: tuple,
) -> tuple:
    """A 2-D transposed convolution without bias as the conv2d_input_grad primitive (and zeros
    past its reach): (out, the primitive's geometry with the shape it made as "shapes")."""
    # The convolution this one is the input gradient of (C_out -> C_in channels) reads an input
    # of the output's size padded by `padding` before and `padding - output_padding` after, so
    # that its output is exactly x's size; where output_padding exceeds padding, the rows and
    # columns past the padding are beyond every window's reach: zeros, appended after.
    beyond = tuple(max(0, op - p) for op, p in zip(extra, pads))
    inner = tuple(n - b for n, b in zip(sizes, beyond))
    after = tuple(max(0, p - op) for op, p in zip(extra, pads))
    four = (pads[0], after[0], pads[1], after[1])
    geometry: dict = {"stride": stride, "padding": four, "dilation": dilation, "groups": groups}
    out_channels = w.shape[1] * groups
    out = P.conv2d_input_grad(x, w, input_shape=(x.shape[0], out_channels) + inner, **geometry)
    inner_shape = out.shape
    for axis, n in zip((2, 3), beyond):
        if n:
            zeros = np.zeros(out.shape[:axis] + (n,) + out.shape[axis + 1 :], out.dtype)
            out = cat([out, Tensor(zeros)], axis)
    return out, {**geometry, "shapes": inner_shape}


def _volume(
    x: Tensor,
    weight: Tensor,
    stride: tuple,
    pads: tuple,
    extra: tuple,
    dilation: tuple,
    groups: int,
    sizes: tuple,
) -> Tensor:
    """A batched 3-D transposed convolution without bias as 2-D ones: per kernel depth tap, every
    input depth slice (folded into the batch) transposed-convolved over (H, W), then spread along
    depth (input slice i lands at i * stride + tap * dilation - padding) and the taps summed."""
    n, _, depth = x.shape[:3]
    flat = x.transpose(1, 2).reshape(n * depth, x.shape[1], *x.shape[3:])
    plane = (stride[1:], pads[1:], extra[1:], dilation[1:], groups)
    (sd, dd, pd), out_depth = (stride[0], dilation[0], pads[0]), sizes[0]
    terms = []
    for k in range(weight.shape[2]):
        y, _ = _planar(flat, weight[:, :, k], *plane, sizes[1:])
        y = y.reshape(n, depth, *y.shape[1:]).transpose(1, 2)  # (N, C_out, depth, H_out, W_out)
        if sd > 1:  # (stride - 1 zero slices after each)
            gaps = Tensor(np.zeros((*y.shape[:3], sd - 1, *y.shape[3:]), y.dtype))
            y = cat([y.unsqueeze(3), gaps], 3).reshape(*y.shape[:2], depth * sd, *y.shape[3:])
            y = y[:, :, : (depth - 1) * sd + 1]
        # (slice j of y lands at output depth j + k * dilation - padding: cut or pad to fit)
        shift = k * dd - pd
        y = y[:, :, max(0, -shift) : max(0, -shift) + out_depth - max(0, shift)]
        before, after = max(0, shift), out_depth - max(0, shift) - y.shape[2]
        parts = [y]
        if before:
            parts.insert(0, Tensor(np.zeros((*y.shape[:2], before, *y.shape[3:]), y.dtype)))
        if after:
            parts.append(Tensor(np.zeros((*y.shape[:2], after, *y.shape[3:]), y.dtype)))
        terms.append(cat(parts, 2) if len(parts) > 1 else y)
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _volume_rule(w_shape: tuple, stride: tuple, pads: tuple, dilation: tuple, groups: int) -> dict:
    """The textbook rule's symbols, on arrays: conv3d with the call's geometry (the transpose's
    adjoint) and its weight gradient (run off the tape only when a rule is shown or checked)."""
    geometry, name = (stride, pads, dilation, groups), "conv_transpose3d"

    def conv3d(g: np.ndarray, w: np.ndarray) -> np.ndarray:
        five = np.reshape(g, (-1,) + np.shape(g)[-4:])
        with no_grad():
            dx = conv_nd(Tensor(five), Tensor(w), None, *geometry, dims=3, layer=name)
        return dx.numpy()

    def conv3d_weight_grad(g: np.ndarray, x: np.ndarray) -> np.ndarray:
        # (<x, conv3d(g, w)> = <conv_transpose3d(x, w), g>: the same gradient with respect to w)
        five = np.reshape(g, (-1,) + np.shape(g)[-4:])
        w = Tensor(np.zeros(w_shape, five.dtype), requires_grad=True)
        with enable_grad():
            out = conv_nd(Tensor(five), w, None, *geometry, dims=3, layer=name)
            (dw,) = grad(out, w, Tensor(np.reshape(x, out.shape)))
        return dw.numpy()

    return {"conv3d": conv3d, "conv3d_weight_grad": conv3d_weight_grad}


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """2-D transposed convolution of input (N, C_in, H, W) or (C_in, H, W) with weight (C_in,
    C_out/groups, kH, kW): the gradient of conv2d with respect to its input.

    >>> F.conv_transpose2d(tg.ones(1, 3, 4, 4), tg.ones(3, 8, 3, 3), stride=2).shape
    (1, 8, 9, 9)
    """
    return conv_transpose_nd(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        dims=2,
        layer="conv_transpose2d",
    )


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-D transposed convolution of input (N, C_in, L) or (C_in, L) with weight (C_in,
    C_out/groups, k).

    >>> F.conv_transpose1d(tg.ones(2, 3, 5), tg.ones(3, 4, 3), stride=2).shape
    (2, 4, 11)
    """
    return conv_transpose_nd(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        dims=1,
        layer="conv_transpose1d",
    )


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-D transposed convolution of (N, C_in, D, H, W) or (C_in, D, H, W) with weight (C_in,
    C_out/groups, kD, kH, kW): the gradient of conv3d with respect to its input.

    >>> F.conv_transpose3d(tg.ones(1, 2, 3, 3, 3), tg.ones(2, 4, 2, 2, 2), stride=2).shape
    (1, 4, 6, 6, 6)
    """
    return conv_transpose_nd(
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
        dims=3,
        layer="conv_transpose3d",
    )
