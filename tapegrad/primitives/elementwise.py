"""Elementwise primitives: each forward (NumPy) with the rule of every input (an expression).

In a rule, `g` is dL/dout, `out` the forward's result, inputs are named as in the forward; a rule
gives dL/dinput at the broadcast shape (the engine sums it back to the input's shape) or None for
a zero. Rules select with `where` rather than multiply by a 0/1 mask, so an infinite g never turns
into NaN where the mask is 0 (as PyTorch). Most forwards are NumPy's ufuncs themselves.
Layer L1: numpy, registry, the L0 erf (NumPy has none), bits (where selects by bits) and batching
(every op here batches pointwise).
"""

from __future__ import annotations

import math

import numpy as np

from .._erf import erf as erf_values
from .batching import pointwise
from .bits import select
from .registry import Primitive, primitive, value

add: Primitive = primitive("add", "x + y", batch=pointwise, elementwise=True, x="g", y="g")(np.add)
mul: Primitive = primitive("mul", "x * y", batch=pointwise, elementwise=True, x="g * y", y="g * x")(
    np.multiply
)
div: Primitive = primitive(
    "div", "x / y", batch=pointwise, elementwise=True, x="g / y", y="-g * x / (y * y)"
)(np.true_divide)


def _is_bool(v) -> bool:
    return v.__class__ is bool or getattr(v, "dtype", None) == np.bool_


def refuse_bools(name, *operands) -> None:
    """Subtraction and negation of bools are refused, as PyTorch refuses them (a mask is inverted
    by ~ or logical_not, two masks differ by ^ or logical_xor), with a RuntimeError as there."""
    if any(_is_bool(v) for v in operands):
        raise RuntimeError(
            f"{name} of bools is not supported (as in PyTorch): to invert a mask use ~mask or "
            f"tg.logical_not(mask); to find where two masks differ use a ^ b or tg.logical_xor"
        )


@primitive("sub", "x - y", batch=pointwise, elementwise=True, x="g", y="-g")
def sub(x, y):
    if _is_bool(x) or _is_bool(y):
        refuse_bools("subtraction", x, y)
    return np.subtract(x, y)


@primitive("neg", "-x", batch=pointwise, elementwise=True, x="-g")
def neg(x):
    if _is_bool(x):
        refuse_bools("negation", x)
    return np.negative(x)


# (at the edges the textbook divides by zero: fused.py's kernels give PyTorch's limits there)
@primitive("pow", "x ** y", batch=pointwise, x="g * y * x ** (y - 1)", y="g * out * log(x)")
def pow(x, y):
    if _integers(x) and _integers(y) and np.any(np.less(y, 0)):
        return _integer_power(x, y)
    return np.power(x, y)


def flat_at_zero(x, y):
    """Where pow's exponent gradient is 0: base 0, exponent >= 0 (a constant mask)."""
    return (value(x) == 0) & (value(y) >= 0)


def _integers(v):
    return isinstance(v, (int, np.integer)) or (isinstance(v, np.ndarray) and v.dtype.kind in "iu")


def _integer_power(x, y):
    """x ** y for integers, some y negative, by PyTorch's rule: 1 ** y is 1, (-1) ** y is 1 or -1,
    any other base gives 0 (1 / x ** -y truncated); a negative Python number as the exponent of an
    integer tensor is refused, as there."""
    if not isinstance(y, np.ndarray):
        raise RuntimeError(
            f"pow: an integer tensor to a negative integer power ({y}) is refused, as in PyTorch; "
            f"make the base floating (x.double() ** {y}) or the exponent a tensor (then 1 / x ** n "
            "is truncated: 0, 1 or -1)"
        )
    positive = np.power(x, np.maximum(y, 0))  # (NumPy refuses negative integer exponents)
    negative = np.where(x == 1, 1, np.where(x == -1, 1 - 2 * (y % 2), 0))
    return np.where(y < 0, negative, positive).astype(positive.dtype)


exp: Primitive = primitive("exp", "exp(x)", batch=pointwise, elementwise=True, x="g * out")(np.exp)
log: Primitive = primitive("log", "log(x)", batch=pointwise, elementwise=True, x="g / x")(np.log)
sin: Primitive = primitive("sin", "sin(x)", batch=pointwise, elementwise=True, x="g * cos(x)")(
    np.sin
)
cos: Primitive = primitive("cos", "cos(x)", batch=pointwise, elementwise=True, x="-g * sin(x)")(
    np.cos
)
tan: Primitive = primitive(
    "tan", "tan(x)", batch=pointwise, elementwise=True, x="g * (1 + out * out)"
)(np.tan)
tanh: Primitive = primitive(
    "tanh", "tanh(x)", batch=pointwise, elementwise=True, x="g * (1 - out * out)"
)(np.tanh)
sqrt: Primitive = primitive(
    "sqrt", "sqrt(x)", batch=pointwise, elementwise=True, x="g / (2 * out)"
)(np.sqrt)
abs: Primitive = primitive("abs", "|x|", batch=pointwise, elementwise=True, x="g * sign(x)")(np.abs)


