"""PyTorch's deprecated factories that older programs still call: `torch.range(start, end, step)`,
whose end is included (unlike arange), with PyTorch's UserWarning and errors.

Layer L4: creation.py and dtypes.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import dtypes
from .creation import tensor
from .devices import DeviceLike, check_device
from .tensor import Tensor

__all__ = ["range"]


def range(
    start: float = 0,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: Any = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """start, start + step, ... up to and including end (deprecated in PyTorch, which warns: use
    tg.arange, whose end is excluded); the default float dtype unless dtype is given.

    >>> tg.range(1, 4, dtype=tg.int64)
    tensor([1, 2, 3, 4])
    """
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    check_device(device, "range")
    if end is None:
        raise TypeError("range() missing required argument 'end' (pos 2)")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    want = dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)
    size = math.floor((end - start) / step) + 1
    values = start + np.arange(size, dtype=np.float64) * step  # (PyTorch's: in double, then cast)
    return tensor(values.astype(want), requires_grad=requires_grad)
