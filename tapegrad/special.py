"""`tg.special`: PyTorch's torch.special spellings of the functions tapegrad has (`expit` is the
sigmoid; erf, erfc, log1p, expm1, exp2, round, logsumexp, softmax, log_softmax, logit, xlogy, sinc)
and the special functions (gammaln, digamma/psi, polygamma, multigammaln, zeta, erfinv, erfcx,
ndtr, ndtri, log_ndtr, i0, i0e, i1, i1e, entr, xlog1py, gammainc, gammaincc); modified_bessel_i0
and _i1 (i0 and i1 under their other names), spherical_bessel_j0, the orthogonal polynomials of
special_polynomials.py and the Bessel J, Y, K and Airy functions of special_bessel.py (values,
off the tape, as PyTorch's).

(gammainc and gammaincc are tg.igamma and tg.igammac, as in PyTorch.)

Layer L4: re-exports of math.py's functions, which are the Tensor methods', and the functions of
primitives/special_functions.py's primitives that have no Tensor method (one rule each).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import dtypes

from .math import digamma, erf, erfc, erfinv, exp2, expm1, i0, log1p, log_softmax, logit, logsumexp
from .math import mvlgamma as multigammaln
from .math import igamma as gammainc
from .math import igammac as gammaincc
from .math import polygamma, sinc, softmax, xlogy
from .math import lgamma as gammaln
from .math import round as _round
from .math import sigmoid as expit
from .primitives import special_functions as S
from .special_polynomials import *  # noqa: F403  (chebyshev_polynomial_t, ...: its __all__)
from .special_polynomials import __all__ as _polynomials
from .special_bessel import *  # noqa: F403  (bessel_j0, ..., airy_ai: its __all__)
from .special_bessel import __all__ as _bessel
from .primitives.registry import Primitive
from .tensor import Tensor, apply
from .tensor.coerce import TensorLike, as_tensor, coerce

psi = digamma  # (torch.special.psi)


def round(input: TensorLike, *, decimals: int = 0) -> Tensor:
    """Each element rounded to `decimals` digits, halves to even; floating tensors only, as
    torch.special.round (tg.round takes integers too, as torch.round).

    >>> tg.special.round(tg.tensor([0.5, 1.5]))
    tensor([0., 2.])
    """
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise TypeError(
            f"special.round rounds floating-point tensors, got {x.dtype} (as PyTorch's); an "
            f"integer tensor is already round: use tg.round for any dtype"
        )
    return _round(x, decimals=decimals)


def _one(prim: Primitive, call: str, shown: str) -> Callable[[TensorLike], Tensor]:
    """torch.special.<name>(input) of a one-input primitive with no Tensor method, its
    docstring's example `call` printing `shown`."""

    def function(input: TensorLike) -> Tensor:
        return apply(prim, as_tensor(input))

    function.__name__ = function.__qualname__ = prim.name
    function.__doc__ = (
        f"Elementwise {prim.expr} (its rule: tg.autograd.formula({prim.name!r})).\n\n"
    )
    function.__doc__ += f"    >>> tg.special.{call}\n    {shown}\n    "
    return function


def _two(prim: Primitive, call: str, shown: str) -> Callable[[TensorLike, TensorLike], Tensor]:
    """torch.special.<name>(input, other) of a two-input primitive (either may be a number)."""

    def function(input: TensorLike, other: TensorLike) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            input = as_tensor(input)
        return apply(prim, coerce(input), coerce(other))

    function.__name__ = function.__qualname__ = prim.name
    function.__doc__ = (
        f"Elementwise {prim.expr} (its rule: tg.autograd.formula({prim.name!r})).\n\n"
    )
    function.__doc__ += f"    >>> tg.special.{call}\n    {shown}\n    "
    return function


erfcx = _one(S.erfcx, "erfcx(tg.tensor([0.0, 30.0]))", "tensor([1.0000, 0.0188])")
ndtr = _one(S.ndtr, "ndtr(tg.tensor([0.0, 1.0]))", "tensor([0.5000, 0.8413])")
ndtri = _one(S.ndtri, "ndtri(tg.tensor([0.5, 0.975]))", "tensor([0.0000, 1.9600])")
log_ndtr = _one(S.log_ndtr, "log_ndtr(tg.tensor([0.0, -2.0]))", "tensor([-0.6931, -3.7832])")
i0e = _one(S.i0e, "i0e(tg.tensor([0.0, 1.0]))", "tensor([1.0000, 0.4658])")
i1 = _one(S.i1, "i1(tg.tensor([0.0, 1.0]))", "tensor([0.0000, 0.5652])")
i1e = _one(S.i1e, "i1e(tg.tensor([0.0, 1.0]))", "tensor([0.0000, 0.2079])")
entr = _one(S.entr, "entr(tg.tensor([0.5, 0.0, -1.0]))", "tensor([0.3466, 0.0000,   -inf])")
xlog1py = _two(
    S.xlog1py, "xlog1py(tg.tensor([0.0, 2.0]), tg.tensor([-1.0, 1.0]))", "tensor([0.0000, 1.3863])"
)
zeta = _two(S.zeta, "zeta(2.0, tg.tensor([1.0, 2.0]))", "tensor([1.6449, 0.6449])")
modified_bessel_i0, modified_bessel_i1 = i0, i1  # (torch.special's other names for them)


def spherical_bessel_j0(input: TensorLike) -> Tensor:
    """sin(x) / x (1 at 0), the spherical Bessel function j0; a value, off the tape, as PyTorch's.

    >>> tg.special.spherical_bessel_j0(tg.tensor([0.0, 1.0]))
    tensor([1.0000, 0.8415])
    """
    x = as_tensor(input)._data
    dtype = x.dtype if x.dtype.kind == "f" else dtypes.default_float
    v = x.astype(np.float64)
    small = np.abs(v) < 0.5  # (a series there, as PyTorch: sin(x) / x loses digits near 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = v * v
        series = 1 - s2 / 6 * (1 - s2 / 20 * (1 - s2 / 42 * (1 - s2 / 72 * (1 - s2 / 110))))
        out = np.where(small, series, np.where(np.isinf(v), 0.0, np.sin(v) / v))
    return Tensor(np.asarray(out, dtype=dtype))


__all__ = ["erf", "exp2", "expit", "expm1", "log1p", "log_softmax", "logit", "logsumexp", "round"]
__all__ += ["erfc", "sinc", "softmax", "xlogy"]
__all__ += ["digamma", "entr", "erfcx", "erfinv", "gammaln", "i0", "i0e", "i1", "i1e", "log_ndtr"]
__all__ += ["multigammaln", "ndtr", "ndtri", "polygamma", "psi", "xlog1py", "zeta"]
__all__ += ["gammainc", "gammaincc", "modified_bessel_i0", "modified_bessel_i1"]
__all__ += ["spherical_bessel_j0", *_polynomials, *_bessel]
