"""tg.masked's reductions: sum, prod, amax, amin, argmax, argmin, mean, median, norm, var, std,
logsumexp (torch.masked's, signature for signature).

Each one replaces the masked-out elements by its identity (masked/_input.py) and reduces with the
Tensor layer's reduction, as torch.masked does; so every result is recorded and its gradient is
zero at masked-out elements. A slice with nothing masked in gives what torch's gives (sum 0,
prod 1, amax -inf, mean/var nan, ...).

Layer L4: Tensor methods and math.py's functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .. import linalg
from ..creation import ones
from ..math import logsumexp as _logsumexp
from ..math import maximum, sqrt
from ..tensor import Tensor
from ..tensor.coerce import as_tensor
from ._input import DimOrDims, canonical_dim, check_strided, combine, input_mask, resolve_dtype

__all__ = [
    "sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var", "std",
    "logsumexp",
]  # fmt: skip

_SMALL_INTS = frozenset(np.dtype(t) for t in (np.uint8, np.bool_, np.int8, np.int16, np.int32))


def _all_or(dims: tuple[int, ...]) -> tuple[int, ...] | None:
    return dims if dims else None


def _accumulating_dtype(input: Tensor, dtype: Any) -> np.dtype:
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    d = np.dtype(input.dtype)
    return np.dtype(np.int64) if d in _SMALL_INTS else d


def sum(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The sum over dim of the masked-in elements (masked-out ones count as 0).

    >>> m = tg.tensor([[True, False], [True, True]])
    >>> tg.masked.sum(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([1., 7.])
    """
    check_strided(input, "sum")
    dt = _accumulating_dtype(input, dtype)
    dims = canonical_dim(dim, input.ndim)
    x = combine("sum", input, mask)
    return x.sum(_all_or(dims), bool(keepdim), dtype=dt)


