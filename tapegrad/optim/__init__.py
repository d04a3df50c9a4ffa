"""tg.optim: optimizers with PyTorch's update rules, and learning-rate schedules.

Layer L5: re-exports optimizer.py (the base class), algorithms.py (SGD, Adam, AdamW, RMSprop,
Adagrad), adaptive.py (NAdam, RAdam, Adamax,
SparseAdam),
classic.py (Adadelta, Rprop, ASGD), lbfgs.py (LBFGS), adafactor.py (Adafactor), muon.py (Muon)
and the lr_scheduler module.
"""

from __future__ import annotations

from . import lr_scheduler
from .adafactor import Adafactor
from .adaptive import Adamax, NAdam, RAdam, SparseAdam
from .algorithms import SGD, Adagrad, Adam, AdamW, RMSprop
from .classic import ASGD, Adadelta, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import Optimizer

__all__ = [
    "ASGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "SparseAdam",
    "lr_scheduler",
]
