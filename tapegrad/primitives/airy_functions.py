"""The Airy function Ai on NumPy arrays (NumPy has none).

Layer L1 by place, L0 by content: numpy and the standard library only (tapegrad/special_bessel.py
makes torch.special.airy_ai of it; no rule: PyTorch has no derivative for it either). Three
regions, with the published approximations PyTorch evaluates too (Moshier's Cephes tables):

- |x| < 2.09: the Maclaurin series Ai(x) = Ai(0) f(x) + Ai'(0) g(x), f = Σ 3^k (1/3)_k x^(3k)/(3k)!
  and g = Σ 3^k (2/3)_k x^(3k+1)/(3k+1)!, in double-double arithmetic (correctly rounded there).
- x >= 2.09: exp(-ζ)/(2 √π x^(1/4)) R(1/ζ), ζ = 2x^(3/2)/3, R a rational function; 0 past 103.892,
  where Ai underflows (as PyTorch's).
- x <= -2.09: the oscillating form (-x)^(-1/4)/√π (sin(θ) F(z²) - cos(θ) z G(z²)), z = 1/t,
  t = 2(-x)^(3/2)/3, θ = t + π/4 (its sine and cosine from t's: θ itself never rounded).

Arithmetic in float64, the result in the input's floating dtype (float64 for integers). NaN at
+-inf, as PyTorch's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .cylinder_functions import polynomial
from .gamma_functions import floating

__all__ = ["airy_ai"]

# Ai(0) = 1/(3^(2/3) Γ(2/3)) and -Ai'(0) = 1/(3^(1/3) Γ(1/3)), as double-doubles (high, low)
AI_0 = (0.3550280538878172, 2.05233632436212e-17)
MINUS_AI_PRIME_0 = (0.2588194037928068, -2.522243111610832e-17)
SERIES_BELOW, UNDERFLOW_PAST = 2.09, 103.892
SERIES_TERMS_MAX = 60  # (the series converges within ~25 terms below 2.09)
DOUBLE_DOUBLE_TERMS = 6

# x >= 2.09: R = N(1/ζ) / D(1/ζ)
DECAYING_N = (3.46538101525629032477e-01, 1.20075952739645805542e01, 7.62796053615234516538e01,
              1.68089224934630576269e02, 1.59756391350164413639e02, 7.05360906840444183113e01,
              1.40264691163389668864e01, 9.99999999999999995305e-01)  # fmt: skip
DECAYING_D = (5.67594532638770212846e-01, 1.47562562584847203173e01, 8.45138970141474626562e01,
              1.77318088145400459522e02, 1.64234692871529701831e02, 7.14778400825575695274e01,
              1.40959135607834029598e01, 1.00000000000000000470e00)  # fmt: skip
# x <= -2.09: F = 1 + z² FN(z²) / FD(z²), G = GN(z²) / GD(z²)
OSCILLATING_FN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01,
                  -6.93158036036933542233e-01, -2.79779981545119124951e-01,
                  -4.91900132609500318020e-02, -4.06265923594885404393e-03,
                  -1.59276496239262096340e-04, -2.77649108155232920844e-06,
                  -1.67787698489114633780e-08)  # fmt: skip
OSCILLATING_FD = (1.0, 1.33560420706553243746e01, 3.26825032795224613948e01,
                  2.67367040941499554804e01, 9.18707402907259625840e00, 1.47529146771666414581e00,
                  1.15687173795188044134e-01, 4.40291641615211203805e-03,
                  7.54720348287414296618e-05, 4.51850092970580378464e-07)  # fmt: skip
OSCILLATING_GN = (1.97339932091685679179e-02, 3.91103029615688277255e-01,
                  1.06579897599595591108e00, 9.39169229816650230044e-01,
                  3.51465656105547619242e-01, 6.33888919628925490927e-02,
                  5.85804113048388458567e-03, 2.82851600836737019778e-04,
                  6.98793669997260967291e-06, 8.11789239554389293311e-08,
                  3.41551784765923618484e-10)  # fmt: skip
OSCILLATING_GD = (1.0, 9.30892908077441974853e00, 1.98352928718312140417e01,
                  1.55646628932864612953e01, 5.47686069422975497931e00, 9.54293611618961883998e-01,
                  8.64580826352392193095e-02, 4.12656523824222607191e-03,
                  1.01259085116509135510e-04, 1.17166733214413521882e-06,
                  4.91834570062930015649e-09)  # fmt: skip


def _series(x: np.ndarray) -> np.ndarray:
    """Ai(x) for |x| < 2.09 from its Maclaurin series (f and g above). As x nears 2.09, Ai(0) f
    and Ai'(0) g cancel to 1/25 of their size, and plain float64 sums would leave Ai tens of ulp
    off: the first DOUBLE_DOUBLE_TERMS terms (all but 2^-19 of the sums) are summed in
    double-double arithmetic, the tail in float64."""
    square = _times(x, x)
    cube = _dd_times(square, (x, np.zeros_like(x)))
    f_term = f = (np.ones_like(x), np.zeros_like(x))
    g_term = g = (x, np.zeros_like(x))
    for k in range(1, DOUBLE_DOUBLE_TERMS + 1):
        f_term = _dd_divide(_dd_times(f_term, cube), (3 * k - 1) * (3 * k))
        g_term = _dd_divide(_dd_times(g_term, cube), (3 * k) * (3 * k + 1))
        f, g = _dd_add(f, f_term), _dd_add(g, g_term)
    f_tail, g_tail = np.zeros_like(x), np.zeros_like(x)
    f_small, g_small, c = f_term[0], g_term[0], cube[0]
    for k in range(DOUBLE_DOUBLE_TERMS + 1, SERIES_TERMS_MAX):
        f_small = f_small * c / ((3 * k - 1) * (3 * k))
        g_small = g_small * c / ((3 * k) * (3 * k + 1))
        f_tail += f_small
        g_tail += g_small
        if not (np.abs(f_small) + np.abs(g_small) > 2.0**-60 * (np.abs(f[0]) + np.abs(g[0]))).any():
            break
    f = _dd_add(f, (f_tail, np.zeros_like(x)))
    g = _dd_add(g, (g_tail, np.zeros_like(x)))
    first = _dd_times(AI_0, f)
    second = _dd_times(MINUS_AI_PRIME_0, g)
    high, low = _dd_add(first, (-second[0], -second[1]))
    return high + low


def _decaying(x: np.ndarray) -> np.ndarray:
    """Ai(x) for x >= 2.09."""
    zeta, zeta_low = _two_thirds_power(x)  # (exp(-ζ) to the last bit: ζ reaches ~700)
    w = 1.0 / zeta
    ratio = polynomial(DECAYING_N, w) / polynomial(DECAYING_D, w)
    decay = np.exp(-zeta) * np.exp(-zeta_low)
    return ratio * decay / (2.0 * math.sqrt(math.pi) * np.sqrt(np.sqrt(x)))


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a = high + low, each with 26 significant bits (Veltkamp), so products of halves are exact."""
    c = 134217729.0 * a  # 2^27 + 1
    high = c - (c - a)
    return high, a - high


