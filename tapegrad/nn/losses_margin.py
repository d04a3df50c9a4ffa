"""Margin and embedding loss layers (PyTorch's signatures): MarginRankingLoss, HingeEmbeddingLoss,
SoftMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss,
CosineEmbeddingLoss, TripletMarginLoss, TripletMarginWithDistanceLoss. Each keeps its options and
calls its functional form.

Layer L5: imports tensor.py, nn/losses.py (the shared reduction), nn/distance.py (the default
distance) and nn/functional_margin.py (where the math lives).
"""

from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor
from . import functional_margin as FM
from .distance import PairwiseDistance
from .losses import _Loss, _WeightedLoss


class _MarginLoss(_Loss):
    """A loss whose one option beside the reduction is `margin` (PyTorch's signature order)."""

    def __init__(
        self,
        margin: float = 0.0,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """max(0, -y (x1 - x2) + margin) for labels y = +-1.

    >>> tg.nn.MarginRankingLoss()(tg.tensor([1.0]), tg.tensor([2.0]), tg.tensor([1.0]))
    tensor(1.)
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return FM.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_MarginLoss):
    """x where y = 1, max(0, margin - x) where y = -1.

    >>> tg.nn.HingeEmbeddingLoss()(tg.tensor([0.3]), tg.tensor([-1.0]))
    tensor(0.7000)
    """

    def __init__(
        self,
        margin: float = 1.0,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FM.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-y x)) for labels y = +-1 (computed stably).

    >>> tg.nn.SoftMarginLoss()(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.6931)
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FM.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)) * weight, averaged over the classes.

    >>> tg.nn.MultiLabelSoftMarginLoss()(tg.tensor([[0.0, 0.0]]), tg.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """

    _per_class = False  # (a weight of any shape broadcasting to the input, as PyTorch)

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FM.multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p / C (times weight[y]), p 1 or 2.

    >>> tg.nn.MultiMarginLoss()(tg.tensor([[0.1, 0.2, 0.4]]), tg.tensor([2]))
    tensor(0.5000)
    """

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got {p!r}")
        super().__init__(weight, size_average, reduce, reduction)  # (a per-class weight buffer)
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FM.multi_margin_loss(
            input, target, self.p, self.margin, self.weight, reduction=self.reduction
        )


class MultiLabelMarginLoss(_Loss):
    """sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C, the
    targets of each sample listed in `target` up to its first -1.

    >>> tg.nn.MultiLabelMarginLoss()(tg.tensor([[0.1, 0.2, 0.4, 0.8]]), tg.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return FM.multilabel_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1.

    >>> x1, x2 = tg.tensor([[1.0, 0.0]]), tg.tensor([[0.0, 1.0]])
    >>> tg.nn.CosineEmbeddingLoss()(x1, x2, tg.tensor([1]))
    tensor(1.)
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return FM.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class TripletMarginLoss(_Loss):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance
    (pairwise_distance); swap=True also tries d(positive, negative).

    >>> a, pos, neg = tg.tensor([[0.0, 0.0]]), tg.tensor([[0.0, 1.0]]), tg.tensor([[3.0, 0.0]])
    >>> tg.nn.TripletMarginLoss(eps=0.0)(a, pos, neg)
    tensor(0.)
    """

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: margin must be greater than 0, got {margin}")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return FM.triplet_margin_loss(
            anchor,
            positive,
            negative,
            self.margin,
            self.p,
            self.eps,
            self.swap,
            reduction=self.reduction,
        )


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, margin + d(a, pos) - d(a, neg)) for a distance function of two tensors (default
    PairwiseDistance(); a Module given is registered as a sub-module, as PyTorch's); swap=True
    takes min(d(a, neg), d(pos, neg)).

    >>> loss = tg.nn.TripletMarginWithDistanceLoss(distance_function=tg.nn.PairwiseDistance(p=1))
    """

    def __init__(
        self,
        *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return FM.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )
