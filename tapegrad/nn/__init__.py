"""tg.nn: Parameter, Module/Cell, layers, losses, init, and the training helpers MindSpore keeps here.

Layer L5: re-exports only (the code lives in parameter, module, layers, losses, functional, init,
utils and amp).
"""

from __future__ import annotations

from ..amp import DynamicLossScaler, StaticLossScaler, all_finite, clip_by_global_norm
from . import functional, functional_conv, init, utils
from .conv import Conv1d, Conv2d
from .layers import Dense, Dropout, Flatten, Identity, Linear, ReLU, Sigmoid, Tanh
from .losses import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss
from .module import Cell, CellList, Module, ModuleList, Sequential, SequentialCell
from .parameter import Parameter
from .pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .utils import clip_grad_norm_

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "Conv1d",
    "Conv2d",
    "MaxPool1d",
    "MaxPool2d",
    "BCEWithLogitsLoss",
    "Cell",
    "CellList",
    "CrossEntropyLoss",
    "Dense",
    "Dropout",
    "DynamicLossScaler",
    "Flatten",
    "Identity",
    "Linear",
    "MSELoss",
    "Module",
    "ModuleList",
    "Parameter",
    "ReLU",
    "Sequential",
    "SequentialCell",
    "Sigmoid",
    "StaticLossScaler",
    "Tanh",
    "all_finite",
    "clip_by_global_norm",
    "clip_grad_norm_",
    "functional",
    "functional_conv",
    "init",
    "utils",
]