def _times(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a b = product + error exactly (Dekker's product)."""
    product = a * b
    (ah, al), (bh, bl) = _split(a), _split(b)
    return product, ((ah * bh - product) + ah * bl + al * bh) + al * bl


DoubleDouble = tuple[Any, Any]  # (high, low): a value to ~106 bits as an unevaluated sum


def _two_sum(a: Any, b: Any) -> DoubleDouble:
    """a + b = sum + error exactly (Knuth's two-sum)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _renormalised(high: Any, low: Any) -> DoubleDouble:
    """(high + low) as a double-double whose high part is the rounded sum (|high| >= |low|)."""
    total = high + low
    return total, low - (total - high)


def _dd_add(a: DoubleDouble, b: DoubleDouble) -> DoubleDouble:
    total, error = _two_sum(a[0], b[0])
    return _renormalised(total, error + (a[1] + b[1]))


def _dd_times(a: DoubleDouble, b: DoubleDouble) -> DoubleDouble:
    product, error = _times(np.asarray(a[0]), np.asarray(b[0]))
    return _renormalised(product, error + (a[0] * b[1] + a[1] * b[0]))


def _dd_divide(a: DoubleDouble, d: int) -> DoubleDouble:
    """a / d for an integer d below 2^26 (so q d's error is exact from q's two halves)."""
    quotient = a[0] / d
    high, low = _split(quotient)
    product = quotient * d
    error = (high * d - product) + low * d
    return _renormalised(quotient, ((a[0] - product) - error + a[1]) / d)


def _two_thirds_power(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """t = 2 m^(3/2) / 3 as high + low (about 100 bits), for 2.09 <= m < 1e200."""
    r = np.sqrt(m)
    square, square_error = _times(r, r)
    r_low = ((m - square) - square_error) / (2.0 * r)  # sqrt(m) = r + r_low
    u, u_error = _times(m, r)
    u_low = u_error + m * r_low  # m sqrt(m) = u + u_low
    third = u / 3.0
    triple, triple_error = _times(third, np.full_like(third, 3.0))
    third_low = ((u - triple) - triple_error + u_low) / 3.0  # m sqrt(m) / 3 = third + third_low
    return 2.0 * third, 2.0 * third_low


def _oscillating(x: np.ndarray) -> np.ndarray:
    """Ai(x) for x <= -2.09."""
    m = -x
    t, t_low = _two_thirds_power(m)
    z = 1.0 / t
    zz = z * z
    f = 1.0 + zz * polynomial(OSCILLATING_FN, zz) / polynomial(OSCILLATING_FD, zz)
    g = z * polynomial(OSCILLATING_GN, zz) / polynomial(OSCILLATING_GD, zz)
    # sin and cos at t + t_low: t's rounding is kept (at x = -1e5, t ~ 2e7 and its last bit
    # alone would move the phase by 4e-9)
    s, c = np.sin(t), np.cos(t)
    s, c = s * np.cos(t_low) + c * np.sin(t_low), c * np.cos(t_low) - s * np.sin(t_low)
    sin_theta, cos_theta = (s + c) / math.sqrt(2.0), (c - s) / math.sqrt(2.0)  # θ = t + π/4
    return (sin_theta * f - cos_theta * g) / (math.sqrt(math.pi) * np.sqrt(np.sqrt(m)))


def airy_ai(x: object) -> np.ndarray:
    """Ai(x), elementwise (0 past x = 103.892, where it underflows; NaN at +-inf, as PyTorch's).

    >>> airy_ai(np.array([0.0, 1.0]))
    array([0.35502805, 0.13529242])
    """
    a, dtype = floating(x)
    out = np.full(a.shape, np.nan)  # (NaN stays NaN; +-inf is NaN, as PyTorch's)
    out[(a > UNDERFLOW_PAST) & np.isfinite(a)] = 0.0
    # each region computed on its own elements only (the series' double-doubles are costly)
    near = np.abs(a) < SERIES_BELOW
    decaying = (a >= SERIES_BELOW) & (a <= UNDERFLOW_PAST)
    oscillating = (a <= -SERIES_BELOW) & np.isfinite(a)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        out[near] = _series(a[near])
        out[decaying] = _decaying(a[decaying])
        out[oscillating] = _oscillating(a[oscillating])
    return out.astype(dtype)
