"""Dtypes: the names users write (tg.float32, ...), the one function that normalises them, and
PyTorch's promotion rule (promote, result_dtype), which ops and tg.result_type share.

Layer L0: imports numpy only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
bool_ = np.dtype(np.bool_)
half, float_, double, long, int_ = float16, float32, float64, int64, int32


class UnsupportedDtype:
    """A PyTorch dtype NumPy has no type for: the name exists (programs build dtype tables with
    it), and using it for a tensor is a clear TypeError.

    >>> tg.bfloat16
    tapegrad.bfloat16
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"tapegrad.{self.name}"


bfloat16 = UnsupportedDtype("bfloat16")

# The default float dtype (PyTorch's torch.get_default_dtype()): what Python floats in tg.tensor and
# the factories make, and what floating ops on bool/int inputs return. Read it at call time as
# `dtypes.default_float` (never `from .dtypes import default_float`: that copy would not follow
# set_default_dtype). Process-wide, as PyTorch's.
FloatDtype = np.dtype[np.float16 | np.float32 | np.float64]
default_float: FloatDtype = float32

_BY_NAME: dict[str, np.dtype] = {
    "float16": float16,
    "half": float16,
    "float32": float32,
    "float": float32,
    "float64": float64,
    "double": float64,
    "int8": int8,
    "int16": int16,
    "int32": int32,
    "int": int32,
    "int64": int64,
    "long": int64,
    "uint8": uint8,
    "bool": bool_,
    "bool_": bool_,
}
_SUPPORTED = frozenset(_BY_NAME.values())


def as_dtype(dtype: Any) -> np.dtype:
    """Normalise a dtype given as tg.float32, a numpy dtype/type, a Python type or a name."""
    if isinstance(dtype, np.dtype) and dtype in _SUPPORTED:
        return dtype
    if dtype is float:
        return float32
    if dtype is int:
        return int64
    if dtype is bool:
        return bool_
    if isinstance(dtype, UnsupportedDtype):
        raise TypeError(
            f"{dtype!r} is not supported: tapegrad computes with NumPy, which has no {dtype.name} "
            f"type; use tg.float32 (or tg.float16 to save memory)"
        )
    if isinstance(dtype, str):
        key = dtype.lower().replace("tg.", "").replace("mindspore.", "").replace("torch.", "")
        if key in _BY_NAME:
            return _BY_NAME[key]
    else:
        try:
            d = np.dtype(dtype)
        except TypeError:
            d = None
        if d is not None and d in _SUPPORTED:
            return d
    raise TypeError(
        f"unknown dtype {dtype!r}; use one of tg.float16, tg.float32, tg.float64, tg.int32, "
        f"tg.int64, tg.bool_ (numpy dtypes and their names are accepted too)"
    )


def is_floating(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def _category(d: np.dtype) -> int:
    """0 bool, 1 integer, 2 floating."""
    return {"b": 0, "i": 1, "u": 1, "f": 2}[d.kind]


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promotion of two dtypes (torch.promote_types): a floating one wins over integers
    and bools as it is (float16 with int16 is float16, where NumPy says float32)."""
    ca, cb = _category(a), _category(b)
    if ca != cb and max(ca, cb) == 2:
        return a if ca == 2 else b
    return np.promote_types(a, b)


def castable(src: np.dtype, dst: np.dtype) -> bool:
    """PyTorch's casting rule (torch.can_cast; what an in-place op may write into a tensor): never
    floating to integer or bool, nor anything but bool to bool; integers wrap (int16 -> uint8)."""
    if src.kind == "f" and dst.kind in "iub":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """PyTorch's combine_categories: the higher-priority dtype unless the lower one's category
    is above it."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote(higher, lower)
    return higher


def result_dtype(operands: list[tuple[int, np.dtype]]) -> np.dtype:
    """The dtype PyTorch computes an elementwise op in, from (priority, dtype) per operand:
    priority 2 a tensor with dimensions, 1 a 0-d tensor, 0 a Python number. A lower priority only
    counts where its category is above the higher one's: float32 vector + 0-d float64 tensor is
    float32, int32 vector + 2.5 is the default float."""
    found: list[np.dtype | None] = [None, None, None]
    for priority, d in operands:
        seen = found[priority]
        found[priority] = d if seen is None else promote(seen, d)
    result = _combine(found[2], _combine(found[1], found[0]))
    assert result is not None, "result_dtype needs at least one operand"
    return result


def arrays_dtype(a: np.ndarray, b: np.ndarray) -> np.dtype:
    """result_dtype for two arrays (tensors' values): one with dimensions decides over a 0-d one
    (a float32 vector with a 0-d float64 array: float32)."""
    return result_dtype([(2 if a.ndim else 1, a.dtype), (2 if b.ndim else 1, b.dtype)])


def wrapped(value: int, dtype: np.dtype) -> int:
    """A Python int as an integer dtype holds it: modulo 2**bits, as PyTorch casts an int operand
    to an integer tensor's dtype (uint8 tensor + 300 adds 44, int8 tensor * -129 multiplies by 127).

    >>> wrapped(300, np.dtype(np.uint8)), wrapped(-129, np.dtype(np.int8))
    (44, 127)
    """
    if not -(1 << 63) <= value < 1 << 64:  # (PyTorch reads the int as a C long first)
        raise OverflowError(f"the int {value} does not fit in 64 bits, so no tensor can hold it")
    bits = dtype.itemsize * 8
    value %= 1 << bits
    return value - (1 << bits) if dtype.kind == "i" and value >> (bits - 1) else value


def get_default_dtype() -> FloatDtype:
    """The default float dtype (float32 unless set_default_dtype changed it), as PyTorch's.

    >>> tg.get_default_dtype()
    dtype('float32')
    """
    return default_float


def set_default_dtype(d: Any) -> None:
    """Make `d` (a floating dtype) the default float dtype: Python floats in tg.tensor and the
    factories, and floating ops on bool/int inputs, give it from now on (process-wide, as PyTorch).

    >>> tg.set_default_dtype(tg.float64); tg.tensor([1.5]).dtype
    dtype('float64')
    """
    global default_float
    try:
        dtype = None if d is None else as_dtype(d)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind != "f":
        raise TypeError(
            f"set_default_dtype: only floating-point types are supported as the default type, "
            f"got {d!r}; use tg.float32, tg.float64 or tg.float16"
        )
    default_float = dtype
