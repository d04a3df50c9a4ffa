"""The rule table: every differentiable primitive, its forward (NumPy) and its rules (expressions).

Layer L1. Read `registry.py` for the conventions, then any family file: elementwise, reduction,
shape, linalg, einsum, fused, nn (convolution and pooling), attention. Importing this package
registers them all. Each also has its batching rule for vmap: the kinds in batching.py, indexing
under vmap in batched_index.py, the values of a batched tensor in batched_array.py.
"""

from . import attention, einsum, elementwise, fused, linalg, nn, reduction, shape  # noqa: F401
from . import batched_functions  # noqa: F401  (NumPy's functions on batched values)
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
