"""The modified Bessel functions of the first kind I0 and I1 on NumPy arrays, plain and scaled by
exp(-|x|) (i0e, i1e): NumPy has only i0, unscaled and not for every dtype.

Layer L1 by place, L0 by content: numpy and the standard library only (special_functions.py makes
primitives of them). For |x| <= SERIES_UP_TO the power series (all its terms positive: no
cancellation), past it the asymptotic expansion of the scaled function, whose terms shrink until
k ~ 2|x| (far beyond the ASYMPTOTIC_TERMS used). Arithmetic in float64, the result in the input's
floating dtype (float64 for integers).
"""

from __future__ import annotations

import math

import numpy as np

from .gamma_functions import floating

SERIES_UP_TO, SERIES_TERMS, ASYMPTOTIC_TERMS = 20.0, 50, 30


def _scaled(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-|x|) I_order(|x|) for float64 x (order 0 or 1)."""
    z = np.abs(x)
    # I_n(z) = (z/2)^n Σ_k (z²/4)^k / (k! (k + n)!)
    near = np.minimum(z, SERIES_UP_TO)
    quarter = near * near / 4.0
    term = (near / 2.0) ** order / math.factorial(order)
    series = term.copy()
    for k in range(1, SERIES_TERMS + 1):
        term = term * quarter / (k * (k + order))
        series += term
    series *= np.exp(-near)
    # exp(-z) I_n(z) ~ 1/√(2πz) Σ_k (-1)^k Π_{j<=k} (4n² - (2j-1)²) / (k! (8z)^k)
    far = np.maximum(z, SERIES_UP_TO)
    term = np.ones_like(far)
    asymptotic = term.copy()
    for k in range(1, ASYMPTOTIC_TERMS + 1):
        term = term * -(4 * order * order - (2 * k - 1) ** 2) / (8.0 * k * far)
        asymptotic += term
    with np.errstate(invalid="ignore", divide="ignore"):  # (inf: 1/√(2π inf) * 1 is 0)
        asymptotic /= np.sqrt(2.0 * math.pi * far)
    return np.where(z <= SERIES_UP_TO, series, asymptotic)


def _odd(magnitude: np.ndarray, x: np.ndarray) -> np.ndarray:
    """An odd function's value from its value at |x| (+0.0 at -0.0, as PyTorch's i1)."""
    return np.where(x < 0, -magnitude, magnitude)


def i0e(x: object) -> np.ndarray:
    """exp(-|x|) I0(x), elementwise (even).

    >>> i0e(np.array([0.0, 1.0]))
    array([1.        , 0.46575961])
    """
    a, dtype = floating(x)
    return _scaled(a, 0).astype(dtype)


def i1e(x: object) -> np.ndarray:
    """exp(-|x|) I1(x), elementwise (odd).

    >>> i1e(np.array([0.0, 1.0]))
    array([0.        , 0.20791042])
    """
    a, dtype = floating(x)
    return _odd(_scaled(a, 1), a).astype(dtype)


def i0(x: object) -> np.ndarray:
    """I0(x) = Σ_k (x²/4)^k / (k!)², elementwise (even; +inf past |x| ~ 713).

    >>> i0(np.array([0.0, 1.0]))
    array([1.        , 1.26606588])
    """
    a, dtype = floating(x)
    with np.errstate(over="ignore"):
        return (_scaled(a, 0) * np.exp(np.abs(a))).astype(dtype)


def i1(x: object) -> np.ndarray:
    """I1(x) = (x/2) Σ_k (x²/4)^k / (k! (k+1)!), elementwise (odd).

    >>> i1(np.array([0.0, 1.0]))
    array([0.       , 0.5651591])
    """
    a, dtype = floating(x)
    with np.errstate(over="ignore"):
        return _odd(_scaled(a, 1) * np.exp(np.abs(a)), a).astype(dtype)
