"""Exact GELU as one primitive, x * Phi(x) with Phi the standard normal CDF, and its backward as
one op (as PyTorch's gelu_backward).

The table's rules are the textbook's, Phi and its density phi written in primitives (so they
record under create_graph and every order of derivative follows):
    d/dx x Phi(x) = Phi(x) + x phi(x),    d/dx (Phi(x) + x phi(x)) = phi(x) (2 - x^2).
The kernel `gelu_backward(g, x, forward=plain(out))` gives the same values with Phi read off the
forward's result (out / x) instead of a second erf, the costly part of exact GELU in NumPy.
Layer L1: numpy, the L0 erf, registry, batching and the elementwise family.
"""

from __future__ import annotations

import math

import numpy as np

from .._erf import erf as erf_values
from .batching import pointwise
from .elementwise import erf, exp
from .registry import primitive, value

SQRT_HALF = math.sqrt(0.5)  # (Python floats: g and x are never upcast)
INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def Phi(x):
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, the standard normal CDF (arrays or Tensors)."""
    return 0.5 * (1 + erf(x * SQRT_HALF))


def phi(x):
    """phi(x) = exp(-x^2 / 2) / sqrt(2 pi), the standard normal density (arrays or Tensors)."""
    return exp(x * x * -0.5) * INV_SQRT_2PI


@primitive("gelu", "x * Phi(x)", batch=pointwise, elementwise=True, x="g * (Phi(x) + x * phi(x))")
def gelu(x):
    # (one erf and two passes in place, where the composite ran five ops, each a node)
    share = erf_values(x * SQRT_HALF)
    share += 1
    share *= 0.5
    return np.multiply(x, share, out=share)


@primitive(
    "gelu_backward",
    "dy * (Phi(x) + x * phi(x))",
    batch=pointwise,
    dy="gelu_backward(g, x, forward=forward)",
    x="g * dy * phi(x) * (2 - x * x)",
)
def gelu_backward(dy, x, *, forward=None):
    # `forward`: gelu(x) if the caller has it (a constant), so that Phi(x) needs no second erf
    x = np.asarray(x)  # (0-d too: the passes below write in place)
    density = np.multiply(x, x, out=np.empty(x.shape, np.result_type(x, 0.5)))
    np.multiply(density, -0.5, out=density)
    np.exp(density, out=density)
    np.multiply(density, x * INV_SQRT_2PI, out=density)  # x phi(x)
    return dy * np.add(_phi_of(x, forward), density, out=density)


def _phi_of(x, forward):
    """Phi(x) as an array: forward / x where `forward` (x Phi(x)) is a normal number, so the
    quotient is within two roundings of Phi (zero, subnormal or NaN: from erf, elementwise)."""
    if forward.__class__ is not np.ndarray or forward.shape != x.shape or forward.dtype != x.dtype:
        return Phi(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.divide(forward, x, out=np.empty(x.shape, x.dtype))  # (0-d: an array too)
    inexact = ~(np.abs(forward) >= np.finfo(forward.dtype).tiny)
    if inexact.any():
        share[inexact] = Phi(x[inexact])
    return share


def plain(out):
    """out's values as a constant array, or None under vmap (a batched value is no constant)."""
    array = value(out)
    return array if array.__class__ is np.ndarray else None


gelu.override(
    "one op with Phi read off the forward's result: no second erf (as PyTorch's gelu_backward)",
    x="gelu_backward(g, x, forward=plain(out))",
)
