"""Transcendental primitives beyond elementwise.py's exp, log, sin, cos, tan, tanh and erf: erfc,
the hyperbolic and inverse trigonometric functions, atan2, hypot, the log-sum-exp of two values,
exp2, sinc, xlogy, logit, fmod, copysign, fmax/fmin and nan_to_num, each a NumPy forward with
the rule of every input (an expression, as in elementwise.py).

Layer L1: numpy, registry, elementwise.py (whose primitives the rules call) and batching (every op
here batches pointwise). At the edges the rules give PyTorch's values: its backward formulas are
these textbook ones (asin's gradient at |x| = 1 is inf, hypot's at (0, 0) is NaN, as there), with
a `where` wherever PyTorch selects a value instead (sinc at 0, xlogy at x = 0, logit outside eps).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from .._erf import erf as erf_values
from .batching import pointwise
from .elementwise import _no_integer_zero_divisor
from .elementwise import cos, erf, exp, log, sin, sqrt, trunc, where  # noqa: F401  (rules read)
from .registry import primitive, value

pi = math.pi  # (Python floats: g is never upcast)
ln2 = math.log(2.0)


# One call registers an elementwise primitive that batches pointwise (the one-line tables here
# and in special_functions.py). A partial, not a function: primitive() then sees the module on
# the calling line as its caller, whose names the rules read (and whose line it records).
elementwise_primitive = partial(primitive, batch=pointwise, elementwise=True)
_p = elementwise_primitive  # (short: one primitive a line)


# ---- the complementary error function ----------------------------------------------------------
@primitive(
    "erfc", "1 - erf(x)", batch=pointwise, elementwise=True, x="-g * 2 / pi ** 0.5 * exp(-x * x)"
)
def erfc(x):
    # 1 - erf(x) where that keeps its digits (erfc >= 0.47), math.erfc per element in the tail,
    # where 1 - erf would cancel to 0 (erfc(10) is 2e-45)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    out = np.asarray(1.0 - erf_values(x), dtype=x.dtype)
    tail = x > 0.5
    if tail.any():
        out[tail] = np.frompyfunc(math.erfc, 1, 1)(x[tail].astype(np.float64)).astype(x.dtype)
    return out


# ---- hyperbolic ----------------------------------------------------------------------------------
sinh = _p("sinh", "sinh(x)", x="g * cosh(x)")(np.sinh)
cosh = _p("cosh", "cosh(x)", x="g * sinh(x)")(np.cosh)
asinh = _p("asinh", "asinh(x)", x="g / sqrt(x * x + 1)")(np.arcsinh)
acosh = _p("acosh", "acosh(x)", x="g / sqrt(x * x - 1)")(np.arccosh)
atanh = _p("atanh", "atanh(x)", x="g / (1 - x * x)")(np.arctanh)

# ---- inverse trigonometric ---------------------------------------------------------------------
asin = _p("asin", "asin(x)", x="g / sqrt(1 - x * x)")(np.arcsin)
acos = _p("acos", "acos(x)", x="-g / sqrt(1 - x * x)")(np.arccos)
atan = _p("atan", "atan(x)", x="g / (1 + x * x)")(np.arctan)


# (arguments as torch.atan2(input, other): the angle of the point (other, input); at the origin,
# where x * x + y * y is 0, both gradients are 0, as PyTorch's)
@primitive(
    "atan2",
    "atan(y / x), by quadrant",
    batch=pointwise,
    y="where(at_origin(y, x), 0, g * x / (x * x + y * y))",
    x="where(at_origin(y, x), 0, -g * y / (x * x + y * y))",
)
def atan2(y, x):
    return np.arctan2(y, x)


def at_origin(y, x):
    """Where atan2's gradients are 0: x * x + y * y is 0 (a constant mask)."""
    y, x = value(y), value(x)
    return x * x + y * y == 0


@primitive("hypot", "sqrt(x * x + y * y)", batch=pointwise, x="g * x / out", y="g * y / out")
def hypot(x, y):
    return np.hypot(x, y)  # (no overflow where x * x would)


# ---- exponentials and logarithms of two values ---------------------------------------------------
exp2 = _p("exp2", "2 ** x", x="g * out * ln2")(np.exp2)


@primitive(
    "logaddexp",
    "log(exp(x) + exp(y))",
    batch=pointwise,
    x="g / (1 + exp(y - x))",
    y="g / (1 + exp(x - y))",
)
def logaddexp(x, y):
    return np.logaddexp(x, y)  # (no overflow where exp(x) would)


