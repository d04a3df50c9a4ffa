"""PyTorch's top-level spellings of nn.functional's functions (`torch.dropout(x, p, train)`,
`torch.layer_norm`, `torch.conv2d`, `torch.kl_div(x, t, 1)`, `torch.max_pool1d_with_indices`,
...): each an alias of the F function, or a thin adapter taking ATen's arguments (their order,
required positionals, `reduction` as ATen's integer: 0 none, 1 mean, 2 sum, `cudnn_enabled`) and
calling it. No formula is written twice: the gradients are the F functions'. The losses, whose
`reduction` is ATen's integer, are in loss_spellings.py.

Layer L5: imports nn.functional and tg.linalg.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from . import linalg
from .nn import functional as F
from .nn.functional_arguments import tensor_argument
from .nn.functional_dropout import _feature_dropout
from .tensor import Tensor
from .tensor.coerce import as_tensor

__all__ = [
    # dropout
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
    "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
    # convolution, embedding, normalization
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "embedding", "layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm",
    # pooling and shuffles
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "native_channel_shuffle", "constant_pad_nd",
    # distances
    "cosine_similarity", "pairwise_distance", "pdist",
    # activations
    "selu", "selu_", "celu", "celu_", "prelu", "rrelu", "rrelu_", "hardshrink", "threshold",
    "threshold_",
    # products and norms
    "bilinear", "chain_matmul", "nuclear_norm", "frobenius_norm",
]  # fmt: skip

# the same functions, the same arguments
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
rms_norm, avg_pool1d, adaptive_avg_pool1d = F.rms_norm, F.avg_pool1d, F.adaptive_avg_pool1d
pixel_shuffle, pixel_unshuffle = F.pixel_shuffle, F.pixel_unshuffle
channel_shuffle = native_channel_shuffle = F.channel_shuffle
cosine_similarity, pairwise_distance, pdist = F.cosine_similarity, F.pairwise_distance, F.pdist
prelu, hardshrink, threshold_, bilinear = F.prelu, F.hardshrink, F.threshold_, F.bilinear


# ---- dropout (train is a required positional: ATen's spelling) ----------------------------------
def _aten_probability(p: Any) -> float:
    """p checked as ATen checks it (a RuntimeError; F's check raises ValueError)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """F.dropout with ATen's arguments: `train` required.

    >>> tg.dropout(tg.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, _aten_probability(p), train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """dropout in place.

    >>> tg.dropout_(tg.ones(3), 0.0, True)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, _aten_probability(p), train, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """F.alpha_dropout with ATen's arguments: `train` required.

    >>> tg.alpha_dropout(tg.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.alpha_dropout(input, _aten_probability(p), train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """alpha_dropout in place.

    >>> tg.alpha_dropout_(tg.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.alpha_dropout(input, _aten_probability(p), train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """F.feature_alpha_dropout with ATen's arguments: `train` required.

    >>> tg.feature_alpha_dropout(tg.ones(2, 3), 0.5, False).shape
    (2, 3)
    """
    return F.feature_alpha_dropout(input, _aten_probability(p), train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """feature_alpha_dropout in place.

    >>> tg.feature_alpha_dropout_(tg.ones(2, 3), 0.5, False).shape
    (2, 3)
    """
    return F.feature_alpha_dropout(input, _aten_probability(p), train, inplace=True)


def _feature(input: Tensor, p: float, train: bool, inplace: bool, name: str) -> Tensor:
    x, p = tensor_argument(input, name), _aten_probability(p)
    if train and p != 0.0 and x.numel() != 0 and x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _feature_dropout(x, p, train, inplace, max(x.ndim - 2, 0), name)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Channel dropout of an (N, C, *) input (any number of trailing axes): whole channels zeroed
    with probability p, the rest scaled by 1/(1-p), as F.dropout2d's.

    >>> tg.feature_dropout(tg.ones(2, 3, 4), 0.5, False).shape
    (2, 3, 4)
    """
    return _feature(input, p, train, False, "feature_dropout")


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """feature_dropout in place.

    >>> tg.feature_dropout_(tg.ones(2, 3, 4), 0.5, False).shape
    (2, 3, 4)
    """
    return _feature(input, p, train, True, "feature_dropout_")


# ---- embedding and normalization ---------------------------------------------------------------
def embedding(
    weight: Tensor,
    indices: Any,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """F.embedding with ATen's arguments: the weight first, padding_idx -1 for none.

    >>> tg.embedding(tg.eye(3), tg.tensor([2, 0]))
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
    cudnn_enable: bool = True,
) -> Tensor:
    """F.layer_norm with ATen's trailing `cudnn_enable` (no effect on the CPU).

    >>> tg.layer_norm(tg.tensor([[1.0, 3.0]]), [2])
    tensor([[-1.0000,  1.0000]])
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """F.batch_norm with ATen's arguments: weight and bias first, all nine required.

    >>> tg.batch_norm(tg.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
    cudnn_enabled: bool = True,
) -> Tensor:
    """F.group_norm with ATen's trailing `cudnn_enabled` (no effect on the CPU).

    >>> tg.group_norm(tg.ones(2, 4, 3), 2).shape
    (2, 4, 3)
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """F.instance_norm with ATen's arguments: weight and bias first, all nine required.

    >>> tg.instance_norm(tg.ones(2, 3, 4), None, None, None, None, True, 0.1, 1e-5, False).shape
    (2, 3, 4)
    """
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


# ---- pooling -----------------------------------------------------------------------------------
def _stride(stride: Any) -> Any:
    """ATen's empty stride (its default) means the kernel size: F's None."""
    return None if stride is None or (isinstance(stride, Sequence) and len(stride) == 0) else stride


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """F.max_pool1d without return_indices (ATen's; see max_pool1d_with_indices).

    >>> tg.max_pool1d(tg.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """F.max_pool2d without return_indices (ATen's).

    >>> tg.max_pool2d(tg.ones(1, 4, 4), 2).shape
    (1, 2, 2)
    """
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """F.max_pool3d without return_indices (ATen's).

    >>> tg.max_pool3d(tg.ones(1, 2, 2, 2), 2).shape
    (1, 1, 1, 1)
    """
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    """max_pool1d's values and the int64 indices of the maxima (a plain tuple, as ATen's).

    >>> tg.max_pool1d_with_indices(tg.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[1]
    tensor([[1, 2]])
    """
    out = F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)
    return tuple(out)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """F.adaptive_max_pool1d's values and indices, always both (a plain tuple, as ATen's).

    >>> tg.adaptive_max_pool1d(tg.tensor([[1.0, 3.0, 2.0, 0.0]]), 1)[0]
    tensor([[3.]])
    """
    return tuple(F.adaptive_max_pool1d(input, output_size, return_indices=True))


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    """F.pad in constant mode (pad: (before, after) pairs from the last axis).

    >>> tg.constant_pad_nd(tg.ones(2), [1, 0], 5.0)
    tensor([5., 1., 1.])
    """
    return F.pad(input, pad, "constant", value)


# ---- activations -------------------------------------------------------------------------------
def selu(input: Tensor) -> Tensor:
    """F.selu.

    >>> tg.selu(tg.zeros(2))
    tensor([0., 0.])
    """
    return F.selu(input)


def selu_(input: Tensor) -> Tensor:
    """selu in place.

    >>> tg.selu_(tg.zeros(2))
    tensor([0., 0.])
    """
    return F.selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """F.celu.

    >>> tg.celu(tg.zeros(2))
    tensor([0., 0.])
    """
    return F.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """celu in place.

    >>> tg.celu_(tg.zeros(2))
    tensor([0., 0.])
    """
    return F.celu(input, alpha, inplace=True)


def _no_generator(generator: Any, who: str) -> None:
    if generator is not None:
        raise ValueError(
            f"{who}: generator= is not supported; tapegrad's rrelu draws from the default "
            f"generator (seed it with tg.manual_seed) - leave generator out"
        )


def rrelu(
    input: Tensor,
    lower: float = 0.125,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """F.rrelu (the slopes drawn from the default generator while training).

    >>> tg.rrelu(tg.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    _no_generator(generator, "rrelu")
    return F.rrelu(input, lower, upper, training)


def rrelu_(
    input: Tensor,
    lower: float = 0.125,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """rrelu in place.

    >>> tg.rrelu_(tg.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    _no_generator(generator, "rrelu_")
    return F.rrelu(input, lower, upper, training, inplace=True)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """F.threshold: x where x > threshold, else value.

    >>> tg.threshold(tg.tensor([0.5, 2.0]), 1.0, 0.0)
    tensor([0., 2.])
    """
    return F.threshold(input, threshold, value)


# ---- products and norms ------------------------------------------------------------------------
def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of 2-D matrices (deprecated in PyTorch, which warns: tg.linalg.multi_dot).

    >>> tg.chain_matmul(tg.eye(2), tg.ones(2, 2)).shape
    (2, 2)
    """
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.",
        UserWarning,
        stacklevel=2,
    )
    if out is not None:
        raise TypeError("chain_matmul: out= is not supported; assign the result instead")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        m = as_tensor(matrices[0])
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
        return m.clone()
    return linalg.multi_dot(matrices)


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum of singular values over the last two axes (or `dim`); deprecated in PyTorch:
    tg.linalg.matrix_norm(A, 'nuc'). `nuclear_norm(A, True)` is keepdim, as ATen's overload.

    >>> tg.nuclear_norm(tg.eye(2))
    tensor(2.)
    """
    warnings.warn(
        "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
        "keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    axes = (-2, -1) if dim is None else tuple(dim)
    return linalg.matrix_norm(input, "nuc", axes, keepdim)


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """sqrt of the sum of squares over `dim` (at most two axes); deprecated in PyTorch:
    tg.linalg.vector_norm(A, 2, dim).

    >>> tg.frobenius_norm(tg.ones(2, 2), (0, 1))
    tensor(2.)
    """
    warnings.warn(
        "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be "
        "removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
        "keepdim)` instead",
        UserWarning,
        stacklevel=2,
    )
    axes = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(axes) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(axes)} dimensions instead."
        )
    return linalg.vector_norm(input, 2, axes, keepdim)
