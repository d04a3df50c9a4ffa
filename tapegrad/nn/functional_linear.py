"""A linear layer's functions: F.linear (x @ W^T + b, one node) and F.linear_cross_entropy (the
cross entropy of a linear layer's logits, PyTorch 2.13's fused head loss), with the options class
PyTorch passes to its chunked implementation.

Layer L5: tapegrad ops (the fused linear primitives), tape/composite.py's mark and
functional_loss.py's cross_entropy. tapegrad computes linear_cross_entropy as PyTorch's reference
path does: the logits, then cross_entropy of them, one step for the teaching tools.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import primitives as P
from ..tape.composite import mark
from ..tensor import Tensor, apply
from .functional_loss import cross_entropy

__all__ = ["LinearCrossEntropyOptions", "linear", "linear_cross_entropy"]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, with weight of shape (out_features, in_features) as in PyTorch.

    >>> F.linear(tg.ones(2, 3), tg.ones(4, 3)).shape
    (2, 4)
    """
    if input.ndim > 2 and weight.ndim == 2:
        # (one GEMM over all rows: NumPy's matmul would run one per leading index, and the
        # weight's gradient would be a batched product summed back over them)
        rows = linear(input.reshape(-1, input.shape[-1]), weight, bias)
        out = rows.reshape(*input.shape[:-1], rows.shape[-1])
        if bias is None:  # (the reshapes and the product: one step for the teaching tools)
            return mark(out, "linear", ("x", "w"), (input, weight))
        return out  # (the linear primitive's step, between two reshapes)
    if bias is None and input.ndim == 2 and weight.ndim == 2:
        # (one node, x @ T(w): w's gradient T(g) @ x comes out in w's own layout, not as a
        # transposed view, which made every elementwise pass of clip and the optimizer strided)
        return mark(apply(P.fused.matmul_nt, input, weight), "linear", ("x", "w"), (input, weight))
    if bias is None:  # (a vector input: x @ w.T, one step for the teaching tools)
        return mark(input @ weight.T, "linear", ("x", "w"), (input, weight))
    return apply(P.fused.linear, input, weight, bias)  # one node for the whole layer


_ACC_POLICIES = ("auto", "accurate", "balanced", "compact")


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """PyTorch's options for its chunked linear_cross_entropy (how the batch is cut into chunks so
    the logits are never held whole, and in which dtype chunks accumulate). They are checked as
    PyTorch checks them; tapegrad has no chunked path, so they change nothing: the result is the
    reference path's (the whole logits, then cross_entropy), which PyTorch's chunks approximate to
    rounding.

    >>> tg.nn.LinearCrossEntropyOptions(batch_chunk_size=64).acc_policy
    'auto'
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or isinstance(size, int) and not isinstance(size, bool) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        floats = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
        if self.acc_dtype is not None and _dt.as_dtype(self.acc_dtype) not in floats:
            raise ValueError(
                f"acc_dtype must be one of None, float16, bfloat16, float32, float64, got "
                f"{self.acc_dtype!r}; pass acc_dtype=None to let the op pick"
            )


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Any,
    *,
    linear_bias: Tensor | None = None,
    weight: Any = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: LinearCrossEntropyOptions | None = None,
) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...): input (N, in) or
    (in,), linear_weight (C, in) or (C, d1, ..., in) for a K-dimensional loss (logits (N, C, d1,
    ...)), target class indices or probabilities; the rest as F.cross_entropy's.

    >>> F.linear_cross_entropy(tg.ones(2, 3), tg.zeros(4, 3), tg.tensor([0, 1]))  # log(4)
    tensor(1.3863)
    """
    _check_shapes(input, linear_weight, linear_bias)
    if options is not None and not all(hasattr(options, f) for f in _OPTION_FIELDS):
        raise TypeError(
            f"linear_cross_entropy: options must be a LinearCrossEntropyOptions or None, got "
            f"{type(options).__name__}"
        )
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    logits_shape = (*batch, num_classes, *out_features)
    probabilities = tuple(np.shape(target)) == logits_shape
    if probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    index = -100 if ignore_index is None else ignore_index
    rows = math.prod(out_features, start=num_classes)
    w2 = linear_weight.reshape(rows, in_features) if out_features else linear_weight
    b2 = linear_bias.reshape(rows) if out_features and linear_bias is not None else linear_bias
    logits = linear(input, w2, b2).reshape(logits_shape)
    out = cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=index,
        label_smoothing=label_smoothing,
    )
    if out_features or input.ndim != 2:  # (the rule is written for (N, in) @ T(W): other shapes
        return out  # show as linear, reshape and cross_entropy)
    ce = out._grad_fn.composite if out._grad_fn is not None else None
    if ce is None or ce.name != "cross_entropy":
        return out
    _, y, w = ce.links
    return mark(
        out, "linear_cross_entropy", _XWBYW, (input, linear_weight, linear_bias, y, w), ce.params
    )


_XWBYW = ("x", "W", "b", "y", "w")
# (any object with these fields is taken for options, PyTorch's own class too: they change nothing)
_OPTION_FIELDS = ("batch_chunk_size", "chunking_method", "acc_policy", "acc_dtype")


def _check_shapes(input: Any, linear_weight: Any, linear_bias: Any) -> None:
    """PyTorch's checks of linear_cross_entropy's shapes, with its messages (RuntimeError)."""
    for name, t in (("input", input), ("linear_weight", linear_weight)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"linear_cross_entropy: {name} must be a Tensor, got {type(t).__name__}"
            )
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}"
        )
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    expected = tuple(linear_weight.shape[:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != expected:
        raise RuntimeError(f"expected linear_bias shape {expected}, got {tuple(linear_bias.shape)}")
    if linear_weight.ndim > 2 and input.ndim == 1:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {input.shape[-1]}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
