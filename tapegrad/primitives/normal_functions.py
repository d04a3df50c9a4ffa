"""The error function's inverses and the normal distribution's numerics on NumPy arrays: erfinv,
erfcx (the scaled erfc), ndtr, ndtri and log_ndtr.

Layer L1 by place, L0 by content: numpy, the standard library, the L0 erf and erfc's forward
(transcendental.py); special_functions.py makes primitives of them. Arithmetic in float64, the
result in the input's floating dtype (float64 for integers). The inverses start from Giles'
single-precision approximation (or the tail's asymptote) and polish it: Halley steps on erf near
0, Newton steps on log erfc in the tails, where erf's values near +-1 would have lost the digits.
"""

from __future__ import annotations

import math

import numpy as np

from .._erf import erf
from .gamma_functions import floating
from .transcendental import erfc

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SQRT_HALF = math.sqrt(0.5)
_SPLIT = 2.0**27 + 1.0  # Veltkamp's splitter: x = high + low with high * high exact
# erfcx's asymptotic series past ASYMPTOTIC_FROM: 1/(x√π) Σ (-1)^k (2k-1)!! / (2x²)^k
ASYMPTOTIC_FROM, ASYMPTOTIC_TERMS = 10.0, 20
NEWTON_STEPS = 6  # (from a start within 2%: quadratic convergence reaches round-off in 5)

# Giles, "Approximating the erfinv function" (2010): erfinv(y) ~ y p(w), w = -log(1 - y²), in two
# pieces (w < 5 in w - 2.5, else in sqrt(w) - 3); highest power first
_GILES_CENTRAL = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_GILES_TAIL = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


def _horner(coefficients: tuple[float, ...], t: np.ndarray) -> np.ndarray:
    p = np.full_like(t, coefficients[0])
    for c in coefficients[1:]:
        p = p * t + c
    return p


def _exp_square(x: np.ndarray) -> np.ndarray:
    """exp(x²) to an ulp or two: x² split into an exact head and a small tail (exp of a rounded x²
    would lose x² ulps)."""
    scaled = x * _SPLIT
    high = scaled - (scaled - x)
    low = x - high
    return np.exp(high * high) * np.exp(low * (high + x))  # (low * (high + x) = x² - high²)


def erfcx(x: object) -> np.ndarray:
    """exp(x²) erfc(x), elementwise: without the underflow of erfc, and so finite for large x.

    >>> erfcx(np.array([0.0, 30.0]))
    array([1.        , 0.01879589])
    """
    a, dtype = floating(x)
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.abs(a)
        near = np.minimum(z, ASYMPTOTIC_FROM)
        direct = _exp_square(near) * erfc.forward(near)
        far = np.maximum(z, ASYMPTOTIC_FROM)
        inv = 1.0 / (2.0 * far * far)
        series, term = np.ones_like(far), np.ones_like(far)
        for k in range(1, ASYMPTOTIC_TERMS + 1):
            term = term * -(2 * k - 1) * inv
            series += term
        asymptotic = series / (far * math.sqrt(math.pi))
        out = np.where(z < ASYMPTOTIC_FROM, direct, asymptotic)
        out = np.where(np.isinf(z), 0.0, out)
        # erfcx(-x) = 2 exp(x²) - erfcx(x) (overflows to inf past x = -26.6)
        out = np.where(a < 0, 2.0 * _exp_square(z) - out, out)
        out = np.where(a == -np.inf, np.inf, out)
    return out.astype(dtype)


