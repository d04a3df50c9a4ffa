"""Normalisation over parts of each sample, as functions: group_norm, instance_norm (over each
sample's channels one by one, with optional running statistics), rms_norm and
local_response_norm. PyTorch's signatures and errors.

Layer L5: tapegrad ops (Tensor methods and operators, the normalize primitive and its moments;
batch_norm for instance_norm's running statistics), so every order of derivative follows.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..primitives.normalization import moments, normalize
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import tensor_argument
from .functional_norm import _update, batch_norm, check_layer_norm_input


def _per_channel(t: Tensor | None, name: str, channels: int, who: str) -> None:
    if t is not None and tuple(t.shape) != (channels,):
        raise ValueError(
            f"{who}: {name} has shape {t.shape} but the input has {channels} channels on axis 1; "
            f"it needs shape ({channels},)"
        )


def _grouped(input: Tensor, groups: int, eps: float) -> Tensor:
    """input (N, C, ...) normalised over each of `groups` consecutive blocks of channels of each
    sample (with their spatial positions), back in input's shape."""
    per_group = (
        math.prod(input.shape[1:]) // groups
    )  # (not -1: an empty batch has no size to infer)
    rows = input.reshape(input.shape[0], groups, per_group)
    if rows.shape[2]:
        out = normalize(rows, axes=(2,), eps=eps, stats=moments(rows.numpy(), (2,)))
    else:  # (nothing to normalise over: the composite's empty result)
        centered = rows - rows.sum(2, keepdims=True)
        out = centered / ((centered * centered).sum(2, keepdims=True) + eps).sqrt()
    return out.reshape(input.shape)


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    per_channel = (1, out.shape[1]) + (1,) * (out.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(per_channel)
    if bias is not None:
        out = out + bias.reshape(per_channel)
    return out


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Split the channels (axis 1) into num_groups groups and normalise each group of each sample:
    (x - mean) / sqrt(var + eps), then per channel * weight + bias.

    >>> F.group_norm(tg.tensor([[1.0, 3.0, 0.0, 4.0]]), 2)
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    x = tensor_argument(input, "group_norm")
    if x.ndim < 2:
        raise RuntimeError(
            f"group_norm: Expected at least 2 dimensions for input tensor but received {x.ndim}; "
            f"the input is (N, C, ...)"
        )
    channels = x.shape[1]
    if isinstance(num_groups, bool) or not isinstance(num_groups, (int, np.integer)):
        raise TypeError(f"group_norm: num_groups must be an int, got {num_groups!r}")
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            f"group_norm: Expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {list(x.shape)} and num_groups={num_groups}"
        )
    _per_channel(weight, "weight", channels, "group_norm")
    _per_channel(bias, "bias", channels, "group_norm")
    out = _affine(_grouped(x, int(num_groups), eps), weight, bias)
    params: dict[str, Any] = {"groups": int(num_groups), "eps": eps, "weight": weight is not None}
    params.update(bias=bias is not None, others=(0,) + tuple(range(2, x.ndim)))
    return mark(out, "group_norm", ("x", "w", "b"), (x, weight, bias), params)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample over its positions (input (N, C, ...)), then per
    channel * weight + bias. With use_input_stats, the running statistics, if given, move towards
    the batch's average of the per-sample ones (variance unbiased, as PyTorch); without, they are
    used instead.

    >>> F.instance_norm(tg.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
    """
    x = tensor_argument(input, "instance_norm")
    if x.ndim < 3:
        raise ValueError(
            f"instance_norm: expected input of shape (N, C, L, ...) with at least one spatial "
            f"axis, got shape {x.shape}"
        )
    channels, spatial = x.shape[1], math.prod(x.shape[2:])
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var")):
        _per_channel(t, name, channels, "instance_norm")
    _per_channel(weight, "weight", channels, "instance_norm")
    _per_channel(bias, "bias", channels, "instance_norm")
    if (running_mean is None) != (running_var is None):
        raise ValueError(
            "instance_norm: give both running_mean and running_var, or neither (input statistics)"
        )
    if not use_input_stats:
        if running_mean is None:
            raise ValueError(
                "instance_norm: use_input_stats=False needs running_mean and running_var"
            )
        return batch_norm(x, running_mean, running_var, weight, bias, False, momentum, eps)
    if spatial <= 1:
        raise ValueError(
            f"instance_norm: Expected more than 1 spatial element when training, got input size "
            f"{x.shape}"
        )
    out = _affine(_grouped(x, channels, eps), weight, bias)
    if running_mean is not None and running_var is not None and x.shape[0]:
        mean, var = moments(x.numpy(), tuple(range(2, x.ndim)))
        # (PyTorch's: the batch's average of each sample's mean and unbiased variance)
        _update(running_mean, mean.mean(0), momentum)
        _update(running_var, (var * (spatial / (spatial - 1))).mean(0), momentum)
    params: dict[str, Any] = {"groups": channels, "eps": eps, "weight": weight is not None}
    params.update(bias=bias is not None, others=(0,) + tuple(range(2, x.ndim)))
    return mark(out, "instance_norm", ("x", "w", "b"), (x, weight, bias), params)


def rms_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """x / sqrt(mean(x ** 2) + eps) * weight, the mean over the last len(normalized_shape) axes;
    eps None is the machine epsilon of x's dtype (as PyTorch).

    >>> F.rms_norm(tg.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    x = tensor_argument(input, "rms_norm")
    shape = check_layer_norm_input(x, normalized_shape, "rms_norm")
    if weight is not None and tuple(weight.shape) != shape:
        raise ValueError(
            f"rms_norm: weight has shape {weight.shape}, expected normalized_shape {shape}"
        )
    if eps is None:
        eps = float(np.finfo(x.dtype).eps) if x.dtype.kind == "f" else float(np.finfo(float).eps)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    out = x * ((x * x).mean(axes, keepdims=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    params = {"axes": axes, "others": tuple(range(x.ndim - len(shape))), "eps": eps}
    params.update(weight=weight is not None)
    return mark(out, "rms_norm", ("x", "w"), (x, weight), params)


def channel_window(channels: int, size: int, dtype: Any) -> np.ndarray:
    """(C, C): row c averages channels c - size // 2 .. c + (size - 1) // 2 (zeros past the ends
    count, as PyTorch's padded average)."""
    offsets = np.arange(channels)[None, :] - np.arange(channels)[:, None]
    return ((offsets >= -(size // 2)) & (offsets <= (size - 1) // 2)).astype(dtype) / size


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """x / (k + alpha * avg(x ** 2 over `size` neighbouring channels)) ** beta (AlexNet's
    normalisation across channels, axis 1).

    >>> F.local_response_norm(tg.ones(1, 3, 2), 2, alpha=1.0, k=0.0, beta=1.0)[0, :, 0]
    tensor([2., 1., 1.])
    """
    x = tensor_argument(input, "local_response_norm")
    if x.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {x.ndim} dimensions)")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
        raise ValueError(f"local_response_norm: size must be a positive int, got {size!r}")
    if x.numel() == 0:
        return x
    if x.dtype.kind != "f":  # (PyTorch rounds integer inputs its own way: refused, not guessed)
        raise TypeError(
            f"local_response_norm: the input must be floating point, got {x.dtype}; convert it "
            f"with .float()"
        )
    values = x
    window = channel_window(x.shape[1], int(size), values.dtype)
    # (the channel axis last, one product with the window's matrix, and back)
    squares = (values * values).movedim(1, -1)
    averaged = (squares @ Tensor(np.ascontiguousarray(window.T))).movedim(-1, 1)
    out = values / (averaged * alpha + k) ** beta
    params = {"size": int(size), "alpha": alpha, "beta": beta, "k": k}
    return mark(out, "local_response_norm", ("x",), (x,), params)
