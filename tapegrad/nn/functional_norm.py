"""Normalisation as functions: batch_norm (with its running statistics) and layer_norm, plus the
input checks their layers share (so an error names the layer, e.g. BatchNorm2d, and the shapes).

Layer L5: tapegrad ops (Tensor methods and operators, the normalize primitive and the moments it
takes; tg.no_grad for the running statistics, updated in place off the tape, as PyTorch's).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..autograd import no_grad
from ..primitives.normalization import affine_normalize, moments, normalize
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import tensor_argument


def check_batch_norm_input(
    input: Any, num_features: int | None, training: bool, who: str = "batch_norm"
) -> None:
    """Raise a clear error if `input` cannot be batch-normalised over num_features channels (axis
    1), or, in training, has only one value per channel (its variance is undefined)."""
    tensor_argument(input, who)
    if input.ndim < 2:
        raise ValueError(
            f"{who}: expected input of shape (N, C, ...) with channels on axis 1, got shape "
            f"{input.shape}; add a batch axis (x.unsqueeze(0)) for a single sample"
        )
    if num_features is not None and input.shape[1] != num_features:
        raise RuntimeError(
            f"{who}: expected {num_features} channels (num_features) on axis 1, got input of shape "
            f"{input.shape} with {input.shape[1]}; build the layer with num_features="
            f"{input.shape[1]} or fix the input"
        )
    if training and input.shape[0] * math.prod(input.shape[2:]) == 1:
        raise ValueError(
            f"{who}: Expected more than 1 value per channel when training, got input size "
            f"{input.shape}; use a batch of 2 or more samples, or eval() mode (running statistics)"
        )


def _channels(t: Tensor | None, name: str, channels: int, who: str) -> None:
    if t is not None and tuple(t.shape) != (channels,):
        raise RuntimeError(
            f"{who}: {name} has shape {t.shape} but the input has {channels} channels on axis 1; "
            f"it needs shape ({channels},)"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (axis 1). In training, mean and
    (biased) var are the batch's, and the running statistics, if given, move towards the batch's
    by `momentum` (running_var towards the unbiased variance, as PyTorch); otherwise the running
    statistics are used.

    >>> F.batch_norm(tg.tensor([[1.0], [3.0]]), None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    if isinstance(input, Tensor) and input.shape == (0,):  # (PyTorch's one 1-D case: an empty
        return input * 1.0  # input, no channels, an empty output)
    check_batch_norm_input(input, None, training)
    channels = input.shape[1]
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var")):
        _channels(t, name, channels, "batch_norm")
    _channels(weight, "weight", channels, "batch_norm")
    _channels(bias, "bias", channels, "batch_norm")
    if (running_mean is None) != (running_var is None):
        raise ValueError(
            "batch_norm: give both running_mean and running_var, or neither (batch statistics)"
        )
    if eps < 0 or training and eps == 0:
        raise ValueError(
            f"batch_norm: eps must be positive (it keeps 1/sqrt(var + eps) finite), got {eps}"
        )
    axes = (0,) + tuple(range(2, input.ndim))
    per_channel = (1, channels) + (1,) * (input.ndim - 2)
    n = input.shape[0] * math.prod(input.shape[2:])  # values per channel

    def average(t: Tensor) -> Tensor:  # an empty batch: 0 rather than 0/0 (its output is empty)
        return t.mean(axes, keepdims=True) if n else t.sum(axes, keepdims=True)

    running = not training and running_mean is not None and running_var is not None
    if running and running_mean is not None and running_var is not None:
        centered = input - running_mean.reshape(per_channel)
        out = centered / (running_var.reshape(per_channel) + eps).sqrt()
    elif n:  # the batch's statistics (one primitive: its backward is a third of the composite's)
        mean, var = moments(input.numpy(), axes)
        if weight is not None and bias is not None:  # (with the affine: one node, not three)
            shaped = [t if input.ndim == 2 else t.reshape(per_channel) for t in (weight, bias)]
            out = affine_normalize(input, *shaped, axes=axes, eps=eps, stats=(mean, var))
        else:
            out = normalize(input, axes=axes, eps=eps, stats=(mean, var))
        if training and running_mean is not None and running_var is not None:
            _update(running_mean, mean, momentum)
            _update(running_var, var * (n / (n - 1)), momentum)  # unbiased, as PyTorch
    else:  # an empty batch: no statistics (the running ones stay, as PyTorch), an empty output
        centered = input - average(input)
        out = centered / (average(centered * centered) + eps).sqrt()
    fused = n and not running and weight is not None and bias is not None  # (affine applied)
    if weight is not None and not fused:  # (channels last, as in (N, C): they broadcast as is)
        out = out * (weight if input.ndim == 2 else weight.reshape(per_channel))
    if bias is not None and not fused:
        out = out + (bias if input.ndim == 2 else bias.reshape(per_channel))
    params = {"axes": axes, "others": axes, "channel_axis": 1, "eps": eps, "running": running}
    params.update(weight=weight is not None, bias=bias is not None)
    labels = ("x", "w", "b", "running_mean", "running_var")
    stats: tuple = (None, None)
    if running and running_mean is not None and running_var is not None:
        # (copies: the buffers change in place at the next training step)
        stats = (running_mean.numpy().copy(), running_var.numpy().copy())
    return mark(out, "batch_norm", labels, (input, weight, bias, *stats), params)


def _update(running: Tensor, batch: np.ndarray, momentum: float) -> None:
    """running <- (1 - momentum) * running + momentum * batch, in place and off the tape."""
    with no_grad():
        running.mul_(1.0 - momentum).add_(batch.reshape(running.shape) * momentum)


def normalized_shape_tuple(normalized_shape: int | Sequence[int]) -> tuple[int, ...]:
    """PyTorch's normalized_shape (an int or a sequence of ints) as a tuple of ints.

    >>> normalized_shape_tuple(3), normalized_shape_tuple([2, 3])
    ((3,), (2, 3))
    """
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(int(n) for n in normalized_shape)


def check_layer_norm_input(
    input: Any, normalized_shape: int | Sequence[int], who: str = "layer_norm"
) -> tuple:
    """The normalized shape as a tuple, after checking that input's shape ends with it."""
    tensor_argument(input, who)
    shape = normalized_shape_tuple(normalized_shape)
    k = len(shape)
    if input.ndim < k or tuple(input.shape[input.ndim - k :]) != shape:
        star = ", ".join(["*"] + [str(n) for n in shape])
        raise ValueError(
            f"{who}: Given normalized_shape={list(shape)}, expected input with shape [{star}], "
            f"but got input of shape {input.shape}; the last {k} dimension(s) must match"
        )
    return shape


def layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias, with mean and (biased) var over the last
    len(normalized_shape) dimensions of each sample.

    >>> F.layer_norm(tg.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    shape = check_layer_norm_input(input, normalized_shape)
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != shape:
            raise ValueError(
                f"layer_norm: {name} has shape {t.shape}, expected normalized_shape {shape}"
            )
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    if math.prod(shape):
        out = normalize(input, axes=axes, eps=eps, stats=moments(input.numpy(), axes))
    else:  # (nothing to normalize over: the composite's empty result)
        centered = input - input.mean(axes, keepdims=True)
        out = centered / ((centered * centered).mean(axes, keepdims=True) + eps).sqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    params = {"axes": axes, "others": tuple(range(input.ndim - len(shape))), "eps": eps}
    params.update(weight=weight is not None, bias=bias is not None)
    return mark(out, "layer_norm", ("x", "w", "b"), (input, weight, bias), params)
