"""Free-function forms of the ops (`tg.sin(x)`, `tg.cat([a, b])`, ...): thin wrappers over Tensor.

Layer L4: imports the Tensor layer (linear algebra's: linear_algebra.py, star-imported here so
tapegrad.math stays the one list of free functions). No rules here: every op's math lives once,
in primitives/, and its argument parsing once, in the Tensor method of its room (`tg.exp(x)` is
`x.exp()` for any x a tensor can be made of, with the method's signature and docstring).
"""

from __future__ import annotations

from typing import Any, Sequence, overload

import numpy as np

from . import primitives as P
from . import linear_algebra
from ._free import FreeFunctions
from ._utils import ShapeError, one_axis
from .linear_algebra import *  # noqa: F403  (its functions are tapegrad.math's too: its __all__)
from .tensor import MaxResult, MinResult, Tensor, apply
from .tensor.coerce import TensorLike, as_tensor
from .tensor.elementwise import where as _where
from .tensor import integration as _integration
from .tensor import searching as _searching

# What `from .math import *` gives tapegrad's namespace: every function here, by topic (and those
# of the topic modules it star-imports: linear_algebra.py's, added below).
# fmt: off
__all__ = [
    # elementwise
    "exp", "log", "sin", "cos", "tan", "tanh", "log1p", "expm1", "relu", "sigmoid", "sqrt", "abs",
    "sign", "square", "ceil", "erf", "floor", "frac", "round", "trunc", "reciprocal", "rsqrt",
    "log10", "log2", "absolute", "fix", "negative", "maximum", "minimum", "clamp", "clip",
    "floor_divide", "true_divide", "remainder", "fill", "pow", "add", "sub", "mul", "div",
    "divide", "multiply", "subtract", "neg", "where", "isfinite", "isinf", "isnan", "allclose",
    "lerp", "addcmul", "addcdiv", "float_power", "heaviside", "positive", "gcd", "lcm", "rsub",
    # transcendental
    "sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "arcsinh", "arccosh",
    "arctanh", "arcsin", "arccos", "arctan", "exp2", "sinc", "erfc", "logit", "nan_to_num",
    "deg2rad",
    "rad2deg", "atan2", "hypot", "xlogy", "arctan2", "logaddexp", "logaddexp2", "fmod", "copysign",
    "fmax", "fmin", "sgn", "signbit", "isposinf", "isneginf", "isreal", "conj", "real", "imag",
    # special functions
    "lgamma", "digamma", "polygamma", "mvlgamma", "erfinv", "i0", "igamma", "igammac",
    # reductions
    "mean", "prod", "sum", "logsumexp", "std", "var", "std_mean", "var_mean", "amax", "amin",
    "argmax", "argmin", "log_softmax", "softmax", "cumsum", "norm", "cumprod", "max", "min",
    "nansum", "nanmean", "count_nonzero", "median", "nanmedian", "mode", "quantile",
    "nanquantile", "cummax", "cummin", "logcumsumexp", "aminmax", "kthvalue", "msort", "bincount",
    "bucketize", "searchsorted", "histc", "cov", "corrcoef", "trapezoid", "trapz",
    "cumulative_trapezoid", "isin", "unravel_index",
    # comparison, logic and ordering
    "eq", "le", "lt", "ne", "ge", "gt", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "logical_and", "logical_or", "logical_not", "logical_xor", "all", "any",
    "argsort", "sort", "topk", "unique", "isclose", "equal",
    # shape
    "flatten", "reshape", "permute", "transpose", "t", "squeeze", "unsqueeze", "expand_dims",
    "broadcast_to", "expand", "split", "narrow", "unbind", "flip", "tile", "roll", "chunk",
    "clone", "swapaxes", "swapdims", "concatenate", "cat", "concat", "stack", "rot90",
    "tensor_split", "hsplit", "vsplit", "dsplit", "diff", "diag_embed", "movedim", "moveaxis",
    "unflatten", "ravel", "fliplr", "flipud", "clamp_min", "clamp_max",
    # indexing
    "gather", "masked_fill", "index_select", "select", "masked_select", "take_along_dim",
    "nonzero", "argwhere", "diagonal", "scatter", "scatter_add", "index_copy", "index_add",
    "index_fill", "masked_scatter", "repeat_interleave", "take", "put", "index_put",
    "narrow_copy", "split_with_sizes", "diagflat", "addr", "renorm",
    "scatter_reduce", "index_reduce", "select_scatter", "slice_scatter", "diagonal_scatter",
    "frexp", "ldexp", "nextafter", "unique_consecutive",
    "as_strided", "as_strided_scatter",
    # in place (torch.exp_(x) and friends)
    "exp_", "log1p_", "log_", "expm1_", "sin_", "sqrt_", "cos_", "tan_", "tanh_", "erf_", "relu_",
    "sigmoid_", "reciprocal_", "rsqrt_", "abs_", "floor_", "neg_", "ceil_", "round_", "trunc_",
    "frac_", "square_", "clamp_", "clip_", "fill_", "zero_", "resize_as_",
]
# fmt: on
__all__ += linear_algebra.__all__