@primitive("sign", "sign(x)", batch=pointwise, elementwise=True, x=None)
def sign(x):
    # PyTorch's sign, (x > 0) - (x < 0): sign(NaN) is 0 (NumPy's is NaN), so abs's gradient at NaN
    # is 0 as there; a bool is its own sign
    if x.dtype == np.bool_:
        return x.copy()
    return np.subtract(x > 0, x < 0, dtype=x.dtype)


@primitive("reciprocal", "1 / x", batch=pointwise, elementwise=True, x="-g * out * out")
def reciprocal(x):
    # integers and bools: a true division (floats), as the `/` operator and PyTorch divide
    return np.reciprocal(x if x.dtype.kind == "f" else x.astype(np.float64))


log1p: Primitive = primitive(
    "log1p", "log(1 + x)", batch=pointwise, elementwise=True, x="g / (1 + x)"
)(np.log1p)
expm1: Primitive = primitive(
    "expm1", "exp(x) - 1", batch=pointwise, elementwise=True, x="g * (out + 1)"
)(np.expm1)


@primitive(
    "sigmoid", "1 / (1 + exp(-x))", batch=pointwise, elementwise=True, x="g * out * (1 - out)"
)
def sigmoid(x):
    if x.dtype.kind != "f":  # (as numbers: NumPy cannot negate bools, and -|x| of an unsigned
        x = x.astype(np.float64)  # integer wraps; the Tensor layer casts to PyTorch's float dtype)
    e = np.exp(-np.abs(x))  # exp of a non-positive number only: no overflow for large |x|
    return select(x >= 0, 1 / (1 + e), e / (1 + e))


# (reads out, as PyTorch's: changing relu's input in place later is fine; a NaN passes g, as there)
@primitive("relu", "max(x, 0)", batch=pointwise, elementwise=True, x="where(out <= 0, 0, g)")
def relu(x):
    return max_with_zero(x)


# Speed: NumPy's maximum of an array and a scalar runs without SIMD; against a row of zeros it is
# 3-4x faster (a (32, 16, 32, 32) float32 array: 0.40 -> 0.10 ms, measured). Read-only rows.
_ZERO_ROW = 8192
_zero_rows: dict = {}


def max_with_zero(x):
    """max(0, x) elementwise: NaN stays NaN and -0.0 stays -0.0, as PyTorch's relu (NumPy's
    maximum returns its second argument where they compare equal)."""
    fast = x.__class__ is np.ndarray and x.dtype.kind == "f" and x.flags.c_contiguous
    if not fast or x.size < _ZERO_ROW:
        return np.maximum(0, x)
    zeros = _zero_rows.get(x.dtype)
    if zeros is None:
        zeros = _zero_rows[x.dtype] = np.zeros(_ZERO_ROW, x.dtype)
        zeros.flags.writeable = False
    out = np.empty_like(x)
    flat, into = x.reshape(-1), out.reshape(-1)
    whole = x.size - x.size % _ZERO_ROW  # (rows of _ZERO_ROW, then what is left)
    np.maximum(zeros, flat[:whole].reshape(-1, _ZERO_ROW), out=into[:whole].reshape(-1, _ZERO_ROW))
    np.maximum(zeros[: x.size - whole], flat[whole:], out=into[whole:])
    return out


# (a NaN input gives NaN and x <= 0 takes the slope, as PyTorch's leaky_relu and its backward)
@primitive(
    "leaky_relu",
    "x if x > 0 else slope * x",
    batch=pointwise,
    elementwise=True,
    x="where(x > 0, g, g * slope)",
)
def leaky_relu(x, *, slope):
    if 0 < slope <= 1:  # (then the answer is the larger of the two, no selection; at 0, inf * 0
        return np.maximum(x, x * slope)  # would be NaN)
    return select(x > 0, x, x * slope)


# The loser gets 0 and ties share, as torch.maximum; a NaN loses to nothing (the output is NaN):
# both inputs get g there, as in PyTorch.
@primitive(
    "maximum",
    "max(x, y)",
    batch=pointwise,
    x="where(x < y, 0, where(x == y, g / 2, g))",
    y="where(y < x, 0, where(x == y, g / 2, g))",
)
def maximum(x, y):
    return np.maximum(x, y)


