"""tg.nn.utils: torch.nn.utils's helpers, one topic a module: clip_grad (gradient norms and
clipping), convert_parameters (parameters as one vector), rnn (PackedSequence, padding and
packing), stateless (functional_call), weight_norm and spectral_norm (the hook-style
reparametrizations), parametrize (register_parametrization...) and parametrizations
(weight_norm, spectral_norm, orthogonal as parametrizations).

Layer L5: re-exports only.
"""

from __future__ import annotations

from . import parametrizations, parametrize, rnn, stateless
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]