_made_here = FreeFunctions(__name__)
_function, _same = _made_here.of_method, _made_here.same


# ---- elementwise -------------------------------------------------------------------------------
exp, log, sin = _function(Tensor.exp), _function(Tensor.log), _function(Tensor.sin)
cos, tan, tanh = _function(Tensor.cos), _function(Tensor.tan), _function(Tensor.tanh)
log1p, expm1 = _function(Tensor.log1p), _function(Tensor.expm1)
sigmoid, relu, sqrt = _function(Tensor.sigmoid), _function(Tensor.relu), _function(Tensor.sqrt)
abs, sign, square = _function(Tensor.abs), _function(Tensor.sign), _function(Tensor.square)
erf, floor, ceil = _function(Tensor.erf), _function(Tensor.floor), _function(Tensor.ceil)
trunc, round, frac = _function(Tensor.trunc), _function(Tensor.round), _function(Tensor.frac)
rsqrt, reciprocal = _function(Tensor.rsqrt), _function(Tensor.reciprocal)
log10, log2 = _function(Tensor.log10), _function(Tensor.log2)
absolute, negative, fix = abs, _function(Tensor.neg), trunc  # (PyTorch's aliases)
maximum, minimum = _function(Tensor.maximum), _function(Tensor.minimum)
clip = clamp = _function(Tensor.clip)
true_divide, floor_divide = _function(Tensor.true_divide), _function(Tensor.floor_divide)
remainder = _function(Tensor.remainder)
lerp, addcmul, addcdiv = (
    _function(Tensor.lerp),
    _function(Tensor.addcmul),
    _function(Tensor.addcdiv),
)
float_power, heaviside = _function(Tensor.float_power), _function(Tensor.heaviside)
positive, gcd, lcm = _function(Tensor.positive), _function(Tensor.gcd), _function(Tensor.lcm)


def fill(x: TensorLike, value: Any) -> Tensor:
    """A new tensor of x's shape and dtype filled with value (torch.fill; fill_ is in place).

    >>> tg.fill(tg.zeros(2), 7.0)
    tensor([7., 7.])
    """
    return as_tensor(x).clone().fill_(value)


def pow(x: TensorLike, y: TensorLike) -> Tensor:
    """x ** y, elementwise (either may be the tensor).

    >>> tg.pow(tg.tensor([2.0, 3.0]), 2), tg.pow(2.0, tg.tensor([3.0]))
    (tensor([4., 9.]), tensor([8.]))
    """
    if isinstance(y, Tensor) and not isinstance(x, Tensor):
        return y.__rpow__(x)
    return as_tensor(x) ** y


def add(x: TensorLike, y: TensorLike, *, alpha: Any = 1) -> Tensor:
    """x + alpha * y, elementwise (broadcast).

    >>> tg.add(tg.tensor([1.0, 2.0]), 1.0)
    tensor([2., 3.])
    """
    return as_tensor(x).add(y, alpha=alpha)


def sub(x: TensorLike, y: TensorLike, *, alpha: Any = 1) -> Tensor:
    """x - alpha * y, elementwise (broadcast).

    >>> tg.sub(tg.tensor([1.0, 2.0]), 1.0)
    tensor([0., 1.])
    """
    return as_tensor(x).sub(y, alpha=alpha)


def rsub(x: TensorLike, y: TensorLike, *, alpha: Any = 1) -> Tensor:
    """y - alpha * x, elementwise (broadcast): sub with its operands swapped (torch.rsub).

    >>> tg.rsub(tg.tensor([1.0, 2.0]), 3.0, alpha=2)
    tensor([ 1., -1.])
    """
    scaled = as_tensor(x) if alpha == 1 else as_tensor(x) * alpha
    return scaled.__rsub__(y)


