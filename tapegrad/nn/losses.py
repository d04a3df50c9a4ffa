"""Losses: MSELoss, CrossEntropyLoss (stable log-softmax), BCEWithLogitsLoss (stable form).

Layer L5: imports tensor.py, creation.py, math.py and nn/module.py. Targets are cast to the input's dtype, so a float16
model keeps a float16 loss (and integer labels never upcast it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import zeros_like
from ..math import stack
from ..tensor import Tensor
from .module import Module


def _as_input(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the prediction must be a tapegrad Tensor, got {type(x).__name__}")
    return x


def _like(target: Any, input: Tensor) -> Tensor:
    """target as a Tensor of input's dtype (a differentiable cast if target is itself on the tape)."""
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target, dtype=input.dtype))
    return target if target.dtype == input.dtype else target.astype(input.dtype)


class _Loss(Module):
    """Shared reduction: 'mean' (default), 'sum' or 'none' (the per-element losses)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.reduction = reduction

    def _reduce(self, losses: Tensor) -> Tensor:
        if self.reduction == "mean":
            return losses.mean()
        return losses.sum() if self.reduction == "sum" else losses

    def extra_repr(self) -> str:
        return "" if self.reduction == "mean" else f"reduction={self.reduction!r}"


class MSELoss(_Loss):
    """(input - target)^2, reduced; target broadcasts against input (as MindSpore).

    >>> tg.nn.MSELoss()(tg.tensor(20.0), tg.tensor(19.0))
    tensor(1.)
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        target = _like(target, _as_input(input, "MSELoss"))
        try:
            np.broadcast_shapes(input.shape, target.shape)
        except ValueError:
            raise ValueError(
                f"MSELoss: target shape {target.shape} does not broadcast against input "
                f"shape {input.shape}; give a target of the input's shape"
            ) from None
        diff = input - target
        return self._reduce(diff * diff)


class CrossEntropyLoss(_Loss):
    """-log softmax(input)[target], as PyTorch's: input (N, C) or (C,) logits (classes on axis 1, or
    0 for 1-D); target holds class indices (ints, shape without the class axis) or class
    probabilities (floats, input's shape). Options as PyTorch: `weight` (one per class),
    `ignore_index` (index targets equal to it count for nothing), `label_smoothing`.

    >>> tg.nn.CrossEntropyLoss()(tg.tensor([[2.0, 0.0]]), tg.tensor([0]))
    tensor(0.12692809)
    """

    def __init__(
        self,
        weight: Any = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(reduction)
        if not 0.0 <= float(label_smoothing) <= 1.0:
            raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
        self.weight = None if weight is None else np.asarray(getattr(weight, "data", weight), float)
        if self.weight is not None and self.weight.ndim != 1:
            raise ValueError(
                f"weight must hold one number per class, got shape {self.weight.shape}"
            )
        self.ignore_index = int(ignore_index)
        self.label_smoothing = float(label_smoothing)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        axis = 1 if _as_input(input, "CrossEntropyLoss").ndim > 1 else 0
        n_classes = input.shape[axis]
        log_probs = input.log_softmax(axis=axis)  # logsumexp-based: stable for large logits
        w = None
        if self.weight is not None:
            if self.weight.shape != (n_classes,):
                raise ValueError(
                    f"CrossEntropyLoss: weight has {self.weight.size} entries but the "
                    f"input has {n_classes} classes"
                )
            w = self.weight.astype(input.dtype).reshape((-1,) + (1,) * (input.ndim - 1 - axis))
        eps = self.label_smoothing
        t = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
        if t.dtype.kind in "iub":
            valid = t != self.ignore_index
            picked = self._one_hot(np.where(valid, t, 0), input.shape, axis, input.dtype)
            kept = np.expand_dims(valid, axis).astype(input.dtype)
            coeff = (picked * (1.0 - eps) + eps / n_classes) * kept  # constants: no gradient
            if w is not None:
                coeff = coeff * w
            losses = -(log_probs * coeff).sum(axis=axis)
            if self.reduction != "mean":
                return self._reduce(losses)
            # PyTorch's mean: over the samples that count, each weighted by its class's weight
            total = float(
                np.sum(np.where(valid, self.weight[np.where(valid, t, 0)], 0.0))
                if self.weight is not None
                else np.sum(valid)
            )
            return losses.sum() / total if total else losses.sum() * 0.0
        if t.shape != input.shape:
            raise ValueError(
                f"CrossEntropyLoss: target has shape {t.shape} and dtype {t.dtype}; for input of shape "
                f"{input.shape} give integer class indices of shape {self._index_shape(input.shape, axis)} "
                f"or float class probabilities of shape {input.shape}"
            )
        probs = _like(target, input)
        if eps:
            probs = probs * (1.0 - eps) + eps / n_classes
        if w is not None:
            probs = probs * w
        return self._reduce(-(log_probs * probs).sum(axis=axis))

    @staticmethod
    def _index_shape(shape: tuple, axis: int) -> tuple:
        return shape[:axis] + shape[axis + 1 :]

    def _one_hot(self, t: np.ndarray, shape: tuple, axis: int, dtype: Any) -> np.ndarray:
        """Class indices -> one-hot weights along the class axis (picks log p[target] by a product)."""
        if t.shape != self._index_shape(shape, axis):
            raise ValueError(
                f"CrossEntropyLoss: integer targets must have shape {self._index_shape(shape, axis)} (one "
                f"class index per sample) for input of shape {shape}, got {t.shape}"
            )
        n_classes = shape[axis]
        if t.size and (t.min() < 0 or t.max() >= n_classes):
            bad = t[(t < 0) | (t >= n_classes)].flat[0]
            raise ValueError(
                f"CrossEntropyLoss: class index {bad} is out of range for {n_classes} classes "
                f"(valid: 0..{n_classes - 1}; or set ignore_index to skip it)"
            )
        return np.moveaxis(np.eye(n_classes, dtype=dtype)[t], -1, axis)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits x with targets y in [0, 1]:
    (1 - y) * softplus(x) + pos_weight * y * softplus(-x), times `weight`, with
    softplus(x) = logsumexp([0, x]) (stable for any |x|; smooth at 0). Options as PyTorch's.

    >>> tg.nn.BCEWithLogitsLoss()(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.6931472)
    """

    def __init__(self, weight: Any = None, reduction: str = "mean", pos_weight: Any = None) -> None:
        super().__init__(reduction)
        self.weight = None if weight is None else np.asarray(getattr(weight, "data", weight), float)
        self.pos_weight = (
            None
            if pos_weight is None
            else np.asarray(getattr(pos_weight, "data", pos_weight), float)
        )

    def forward(self, input: Tensor, target: Any) -> Tensor:
        y = _like(target, _as_input(input, "BCEWithLogitsLoss"))
        if y.shape != input.shape:
            raise ValueError(
                f"BCEWithLogitsLoss: target shape {y.shape} must equal input shape {input.shape}"
            )
        zeros = zeros_like(input)
        softplus = stack([zeros, input]).logsumexp(axis=0)
        if self.pos_weight is None:
            losses = softplus - input * y  # = (1 - y) softplus(x) + y softplus(-x)
        else:
            softplus_neg = softplus - input
            losses = (1.0 - y) * softplus + y * softplus_neg * self.pos_weight.astype(input.dtype)
        if self.weight is not None:
            losses = losses * self.weight.astype(input.dtype)
        return self._reduce(losses)
