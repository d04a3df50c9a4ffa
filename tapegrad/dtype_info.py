"""PyTorch's questions about dtypes: `finfo`/`iinfo` (a float's or an integer's limits), and its
type promotion (`promote_types`, `result_type`, `can_cast`), for tapegrad's dtypes.

PyTorch promotes by category (bool < integer < floating): a float16 tensor and an int16 one give
float16 (NumPy says float32); zero-dimensional tensors and Python numbers decide the dtype only
when their category is higher than that of the tensors with dimensions (a Python float then gives
the default float dtype, a Python int int64).

Layer L4: numpy, dtypes (L0) and the Tensor class.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from .tensor import Tensor

__all__ = ["finfo", "iinfo", "promote_types", "result_type", "can_cast"]


def _dtype_or_default(type: Any, who: str) -> np.dtype:
    """`type` as a NumPy dtype (bfloat16, which NumPy lacks, is refused by as_dtype)."""
    if type is None:
        return dtypes.get_default_dtype()
    if type is float:
        return np.dtype(np.float64)
    return dtypes.as_dtype(type)


class finfo:
    """A floating dtype's limits, as torch.finfo: bits, eps, max, min, tiny (= smallest_normal),
    resolution and dtype (its name); no argument: the default float dtype.

    >>> tg.finfo(tg.float32).eps
    1.1920928955078125e-07
    """

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type: Any = None) -> None:
        d = _dtype_or_default(type, "finfo")
        if d.kind != "f":
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                "'torch.finfo'"
            )
        info = np.finfo(d)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """An integer dtype's limits, as torch.iinfo: bits, min, max and dtype (its name).

    >>> tg.iinfo(tg.int8).max
    127
    """

    bits: int
    min: int
    max: int
    dtype: str

    def __init__(self, type: Any) -> None:
        d = dtypes.as_dtype(type)
        if d.kind == "b":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.kind not in "iu":
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        info = np.iinfo(d)
        self.bits, self.min, self.max = int(info.bits), int(info.min), int(info.max)
        self.dtype = d.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both promote to, by PyTorch's table (float16 with int16 is float16).

    >>> tg.promote_types(tg.uint8, tg.int8)
    dtype('int16')
    """
    return dtypes.promote(
        _dtype_or_default(type1, "promote_types"), _dtype_or_default(type2, "promote_types")
    )


def _operand_dtype(x: Any) -> tuple[int, np.dtype]:
    """(priority, dtype) of one operand: 2 a tensor with dimensions, 1 a zero-dim tensor, 0 a
    Python number (whose dtype is the default float, int64 or bool)."""
    if isinstance(x, Tensor):
        return (2 if x.ndim else 1), x.dtype
    if isinstance(x, bool | np.bool_):
        return 0, np.dtype(np.bool_)
    if isinstance(x, int | np.integer):
        return 0, np.dtype(np.int64)
    if isinstance(x, float | np.floating):
        return 0, dtypes.get_default_dtype()
    if isinstance(x, complex):
        raise TypeError(
            "result_type: complex numbers are not supported (tapegrad has no complex dtype)"
        )
    raise TypeError(
        f"result_type() expects tensors or Python numbers (bool, int, float), got "
        f"{type(x).__name__}"
    )


def result_type(tensor1: Any, tensor2: Any) -> np.dtype:
    """The dtype an arithmetic op on the two operands (tensors or Python numbers) gives, by
    PyTorch's promotion.

    >>> tg.result_type(tg.tensor([1, 2], dtype=tg.int32), 1.0)
    dtype('float32')
    """
    return dtypes.result_dtype([_operand_dtype(tensor1), _operand_dtype(tensor2)])


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's casting rules allow `from_` to `to`: never floating to integer, nor
    anything but bool to bool.

    >>> tg.can_cast(tg.float32, tg.int32)
    False
    """
    return dtypes.castable(dtypes.as_dtype(from_), dtypes.as_dtype(to))