def mul(x: TensorLike, y: TensorLike) -> Tensor:
    """x * y, elementwise (broadcast).

    >>> tg.mul(tg.tensor([1.0, 2.0]), 3.0)
    tensor([3., 6.])
    """
    return as_tensor(x) * y


def div(x: TensorLike, y: TensorLike, *, rounding_mode: str | None = None) -> Tensor:
    """x / y, elementwise (broadcast); rounding_mode "trunc" or "floor" rounds the quotient.

    >>> tg.div(tg.tensor([1.0, 2.0]), 2.0)
    tensor([0.5000, 1.0000])
    """
    return as_tensor(x).div(y, rounding_mode=rounding_mode)


subtract, multiply, divide = sub, mul, div  # (PyTorch's aliases)


def neg(x: TensorLike) -> Tensor:
    """-x, elementwise.

    >>> tg.neg(tg.tensor([1.0, -2.0]))
    tensor([-1.,  2.])
    """
    return -as_tensor(x)


def where(condition: TensorLike, x: TensorLike, y: TensorLike) -> Tensor:
    """x where condition holds, else y (all three broadcast): `tg.where(x > 0, x, 0.0)`.

    >>> tg.where(tg.tensor([True, False]), tg.tensor([1.0, 2.0]), 0.0)
    tensor([1., 0.])
    """
    return _where(condition, x, y)


isfinite, isnan, isinf = (
    _function(Tensor.isfinite),
    _function(Tensor.isnan),
    _function(Tensor.isinf),
)


allclose = _function(Tensor.allclose)


# ---- transcendental (tensor/transcendental.py) -------------------------------------------------
sinh, cosh, asinh = _function(Tensor.sinh), _function(Tensor.cosh), _function(Tensor.asinh)
acosh, atanh = _function(Tensor.acosh), _function(Tensor.atanh)
asin, acos, atan = _function(Tensor.asin), _function(Tensor.acos), _function(Tensor.atan)
arcsinh, arccosh, arctanh, arcsin, arccos, arctan = asinh, acosh, atanh, asin, acos, atan
exp2, sinc, logit = _function(Tensor.exp2), _function(Tensor.sinc), _function(Tensor.logit)
erfc = _function(Tensor.erfc)
nan_to_num = _function(Tensor.nan_to_num)
deg2rad, rad2deg = _function(Tensor.deg2rad), _function(Tensor.rad2deg)
atan2, hypot, xlogy = _function(Tensor.atan2), _function(Tensor.hypot), _function(Tensor.xlogy)
arctan2 = atan2
logaddexp, logaddexp2 = _function(Tensor.logaddexp), _function(Tensor.logaddexp2)
fmod, copysign = _function(Tensor.fmod), _function(Tensor.copysign)
fmax, fmin = _function(Tensor.fmax), _function(Tensor.fmin)
sgn, signbit = _function(Tensor.sgn), _function(Tensor.signbit)
isposinf, isneginf = _function(Tensor.isposinf), _function(Tensor.isneginf)
isreal, conj = _function(Tensor.isreal), _function(Tensor.conj)

# ---- special functions (tensor/transcendental.py; more in tg.special) --------------------------
lgamma, digamma = _function(Tensor.lgamma), _function(Tensor.digamma)
erfinv, i0, mvlgamma = _function(Tensor.erfinv), _function(Tensor.i0), _function(Tensor.mvlgamma)
igamma, igammac = _function(Tensor.igamma), _function(Tensor.igammac)  # (special.gammainc(c))


def polygamma(n: int, input: TensorLike) -> Tensor:
    """The n-th derivative of digamma at each element of input (torch.polygamma's order of
    arguments: n first).

    >>> tg.polygamma(1, tg.tensor([1.0]))
    tensor([1.6449])
    """
    return as_tensor(input).polygamma(n)


def real(x: TensorLike) -> Tensor:
    """The real part: x itself for tapegrad's real tensors (torch.real).

    >>> tg.real(tg.tensor([1.0, 2.0]))
    tensor([1., 2.])
    """
    return as_tensor(x).real


def imag(x: TensorLike) -> Tensor:
    """The imaginary part: an error for real tensors, as torch.imag of a real tensor."""
    return as_tensor(x).imag


