"""The rule table: every differentiable primitive, its forward (NumPy) and its rules (expressions).

Layer L1. Read `registry.py` for the conventions, then any family file: elementwise, transcendental,
reduction, shape, linalg, linear_systems (inverse, determinant, solves, Cholesky), decompositions
(eigh, svd), factorizations (QR), matrix_functions (matrix_exp), einsum, fused (and
fused_recurrent: the LSTM and GRU cells), nn (convolution), pooling, normalization (its kernels
in fused_normalization), attention, gelu. Importing this
package registers them all, and the textbook rules of the functions made of several primitives
(composites.py and the composite_*.py by topic: what the teaching tools show for F.cross_entropy,
softmax, ...). Each primitive also has its batching rule for vmap: the kinds in batching.py,
indexing under vmap in batched_index.py, the values of a batched tensor in batched_array.py.
"""

from . import attention, einsum, elementwise, fused, gelu, linalg, nn, normalization  # noqa: F401
from . import fused_normalization, pooling, reduction, shape, transcendental  # noqa: F401
from . import decompositions, factorizations, linear_systems, matrix_functions  # noqa: F401
from . import special_functions  # noqa: F401
from . import floating  # noqa: F401  (nextafter)
from . import batched_functions  # noqa: F401  (NumPy's functions on batched values)
from . import composite_activations, composite_layers, composite_losses, composites  # noqa: F401
from . import composite_margins  # noqa: F401  (functions' rules)
from . import composite_resampling  # noqa: F401  (transposed convolutions, interpolate, shuffles)
from . import composite_pooling  # noqa: F401  (adaptive pooling in 1 and 3 dimensions, max)
from . import composite_spatial  # noqa: F401  (affine_grid, grid_sample)
from . import composite_bilinear, composite_embedding_bag  # noqa: F401  (F.bilinear, embedding_bag)
from . import composite_fold  # noqa: F401  (F.unfold, F.fold)
from . import composite_ctc  # noqa: F401  (F.ctc_loss)
from .registry import REGISTRY, Primitive, TensorLayer, bind, lookup, primitive, value
from .save_plan import SavePlan

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
