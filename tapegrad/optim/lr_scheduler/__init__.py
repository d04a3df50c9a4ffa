"""tg.optim.lr_scheduler: learning-rate schedules with PyTorch's names and semantics (base.py's
LRScheduler; decay.py's factor rules and ramps; cosine.py's cycles; cyclic.py's CyclicLR;
combined.py's sequences and chains; plateau.py's metric-driven ReduceLROnPlateau).

Layer L5: re-exports only.
"""

from __future__ import annotations

from .base import LRScheduler, _LRScheduler
from .combined import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts, OneCycleLR
from .cyclic import CyclicLR
from .decay import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiStepLR,
    MultiplicativeLR,
    PolynomialLR,
    StepLR,
)
from .plateau import ReduceLROnPlateau

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]