# ---- reductions --------------------------------------------------------------------------------
sum, mean, prod = _function(Tensor.sum), _function(Tensor.mean), _function(Tensor.prod)
var, std, logsumexp = _function(Tensor.var), _function(Tensor.std), _function(Tensor.logsumexp)
var_mean, std_mean = _function(Tensor.var_mean), _function(Tensor.std_mean)
amax, amin = _function(Tensor.amax), _function(Tensor.amin)
argmax, argmin = _function(Tensor.argmax), _function(Tensor.argmin)
softmax, log_softmax = _function(Tensor.softmax), _function(Tensor.log_softmax)
norm, cumsum, cumprod = _function(Tensor.norm), _function(Tensor.cumsum), _function(Tensor.cumprod)
nansum, nanmean = _function(Tensor.nansum), _function(Tensor.nanmean)
count_nonzero, aminmax = _function(Tensor.count_nonzero), _function(Tensor.aminmax)
median, nanmedian = _function(Tensor.median), _function(Tensor.nanmedian)
quantile, nanquantile = _function(Tensor.quantile), _function(Tensor.nanquantile)
mode, kthvalue, msort = _function(Tensor.mode), _function(Tensor.kthvalue), _function(Tensor.msort)
cummax, cummin = _function(Tensor.cummax), _function(Tensor.cummin)
logcumsumexp = _function(Tensor.logcumsumexp)
bincount, histc = _function(Tensor.bincount), _function(Tensor.histc)
cov, corrcoef = _function(Tensor.cov), _function(Tensor.corrcoef)

searchsorted, bucketize = _same(_searching.searchsorted), _same(_searching.bucketize)
isin, unravel_index = _same(_searching.isin), _same(_searching.unravel_index)
trapezoid = trapz = _same(_integration.trapezoid)  # (trapz: PyTorch's older name)
cumulative_trapezoid = _same(_integration.cumulative_trapezoid)


@overload
def max(
    x: TensorLike,
    *,
    axis: Any = None,
    keepdims: bool = False,
    dim: None = None,
    keepdim: bool | None = None,
) -> Tensor: ...
@overload
def max(x: TensorLike, other: Tensor | np.ndarray, /) -> Tensor: ...
@overload
def max(x: TensorLike, dim: int | np.integer, /, keepdim: bool = False) -> MaxResult: ...
@overload
def max(
    x: TensorLike, *, dim: int | np.integer, keepdim: bool | None = None, keepdims: bool = False
) -> MaxResult: ...
def max(x: TensorLike, *args: Any, **kwargs: Any) -> Tensor | MaxResult:
    """The largest value; `tg.max(x, 1)` / `dim=1`: the named tuple (values, indices), as
    torch.max; `axis=1`: the values (NumPy); `tg.max(a, b)`: the elementwise maximum.

    >>> x = tg.tensor([[1.0, 5.0], [7.0, 2.0]])
    >>> tg.max(x, 1)
    max(values=tensor([5., 7.]), indices=tensor([1, 0]))
    >>> _, pred = tg.max(x, 1); pred
    tensor([1, 0])
    >>> tg.max(x, axis=1), tg.max(x)
    (tensor([5., 7.]), tensor(7.))
    """
    return as_tensor(x).max(*args, **kwargs)


@overload
def min(
    x: TensorLike,
    *,
    axis: Any = None,
    keepdims: bool = False,
    dim: None = None,
    keepdim: bool | None = None,
) -> Tensor: ...
@overload
def min(x: TensorLike, other: Tensor | np.ndarray, /) -> Tensor: ...
@overload
def min(x: TensorLike, dim: int | np.integer, /, keepdim: bool = False) -> MinResult: ...
@overload
def min(
    x: TensorLike, *, dim: int | np.integer, keepdim: bool | None = None, keepdims: bool = False
) -> MinResult: ...
def min(x: TensorLike, *args: Any, **kwargs: Any) -> Tensor | MinResult:
    """The smallest value; spellings as tg.max.

    >>> x = tg.tensor([[1.0, 5.0], [7.0, 2.0]])
    >>> tg.min(x, dim=0).indices, tg.min(x, axis=0), tg.min(x, tg.tensor(3.0))
    (tensor([0, 1]), tensor([1., 2.]), tensor([[1., 3.], [3., 2.]]))
    """
    return as_tensor(x).min(*args, **kwargs)


