"""The rule table: every differentiable primitive, its forward (NumPy) and its rules (expressions).

Layer L1. Read `registry.py` for the conventions, then any family file: elementwise, reduction,
shape, linalg, einsum, fused, nn (convolution and pooling). Importing this package registers them
all, and the textbook rules of the functions made of several primitives (composites.py and the
composite_*.py by topic: what the teaching tools show for F.cross_entropy, softmax, ...).
"""

from . import einsum, elementwise, fused, linalg, nn, reduction, shape  # noqa: F401  (registers them)
from . import composite_layers, composite_losses, composites  # noqa: F401  (functions' rules)
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
