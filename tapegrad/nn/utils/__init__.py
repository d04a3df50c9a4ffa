"""tg.nn.utils: torch.nn.utils's helpers, one topic a module: clip_grad (gradient norms and
clipping), convert_parameters (parameters as one vector), rnn (PackedSequence, padding and
packing), stateless (functional_call).

Layer L5: re-exports only.
"""

from __future__ import annotations

from . import rnn, stateless
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "rnn",
    "stateless",
    "vector_to_parameters",
]