# ---- comparison, logic and ordering ------------------------------------------------------------
eq, ne, lt, le = (
    _function(Tensor.eq),
    _function(Tensor.ne),
    _function(Tensor.lt),
    _function(Tensor.le),
)
gt, ge = _function(Tensor.gt), _function(Tensor.ge)
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge  # (PyTorch's aliases)
bitwise_and, bitwise_or = _function(Tensor.bitwise_and), _function(Tensor.bitwise_or)
bitwise_xor, bitwise_not = _function(Tensor.bitwise_xor), _function(Tensor.bitwise_not)
bitwise_left_shift = _function(Tensor.bitwise_left_shift)
bitwise_right_shift = _function(Tensor.bitwise_right_shift)
logical_and, logical_or = _function(Tensor.logical_and), _function(Tensor.logical_or)
logical_xor, logical_not = _function(Tensor.logical_xor), _function(Tensor.logical_not)
all, any = _function(Tensor.all), _function(Tensor.any)
sort, argsort, topk = _function(Tensor.sort), _function(Tensor.argsort), _function(Tensor.topk)
unique = _function(Tensor.unique)
isclose, equal = _function(Tensor.isclose), _function(Tensor.equal)

# ---- shape -------------------------------------------------------------------------------------
reshape, flatten = _function(Tensor.reshape), _function(Tensor.flatten)
transpose, permute, t = _function(Tensor.transpose), _function(Tensor.permute), _function(Tensor.t)
squeeze, unsqueeze = _function(Tensor.squeeze), _function(Tensor.unsqueeze)
expand_dims = unsqueeze
expand = broadcast_to = _function(Tensor.expand)
split, narrow, unbind = _function(Tensor.split), _function(Tensor.narrow), _function(Tensor.unbind)
flip, tile, roll = _function(Tensor.flip), _function(Tensor.tile), _function(Tensor.roll)
chunk, clone = _function(Tensor.chunk), _function(Tensor.clone)
swapdims = swapaxes = _function(Tensor.swapaxes)


