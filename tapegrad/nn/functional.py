"""tg.nn.functional: PyTorch's `F.` spellings. Normalize and pad live here; linear layers, dropout,
multi-head attention, activations, convolutions and pooling, normalisations, lookups, losses and
distances in functional_linear, functional_dropout, functional_multihead, functional_activation,
functional_piecewise, functional_conv, functional_pooling, functional_norm, functional_sparse,
functional_loss, functional_margin, functional_likelihood and functional_distance, and are
re-exported here under PyTorch's names.

Layer L5: tapegrad ops only (Tensor methods and operators, tapegrad.math, autograd.Function), so
every function is recorded and differentiable to any order. The nn layers call these: the math of
each layer lives here once.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..math import cat, sigmoid, tanh
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_activation import (
    celu,
    elu,
    gelu,
    glu,
    leaky_relu,
    log_softmax,
    logsigmoid,
    mish,
    relu,
    selu,
    softmax,
    softmin,
    softplus,
    softsign,
    silu,
    tanhshrink,
)
from .functional_activation import celu_ as celu_, elu_ as elu_, leaky_relu_ as leaky_relu_
from .functional_activation import relu_ as relu_, selu_ as selu_  # (the in-place forms: public,
from .functional_piecewise import hardtanh_ as hardtanh_, rrelu_ as rrelu_  # outside __all__, whose
from .functional_piecewise import threshold_ as threshold_  # names each have a formula)
from .functional_arguments import tensor_argument
from .functional_attention import scaled_dot_product_attention
from .functional_dropout import dropout
from .functional_multihead import multi_head_attention_forward
from .functional_conv import conv1d, conv2d
from .functional_pooling import (
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
)

from .functional_linear import linear, linear_cross_entropy
from .functional_loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from .functional_distance import cosine_similarity, pairwise_distance, pdist
from .functional_likelihood import gaussian_nll_loss, kl_div, poisson_nll_loss
from .functional_margin import (
    cosine_embedding_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .functional_norm import batch_norm, layer_norm
from .functional_piecewise import (
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    prelu,
    relu6,
    rrelu,
    softshrink,
    threshold,
)
from .functional_sparse import embedding, one_hot

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "linear_cross_entropy",
    "multi_head_attention_forward",
    "log_softmax",
    "logsigmoid",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "mish",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pdist",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "rrelu",
    "scaled_dot_product_attention",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def normalize(
    input: Tensor, p: float = 2.0, dim: Any = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """x / max(norm_p(x) along dim, eps): each slice along dim scaled to unit p-norm.

    >>> F.normalize(tg.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    x = tensor_argument(input, "normalize")
    if out is not None:
        raise TypeError("normalize: out= is not supported in tapegrad; use the returned tensor")
    out = x / x.norm(p, dim, keepdim=True).clip(eps)
    return mark(out, "normalize", ("x",), (x,), {"p": p, "dim": dim, "eps": eps})


# ---- pad --------------------------------------------------------------------------------------
_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    """Pad (or, with negative sizes, crop) the last dimensions: pad = (left, right) for the last
    dimension, then (left, right) for the one before, ... (PyTorch's order). mode: 'constant'
    (with `value`, default 0), 'reflect' (mirror, edge not repeated), 'replicate' (repeat the
    edge) or 'circular' (wrap around); every mode is differentiable (indexing and cat).

    >>> F.pad(tg.tensor([[1.0, 2.0]]), (1, 2))
    tensor([[0., 1., 2., 0., 0.]])
    """
    x = tensor_argument(input, "pad")
    sizes = [int(s) for s in pad]
    if len(sizes) % 2:
        raise ValueError(f"pad: padding length must be divisible by 2 (pairs), got {tuple(pad)}")
    if len(sizes) // 2 > x.ndim:
        raise ValueError(
            f"pad: padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(sizes)} and input of dimension {x.ndim}"
        )
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: unrecognised padding mode {mode!r}; use one of {_PAD_MODES}")
    if mode != "constant" and value is not None:
        raise ValueError(f'pad: padding mode "{mode}" doesn\'t take in value argument')
    padded = len(sizes) // 2
    if mode in ("reflect", "replicate") and 0 in x.shape[-(padded + 1) :]:
        # (as PyTorch: only the batch dimensions, before the channel one, may be empty)
        raise RuntimeError(
            f"pad: Expected {padded + 1}D or {padded + 2}D (batch mode) tensor with possibly 0 "
            f"batch size and other non-zero dimensions for input, but got: {list(x.shape)}; "
            f"{mode} padding copies values, and this input must not be empty there"
        )
    for i in range(len(sizes) // 2):
        axis = x.ndim - 1 - i
        x = _pad_axis(x, axis, sizes[2 * i], sizes[2 * i + 1], mode, value or 0)
    shape = input.shape  # (the rule's `source` is made only when a teaching tool asks for it)
    return mark(
        x, "pad", ("x",), (input,), {"mode": mode, "source": lambda: _source(shape, sizes, mode)}
    )


def _source(shape: tuple, sizes: list, mode: str) -> np.ndarray:
    """For each entry of the padded result, the flat position in the input it copies (-1: none)."""
    positions = Tensor(np.arange(math.prod(shape), dtype=np.float64).reshape(shape))
    return pad(positions, sizes, mode, -1.0 if mode == "constant" else None).numpy().astype(int)


def _pad_axis(x: Tensor, axis: int, left: int, right: int, mode: str, value: float) -> Tensor:
    n = x.shape[axis]
    if n + left + right < 0:
        raise ValueError(
            f"pad: padding ({left}, {right}) would leave a negative size along dimension {axis} "
            f"(of size {n}) of input of shape {x.shape}"
        )
    before = (slice(None),) * axis
    if (
        mode == "replicate" and n > 0 and (left or right)
    ):  # each position reads the nearest input entry: a negative
        index = np.clip(np.arange(-left, n + right), 0, n - 1)  # size crops, as PyTorch
        return x[before + (index,)]
    if left < 0 or right < 0:  # negative sizes crop first; the rest pads what is left (PyTorch)
        x = x[before + (slice(max(-left, 0), n - max(-right, 0)),)]
        n, left, right = x.shape[axis], max(left, 0), max(right, 0)
    if left == right == 0:
        return x
    if mode == "constant":
        blocks = [
            Tensor(np.full(x.shape[:axis] + (k,) + x.shape[axis + 1 :], value, dtype=x.dtype))
            for k in (left, right)
        ]
        return cat([blocks[0], x, blocks[1]], axis)
    limit = n - 1 if mode == "reflect" else n if mode == "circular" else None
    if n == 0 or limit is not None and max(left, right) > limit:
        rule = {"reflect": "less than", "circular": "at most", "replicate": "at most"}[mode]
        raise ValueError(
            f"pad: {mode} padding ({left}, {right}) must be {rule} the size {n} of dimension "
            f"{axis} of input of shape {x.shape}" + (" (which must not be empty)" if n == 0 else "")
        )
    positions = np.arange(-left, n + right)
    if mode == "reflect":
        index = np.abs(positions)
        index = np.where(index > n - 1, 2 * (n - 1) - index, index)
    else:
        index = positions % n
    return x[before + (index,)]


# ---- PyTorch's other layers' functions (branch layers): re-exported from their topic modules ----
from .functional_conv_transpose import conv_transpose1d, conv_transpose2d  # noqa: E402
from .functional_dropout import alpha_dropout, dropout1d, dropout2d, dropout3d  # noqa: E402
from .functional_group_norm import group_norm, instance_norm, local_response_norm  # noqa: E402
from .functional_group_norm import rms_norm  # noqa: E402
from .functional_resampling import interpolate, pixel_shuffle, pixel_unshuffle  # noqa: E402

__all__ += ["conv_transpose1d", "conv_transpose2d", "group_norm", "instance_norm", "rms_norm"]
__all__ += ["interpolate", "pixel_shuffle", "pixel_unshuffle"]
from .functional_resampling import upsample, upsample_bilinear, upsample_nearest  # noqa: E402
from .functional_dropout import feature_alpha_dropout  # noqa: E402

__all__ += ["upsample", "upsample_bilinear", "upsample_nearest", "feature_alpha_dropout"]
__all__ += ["alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "local_response_norm"]

# ---- PyTorch's other layers' functions, second batch (branch layers2) ----
from .functional_adaptive_pool import adaptive_avg_pool1d, adaptive_avg_pool3d  # noqa: E402
from .functional_adaptive_pool import adaptive_max_pool1d, adaptive_max_pool2d  # noqa: E402
from .functional_adaptive_pool import adaptive_max_pool3d  # noqa: E402
from .functional_bilinear import bilinear  # noqa: E402
from .functional_embedding_bag import embedding_bag  # noqa: E402
from .functional_resampling import channel_shuffle  # noqa: E402
from .functional_fold import fold, unfold  # noqa: E402
from .functional_unpool import max_unpool1d, max_unpool2d  # noqa: E402

__all__ += ["adaptive_avg_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool1d"]
__all__ += ["adaptive_max_pool2d", "adaptive_max_pool3d", "bilinear", "embedding_bag"]
__all__ += ["channel_shuffle", "fold", "unfold", "max_unpool1d", "max_unpool2d"]

# ---- the CTC loss (branch tidy2) ----
from .functional_ctc import ctc_loss  # noqa: E402

__all__ += ["ctc_loss"]

# ---- PyTorch's other layers' functions, third batch (branch layers3) ----
from .functional_gumbel import gumbel_softmax  # noqa: E402
from .functional_pooling import lp_pool1d, lp_pool2d  # noqa: E402

__all__ += ["gumbel_softmax", "lp_pool1d", "lp_pool2d"]
from .functional_grid_sample import affine_grid, grid_sample  # noqa: E402
from .functional_conv import conv3d  # noqa: E402

__all__ += ["affine_grid", "grid_sample", "conv3d"]

# ---- PyTorch's 3-D pooling family and conv_transpose3d (branch layers4) ----
from .functional_pooling import avg_pool3d, lp_pool3d, max_pool3d  # noqa: E402
from .functional_unpool import max_unpool3d  # noqa: E402
from .functional_conv_transpose import conv_transpose3d  # noqa: E402

__all__ += ["avg_pool3d", "lp_pool3d", "max_pool3d", "max_unpool3d", "conv_transpose3d"]

# ---- fractional max pooling and the _with_indices spellings (branch resample) ----
from .functional_fractional_pool import fractional_max_pool2d, fractional_max_pool3d  # noqa: E402
from .functional_fractional_pool import fractional_max_pool2d_with_indices  # noqa: E402
from .functional_fractional_pool import fractional_max_pool3d_with_indices  # noqa: E402
from .functional_pool_indices import adaptive_max_pool1d_with_indices  # noqa: E402
from .functional_pool_indices import adaptive_max_pool2d_with_indices  # noqa: E402
from .functional_pool_indices import adaptive_max_pool3d_with_indices  # noqa: E402
from .functional_pool_indices import max_pool1d_with_indices, max_pool2d_with_indices  # noqa: E402
from .functional_pool_indices import max_pool3d_with_indices  # noqa: E402

__all__ += ["fractional_max_pool2d", "fractional_max_pool3d"]
__all__ += ["fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]
__all__ += ["adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices"]
__all__ += ["adaptive_max_pool3d_with_indices", "max_pool1d_with_indices"]
__all__ += ["max_pool2d_with_indices", "max_pool3d_with_indices"]