@primitive(
    "minimum",
    "min(x, y)",
    batch=pointwise,
    x="where(x > y, 0, where(x == y, g / 2, g))",
    y="where(y > x, 0, where(x == y, g / 2, g))",
)
def minimum(x, y):
    return np.minimum(x, y)


@primitive("clip", "clip(x, min, max)", batch=pointwise, x="where(within(x, min, max), g, 0)")
def clip(x, *, min=None, max=None):
    return np.clip(x, min, max)


def within(x, low, high):
    """low <= x <= high (a bound of None is no bound): where clip's gradient passes (a constant)."""
    x = value(x)
    inside = np.ones(np.shape(x), dtype=bool)
    if low is not None:  # (not in place: a bound may broadcast x; inside vmap x holds values per
        # example, `inside` does not)
        inside = inside & (x >= low)
    if high is not None:
        inside = inside & (x <= high)
    return inside


@primitive(
    "where",
    "x if cond else y",
    batch=pointwise,
    cond=None,
    x="where(cond, g, 0)",
    y="where(cond, 0, g)",
)
def where(cond, x, y):
    return select(cond, x, y)


@primitive(
    "cast", "x.astype(dtype)", batch=pointwise, x="g"
)  # (the engine casts g back to x's dtype)
def cast(x, *, dtype):
    return x.astype(dtype)


@primitive("fill", "full_like(x, value)", batch=pointwise, x=None)  # in-place fill_/zero_, recorded
def fill(x, *, value):
    return np.full_like(x, value)


pi = math.pi  # (a Python float, as is pi ** 0.5: g is never upcast)

erf: Primitive = primitive(
    "erf", "erf(x)", batch=pointwise, elementwise=True, x="g * 2 / pi ** 0.5 * exp(-x * x)"
)(erf_values)

# Rounding: piecewise constant, so a zero gradient (PyTorch gives zeros too, not None). Integers
# come back as they are (NumPy keeps their dtype).
floor: Primitive = primitive("floor", "floor(x)", batch=pointwise, elementwise=True, x=None)(
    np.floor
)
ceil: Primitive = primitive("ceil", "ceil(x)", batch=pointwise, elementwise=True, x=None)(np.ceil)
trunc: Primitive = primitive("trunc", "trunc(x)", batch=pointwise, elementwise=True, x=None)(
    np.trunc
)


@primitive("round", "round(x, decimals)", batch=pointwise, elementwise=True, x=None)
def round(x, *, decimals=0):
    return np.round(x, decimals)  # halves to even, as PyTorch


# Logarithms to base 10 and 2: NumPy's own (exact at the powers: log10(1000) is 3), with the
# rule of log scaled by 1 / ln(base)
ln10, ln2 = math.log(10.0), math.log(2.0)  # (Python floats: g is never upcast)
log10: Primitive = primitive(
    "log10", "log10(x)", batch=pointwise, elementwise=True, x="g / (x * ln10)"
)(np.log10)
log2: Primitive = primitive(
    "log2", "log2(x)", batch=pointwise, elementwise=True, x="g / (x * ln2)"
)(np.log2)


def _no_integer_zero_divisor(y):
    """Integer division by zero has no value (NumPy's 0 and a warning would be a silent wrong
    answer): PyTorch's error."""
    if _integers(y) and np.any(np.equal(y, 0)):
        raise RuntimeError(
            "ZeroDivisionError: integer division (or remainder) by zero; make the tensors "
            "floating (x.double()) to get inf/nan there, or mask the zeros first"
        )


# Division rounded down, as Python's // and PyTorch's div(rounding_mode="floor") (5.0 // 0.1 is
# 49.0: exact, not floor of the rounded quotient): piecewise constant, so zero gradients
@primitive("floor_divide", "floor(x / y)", batch=pointwise, x=None, y=None)
def floor_divide(x, y):
    _no_integer_zero_divisor(y)
    return np.floor_divide(x, y)


# The remainder with the divisor's sign, as Python's % and torch.remainder: x - floor(x / y) * y
@primitive("remainder", "x - floor(x / y) * y", batch=pointwise, x="g", y="-g * floor_divide(x, y)")
def remainder(x, y):
    _no_integer_zero_divisor(y)
    return np.remainder(x, y)


# The same values laid out row by row in memory (a copy only where they are not): what
# Tensor.contiguous() records, as PyTorch's clone into the contiguous format; its gradient is g.
@primitive("contiguous", "x (row-major copy)", batch=pointwise, elementwise=True, x="g")
def contiguous(x):
    return np.ascontiguousarray(x)
