"""Dropout as functions: dropout (each element zeroed with probability p, the rest scaled by
1 / (1 - p)), its variants dropout1d / dropout2d / dropout3d (whole channels zeroed),
alpha_dropout (for SELU networks: dropped values set to SELU's negative limit, then an affine map
that keeps mean 0 and variance 1) and feature_alpha_dropout (alpha_dropout of whole channels).
PyTorch's signatures, defaults, warnings and errors; the masks are drawn from tg.manual_seed's
generator (so they differ from PyTorch's draws).

Layer L5: tapegrad ops (a constant mask times the input), so every derivative follows.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..random import numpy_generator as generator
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import in_place
from .functional_arguments import tensor_argument

# SELU's scale * alpha: where alpha dropout sends a dropped value (before its affine map)
SELU_LIMIT = 1.0507009873554804934193349852946 * 1.6732632423543772848170429916717


def kept(shape: tuple, p: float) -> np.ndarray:
    """Which positions dropout keeps: PyTorch's `bernoulli_(1 - p)` (a 53-bit uniform below
    1 - p per position, from the default generator: PyTorch's CPU path except on Intel
    processors, where PyTorch draws an MKL stream instead).

    >>> kept((3,), 0.0).tolist()
    [True, True, True]
    """
    return generator(None, "dropout").bernoulli(1.0 - p, shape)


def kept_scale(keep: np.ndarray, p: float, dtype: np.dtype) -> np.ndarray:
    """PyTorch's dropout noise: the mask in the input's dtype divided by (1 - p) in it.

    >>> kept_scale(np.array([True, False]), 0.5, np.dtype(np.float32)).tolist()
    [2.0, 0.0]
    """
    return keep.astype(dtype) / np.asarray(1.0 - p, dtype)


def _probability(p: Any) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
    return float(p)


def _feature_dropout(
    x: Tensor, p: float, training: bool, inplace: bool, dims: int, name: str
) -> Tensor:
    """Zero each channel (all its positions at once) with probability p, scale the rest by
    1/(1-p); x is (N, C, *spatial) or unbatched (C, *spatial) with `dims` spatial axes."""
    if not training or p == 0.0:
        return x
    batched = x.ndim == dims + 2
    channels = x.shape[: 2 if batched else 1]
    shape = channels + (1,) * dims  # (one draw per channel, broadcast over its positions)
    keep = kept(shape, p) if p < 1.0 else np.zeros(shape, bool)
    scale = kept_scale(keep, p, x.dtype) if p < 1.0 else (keep * 0.0).astype(x.dtype)
    out = in_place(x, inplace, lambda v: v * scale)
    return mark(out, name, ("x", "mask"), (x, keep), {"p": p})


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """While training, zero whole channels of (N, C, L) or (C, L) with probability p and scale
    the rest by 1/(1-p).

    >>> F.dropout1d(tg.ones(2, 3, 4), 0.5, training=False).shape
    (2, 3, 4)
    """
    x, p = tensor_argument(input, "dropout1d"), _probability(p)
    if x.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {x.ndim}D input. Note that "
            f"dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            f"dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            f"inputs)."
        )
    return _feature_dropout(x, p, training, inplace, 1, "dropout1d")


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """While training, zero whole channels of (N, C, H, W) or (C, H, W) with probability p and
    scale the rest by 1/(1-p). A 3-D input is read as (N, C, L), with PyTorch's warning.

    >>> F.dropout2d(tg.ones(2, 3, 4, 4), 0.5, training=False).shape
    (2, 3, 4, 4)
    """
    x, p = tensor_argument(input, "dropout2d"), _probability(p)
    if x.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {x.ndim}-D input to dropout2d, which is deprecated and will "
            f"result in an error in a future release. To retain the behavior and silence this "
            f"warning, please use dropout instead. Note that dropout2d exists to provide "
            f"channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            f"an optional batch dimension (i.e. 3D or 4D inputs).",
            UserWarning,
            stacklevel=2,
        )
    if x.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=2,
        )
        return _feature_dropout(x, p, training, inplace, 1, "dropout2d")
    if x.ndim < 2:
        raise RuntimeError(
            f"dropout2d: Expected 3D or 4D input, got a {x.ndim}D input of shape {x.shape}"
        )
    return _feature_dropout(x, p, training, inplace, x.ndim - 2, "dropout2d")


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """While training, zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p
    and scale the rest by 1/(1-p).

    >>> F.dropout3d(tg.ones(2, 3, 2, 2, 2), 0.5, training=False).shape
    (2, 3, 2, 2, 2)
    """
    x, p = tensor_argument(input, "dropout3d"), _probability(p)
    if x.ndim not in (4, 5):
        raise RuntimeError(
            f"dropout3d: Expected 4D or 5D input, but received a {x.ndim}D input; dropout3d "
            f"drops channels of inputs with 3 spatial dimensions, a channel dimension and an "
            f"optional batch dimension"
        )
    return _feature_dropout(x, p, training, inplace, 3, "dropout3d")


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """While training, set each element with probability p to SELU's negative limit, then
    a * x + b so mean 0 and variance 1 are kept (for SELU networks); otherwise the identity.

    >>> F.alpha_dropout(tg.ones(3), 0.5)
    tensor([1., 1., 1.])
    """
    x, p = tensor_argument(input, "alpha_dropout"), _probability(p)
    if not training or p == 0.0:
        return x
    return _alpha(x, p, inplace, x.shape)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """alpha_dropout with one draw per channel (the axes after the first two share it).

    >>> F.feature_alpha_dropout(tg.ones(2, 3, 4), 0.5).shape
    (2, 3, 4)
    """
    x, p = tensor_argument(input, "feature_alpha_dropout"), _probability(p)
    if not training or p == 0.0 or x.size == 0:  # (as PyTorch: before the rank is checked)
        return x
    if x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _alpha(x, p, inplace, x.shape[:2] + (1,) * (x.ndim - 2))


def _alpha(x: Tensor, p: float, inplace: bool, draws: tuple) -> Tensor:
    """Alpha dropout with a keep mask of shape `draws` (broadcast over x), then a * x + b."""
    if p == 1.0:  # (PyTorch's: everything dropped is zeros)
        keep = np.zeros(draws, bool)
        out = in_place(x, inplace, lambda v: v * 0.0)
    else:
        keep = kept(draws, p)
        a = 1.0 / math.sqrt((SELU_LIMIT**2 * p + 1.0) * (1.0 - p))
        kind = x.dtype  # PyTorch's steps, each in the input's dtype:
        noise = keep.astype(kind)  # b = (noise - 1) * (alpha a) + alpha a p; noise * a
        shift = (noise - kind.type(1)) * kind.type(SELU_LIMIT * a) + kind.type(SELU_LIMIT * a * p)
        scale = noise * kind.type(a)
        out = in_place(x, inplace, lambda v: v * scale + shift)
    return mark(out, "alpha_dropout", ("x", "mask"), (x, keep), {"p": p})


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """While training, zero each element with probability p and scale the rest by 1/(1-p), so the
    expected value is unchanged; otherwise the identity. Draws from tg.manual_seed's generator.

    >>> F.dropout(tg.ones(3), 0.5, training=False)
    tensor([1., 1., 1.])
    """
    x = tensor_argument(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(
            f"dropout probability has to be between 0 and 1 (p in [0, 1]), but got {p!r}"
        )
    if not training or p == 0.0:
        return x
    if p == 1.0:
        keep = np.zeros(x.shape, bool)
        out = in_place(x, inplace, lambda v: v * 0.0)
    else:
        keep = kept(x.shape, p)  # a constant mask: its derivative is zero
        scale = kept_scale(keep, p, x.dtype)
        out = in_place(x, inplace, lambda v: v * scale)
    return mark(out, "dropout", ("x", "mask"), (x, keep), {"p": p})
