"""Piecewise-linear activation layers (PyTorch's names, options and reprs): Hardtanh and ReLU6,
Hardsigmoid, Hardswish, Threshold, Softshrink, Hardshrink, PReLU (a learned slope) and RReLU (a
random slope while training). Each keeps its options and calls its functional form.

Layer L5: imports tensor.py, nn/module.py, nn/parameter.py and nn/functional.py (the math).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..devices import check_device
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


def _inplace_suffix(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class Hardtanh(Module):
    """x clipped to [min_val, max_val] (gradient 0 at the bounds, as PyTorch's).

    >>> tg.nn.Hardtanh(-2.0, 2.0)(tg.tensor([-3.0, 1.0]))
    tensor([-2.,  1.])
    """

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        for old, new, given in (
            ("min_value", "min_val", min_value),
            ("max_value", "max_val", max_value),
        ):
            if given is not None:
                warnings.warn(
                    f"keyword argument `{old}` is deprecated and renamed to `{new}`",
                    FutureWarning,
                    stacklevel=2,
                )
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        if max_val <= min_val:
            raise ValueError(
                f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})"
            )
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_suffix(self.inplace)


class ReLU6(Hardtanh):
    """min(max(x, 0), 6): Hardtanh(0, 6).

    >>> tg.nn.ReLU6()(tg.tensor([-1.0, 8.0]))
    tensor([0., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input: Tensor) -> Tensor:
        return F.relu6(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Hardsigmoid(Module):
    """x / 6 + 1/2 clipped to [0, 1] (PyTorch prints no options, inplace included).

    >>> tg.nn.Hardsigmoid()(tg.tensor([0.0]))
    tensor([0.5000])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Module):
    """x * hardsigmoid(x) (PyTorch prints no options, inplace included).

    >>> tg.nn.Hardswish()(tg.tensor([4.0]))
    tensor([4.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Threshold(Module):
    """x where x > threshold, else value.

    >>> tg.nn.Threshold(1.0, -1.0)(tg.tensor([0.5, 2.0]))
    tensor([-1.,  2.])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + _inplace_suffix(self.inplace)


class Softshrink(Module):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0.

    >>> tg.nn.Softshrink()(tg.tensor([1.0]))
    tensor([0.5000])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Module):
    """x where |x| > lambd, else 0.

    >>> tg.nn.Hardshrink()(tg.tensor([0.2, 1.0]))
    tensor([0., 1.])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class PReLU(Module):
    """x where x > 0, a * x otherwise, with a learned: one slope (num_parameters=1) or one per
    channel (axis 1 of the input), each starting at init.

    >>> tg.nn.PReLU()(tg.tensor([-4.0, 1.0])).tolist()
    [-1.0, 1.0]
    """

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        check_device(device, "PReLU")
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        self.weight = Parameter(np.full(num_parameters, init, dtype))

    def reset_parameters(self) -> None:
        """Every slope back to init."""
        self.weight._data[...] = self.init

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """x where x > 0, a * x otherwise: while training a is drawn uniformly from [lower, upper] per
    element (tg.manual_seed's generator), in eval() mode a = (lower + upper) / 2.

    >>> tg.nn.RReLU(0.2, 0.4).eval()(tg.tensor([-1.0, 2.0]))
    tensor([-0.3000,  2.0000])
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + _inplace_suffix(self.inplace)