def concatenate(tensors: Sequence[TensorLike], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """Join tensors along an existing axis (aliases tg.cat, tg.concat); as in PyTorch, empty 1-D
    tensors among others are skipped.

    >>> tg.cat([tg.tensor([1.0]), tg.tensor([2.0, 3.0])])
    tensor([1., 2., 3.])
    """
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ShapeError("concatenate expects a non-empty list or tuple of tensors")
    ts = [as_tensor(t) for t in tensors]
    if [t for t in ts if t.ndim > 1]:  # (PyTorch's rule: an empty 1-D tensor among them is skipped)
        ts = [t for t in ts if t.shape != (0,)]
    ndim = ts[0].ndim
    if ndim == 0:
        raise ShapeError("zero-dimensional tensors cannot be concatenated; use tg.stack")
    axis = one_axis(dim if dim is not None else axis, ndim)
    for i, t in enumerate(ts):
        if (
            t.ndim != ndim
            or t.shape[:axis] + t.shape[axis + 1 :] != ts[0].shape[:axis] + ts[0].shape[axis + 1 :]
        ):
            raise ShapeError(
                f"concatenate: tensor {i} has shape {list(t.shape)}, but tensor 0 has shape "
                f"{list(ts[0].shape)}; all axes except axis {axis} must match"
            )
    return apply(P.shape.concatenate, *ts, axis=axis, sizes=tuple(t.shape[axis] for t in ts))


cat = concat = concatenate


def stack(tensors: Sequence[TensorLike], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """Join tensors along a new axis.

    >>> tg.stack([tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0])]).shape
    (2, 2)
    """
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ShapeError("stack expects a non-empty list or tuple of tensors")
    ts = [as_tensor(t) for t in tensors]
    axis = one_axis(dim if dim is not None else axis, ts[0].ndim + 1)
    for i, t in enumerate(ts):
        if t.shape != ts[0].shape:
            raise ShapeError(
                f"stack: tensor {i} has shape {list(t.shape)}, tensor 0 has "
                f"{list(ts[0].shape)}; stacked tensors must have equal shapes"
            )
    return concatenate([t.unsqueeze(axis) for t in ts], axis)


def rot90(x: TensorLike, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """x rotated by 90 degrees k times in the plane of dims (torch.rot90).

    >>> tg.rot90(tg.tensor([[1.0, 2.0], [3.0, 4.0]]), 2)
    tensor([[4., 3.],
            [2., 1.]])
    """
    return as_tensor(x).rot90(k, dims)


tensor_split, hsplit = _function(Tensor.tensor_split), _function(Tensor.hsplit)
vsplit, dsplit = _function(Tensor.vsplit), _function(Tensor.dsplit)
diff, diag_embed = _function(Tensor.diff), _function(Tensor.diag_embed)
movedim = moveaxis = _function(Tensor.movedim)
unflatten, ravel = _function(Tensor.unflatten), _function(Tensor.ravel)
fliplr, flipud = _function(Tensor.fliplr), _function(Tensor.flipud)
clamp_min, clamp_max = _function(Tensor.clamp_min), _function(Tensor.clamp_max)

# ---- indexing ----------------------------------------------------------------------------------
gather, masked_fill = _function(Tensor.gather), _function(Tensor.masked_fill)
index_select, select = _function(Tensor.index_select), _function(Tensor.select)
masked_select = _function(Tensor.masked_select)
take_along_dim, nonzero = _function(Tensor.take_along_dim), _function(Tensor.nonzero)
argwhere, diagonal = _function(Tensor.argwhere), _function(Tensor.diagonal)
scatter, scatter_add = _function(Tensor.scatter), _function(Tensor.scatter_add)
index_copy, index_add = _function(Tensor.index_copy), _function(Tensor.index_add)
index_fill, masked_scatter = _function(Tensor.index_fill), _function(Tensor.masked_scatter)
take, put, index_put = _function(Tensor.take), _function(Tensor.put), _function(Tensor.index_put)
narrow_copy, split_with_sizes = _function(Tensor.narrow_copy), _function(Tensor.split_with_sizes)
diagflat, addr, renorm = (
    _function(Tensor.diagflat),
    _function(Tensor.addr),
    _function(Tensor.renorm),
)
scatter_reduce, index_reduce = _function(Tensor.scatter_reduce), _function(Tensor.index_reduce)
select_scatter, slice_scatter = _function(Tensor.select_scatter), _function(Tensor.slice_scatter)
diagonal_scatter = _function(Tensor.diagonal_scatter)
frexp, ldexp, nextafter = (
    _function(Tensor.frexp),
    _function(Tensor.ldexp),
    _function(Tensor.nextafter),
)
unique_consecutive = _function(Tensor.unique_consecutive)
as_strided, as_strided_scatter = _function(Tensor.as_strided), _function(Tensor.as_strided_scatter)


def repeat_interleave(
    input: TensorLike,
    repeats: Any = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """Each element (slice along dim) repeated `repeats` times; with one argument, a 1-D integer
    tensor of counts, the indices 0, 1, ... each repeated its count (as torch.repeat_interleave).

    >>> tg.repeat_interleave(tg.tensor([2, 1]))
    tensor([0, 0, 1])
    """
    if repeats is None:
        counts = as_tensor(input)
        return _positions_of(counts).repeat_interleave(counts, output_size=output_size)
    return as_tensor(input).repeat_interleave(repeats, dim, output_size=output_size)


def _positions_of(counts: Tensor) -> Tensor:
    """0, 1, ..., len(counts) - 1 as int64: what repeat_interleave(counts) repeats."""
    if counts.ndim != 1:
        raise ShapeError(f"repeat_interleave(repeats): repeats must be 1-D, got {counts.ndim}-D")
    return as_tensor(np.arange(counts.shape[0], dtype=np.int64))


# ---- in place (torch.exp_(x) and friends) ------------------------------------------------------
exp_, log_, log1p_ = _function(Tensor.exp_), _function(Tensor.log_), _function(Tensor.log1p_)
expm1_, sqrt_, sin_ = _function(Tensor.expm1_), _function(Tensor.sqrt_), _function(Tensor.sin_)
cos_, tan_, tanh_ = _function(Tensor.cos_), _function(Tensor.tan_), _function(Tensor.tanh_)
sigmoid_, relu_, erf_ = _function(Tensor.sigmoid_), _function(Tensor.relu_), _function(Tensor.erf_)
rsqrt_, reciprocal_ = _function(Tensor.rsqrt_), _function(Tensor.reciprocal_)
abs_, neg_, floor_ = _function(Tensor.abs_), _function(Tensor.neg_), _function(Tensor.floor_)
ceil_, trunc_, round_ = _function(Tensor.ceil_), _function(Tensor.trunc_), _function(Tensor.round_)
frac_, square_ = _function(Tensor.frac_), _function(Tensor.square_)
clamp_ = clip_ = _function(Tensor.clamp_)
zero_, fill_ = _function(Tensor.zero_), _function(Tensor.fill_)
resize_as_ = _function(Tensor.resize_as_)
