"""erf(x) for NumPy arrays, vectorised and accurate to float64 round-off (NumPy has no erf).

Layer L0: NumPy and the standard library only. The method is a Taylor series around the grid point
c just below |x| (a table), whose coefficients are exact derivatives of erf (Hermite polynomials).
"""

from __future__ import annotations

import math

import numpy as np

# Centres c = j / _STEPS_PER_UNIT for j = 0 .. _LAST; |x| is expanded around the centre just below
# it (0 <= h < 1/256), so |erf(x)| >= erf(c) and the rounding of erf(c) costs at most half an ulp of
# the result. Past _CUTOFF, 1 - erf(x) < 2e-17 is below half an ulp of 1.0: erf(x) rounds to 1.
_STEPS_PER_UNIT = 256
_CUTOFF = 6.0
_LAST = int(_CUTOFF * _STEPS_PER_UNIT)
_TERMS = 7  # the first term left out is < 1e-20 of the result for h < 1/256
_TERMS_SINGLE = 4  # float32 and float16 results: correctly rounded with 4 (tested on a dense grid)


def _taylor_table() -> tuple[np.ndarray, np.ndarray]:
    """erf at the centres, and coef[k, j], the coefficient of h**(k + 1) around centre j.

    The derivatives of erf are erf^(k+1)(c) = 2/sqrt(pi) * (-1)^k * H_k(c) * exp(-c^2), where H_k is
    the (physicists') Hermite polynomial: H_0 = 1, H_1 = 2c, H_(k+1) = 2c H_k - 2k H_(k-1).
    """
    c = np.arange(_LAST + 1, dtype=np.float64) / _STEPS_PER_UNIT  # exact binary fractions
    values = np.array([math.erf(v) for v in c])  # the libm value at each centre
    scale = 2.0 / math.sqrt(math.pi) * np.exp(-c * c)  # c * c is exact, so exp is within an ulp
    coef = np.empty((_TERMS, c.size))
    h_prev, h_k = np.zeros_like(c), np.ones_like(c)
    for k in range(_TERMS):
        coef[k] = scale * (-1.0) ** k * h_k / math.factorial(k + 1)
        h_prev, h_k = h_k, 2.0 * c * h_k - 2.0 * k * h_prev
    return values, coef


_VALUES, _COEF = _taylor_table()


def erf(x: np.ndarray) -> np.ndarray:
    """The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise.

    float32 (and float16) input stays in its dtype (computed in float64); other input gives
    float64. erf(+-inf) = +-1, erf(nan) = nan, erf(-0.0) = -0.0.

    >>> erf(np.array([0.0, 0.5, -np.inf]))
    array([ 0.        ,  0.52049988, -1.        ])
    """
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    x64 = x.astype(np.float64, copy=False)
    ax = np.abs(x64)
    # past the cutoff (and at inf) erf is 1: the last centre, h = 0. fmin sends nan to a valid
    # centre too, while minimum keeps it in h, so the result is nan
    j = (np.fmin(ax, _CUTOFF) * _STEPS_PER_UNIT).astype(np.intp)
    h = np.minimum(ax, _CUTOFF) - j / _STEPS_PER_UNIT  # exact: c is a binary fraction just below
    terms = _TERMS if dtype.itemsize >= 8 else _TERMS_SINGLE  # (fewer: a third faster)
    acc = np.take(_COEF[terms - 1], j)
    for k in range(terms - 2, -1, -1):  # Horner in h
        acc *= h
        acc += np.take(_COEF[k], j)
    acc *= h
    acc += np.take(_VALUES, j)
    return np.copysign(acc, x64).astype(dtype, copy=False)  # erf is odd (erf(-0.0) = -0.0)
