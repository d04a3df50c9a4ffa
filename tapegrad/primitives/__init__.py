"""The rule table: every differentiable primitive, its forward (NumPy) and its VJP (tapegrad ops).

Layer L1. Read `registry.py` for the conventions, then any family file: elementwise, reduction,
shape, linalg, nn (convolution and pooling). Importing this package registers them all.
"""

from . import elementwise, linalg, nn, reduction, shape  # noqa: F401  (registration side effects)
from .registry import REGISTRY, Primitive, lookup, primitive

__all__ = ["REGISTRY", "Primitive", "lookup", "primitive"]
