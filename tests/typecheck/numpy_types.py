"""The NumPy types on tapegrad's surface, checked by mypy as typed_surface.py is, but without
disallow_any_expr: NumPy's own generic array and dtype types have Any parameters
(`ndarray[tuple[Any, ...], dtype[Any]]`), which is what makes them fit every NumPy function.
"""

from __future__ import annotations

import numpy as np
from typing_extensions import assert_type

import tapegrad as tg

x = tg.ones(2, 3)
assert_type(x.numpy(), np.ndarray)
assert_type(x.dtype, np.dtype)
assert_type(np.asarray(x), np.ndarray)
