"""erf(x) for NumPy arrays, vectorised and accurate to float64 round-off (NumPy has no erf).

Layer L0: NumPy and the standard library only. The method is a table of Taylor expansions: x is
expanded around the nearest centre c = k / 256 (-6 <= c <= 6), h = x - c, |h| <= 1/512:

    erf(c + h) = erf(c) + sum_{n=1..d} erf^(n)(c) / n! * h^n

whose derivatives are exact: erf^(n+1)(c) = 2/sqrt(pi) * (-1)^n * H_n(c) * exp(-c^2), H_n the
(physicists') Hermite polynomials. erf(c) is the standard library's value. The degree d is 5 for
float64 results (the first term left out is below 1e-18 of erf(x): the result is within an ulp) and
3 for float32 and float16 results (below 5e-12: within 0.5002 ulp, the correctly rounded value but
within 5e-12 of a tie). The arithmetic is float64 throughout.
"""

from __future__ import annotations

import math

import numpy as np

STEPS_PER_UNIT = 256  # centres k / 256: binary fractions, so h = x - c is exact
CUTOFF = 6.0  # past it 1 - erf(x) < 2e-17, below half an ulp of 1.0: erf(x) rounds to +-1
DEGREE, DEGREE_SINGLE = 5, 3  # for float64 results; for float32 and float16 results
BLOCK = 16384  # elements per block (why blocks: see `erf`)

# t = x + _ROUNDER (1.5 * 2**44 for 256 steps) has exactly 8 bits after the binary point, so it
# rounds x to the nearest centre (c = t - _ROUNDER), and t's bit pattern counts centres
# (bits(t) = bits(_ROUNDER) + 256 c). Cheaper than rint and a cast to int, and it gives c = +0.0
# at x = -0.0, so h = x - c keeps the sign of zero (rint(-0.0) is -0.0 and h would be +0.0).
_ROUNDER = 1.5 * 2.0**52 / STEPS_PER_UNIT
_ROUNDER_BITS = int(np.array(_ROUNDER).view(np.int64))
_LAST = int(CUTOFF * STEPS_PER_UNIT)  # centres are columns 0 .. 2 * _LAST, c = 0 is column _LAST


def _taylor_table(degree: int) -> np.ndarray:
    """Row n, column k: the coefficient of h^n around c = (k - _LAST) / 256 (row 0: erf(c)).

    Built for c >= 0 and mirrored (erf is odd: the coefficient of h^n at -c is (-1)^(n+1) times
    that at c), so erf(-x) = -erf(x) holds exactly.
    """
    c = np.arange(_LAST + 1, dtype=np.float64) / STEPS_PER_UNIT
    half = np.empty((degree + 1, c.size))
    half[0] = [math.erf(v) for v in c]
    half[0, 0] = -0.0  # IEEE's additive identity: erf(-0.0) = -0.0 + -0.0 stays -0.0
    scale = 2.0 / math.sqrt(math.pi) * np.exp(-c * c)  # c * c is exact, so exp is within an ulp
    h_prev, h_n = np.zeros_like(c), np.ones_like(c)
    for n in range(degree):  # row n + 1: erf^(n+1)(c) / (n+1)!
        half[n + 1] = scale * (-1.0) ** n * h_n / math.factorial(n + 1)
        h_prev, h_n = h_n, 2.0 * c * h_n - 2.0 * n * h_prev
    parity = -((-1.0) ** np.arange(degree + 1))[:, None]
    return np.concatenate([half[:, :0:-1] * parity, half], axis=1)


_TABLES = {d: _taylor_table(d) for d in (DEGREE, DEGREE_SINGLE)}


def erf(x: np.ndarray | float) -> np.ndarray:
    """The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise.

    Floating input keeps its dtype (computed in float64); integer and bool input gives float64.
    erf(+-inf) = +-1, erf(nan) = nan, erf(-0.0) = -0.0.

    >>> erf(np.array([0.0, 0.5, -np.inf]))
    array([ 0.        ,  0.52049988, -1.        ])
    """
    x = np.asarray(x)
    if x.dtype.kind not in "fiub":
        raise TypeError(f"erf: expected real numbers (floating, integer or bool), got {x.dtype}")
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    table = _TABLES[DEGREE if dtype.itemsize >= 8 else DEGREE_SINGLE]
    out = np.empty(x.shape, dtype)
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    # Blocks of BLOCK elements: the scratch arrays are allocated once and stay in the CPU cache (a
    # fresh multi-megabyte temporary per step costs more in page faults than the arithmetic on it)
    size = min(BLOCK, flat_x.size)
    h, t, acc = np.empty(size), np.empty(size), np.empty(size)
    column = np.empty(size, np.int64)
    coef = np.empty((table.shape[0], size))
    with np.errstate(invalid="ignore"):  # (a signalling NaN sets the flag; its erf is NaN anyway)
        for start in range(0, flat_x.size, BLOCK):
            stop = min(start + BLOCK, flat_x.size)
            if stop - start < size:  # the last, shorter block
                last = stop - start
                h, t, acc, column = h[:last], t[:last], acc[:last], column[:last]
                coef = coef[:, :last]
            _erf_block(flat_x[start:stop], flat_out[start:stop], table, h, t, acc, column, coef)
    return out


def _erf_block(
    x: np.ndarray,
    out: np.ndarray,
    table: np.ndarray,
    h: np.ndarray,
    t: np.ndarray,
    acc: np.ndarray,
    column: np.ndarray,
    coef: np.ndarray,
) -> None:
    """out = erf(x) for one block; h, t, acc, column and coef are scratch of x's length."""
    np.clip(x, -CUTOFF, CUTOFF, out=h)  # erf(+-inf) = erf(+-6) = +-1; nan stays nan
    np.add(h, _ROUNDER, out=t)
    np.subtract(t.view(np.int64), _ROUNDER_BITS - _LAST, out=column)  # 256 c + _LAST
    np.subtract(t, _ROUNDER, out=acc)  # c
    np.subtract(h, acc, out=h)  # h = x - c
    # coef[n] = the coefficients of h^n at each element's centre, one gather for all n;
    # mode="clip" skips the bounds check (columns are in range, nan's garbage column is clipped and
    # its h is nan, so the result is nan)
    np.take(table, column, axis=1, mode="clip", out=coef)
    degree = table.shape[0] - 1
    np.multiply(coef[degree], h, out=acc)  # Horner in h
    for n in range(degree - 1, 0, -1):
        acc += coef[n]
        acc *= h
    np.add(acc, coef[0], out=out)  # (cast to the result's dtype as it is stored)
