"""`from tapegrad import dtype as mstype`: MindSpore's dtype module spelling (mstype.float32, ...).

Layer L0: re-exports tapegrad.dtypes only (the one place dtypes are defined and normalised).
"""

from __future__ import annotations

from .dtypes import (
    as_dtype,
    bool_,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

single = float32  # MindSpore's alias

__all__ = [
    "as_dtype",
    "bool_",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "single",
    "uint8",
]
