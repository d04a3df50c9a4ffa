"""The rule table: every differentiable primitive, its forward (NumPy) and its rules (expressions).

Layer L1. Read `registry.py` for the conventions, then any family file: elementwise, reduction,
shape, linalg, einsum, fused, nn (convolution and pooling), attention. Importing this package
registers them all.
"""

from . import attention, einsum, elementwise, fused, linalg, nn, reduction, shape  # noqa: F401
from .registry import REGISTRY, Primitive, SavePlan, TensorLayer, bind, lookup, primitive, value

__all__ = [
    "REGISTRY",
    "Primitive",
    "SavePlan",
    "TensorLayer",
    "bind",
    "lookup",
    "primitive",
    "value",
]
