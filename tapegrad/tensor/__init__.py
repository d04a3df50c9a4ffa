"""The Tensor layer: the Tensor class, and how ops on Tensors are recorded on the tape.

Layer L3: tensor.py (the class, composed of the method rooms: elementwise.py, comparison.py,
bitwise.py, reduction.py, statistics.py, shape.py, indexing.py, linalg.py, inplace.py, random.py,
conversion.py), base.py (storage and bookkeeping), record.py (the one place a Node is made),
writing.py (the one path in-place changes take), coerce.py (what users pass), grad.py (gradients
arriving at tensors), printing.py. Importing it plugs the Tensor layer into the
layers below, through one call: `bind`.
"""

from ..primitives.registry import TensorLayer, bind
from .base import Size
from .grad import HookHandle, accumulate_grad
from .record import apply, record, wrap
from .reduction import MaxResult, MinResult
from .tensor import Tensor

bind(TensorLayer(tensor_type=Tensor, apply=apply, wrap=wrap, accumulate=accumulate_grad))

__all__ = [
    "HookHandle",
    "MaxResult",
    "MinResult",
    "Size",
    "Tensor",
    "accumulate_grad",
    "apply",
    "record",
    "wrap",
]
