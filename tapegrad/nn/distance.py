"""Distance layers (PyTorch's names, options and reprs): CosineSimilarity and PairwiseDistance.

Layer L5: imports tensor.py, nn/module.py and nn/functional_distance.py (where the math lives).
"""

from __future__ import annotations

from ..tensor import Tensor
from . import functional_distance as FD
from .module import Module


class CosineSimilarity(Module):
    """sum(x1 / ||x1|| * x2 / ||x2||) along dim, each norm clamped below at eps.

    >>> tg.nn.CosineSimilarity()(tg.tensor([[1.0, 0.0]]), tg.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return FD.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p along the last axis (PyTorch keeps p as `norm`).

    >>> tg.nn.PairwiseDistance(eps=0.0)(tg.tensor([[3.0, 4.0]]), tg.tensor([[0.0, 0.0]]))
    tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return FD.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
