"""Bilinear: PyTorch's layer out = x1^T W x2 + b over F.bilinear (its signature, init and repr).

Layer L5: imports tensor.py, dtypes and the nn package's parameter, module, init and
functional_bilinear.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import init as _init
from .functional_bilinear import bilinear
from .module import Module
from .parameter import Parameter


class Bilinear(Module):
    """out = x1^T W x2 + b with weight (out_features, in1_features, in2_features); weight and bias
    start U(-1/sqrt(in1_features), 1/sqrt(in1_features)), as PyTorch.

    >>> tg.nn.Bilinear(3, 4, 5)(tg.ones(2, 3), tg.ones(2, 4)).shape
    (2, 5)
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        sizes = (in1_features, in2_features, out_features)
        for name, n in zip(("in1_features", "in2_features", "out_features"), sizes):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n <= 0:
                raise ValueError(f"Bilinear: {name} must be a positive int, got {n!r}")
        self.in1_features, self.in2_features, self.out_features = (int(n) for n in sizes)
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        bound = 1.0 / math.sqrt(self.in1_features)
        self.weight = Parameter(np.empty((out_features, in1_features, in2_features), dtype))
        _init.uniform_(self.weight, -bound, bound)
        if bias:
            self.bias = Parameter(np.empty((out_features,), dtype))
            _init.uniform_(self.bias, -bound, bound)
        else:
            self.register_parameter("bias", None)
        self.to(device=device)  # (only the CPU exists: anything else is a clear error)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """x1^T W x2 + b over the last axes of input1 and input2."""
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
