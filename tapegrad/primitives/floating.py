"""Floating-point representation primitives: nextafter (the neighbouring float towards another
value). frexp and ldexp are compositions (tensor/floating.py): scaling by powers of two.

Layer L1: numpy, registry and batching (pointwise). nextafter moves x by one unit in the last
place, so its gradient is PyTorch's: g for x (0 where x == y: the result is y there, not a
step from x), none for the direction y.
"""

from __future__ import annotations

import numpy as np

from .batching import pointwise
from .elementwise import where  # noqa: F401  (the rule reads it)
from .registry import primitive


@primitive(
    "nextafter",
    "the float after x towards y",
    batch=pointwise,
    elementwise=True,
    x="where(x == y, 0, g)",
    y=None,
)
def nextafter(x, y):
    return np.nextafter(x, y)
