"""The Tensor layer: the Tensor class, and how ops on Tensors are recorded on the tape.

Layer L3: tensor.py (the class), base.py (storage and conversions), record.py (the one place a
Node is made), inplace.py (in-place ops and views), methods.py (argument parsing of math and shape
methods), coerce.py (what users pass), grad.py (gradients arriving at tensors). Importing it plugs
the Tensor layer into the layers below, through one call: `bind`.
"""

from .tensor import MaxResult, MinResult, Tensor  # (first: the helpers below import it)

from ..primitives.registry import TensorLayer, bind
from .base import Size
from .grad import HookHandle, accumulate_grad
from .record import apply, record, wrap

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