def _erfinv_central(y: np.ndarray) -> np.ndarray:
    """erfinv(y) for |y| <= 0.5: Giles' guess and two Halley steps on erf."""
    w = -np.log1p(-y * y) - 2.5
    x = y * _horner(_GILES_CENTRAL, w)
    for _ in range(2):
        # Halley: the Newton step f/f' shortened by 1 + x f/f' (f'' = -2x f' for erf)
        step = (erf(x) - y) / (TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = x - step / (1.0 + x * step)
    return x


def _erfcinv_tail(d: np.ndarray) -> np.ndarray:
    """erfcinv(d) = t with erfc(t) = d, for 0 < d <= 0.5: Newton steps on log erfc(t) - log d
    (d/dt log erfc(t) = -2/√π / erfcx(t), with no underflow down to the smallest d)."""
    log_d = np.log(d)
    w = -np.log(d * (2.0 - d))
    giles = _horner(_GILES_TAIL, np.sqrt(np.maximum(w, 5.0)) - 3.0)
    # erfc(t) ~ exp(-t²) / (t√π): t² ~ -log d - log(√π t), a closer start past Giles' range
    asymptote = np.sqrt(np.maximum(-log_d - 0.5 * np.log(-math.pi * log_d), 0.0))
    t = np.where(w < 5.0, _horner(_GILES_CENTRAL, w - 2.5), np.where(w < 40.0, giles, asymptote))
    t = t * np.where(w < 5.0, 1.0 - d, 1.0)  # (the central piece is y p(w), y = 1 - d)
    for _ in range(NEWTON_STEPS):
        scaled = erfcx(t)
        t = t + (np.log(scaled) - t * t - log_d) * scaled / TWO_OVER_SQRT_PI
    return t


def erfcinv(d: np.ndarray) -> np.ndarray:
    """t with erfc(t) = d, for float64 d in [0, 2] (NaN outside, +-inf at 0 and 2)."""
    out = np.full(d.shape, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = d > 1.0
        half = np.where(upper, 2.0 - d, d)  # erfcinv(d) = -erfcinv(2 - d), 2 - d exact there
        central = (half > 0.5) & (half <= 1.0)
        tail = (half > 0.0) & (half <= 0.5)
        out[central] = _erfinv_central(1.0 - half[central])  # (1 - d exact for d in [0.5, 1])
        out[tail] = _erfcinv_tail(half[tail])
        out[half == 0.0] = np.inf
    return np.where(upper, -out, out)


def erfinv(x: object) -> np.ndarray:
    """The inverse of erf, elementwise: +-inf at +-1, NaN outside [-1, 1].

    >>> erfinv(np.array([0.0, 0.5, 1.0]))
    array([0.        , 0.47693628,        inf])
    """
    a, dtype = floating(x)
    out = np.full(a.shape, np.nan)
    small = np.abs(a) <= 0.5
    out[small] = _erfinv_central(a[small])
    big = ~small & (np.abs(a) <= 1.0)
    out[big] = np.copysign(erfcinv(1.0 - np.abs(a[big])), a[big])
    return out.astype(dtype)


def ndtr(x: object) -> np.ndarray:
    """The standard normal distribution function Φ(x) = erfc(-x/√2) / 2, elementwise.

    >>> ndtr(np.array([0.0, 1.0]))
    array([0.5       , 0.84134475])
    """
    a, dtype = floating(x)
    return (0.5 * erfc.forward(-a * SQRT_HALF)).astype(dtype)


def ndtri(x: object) -> np.ndarray:
    """Φ's inverse -√2 erfcinv(2x), elementwise: -inf at 0, +0.0 at 1/2, +inf at 1, NaN
    outside [0, 1].

    >>> ndtri(np.array([0.5, 0.975]))
    array([0.        , 1.95996398])
    """
    a, dtype = floating(x)
    return (0.0 - math.sqrt(2.0) * erfcinv(2.0 * a)).astype(dtype)  # (0 - 0.0 is +0.0)


def log_ndtr(x: object) -> np.ndarray:
    """log Φ(x), elementwise, without Φ's underflow (below 0: log(erfcx(-x/√2) / 2) - x²/2) nor
    its rounding to 1 (above 0: log1p(-erfc(x/√2) / 2)).

    >>> log_ndtr(np.array([0.0, -40.0]))
    array([-6.93147181e-01, -8.04608442e+02])
    """
    a, dtype = floating(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(a) * SQRT_HALF
        below = np.log(0.5 * erfcx(z)) - 0.5 * a * a
        above = np.log1p(-0.5 * erfc.forward(z))
        out = np.where(a < 0, below, above)
        out = np.where(a == -np.inf, -np.inf, out)
    return out.astype(dtype)
