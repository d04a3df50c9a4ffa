"""tg.nn.functional: PyTorch's `F.` spellings (relu, linear, mse_loss, cross_entropy, ...).

Layer L5: thin wrappers over Tensor ops and the loss modules; no math of its own.
"""

from __future__ import annotations

from typing import Any

from .. import primitives as P
from ..math import log_softmax, relu, sigmoid, softmax, tanh
from ..tensor import Tensor, apply
from .losses import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss

__all__ = [
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "linear",
    "log_softmax",
    "mse_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, with weight of shape (out_features, in_features) as in PyTorch.

    >>> F.linear(tg.ones(2, 3), tg.ones(4, 3)).shape
    (2, 4)
    """
    if bias is None:
        return input @ weight.T
    return apply(P.fused.linear, input, weight, bias)  # one node for the whole layer


def mse_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """Mean (or 'sum' / 'none') of (input - target)^2. `F.mse_loss(pred, y)`"""
    return MSELoss(reduction)(input, target)


def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """-log softmax(input)[target], from logits; target: class indices or probabilities."""
    return CrossEntropyLoss(weight, ignore_index, reduction, label_smoothing)(input, target)


def binary_cross_entropy_with_logits(
    input: Tensor, target: Any, weight: Any = None, reduction: str = "mean", pos_weight: Any = None
) -> Tensor:
    """Binary cross-entropy on logits, stable for any magnitude."""
    return BCEWithLogitsLoss(weight, reduction, pos_weight)(input, target)