@primitive(
    "logaddexp2",
    "log2(2 ** x + 2 ** y)",
    batch=pointwise,
    x="g / (1 + exp2(y - x))",
    y="g / (1 + exp2(x - y))",
)
def logaddexp2(x, y):
    return np.logaddexp2(x, y)


# x * log(y), 0 where x is 0 (unless y is NaN), as torch.xlogy; its rules are PyTorch's
@primitive(
    "xlogy",
    "x * log(y)",
    batch=pointwise,
    x="where(x_zero_y_not_positive(x, y), 0, xlogy(g, y))",
    y="g * x / y",
)
def xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        product = np.multiply(x, np.log(y))
    return np.where((np.asarray(x) == 0) & ~np.isnan(y), np.zeros_like(product), product)


def x_zero_y_not_positive(x, y):
    """Where xlogy's x-gradient is 0 in PyTorch (x == 0 and y <= 0: log(y) has no finite value)."""
    return (value(x) == 0) & (value(y) <= 0)


# The normalized sinc, sin(pi x) / (pi x), 1 at 0 (NumPy's and PyTorch's); gradient 0 at 0
# (written as PyTorch writes it: near 0 both cancel, and its second order is then PyTorch's too;
# x * x is 1 where x is 0, so the branch where does not take divides no 0 by 0)
sinc = _p(
    "sinc",
    "sin(pi * x) / (pi * x)",
    x="where(x == 0, 0, (pi * x * cos(pi * x) - sin(pi * x)) / (pi * where(x == 0, 1, x * x)) * g)",
)(np.sinc)


# log(x / (1 - x)); with eps, x is first clamped to [eps, 1 - eps] and the gradient is 0 outside
# (without it, NaN outside [0, 1], as PyTorch)
@primitive(
    "logit",
    "log(x / (1 - x))",
    batch=pointwise,
    elementwise=True,
    x="where(logit_outside(x, eps), logit_edge(eps), g / (x * (1 - x)))",
)
def logit(x, *, eps=None):
    z = x if eps is None else np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(z / (1 - z))


def logit_outside(x, eps):
    """Where logit's gradient is not the textbook one: outside [eps, 1 - eps] (without eps,
    outside [0, 1])."""
    x = value(x)
    low = 0 if eps is None else eps
    return (x < low) | (x > 1 - low)


def logit_edge(eps):
    """logit's gradient outside its range: NaN without eps, 0 with it (PyTorch's)."""
    return math.nan if eps is None else 0.0


# ---- remainders and signs ----------------------------------------------------------------------
# The remainder with the dividend's sign (C's fmod; Python's % is remainder), as torch.fmod
@primitive("fmod", "x - trunc(x / y) * y", batch=pointwise, x="g", y="-g * trunc(x / y)")
def fmod(x, y):
    _no_integer_zero_divisor(y)
    return np.fmod(x, y)


# |x| with y's sign; its gradient is g * out / x (0 where x is 0), as PyTorch's; none for y
@primitive(
    "copysign", "|x| * sign(y)", batch=pointwise, x="where(x == 0, 0, g * (out / x))", y=None
)
def copysign(x, y):
    return np.copysign(x, y)


# The larger (smaller) of two values where a NaN loses to a number, as torch.fmax/fmin; a tie
# gives x all of g (PyTorch's rule, where maximum splits it)
@primitive(
    "fmax",
    "max(x, y), NaN ignored",
    batch=pointwise,
    x="where(first_wins(x, y, 1), g, 0)",
    y="where(first_wins(x, y, 1), 0, g)",
)
def fmax(x, y):
    return np.fmax(x, y)


@primitive(
    "fmin",
    "min(x, y), NaN ignored",
    batch=pointwise,
    x="where(first_wins(x, y, -1), g, 0)",
    y="where(first_wins(x, y, -1), 0, g)",
)
def fmin(x, y):
    return np.fmin(x, y)


def first_wins(x, y, side):
    """Where fmax (side 1) or fmin (side -1) takes x: x at least (at most) y, or y NaN."""
    x, y = value(x), value(y)
    return ((x >= y) if side > 0 else (x <= y)) | np.isnan(y)


# NaN, +inf and -inf replaced by numbers (the dtype's largest by default); the gradient passes
# only where x was finite, as PyTorch's
@primitive(
    "nan_to_num",
    "x with nan, posinf, neginf replaced",
    batch=pointwise,
    elementwise=True,
    x="where(finite(x), g, 0)",
)
def nan_to_num(x, *, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)


def finite(x):
    """Where x is finite (a constant mask)."""
    return np.isfinite(value(x))
