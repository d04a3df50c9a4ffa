"""PyTorch's top-level in-place functions beyond math.py's (`torch.sinh_(x)`, `torch.acos_`,
`torch.clamp_min_`, `torch.nan_to_num_`, `torch.index_put_`, `torch.detach_`, ...), each the
Tensor method of its name as a free function; and the other top-level spellings of Tensor
methods programs call (`torch.detach`, `torch.resolve_conj`, `torch.adjoint`, `torch.unsafe_chunk`,
...).

Layer L4: imports the Tensor class and _free.py.
"""

from __future__ import annotations

from ._free import FreeFunctions
from .tensor import Tensor

__all__ = [
    # in place
    "acos_", "acosh_", "asin_", "asinh_", "atan_", "atanh_", "arccos_", "arccosh_", "arcsin_",
    "arcsinh_", "arctan_", "arctanh_", "sinh_", "cosh_", "deg2rad_", "rad2deg_", "erfc_",
    "exp2_", "fix_", "gcd_", "lcm_", "i0_", "ldexp_", "log10_", "log2_", "logit_", "negative_",
    "sinc_", "xlogy_", "nan_to_num_", "clamp_min_", "clamp_max_", "index_put_", "addmv_",
    "as_strided_", "detach_",
    # other spellings of Tensor methods
    "detach", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "adjoint", "unsafe_chunk",
    "unsafe_split", "conj_physical",
]  # fmt: skip

_function = FreeFunctions(__name__).of_method

acos_, acosh_ = _function(Tensor.acos_), _function(Tensor.acosh_)
asin_, asinh_ = _function(Tensor.asin_), _function(Tensor.asinh_)
atan_, atanh_ = _function(Tensor.atan_), _function(Tensor.atanh_)
arccos_, arccosh_ = _function(Tensor.arccos_), _function(Tensor.arccosh_)
arcsin_, arcsinh_ = _function(Tensor.arcsin_), _function(Tensor.arcsinh_)
arctan_, arctanh_ = _function(Tensor.arctan_), _function(Tensor.arctanh_)
sinh_, cosh_ = _function(Tensor.sinh_), _function(Tensor.cosh_)
deg2rad_, rad2deg_ = _function(Tensor.deg2rad_), _function(Tensor.rad2deg_)
erfc_, exp2_, fix_ = _function(Tensor.erfc_), _function(Tensor.exp2_), _function(Tensor.fix_)
gcd_, lcm_, i0_ = _function(Tensor.gcd_), _function(Tensor.lcm_), _function(Tensor.i0_)
ldexp_, log10_, log2_ = _function(Tensor.ldexp_), _function(Tensor.log10_), _function(Tensor.log2_)
logit_, negative_ = _function(Tensor.logit_), _function(Tensor.negative_)
sinc_, xlogy_ = _function(Tensor.sinc_), _function(Tensor.xlogy_)
nan_to_num_ = _function(Tensor.nan_to_num_)
clamp_min_, clamp_max_ = _function(Tensor.clamp_min_), _function(Tensor.clamp_max_)
index_put_, addmv_ = _function(Tensor.index_put_), _function(Tensor.addmv_)
as_strided_, detach_ = _function(Tensor.as_strided_), _function(Tensor.detach_)

detach = _function(Tensor.detach)
resolve_conj, resolve_neg = _function(Tensor.resolve_conj), _function(Tensor.resolve_neg)
is_conj, is_neg = _function(Tensor.is_conj), _function(Tensor.is_neg)
adjoint, conj_physical = _function(Tensor.adjoint), _function(Tensor.conj_physical)
unsafe_chunk, unsafe_split = _function(Tensor.chunk), _function(Tensor.split)
