"""CTCLoss: the connectionist temporal classification loss layer (PyTorch's signature: blank,
reduction, zero_infinity), calling F.ctc_loss.

Layer L5: imports tensor.py, nn/losses.py (the shared reduction) and nn/functional_ctc.py (where
the math lives).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_ctc import ctc_loss
from .losses import _Loss


class CTCLoss(_Loss):
    """-log p(target | log_probs) summed over the alignments, per sequence (see F.ctc_loss).

    >>> loss = tg.nn.CTCLoss(zero_infinity=True)
    >>> loss(tg.randn(5, 2, 4).log_softmax(2), tg.tensor([[1, 2], [3, 3]]), (5, 5), (2, 2)).shape
    ()
    """

    def __init__(
        self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False
    ) -> None:
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Any, input_lengths: Any, target_lengths: Any
    ) -> Tensor:
        return ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