def prod(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The product over dim of the masked-in elements (masked-out ones count as 1).

    >>> m = tg.tensor([[True, False], [True, True]])
    >>> tg.masked.prod(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([ 1., 12.])
    """
    check_strided(input, "prod")
    dt = _accumulating_dtype(input, dtype)
    dims = canonical_dim(dim, input.ndim)
    result = combine("prod", input, mask).to(dtype=dt)
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def _extremum(
    op: str, input: Tensor, dim: DimOrDims, keepdim: Any, dtype: Any, mask: Any
) -> Tensor:
    check_strided(input, op)
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    x = combine(op, input, mask)
    dims = canonical_dim(dim, x.ndim)
    reduced = x.amax(dims, bool(keepdim)) if op == "amax" else x.amin(dims, bool(keepdim))
    return reduced.to(dtype=dt)


def amax(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The largest masked-in element over dim (-inf, or the dtype's least, where none is).

    >>> m = tg.tensor([[True, False], [False, False]])
    >>> tg.masked.amax(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([1., -inf])
    """
    return _extremum("amax", input, dim, keepdim, dtype, mask)


def amin(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The smallest masked-in element over dim (inf, or the dtype's largest, where none is).

    >>> m = tg.tensor([[False, True], [True, True]])
    >>> tg.masked.amin(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([2., 3.])
    """
    return _extremum("amin", input, dim, keepdim, dtype, mask)


def _arg(op: str, input: Tensor, dim: int | None, keepdim: Any, dtype: Any, mask: Any) -> Tensor:
    check_strided(input, op)
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    x = combine(op, input, mask)
    found = x.argmax(dim, bool(keepdim)) if op == "argmax" else x.argmin(dim, bool(keepdim))
    return found.to(dtype=dt)


def argmax(
    input: Tensor,
    dim: int | None = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """Where the largest masked-in element is along dim (in input's dtype unless dtype=).

    >>> m = tg.tensor([[True, False], [True, True]])
    >>> tg.masked.argmax(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([0., 1.])
    """
    return _arg("argmax", input, dim, keepdim, dtype, mask)


def argmin(
    input: Tensor,
    dim: int | None = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """Where the smallest masked-in element is along dim (in input's dtype unless dtype=).

    >>> m = tg.tensor([[False, True], [True, True]])
    >>> tg.masked.argmin(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([1., 0.])
    """
    return _arg("argmin", input, dim, keepdim, dtype, mask)


def _count(input: Tensor, dim: DimOrDims, keepdim: bool, mask: Any) -> Tensor:
    if mask is None:
        return sum(ones(tuple(input.shape), dtype=dtypes.int64), dim, keepdim=keepdim)
    dims = canonical_dim(dim, input.ndim)
    return input_mask(input, mask).sum(_all_or(dims), keepdim)


def mean(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The mean of the masked-in elements over dim (nan where none is).

    >>> m = tg.tensor([[True, False], [True, True]])
    >>> tg.masked.mean(tg.tensor([[1., 2.], [3., 4.]]), 1, mask=m)
    tensor([1.0000, 3.5000])
    """
    check_strided(input, "mean")
    source = "Input" if dtype is None else "Optional"
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    if dt.kind not in "fc":
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
            f"point or complex dtype. Got: {dt}"
        )
    count = _count(input, dim, bool(keepdim), mask)
    total = sum(input, dim, keepdim=keepdim, dtype=dt, mask=mask)
    with np.errstate(invalid="ignore"):  # (nothing masked in: nan, silently as torch's)
        return total / count


def median(
    input: Tensor,
    dim: int = -1,
    *,
    keepdim: bool = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The median of the masked-in elements along dim (nan where none is; the lower of two).

    >>> m = tg.tensor([True, True, False])
    >>> tg.masked.median(tg.tensor([[1., 2., 9.], [3., 4., 5.]]), 1, mask=m)
    tensor([1., 3.])
    """
    check_strided(input, "median")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    d = canonical_dim(dim, input.ndim)[0]
    is_float = np.dtype(input.dtype).kind == "f"
    if not is_float:
        input = input.to(dtype=dtypes.float32)
    x = combine("median", input, mask)
    output = x.nanmedian(d, keepdim).values
    if is_float:
        return output
    if not bool(np.isnan(output.detach().numpy()).any()):
        return output.to(dtype=dt)
    raise ValueError(
        "masked median expects no fully masked out rows if dtype is not floating point"
    )


def norm(
    input: Tensor,
    ord: float | None = 2.0,
    dim: DimOrDims = None,
    *,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The ord-norm of the masked-in elements over dim (a vector norm, as linalg.vector_norm).

    >>> m = tg.tensor([[True, False], [True, True]])
    >>> tg.masked.norm(tg.tensor([[3., 2.], [4., 4.]]), 2.0, 0, mask=m)
    tensor([5., 4.])
    """
    check_strided(input, "norm")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    o = 2.0 if ord is None else float(ord)
    x = combine("norm", input, mask, o)
    dims = canonical_dim(dim, input.ndim)
    return linalg.vector_norm(x, o, _all_or(dims), bool(keepdim), dtype=dt)


def _std_var(
    input: Tensor,
    dim: DimOrDims,
    unbiased: bool | None,
    correction_opt: float | None,
    keepdim: Any,
    dtype: Any,
    mask: Any,
    take_sqrt: bool,
) -> Tensor:
    check_strided(input, "std" if take_sqrt else "var")
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    if dtype is None and dt.kind not in "fc":
        dt = np.dtype(np.float32)
    compute = dt if dt.kind in "fc" else np.dtype(np.float32)
    inmask = None if mask is None else input_mask(input, mask)
    count = _count(input, dim, True, inmask)
    sample_total = sum(input, dim, keepdim=True, dtype=dt, mask=inmask)
    with np.errstate(invalid="ignore"):
        x = input - sample_total / count
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute, mask=inmask)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if correction != 0:
        count = count.to(dtype=compute) - correction
        count = maximum(count, as_tensor(np.zeros((), dtype=compute)))
    with np.errstate(invalid="ignore", divide="ignore"):  # (0/0: nan, silently as torch's)
        output = (total / count).to(dtype=dt)
    return sqrt(output) if take_sqrt else output


def var(
    input: Tensor,
    dim: DimOrDims = None,
    unbiased: bool | None = None,
    *,
    correction: float | None = None,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The variance of the masked-in elements over dim (correction 1 unless told).

    >>> m = tg.tensor([True, True, False])
    >>> tg.masked.var(tg.tensor([[1., 2., 9.], [3., 4., 5.]]), 1, mask=m)
    tensor([0.5000, 0.5000])
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(
    input: Tensor,
    dim: DimOrDims = None,
    unbiased: bool | None = None,
    *,
    correction: int | None = None,
    keepdim: bool | None = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """The standard deviation of the masked-in elements over dim (correction 1 unless told).

    >>> m = tg.tensor([True, True, False])
    >>> tg.masked.std(tg.tensor([[1., 3., 9.], [3., 5., 5.]]), 1, mask=m)
    tensor([1.4142, 1.4142])
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def logsumexp(
    input: Tensor,
    dim: DimOrDims = None,
    *,
    keepdim: bool = False,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """log(sum(exp)) of the masked-in elements over dim (-inf where none is).

    >>> tg.masked.logsumexp(tg.tensor([[0., 5.], [0., 0.]]), 1, mask=tg.tensor([True, False]))
    tensor([0., 0.])
    """
    check_strided(input, "logsumexp")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    dims = canonical_dim(dim, input.ndim)
    x = combine("logsumexp", input, mask)
    if np.dtype(x.dtype).kind != "f":  # (torch's logsumexp computes integers in the default float)
        x = x.to(dtype=dtypes.default_float)
    return _logsumexp(x, dims, keepdim=keepdim).to(dtype=dt)
