"""PyTorch's top-level spellings of nn.functional's losses (`torch.kl_div(x, t, 1)`,
`torch.binary_cross_entropy_with_logits`, `torch.ctc_loss`, ...): thin adapters taking ATen's
arguments, `reduction` as ATen's integer (0 none, 1 mean, 2 sum), and calling the F function, whose
gradients they are. The other top-level spellings are in functional_spellings.py.

Layer L5: imports nn.functional.
"""

from __future__ import annotations

import warnings
from typing import Any

from .nn import functional as F
from .tensor import Tensor

__all__ = [
    "kl_div", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
    "ctc_loss",
]  # fmt: skip

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction: int) -> str:
    """ATen's reduction number as F's name: 1 mean, 2 sum, anything else none (as ATen). Left
    out, it is none: torch.<loss>(x, t) called from Python does not reduce (torch 2.13's binding,
    unlike the schema's default of 1), and neither do these."""
    if isinstance(reduction, str):
        raise TypeError(
            f"reduction must be ATen's integer (0 'none', 1 'mean', 2 'sum'), got {reduction!r}: "
            f"torch.<loss> takes the integer, F.<loss> the name"
        )
    return _REDUCTIONS.get(reduction, "none")


def kl_div(input: Tensor, target: Any, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """F.kl_div with ATen's reduction (left out: none; 1 the mean over every element, without
    F's warning).

    >>> tg.kl_div(-tg.ones(2), tg.ones(2), 1)
    tensor(1.)
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "reduction: 'mean' divides", UserWarning)
        return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Any,
    weight: Any = None,
    pos_weight: Any = None,
    reduction: int = 0,
) -> Tensor:
    """F.binary_cross_entropy_with_logits with ATen's arguments (pos_weight 4th, reduction int).

    >>> tg.binary_cross_entropy_with_logits(tg.zeros(2), tg.ones(2), reduction=1)
    tensor(0.6931)
    """
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Any, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """F.cosine_embedding_loss with ATen's reduction integer.

    >>> tg.cosine_embedding_loss(tg.ones(1, 2), tg.ones(1, 2), tg.ones(1), 0.0, 1)
    tensor(0.)
    """
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(
    input: Tensor, target: Any, margin: float = 1.0, reduction: int = 0
) -> Tensor:
    """F.hinge_embedding_loss with ATen's reduction integer.

    >>> tg.hinge_embedding_loss(tg.tensor([0.5]), tg.tensor([-1.0]))
    tensor([0.5000])
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Any, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """F.margin_ranking_loss with ATen's reduction integer.

    >>> tg.margin_ranking_loss(tg.tensor([1.0]), tg.tensor([2.0]), tg.tensor([1.0]))
    tensor([1.])
    """
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(
    input: Tensor, target: Any, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """F.poisson_nll_loss with ATen's arguments: all six required, reduction an integer.

    >>> tg.poisson_nll_loss(tg.zeros(2), tg.zeros(2), True, False, 1e-8, 1)
    tensor(1.)
    """
    return F.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-06,
    swap: bool = False,
    reduction: int = 0,
) -> Tensor:
    """F.triplet_margin_loss with ATen's reduction integer.

    >>> tg.triplet_margin_loss(tg.zeros(1, 2), tg.zeros(1, 2), tg.zeros(1, 2))
    tensor([1.])
    """
    return F.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def ctc_loss(
    log_probs: Tensor,
    targets: Any,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = 0,
    zero_infinity: bool = False,
) -> Tensor:
    """F.ctc_loss with ATen's reduction integer (left out: none; 1: each loss over its target
    length, averaged).

    >>> lp = tg.zeros(2, 1, 2).log_softmax(2)
    >>> tg.ctc_loss(lp, tg.tensor([[1]]), [2], [1], 0, 2)
    tensor(0.2877)
    """
    return F.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
        zero_infinity,
    )  # fmt: skip
