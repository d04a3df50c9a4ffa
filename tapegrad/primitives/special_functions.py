"""Special-function primitives (PyTorch's torch.special and its Tensor methods): lgamma, digamma,
polygamma, the Hurwitz zeta function, the regularized incomplete gamma functions, erfinv, erfcx,
the normal distribution's ndtr, ndtri and log_ndtr, the modified Bessel functions i0, i1 and their
scaled forms, entr and xlog1py, each a NumPy forward (the numerics: gamma_functions,
normal_functions, bessel_functions) with its textbook rule.

Layer L1: numpy, registry, elementwise.py (whose primitives the rules call), the numerics modules
and batching (every op here batches pointwise). Where PyTorch has no derivative (zeta in x,
gammainc and gammaincc in a), the rule raises as PyTorch's backward does; at the edges the rules
give PyTorch's values (i1's gradient at 0, and below machine epsilon, is 1/2; entr's is +inf).
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np

from . import bessel_functions as B
from . import gamma_functions as G
from . import normal_functions as N
from .batching import pointwise
from .elementwise import erf, exp, log, sign, sqrt, where  # noqa: F401  (rules and texts read)
from .transcendental import elementwise_primitive as _p
from .transcendental import erfc  # noqa: F401  (erfcx's text reads it)
from .registry import primitive, value

sqrt_pi = math.sqrt(math.pi)  # (Python floats: g is never upcast)
sqrt_2pi = math.sqrt(2.0 * math.pi)


def not_implemented(primitive: str, input: str) -> NoReturn:
    """The rule of an input PyTorch gives no derivative for: raises when a gradient is asked."""
    raise NotImplementedError(
        f"the derivative of {primitive} with respect to {input} is not implemented (nor in "
        f"PyTorch): pass it as a constant (a tensor without requires_grad, or .detach())"
    )


# ---- the gamma function's family -----------------------------------------------------------------
lgamma = _p("lgamma", "log(|gamma(x)|)", x="g * digamma(x)")(G.lgamma)
digamma = _p("digamma", "gamma'(x) / gamma(x)", x="g * polygamma(x, n=1)")(G.digamma)


# The n-th derivative of digamma (n a parameter, as in torch.polygamma(n, input))
@primitive(
    "polygamma", "d^n digamma(x) / dx^n", batch=pointwise, elementwise=True,
    x="g * polygamma(x, n=n + 1)",
)  # fmt: skip
def polygamma(x, *, n):
    return G.polygamma(n, x)


# The Hurwitz zeta function sum_k (k + q)^-x; PyTorch differentiates it in q only
@primitive(
    "zeta", "sum over k >= 0 of (k + q) ** -x", batch=pointwise,
    x="not_implemented('zeta', 'x')", q="-g * x * zeta(x + 1, q)",
)  # fmt: skip
def zeta(x, q):
    return G.zeta(x, q)


# The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x); PyTorch
# differentiates them in x only: d/dx P = x^(a-1) e^-x / gamma(a)
@primitive(
    "gammainc", "integral_0^x t ** (a - 1) * exp(-t) dt / gamma(a)", batch=pointwise,
    a="not_implemented('gammainc', 'a')", x="g * exp((a - 1) * log(x) - x - lgamma(a))",
)  # fmt: skip
def gammainc(a, x):
    return G.gammainc(a, x)


@primitive(
    "gammaincc", "1 - gammainc(a, x)", batch=pointwise,
    a="not_implemented('gammaincc', 'a')", x="-g * exp((a - 1) * log(x) - x - lgamma(a))",
)  # fmt: skip
def gammaincc(a, x):
    return G.gammainc(a, x, upper=True)


# ---- the error function's inverse and the normal distribution -----------------------------------
erfinv = _p("erfinv", "the y with erf(y) = x", x="g * sqrt_pi / 2 * exp(out * out)")(N.erfinv)
erfcx = _p("erfcx", "exp(x * x) * erfc(x)", x="g * (2 * x * out - 2 / sqrt_pi)")(N.erfcx)
ndtr = _p("ndtr", "(1 + erf(x / sqrt(2))) / 2", x="g * exp(-x * x / 2) / sqrt_2pi")(N.ndtr)
ndtri = _p("ndtri", "the y with ndtr(y) = x", x="g * sqrt_2pi * exp(out * out / 2)")(N.ndtri)
# (exp(-x²/2) / ndtr(x) written with out = log ndtr(x): no underflow far left)
log_ndtr = _p("log_ndtr", "log(ndtr(x))", x="g * exp(-(out + x * x / 2)) / sqrt_2pi")(N.log_ndtr)

# ---- the modified Bessel functions of the first kind ---------------------------------------------
i0 = _p("i0", "modified Bessel I0(x)", x="g * i1(x)")(B.i0)
i1 = _p(
    "i1", "modified Bessel I1(x)", x="g * where(tiny(x), 0.5, i0(off_zero(x)) - out / off_zero(x))"
)(B.i1)
i0e = _p("i0e", "exp(-|x|) * modified Bessel I0(x)", x="g * (i1e(x) - sign(x) * out)")(B.i0e)
i1e = _p(
    "i1e",
    "exp(-|x|) * modified Bessel I1(x)",
    x="g * where(tiny(x), 0.5, i0e(off_zero(x)) - out * (sign(x) + 1 / off_zero(x)))",
)(B.i1e)


def tiny(x: Any) -> Any:
    """Where |x| is not above the dtype's machine epsilon (NaN included): there i1's and i1e's
    gradient is their limit at 0, 1/2, as PyTorch's (a constant: the second derivative is 0)."""
    a = value(x)
    return ~(np.abs(a) > np.finfo(a.dtype).eps)


def off_zero(x: Any) -> Any:
    """x with its tiny elements replaced by eps, so the 1/x of the branch where() discards stays
    finite and leaks no NaN into second derivatives (PyTorch's guard, the same points)."""
    return where(tiny(x), float(np.finfo(value(x).dtype).eps), x)


# ---- entropy terms -------------------------------------------------------------------------------
# -x log(x): 0 at 0, -inf below (PyTorch's); its gradient is +inf at 0 and NaN below, as there
@primitive("entr", "-x * log(x)", batch=pointwise, elementwise=True, x="-g * (log(x) + 1)")
def entr(x):
    a, dtype = G.floating(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(a > 0, -a * np.log(a), np.where(a == 0, 0.0, -np.inf))
    return np.where(np.isnan(a), np.nan, out).astype(dtype)


# x * log(1 + y), 0 where x is 0 (unless y is NaN), as torch.special.xlog1py; its rules are
# PyTorch's (xlogy's, with log1p)
@primitive(
    "xlog1py", "x * log1p(y)", batch=pointwise,
    x="where(x_zero_y_at_most_minus_one(x, y), 0, xlog1py(g, y))", y="g * x / (1 + y)",
)  # fmt: skip
def xlog1py(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        product = np.multiply(x, np.log1p(y))
    return np.where((np.asarray(x) == 0) & ~np.isnan(y), np.zeros_like(product), product)


def x_zero_y_at_most_minus_one(x, y):
    """Where xlog1py's x-gradient is 0 in PyTorch (x == 0 and y <= -1: no finite log1p(y))."""
    return (value(x) == 0) & (value(y) <= -1)
