"""tg.masked's normalizations and scans: softmax, log_softmax, softmin, normalize, cumsum,
cumprod, and the binary logaddexp (torch.masked's, signature for signature).

The masked-out elements are replaced by the identity torch.masked uses (softmax and log_softmax:
amax's -inf, softmin: amin's +inf, normalize and cumsum: 0, cumprod: 1, logaddexp: -inf) before
the Tensor layer's op, so the results and gradients are torch's (a fully masked-out softmax slice
is nan, as torch's).

Layer L4: Tensor methods and math.py's functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..math import logaddexp as _logaddexp
from ..math import maximum
from ..tensor import Tensor
from ..tensor.coerce import as_tensor
from ._input import canonical_dim, check_strided, combine, resolve_dtype
from .reductions import norm

__all__ = ["softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod", "logaddexp"]


def softmax(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """Softmax along dim over the masked-in elements (0 at masked-out ones).

    >>> tg.masked.softmax(tg.tensor([[1., 2.], [3., 3.]]), 1, mask=tg.tensor([True, True]))
    tensor([[0.2689, 0.7311],
            [0.5000, 0.5000]])
    """
    check_strided(input, "softmax")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    d = canonical_dim(dim, input.ndim)[0]
    return combine("amax", input, mask).softmax(d, dtype=dt)


def log_softmax(
    input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None
) -> Tensor:
    """log_softmax along dim over the masked-in elements (-inf at masked-out ones).

    >>> tg.masked.log_softmax(tg.tensor([[0., 0., 5.]]), 1, mask=tg.tensor([True, True, False]))
    tensor([[-0.6931, -0.6931,    -inf]])
    """
    check_strided(input, "log_softmax")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    d = canonical_dim(dim, input.ndim)[0]
    return combine("amax", input, mask).log_softmax(d, dtype=dt)


def softmin(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """softmin along dim over the masked-in elements (0 at masked-out ones).

    >>> tg.masked.softmin(tg.tensor([[0., 0., 5.]]), 1, mask=tg.tensor([True, True, False]))
    tensor([[0.5000, 0.5000, 0.0000]])
    """
    check_strided(input, "softmin")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    d = canonical_dim(dim, input.ndim)[0]
    return (-combine("amin", input, mask).to(dtype=dt)).softmax(d)


def normalize(
    input: Tensor,
    ord: float,
    dim: int,
    *,
    eps: float = 1e-12,
    dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    """input divided by the ord-norm of its masked-in elements along dim (0 at masked-out ones).

    >>> tg.masked.normalize(tg.tensor([[3., 4., 9.]]), 2.0, 1, mask=tg.tensor([True, True, False]))
    tensor([[0.6000, 0.8000, 0.0000]])
    """
    check_strided(input, "normalize")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    x = combine("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dt, mask=mask)
    denom = maximum(nrm, as_tensor(np.asarray(eps, dtype=nrm.dtype)))
    return x / denom


def cumsum(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """The running sum along dim with masked-out elements counted as 0.

    >>> tg.masked.cumsum(tg.tensor([1., 2., 3.]), 0, mask=tg.tensor([True, False, True]))
    tensor([1., 1., 4.])
    """
    check_strided(input, "cumsum")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    d = canonical_dim(dim, input.ndim)[0]
    return combine("sum", input, mask).cumsum(d, dtype=dt).to(dtype=dt)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """The running product along dim with masked-out elements counted as 1.

    >>> tg.masked.cumprod(tg.tensor([2., 5., 3.]), 0, mask=tg.tensor([True, False, True]))
    tensor([2., 2., 6.])
    """
    check_strided(input, "cumprod")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    d = canonical_dim(dim, input.ndim)[0]
    return combine("prod", input, mask).cumprod(d, dtype=dt).to(dtype=dt)


def logaddexp(
    input: Tensor,
    other: Tensor,
    *,
    dtype: Any = None,
    input_mask: Tensor | None = None,
    other_mask: Tensor | None = None,
) -> Tensor:
    """log(exp(input) + exp(other)) with each side's masked-out elements counted as -inf.

    >>> m = tg.tensor([True, False])
    >>> tg.masked.logaddexp(tg.tensor([0., 1.]), tg.tensor([0., 2.]), other_mask=m)
    tensor([0.6931, 1.0000])
    """
    check_strided(input, "logaddexp")
    check_strided(other, "logaddexp")
    dt = resolve_dtype(dtype, np.dtype(input.dtype))
    a = combine("logaddexp", input, input_mask)
    b = combine("logaddexp", other, other_mask)
    return _logaddexp(a, b).to(dtype=dt)
