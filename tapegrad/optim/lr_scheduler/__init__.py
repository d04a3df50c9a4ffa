"""tg.optim.lr_scheduler: learning-rate schedules with PyTorch's names and semantics (base.py's
LRScheduler; decay.py's factor rules and ramps; cosine.py's cycles; combined.py's sequences and
chains; plateau.py's metric-driven ReduceLROnPlateau).

Layer L5: re-exports only.
"""

from __future__ import annotations

from .base import LRScheduler
from .combined import ChainedScheduler, SequentialLR
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts, OneCycleLR
from .decay import (
    ConstantLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from .plateau import ReduceLROnPlateau

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "OneCycleLR",
    "PolynomialLR",
    "ReduceLROnPlateau",
    "SequentialLR",
    "StepLR",
]
