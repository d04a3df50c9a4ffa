"""The gamma family's numerics on NumPy arrays: lgamma, digamma, the Hurwitz zeta function,
polygamma and the regularized incomplete gamma functions P and Q (NumPy has none of them).

Layer L1 by place, L0 by content: numpy and the standard library only; special_functions.py makes
primitives of them. Each takes real arrays (integers and bools as float64) and returns the input's
floating dtype, computing in float64. The values at poles and edges are PyTorch's: lgamma is +inf
at 0 and the negative integers, digamma(+-0) is -+inf and NaN at the negative integers, zeta(s, q)
is +inf at s = 1 and at q a non-positive integer, NaN for s < 1.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

EPS = np.finfo(np.float64).eps / 2  # the unit round-off, where a series stops adding terms

# ψ(x) ~ log x - 1/(2x) - Σ B_2k / (2k x^2k): B_2k / 2k for k = 1..7, the last term first
_DIGAMMA_ASYMPTOTIC = (1 / 12, -691 / 32760, 1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12)
# Euler-Maclaurin's tail of ζ(s, q): (2k)! / B_2k for k = 1..12 (Cephes' table)
_ZETA_TAIL = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)


def floating(x: object) -> tuple[np.ndarray, np.dtype]:
    """x as a float64 array, and the dtype of the result (x's if floating, else float64)."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiub":
        raise TypeError(f"expected real numbers (floating, integer or bool), got {a.dtype}")
    dtype = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    return a.astype(np.float64), dtype


def lgamma(x: object) -> np.ndarray:
    """log |Γ(x)|, elementwise; +inf at the poles (0 and the negative integers).

    The C library's lgamma (the standard library's math.lgamma, which PyTorch calls too) per
    element: near its roots 1 and 2 a vectorised series would lose the relative digits there.

    >>> lgamma(np.array([1.0, 0.5, 0.0]))
    array([0.        , 0.57236494,        inf])
    """
    a, dtype = floating(x)
    out = np.full(a.shape, np.inf)
    regular = ~((a <= 0) & (a == np.floor(a)))
    out[regular] = np.frompyfunc(math.lgamma, 1, 1)(a[regular]).astype(np.float64)
    return out.astype(dtype)


def digamma(x: object) -> np.ndarray:
    """ψ(x) = Γ'(x) / Γ(x), elementwise: reflection below 0, the recurrence ψ(x) = ψ(x + 1) - 1/x
    up to x >= 10, then the asymptotic series.

    >>> digamma(np.array([1.0, 0.0, -1.0]))
    array([-0.57721566,        -inf,         nan])
    """
    a, dtype = floating(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        negative = a < 0
        # ψ(x) = ψ(1 - x) - π / tan(π x), tan taken of x's fraction (exact) to keep its digits
        fraction = a - np.trunc(a)
        reflection = np.where(negative, -math.pi / np.tan(math.pi * fraction), 0.0)
        z = np.where(negative, 1.0 - a, a)
        shift = np.zeros_like(z)
        for _ in range(10):
            small = z < 10
            shift -= np.where(small, 1.0 / z, 0.0)
            z = np.where(small, z + 1.0, z)
        y = 1.0 / (z * z)
        series = np.zeros_like(z)
        for c in _DIGAMMA_ASYMPTOTIC:
            series = series * y + c
        out = shift + np.log(z) - 0.5 / z - series * y + reflection
    out = np.where(negative & (a == np.trunc(a)), np.nan, out)  # the poles below 0
    out = np.where(a == 0, np.copysign(np.inf, -a), out)  # ψ(+-0) = -+inf, PyTorch's
    return out.astype(dtype)


def zeta(s: object, q: object) -> np.ndarray:
    """The Hurwitz zeta function ζ(s, q) = Σ_{k>=0} (k + q)^-s, elementwise (s > 1): the first
    terms summed until q + k > 9, then Euler-Maclaurin's tail.

    >>> zeta(np.array([2.0]), np.array([1.0]))  # π² / 6
    array([1.64493407])
    """
    (s64, dtype_s), (q64, dtype_q) = floating(s), floating(q)
    dtype = np.result_type(dtype_s, dtype_q)
    s64, q64 = np.broadcast_arrays(s64, q64)
    out = np.full(s64.shape, np.nan)
    pole = (s64 == 1) | ((q64 <= 0) & (q64 == np.floor(q64)) & (s64 > 1))
    # q^-s has no real value for q < 0 and s not an integer
    regular = (s64 > 1) & ~pole & ((q64 > 0) | (s64 == np.floor(s64)))
    out[pole] = np.inf
    out[regular] = _zeta_sum(s64[regular], q64[regular])
    return out.astype(dtype)


def _zeta_sum(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """ζ(s, q) on flat arrays of valid arguments."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = q**-s
        a, b = q.copy(), np.zeros_like(q)
        done = np.zeros(q.shape, bool)
        todo, i = np.arange(q.size), 0
        while todo.size:  # the direct terms (at least 9, and until q + k > 9)
            i += 1
            a[todo] += 1.0
            b[todo] = a[todo] ** -s[todo]
            total[todo] += b[todo]
            converged = np.abs(b[todo] / total[todo]) < EPS
            done[todo[converged]] = True
            todo = todo[~converged & ((i < 9) | (a[todo] <= 9.0))]
        tail = np.flatnonzero(~done)
        w, st, bt = a[tail], s[tail], b[tail]
        sums = total[tail] + bt * w / (st - 1.0) - 0.5 * bt
        factor, k = np.ones_like(w), 0.0
        adding = np.ones(w.shape, bool)
        for coefficient in _ZETA_TAIL:
            factor *= st + k
            bt = bt / w
            term = factor * bt / coefficient
            sums = np.where(adding, sums + term, sums)
            adding &= ~(np.abs(term / sums) < EPS)
            k += 1.0
            factor *= st + k
            bt = bt / w
            k += 1.0
        total[tail] = sums
    return total


def polygamma(n: int, x: object) -> np.ndarray:
    """The n-th derivative of ψ, elementwise: ψ itself for n = 0, else
    (-1)^(n+1) n! ζ(n + 1, x).

    >>> polygamma(1, np.array([1.0]))  # π² / 6
    array([1.64493407])
    """
    if n == 0:
        return digamma(x)
    a, dtype = floating(x)
    with np.errstate(invalid="ignore", over="ignore"):  # (past the largest float: inf)
        out = (-1.0) ** (n + 1) * math.factorial(n) * zeta(float(n + 1), a)
        if n == 1:  # ψ'(+inf) = 0 and ψ'(-inf) NaN, as PyTorch's trigamma
            out = np.where(np.isinf(a), np.where(a > 0, 0.0, np.nan), out)
    return out.astype(dtype)


def gammainc(a: object, x: object, upper: bool = False) -> np.ndarray:
    """The regularized lower incomplete gamma function P(a, x) = γ(a, x) / Γ(a) (the upper one,
    Q = 1 - P, with upper=True), elementwise: Temme's uniform expansion where a is large and x
    near it, else the power series where x < a + 1 or x < 1 and the continued fraction of Q
    elsewhere, so that neither is taken as 1 minus a number near 1. PyTorch's values at the
    edges: NaN for a < 0 or x < 0 and at a = x = 0 or a = x = inf.

    >>> gammainc(np.array([1.0]), np.array([1.0]))  # 1 - exp(-1)
    array([0.63212056])
    """
    (a64, dtype_a), (x64, dtype_x) = floating(a), floating(x)
    dtype = np.result_type(dtype_a, dtype_x)
    a64, x64 = np.broadcast_arrays(a64, x64)
    p = np.full(a64.shape, np.nan)
    # PyTorch's edges, tested in its order (each decides what the ones before left open, so a
    # NaN in the other argument does not matter there): a or x negative, NaN; a = 0, 1 for x > 0;
    # x = 0, 0; a = inf, 0 unless x = inf; x = inf, 1
    open_ = ~((a64 < 0) | (x64 < 0))
    for edge, value in (
        (a64 == 0, np.where(x64 > 0, 1.0, np.nan)),
        (x64 == 0, 0.0),
        (np.isinf(a64), np.where(np.isinf(x64), np.nan, 0.0)),
        (np.isinf(x64), 1.0),
    ):
        decided = open_ & edge
        p[decided] = np.broadcast_to(value, p.shape)[decided]
        open_ &= ~edge
    regular = open_ & ~np.isnan(a64) & ~np.isnan(x64)
    with np.errstate(invalid="ignore", divide="ignore"):
        uniform = regular & (a64 > 200) & (np.abs(x64 - a64) / a64 < 4.5 / np.sqrt(a64))
    series = regular & ~uniform & ((x64 < 1) | (x64 < a64 + 1))
    fraction = regular & ~uniform & ~series
    q = np.array(1.0 - p)  # (a 0-d array stays one: assignable)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        prefactor = np.exp(a64 * np.log(x64) - x64 - lgamma(a64))  # x^a e^-x / Γ(a)
        p[series] = _lower_series(a64[series], x64[series]) * prefactor[series]
        q[series] = 1.0 - p[series]
        q[fraction] = _upper_fraction(a64[fraction], x64[fraction]) * prefactor[fraction]
        p[fraction] = 1.0 - q[fraction]
    p[uniform], q[uniform] = _uniform_expansion(a64[uniform], x64[uniform])
    return (q if upper else p).astype(dtype)


def _uniform_expansion(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P and Q for large a by Temme's uniform asymptotic expansion (DLMF 8.12): with
    η = sign(x/a - 1) sqrt(2 (x/a - 1 - log(x/a))), Q = erfc(η sqrt(a/2)) / 2 + R and
    P = erfc(-η sqrt(a/2)) / 2 - R, R = exp(-a η² / 2) / sqrt(2π a) Σ_k C_k(η) a^-k. Here the
    series and the continued fraction lose their digits: x^a e^-x / Γ(a) cancels to nothing."""
    mu = (x - a) / a  # (x - a first: exact for x near a, where x / a - 1 would lose digits)
    eta = np.sign(mu) * np.sqrt(2.0 * _mu_minus_log1p(mu))
    total = np.zeros_like(a)
    for row in _temme_coefficients()[::-1]:  # (Horner in 1 / a)
        total = total / a + np.polynomial.polynomial.polyval(eta, row)
    r = np.exp(-0.5 * a * eta * eta) / np.sqrt(2.0 * math.pi * a) * total
    erfc = np.frompyfunc(math.erfc, 1, 1)
    z = eta * np.sqrt(0.5 * a)
    p = 0.5 * erfc(-z).astype(np.float64) - r
    q = 0.5 * erfc(z).astype(np.float64) + r
    return p, q


def _mu_minus_log1p(mu: np.ndarray) -> np.ndarray:
    """μ - log(1 + μ) ≥ 0: its series Σ_{n>=2} (-μ)^n / n near 0 (where the difference would
    cancel), the difference elsewhere."""
    small = np.abs(mu) < 0.1
    t = np.where(small, mu, 0.0)
    series = np.zeros_like(t)
    for n in range(24, 1, -1):  # (0.1^24 / 24: below the unit round-off of μ²/2)
        series = series * -t + 1.0 / n
    with np.errstate(invalid="ignore", divide="ignore"):
        direct = mu - np.log1p(mu)
    return np.where(small, series * t * t, direct)


@functools.cache
def _temme_coefficients(terms: int = 12, powers: int = 26) -> np.ndarray:
    """The Taylor coefficients in η of Temme's C_0..C_terms-1 (rows), worked out once in exact
    arithmetic: μ = x/a - 1 as a series in η (from μ dμ/dη = η (1 + μ)), then C_0 = 1/μ - 1/η
    and C_k = C_k-1' / η + (-1)^k γ_k / μ, γ_k the coefficients of Stirling's series of Γ."""
    length = powers + 2 * terms + 2  # (each step of the recurrence uses up two coefficients)
    m = [Fraction(0), Fraction(1)] + [Fraction(0)] * length  # μ = Σ m_n η^n
    for n in range(2, length + 2):
        products = sum(((n + 1 - i) * m[i] * m[n + 1 - i] for i in range(2, n)), Fraction(0))
        m[n] = (m[n - 1] - products) / (n + 1)
    inverse = [Fraction(1)] + [Fraction(0)] * length  # η / μ, the reciprocal of μ / η
    for n in range(1, length + 1):
        inverse[n] = -sum((m[j + 1] * inverse[n - j] for j in range(1, n + 1)), Fraction(0))
    gamma = _stirling_coefficients(terms)
    c = inverse[1:]  # C_0 = (η / μ - 1) / η
    rows = [c[:powers]]
    for k in range(1, terms):
        sign = (-1) ** k * gamma[k]  # (its 1/η term cancels C_k-1' / η's, c[1]: left out)
        c = [(n + 2) * c[n + 2] + sign * inverse[n + 1] for n in range(len(c) - 2)]
        rows.append(c[:powers])
    return np.array([[float(v) for v in row] for row in rows])


def _stirling_coefficients(terms: int) -> list[Fraction]:
    """γ_k of Γ(a) ~ sqrt(2π) a^(a - 1/2) e^-a Σ_k γ_k a^-k (1, 1/12, 1/288, ...): the exponential
    of Σ_n B_2n / (2n (2n - 1)) a^(1 - 2n), B the Bernoulli numbers."""
    bernoulli = [Fraction(1)]
    for n in range(1, terms + 1):
        earlier = sum((math.comb(n + 1, k) * bernoulli[k] for k in range(n)), Fraction(0))
        bernoulli.append(-earlier / (n + 1))
    exponent = [Fraction(0)] * terms
    for k in range(1, terms, 2):
        exponent[k] = bernoulli[k + 1] / (k * (k + 1))
    out = [Fraction(1)] + [Fraction(0)] * (terms - 1)
    for k in range(1, terms):  # (e = exp(s): k e_k = Σ_j j s_j e_k-j)
        out[k] = sum((j * exponent[j] * out[k - j] for j in range(1, k + 1)), Fraction(0)) / k
    return out


def _lower_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Σ_k x^k / ((a+1)...(a+k)) / a (P's series without its prefactor)."""
    total, term, r = np.ones_like(a), np.ones_like(a), a.copy()
    todo = np.arange(a.size)
    for _ in range(MAX_TERMS):
        if not todo.size:
            break
        r[todo] += 1.0
        term[todo] *= x[todo] / r[todo]
        total[todo] += term[todo]
        todo = todo[term[todo] > EPS * total[todo]]
    return total / a


def _upper_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q's continued fraction (Legendre's), evaluated by its convergents pk / qk (without its
    prefactor), rescaled when they grow large."""
    y, z, c = 1.0 - a, x + 2.0 - a, np.zeros_like(a)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(a), x.copy(), x + 1.0, z * x
    ans = pkm1 / qkm1
    todo = np.arange(a.size)
    for _ in range(MAX_TERMS):
        if not todo.size:
            break
        c[todo] += 1.0
        y[todo] += 1.0
        z[todo] += 2.0
        yc = y[todo] * c[todo]
        pk = pkm1[todo] * z[todo] - pkm2[todo] * yc
        qk = qkm1[todo] * z[todo] - qkm2[todo] * yc
        ratio = np.where(qk != 0, pk / np.where(qk != 0, qk, 1.0), ans[todo])
        change = np.abs((ans[todo] - ratio) / ratio)
        ans[todo] = ratio
        pkm2[todo], qkm2[todo], pkm1[todo], qkm1[todo] = pkm1[todo], qkm1[todo], pk, qk
        big = np.abs(pk) > _BIG
        for arr in (pkm2, qkm2, pkm1, qkm1):
            arr[todo[big]] /= _BIG
        todo = todo[~(change <= EPS)]
    return ans


MAX_TERMS = 2000  # (the series and the fraction converge in ~sqrt(a) + x terms; past: inaccurate)
_BIG = 2.0**52  # (the convergents are rescaled by it, exactly, to stay finite)
