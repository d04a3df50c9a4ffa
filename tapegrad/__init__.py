"""tapegrad: reverse-mode autodiff you can read, on NumPy.

    import tapegrad as tg
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()      # PyTorch style: x.grad == [2, 4]
    tg.grad(lambda x: (x * x).sum())(x)   # MindSpore/JAX style

Layer L6: re-exports only (importing tapegrad changes no process-wide setting: keeping freed
memory is opt-in, tg.utils.keep_freed_memory()). See DESIGN.md for the layers.
"""

from __future__ import annotations

import math as _math

from . import autograd, dtype, dtypes
from .creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    scalar_tensor,
    tensor,
    tril_indices,
    triu_indices,
    zeros,
    zeros_like,
)
from .strided_factories import empty_permuted, empty_strided
from .devices import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    device,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from .finite_differences import gradient
from .histograms import histogram, histogramdd
from .lowrank import pca_lowrank, svd_lowrank
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .random import numpy_generator as generator  # (the samplers behind the default generator)
from .sampling import (
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from .dtypes import bfloat16, bool_, double, float16, float32, float64, half, int8, int16, int32
from .dtypes import int64, uint8
from .dtypes import float_ as float, int_ as int, long  # PyTorch's aliases: tg.float is float32
from .dtypes import bool_ as bool, int16 as short  # (torch.bool, torch.short)
from .math import *  # noqa: F403  (the free functions: math.__all__, by topic)
from .linear_algebra import *  # noqa: F403  (math.py's too; starred again here for mypy, which

# does not follow math.py's `__all__ += linear_algebra.__all__`)
from .combining import *  # noqa: F403  (hstack, meshgrid, broadcast_tensors...: its __all__)
from .view_copies import *  # noqa: F403  (permute_copy and the other *_copy: its __all__)
from .windows import *  # noqa: F403  (hann_window, kaiser_window, ...: its __all__)
from .dtypes import get_default_dtype, set_default_dtype
from ._state import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .tensor import Tensor
from ._utils import ShapeError
from .tensor.printing import get_printoptions, set_printoptions

from . import functional, nn, optim, amp, ops  # noqa: E402
from . import linalg, masked, signal, special  # noqa: E402
from .nn.functional_native import native_batch_norm, native_group_norm  # noqa: E402
from .nn.functional_native import native_layer_norm  # noqa: E402
from .nn.functional_native import grid_sampler, grid_sampler_2d, grid_sampler_3d  # noqa: E402
from .functional_spellings import *  # noqa: E402,F403  (torch.dropout, torch.layer_norm, ...)
from .loss_spellings import *  # noqa: E402,F403  (torch.kl_div(x, t, 1), torch.ctc_loss, ...)
from .inplace_functions import *  # noqa: E402,F403  (torch.sinh_(x), torch.detach, ...)
from .tensor_queries import *  # noqa: E402,F403  (torch.is_tensor, torch.numel, as_tensor, ...)
from .dtype_info import *  # noqa: E402,F403  (finfo, iinfo, result_type, promote_types, can_cast)
from .runtime_settings import *  # noqa: E402,F403  (set_num_threads, use_deterministic_algorithms...)
from .compiling import compile  # noqa: E402
from .deprecated_factories import range  # noqa: E402  (torch.range: its end included)
from .legacy_tensor_types import *  # noqa: E402,F403  (torch.FloatTensor(2, 3), LongTensor, ...)
from .autocasting import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402
from . import accelerator, cpu, jit, testing  # noqa: E402
from . import compat, interop, teach, utils  # noqa: E402
from . import backends, cuda, distributed, onnx  # noqa: E402
from . import distributions  # noqa: E402
from .teach import viz  # noqa: E402
from .functional import (
    GradientTape,
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    stop_gradient,  # noqa: E402
    value_and_grad,
    vjp,
)
from . import func  # noqa: E402
from .func.custom import custom_jvp, custom_vjp  # noqa: E402
from .func.vmap import vmap  # noqa: E402
from .teach.explain import explain  # noqa: E402
from .interop import from_dlpack  # noqa: E402
from .nn import Parameter  # noqa: E402
from .serialization import load, save  # noqa: E402
from .compat.mindspore import (  # noqa: E402
    GRAPH_MODE,
    PYNATIVE_MODE,
    GradOperation,
    ParameterTuple,
    get_context,
    set_context,
)

__version__ = "0.1.0"

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan  # (torch.pi, ...: Python floats)
newaxis = None  # (torch.newaxis: indexing with it adds an axis)

# What `from tapegrad import *` gives: the public names; implementation modules (math, creation,
# functional, primitives, tape, compat, teach, ...) stay reachable as attributes, never starred.
# (math.__all__'s names, the free functions, are listed here too: mypy reads only a literal
# __all__; tests/test_public_api.py checks the two agree)
# fmt: off
__all__ = [
    # namespaces (tg.nn, tg.optim, ...; `from tapegrad import dtype as mstype`)
    "accelerator", "amp", "autograd", "backends", "cpu", "cuda", "distributed", "distributions",
    "dtype", "func", "interop", "jit", "linalg", "masked", "nn", "onnx", "ops", "optim", "signal",
    "special", "testing", "utils", "viz",
    # tensors, factories and random numbers
    "Tensor", "arange", "empty", "empty_like", "empty_permuted", "empty_strided", "eye",
    "from_numpy", "full", "full_like", "histogram", "linspace", "logspace", "tril_indices",
    "triu_indices",
    "ones", "ones_like", "scalar_tensor", "tensor", "zeros", "zeros_like", "Generator",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
    "bernoulli", "default_generator", "generator", "get_rng_state", "initial_seed", "manual_seed",
    "multinomial", "normal", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "randperm", "seed", "set_rng_state",
    # counting and differencing sampled values (histograms.py, finite_differences.py)
    "histogramdd", "gradient", "svd_lowrank", "pca_lowrank",
    # where tensors live (only the CPU) and how they are laid out
    "channels_last", "channels_last_3d", "contiguous_format", "device", "layout", "memory_format",
    "preserve_format", "strided",
    # dtypes (PyTorch's aliases too: tg.float is float32)
    "bfloat16", "bool_", "double", "float", "float16", "float32", "float64", "half", "int", "int8",
    "int16", "int32", "int64", "long", "uint8", "bool", "short",
    # the default dtype
    "get_default_dtype", "set_default_dtype",
    # numbers (math's constants; newaxis: None, as NumPy's)
    "pi", "e", "inf", "nan", "newaxis",
    # the native_ spellings and ATen's grid_sampler (tapegrad/nn/functional_native.py)
    "native_batch_norm", "native_group_norm", "native_layer_norm", "grid_sampler",
    "grid_sampler_2d", "grid_sampler_3d",
    # grad mode and printing
    "enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
    "set_grad_enabled", "get_printoptions", "set_printoptions",
    # function transforms and TensorFlow's GradientTape
    "GradientTape", "custom_jvp", "custom_vjp", "grad", "hessian", "jacfwd", "jacobian", "jacrev",
    "jvp", "stop_gradient", "value_and_grad", "vjp", "vmap",
    # teaching, interop, parameters, saving
    "explain", "from_dlpack", "Parameter", "load", "save",
    # MindSpore
    "GRAPH_MODE", "PYNATIVE_MODE", "GradOperation", "ParameterTuple", "get_context", "set_context",
    # functions (tapegrad/math.py): elementwise
    "exp", "log", "sin", "cos", "tan", "tanh", "log1p", "expm1", "relu", "sigmoid", "sqrt", "abs",
    "sign", "square", "ceil", "erf", "floor", "frac", "round", "trunc", "reciprocal", "rsqrt",
    "log10", "log2", "absolute", "fix", "negative", "maximum", "minimum", "clamp", "clip",
    "floor_divide", "true_divide", "remainder", "fill", "pow", "add", "sub", "mul", "div",
    "divide", "multiply", "subtract", "neg", "where", "isfinite", "isinf", "isnan", "allclose",
    "lerp", "addcmul", "addcdiv", "float_power", "heaviside", "positive", "gcd", "lcm", "rsub",
    # functions (tapegrad/math.py): transcendental
    "sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "arcsinh", "arccosh",
    "arctanh", "arcsin", "arccos", "arctan", "exp2", "sinc", "erfc", "logit", "nan_to_num",
    "deg2rad",
    "rad2deg", "atan2", "hypot", "xlogy", "arctan2", "logaddexp", "logaddexp2", "fmod", "copysign",
    "fmax", "fmin", "sgn", "signbit", "isposinf", "isneginf", "isreal", "conj", "real", "imag",
    # functions (tapegrad/math.py): special functions
    "lgamma", "digamma", "polygamma", "mvlgamma", "erfinv", "i0", "igamma", "igammac",
    # functions (tapegrad/math.py): reductions
    "mean", "prod", "sum", "logsumexp", "std", "var", "std_mean", "var_mean", "amax", "amin",
    "argmax", "argmin", "log_softmax", "softmax", "cumsum", "norm", "cumprod", "max", "min",
    "nansum", "nanmean", "count_nonzero", "median", "nanmedian", "mode", "quantile",
    "nanquantile", "cummax", "cummin", "logcumsumexp", "aminmax", "kthvalue", "msort", "bincount",
    "bucketize", "searchsorted", "histc", "cov", "corrcoef", "trapezoid", "trapz",
    "cumulative_trapezoid", "isin", "unravel_index",
    # functions (tapegrad/math.py): comparison, logic and ordering
    "eq", "le", "lt", "ne", "ge", "gt", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "logical_and", "logical_or", "logical_not", "logical_xor", "all", "any",
    "argsort", "sort", "topk", "unique", "isclose", "equal",
    # functions (tapegrad/math.py): shape
    "flatten", "reshape", "permute", "transpose", "t", "squeeze", "unsqueeze", "expand_dims",
    "broadcast_to", "expand", "split", "narrow", "unbind", "flip", "tile", "roll", "chunk",
    "clone", "swapaxes", "swapdims", "concatenate", "cat", "concat", "stack", "rot90",
    "tensor_split", "hsplit", "vsplit", "dsplit", "diff", "diag_embed", "movedim", "moveaxis",
    "unflatten", "ravel", "fliplr", "flipud", "clamp_min", "clamp_max",
    # functions (tapegrad/math.py): indexing
    "gather", "masked_fill", "index_select", "select", "masked_select", "take_along_dim",
    "nonzero", "argwhere", "diagonal", "scatter", "scatter_add", "index_copy", "index_add",
    "index_fill", "masked_scatter", "repeat_interleave", "take", "put", "index_put",
    "narrow_copy", "split_with_sizes", "diagflat", "addr", "renorm",
    "scatter_reduce", "index_reduce", "select_scatter", "slice_scatter", "diagonal_scatter",
    "frexp", "ldexp", "nextafter", "unique_consecutive",
    "as_strided", "as_strided_scatter",
    # functions of several tensors (tapegrad/combining.py)
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
    "column_stack", "broadcast_tensors", "broadcast_shapes", "meshgrid", "cartesian_prod",
    "block_diag", "cdist", "combinations",
    # functions (tapegrad/linear_algebra.py, star-imported by math.py): linear algebra
    "matmul", "bmm", "mm", "diag", "outer", "trace", "ger", "tril", "triu", "dot", "einsum",
    "mv", "inner", "vdot", "kron", "cross", "dist", "addmm", "addmv", "addbmm", "baddbmm",
    "det", "logdet", "slogdet", "inverse", "cholesky", "matrix_power",
    "cholesky_solve", "qr", "matrix_exp", "lu", "lu_unpack", "lu_solve",
    "svd", "pinverse", "cholesky_inverse", "triangular_solve", "orgqr", "tensordot", "geqrf",
    "ormqr",
    # PyTorch's *_copy functions (tapegrad/view_copies.py): a view's result in fresh memory
    "alias_copy", "as_strided_copy", "diagonal_copy", "expand_copy", "permute_copy",
    "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy",
    "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
    # functions (tapegrad/math.py): in place (torch.exp_(x) and friends)
    "exp_", "log1p_", "log_", "expm1_", "sin_", "sqrt_", "cos_", "tan_", "tanh_", "erf_", "relu_",
    "sigmoid_", "reciprocal_", "rsqrt_", "abs_", "floor_", "neg_", "ceil_", "round_", "trunc_",
    "frac_", "square_", "clamp_", "clip_", "fill_", "zero_", "resize_as_",
    # more in place, and other spellings of Tensor methods (tapegrad/inplace_functions.py)
    "acos_", "acosh_", "asin_", "asinh_", "atan_", "atanh_", "arccos_", "arccosh_", "arcsin_",
    "arcsinh_", "arctan_", "arctanh_", "sinh_", "cosh_", "deg2rad_", "rad2deg_", "erfc_",
    "exp2_", "fix_", "gcd_", "lcm_", "i0_", "ldexp_", "log10_", "log2_", "logit_", "negative_",
    "sinc_", "xlogy_", "nan_to_num_", "clamp_min_", "clamp_max_", "index_put_", "addmv_",
    "as_strided_", "detach_", "detach", "resolve_conj", "resolve_neg", "is_conj", "is_neg",
    "adjoint", "unsafe_chunk", "unsafe_split",
    # torch's top-level spellings of nn.functional (tapegrad/functional_spellings.py)
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
    "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "embedding", "layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "native_channel_shuffle", "constant_pad_nd",
    "cosine_similarity", "pairwise_distance", "pdist",
    "selu", "selu_", "celu", "celu_", "prelu", "rrelu", "rrelu_", "hardshrink", "threshold",
    "threshold_",
    "kl_div", "binary_cross_entropy_with_logits", "cosine_embedding_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
    "ctc_loss", "bilinear", "chain_matmul", "nuclear_norm", "frobenius_norm",
    # questions about tensors and dtypes (tensor_queries.py, dtype_info.py)
    "is_tensor", "is_storage", "numel", "is_floating_point", "is_complex", "is_nonzero",
    "is_same_size", "is_signed", "is_inference", "get_device", "as_tensor", "asarray",
    "typename", "range", "is_distributed", "cudnn_is_acceptable", "conj_physical",
    # legacy tensor types (legacy_tensor_types.py: torch.FloatTensor(2, 3), isinstance checks)
    "FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor",
    "IntTensor", "LongTensor", "BoolTensor", "set_default_tensor_type",
    "finfo", "iinfo", "promote_types", "result_type", "can_cast",
    # the error of a tensor of the wrong shape (a ValueError and, as PyTorch's, a RuntimeError)
    "ShapeError",
    # runtime settings (runtime_settings.py) and compilation (compiling.py: nothing to compile)
    "get_num_threads", "set_num_threads", "get_num_interop_threads", "set_num_interop_threads",
    "get_float32_matmul_precision", "set_float32_matmul_precision", "get_default_device",
    "set_default_device", "set_flush_denormal", "is_warn_always_enabled", "set_warn_always",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "get_deterministic_debug_mode",
    "set_deterministic_debug_mode", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled", "compile", "autocast", "is_autocast_enabled", "get_autocast_dtype",
]
# fmt: on
