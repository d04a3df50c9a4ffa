"""tg.nn.utils: torch.nn.utils's helpers, one topic a module: clip_grad (gradient norms and
clipping), convert_parameters (parameters as one vector), rnn (PackedSequence, padding and
packing), stateless (functional_call), weight_norm and spectral_norm (the hook-style
reparametrizations), parametrize (register_parametrization...) and parametrizations
(weight_norm, spectral_norm, orthogonal as parametrizations), fusion (a conv or Linear and
the batch norm after it folded into one layer), memory_format (weight layouts: checked) and
skip_init.

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
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .memory_format import (
    convert_conv2d_weight_memory_format,
    convert_conv3d_weight_memory_format,
    skip_init,
)
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]
