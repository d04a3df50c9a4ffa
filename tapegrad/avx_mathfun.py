"""Float32 log, sine and cosine computed step by step as PyTorch's AVX2 normal sampler computes
them (Cephes polynomials in single precision, after Pommier's sse_mathfun), so that randn in
float32 gives PyTorch's bits rather than the correctly rounded libm values (they differ in the
last bit now and then).

Layer L0: numpy only. Every operation is a float32 NumPy operation in the order of the vector
code, and a multiply-add the compiler fused into one FMA instruction (found by comparing with
torch's bits) is one rounding here too (`_Fused`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_F = np.float32
_ONE, _HALF = _F(1.0), _F(0.5)
_MIN_NORM = np.array(0x00800000, np.uint32).view(np.float32)[()]
_SQRTHF = _F(0.707106781186547524)
_LOG_P = tuple(
    _F(c)
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_DP1, _DP2, _DP3 = _F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8)
_SIN_P = (_F(-1.9515295891e-4), _F(8.3321608736e-3), _F(-1.6666654611e-1))
_COS_P = (_F(2.443315711809948e-005), _F(-1.388731625493765e-003), _F(4.166664568298827e-002))
_FOPI = _F(1.27323954473516)  # 4 / pi


class _Fused:
    """float32 multiply-adds a * b + c with one rounding, in a float64 scratch buffer (the
    product of two float32 values is exact in float64; the sum then rounds twice only when it
    falls exactly on a float32 tie, vanishingly rarely)."""

    def __init__(self, like: np.ndarray) -> None:
        self.wide = np.empty(like.shape, np.float64)

    def __call__(self, a: np.ndarray, b: Any, c: Any, out: np.ndarray) -> np.ndarray:
        np.multiply(a, b, out=self.wide, dtype=np.float64)
        np.add(self.wide, c, out=self.wide)
        np.copyto(out, self.wide, casting="same_kind")
        return out


def log_ps(x: np.ndarray) -> np.ndarray:
    """Natural log of a float32 array, as PyTorch's vectorised `log256_ps` rounds it.

    >>> float(log_ps(np.array([1.0], np.float32))[0])
    0.0
    """
    x = np.asarray(x, np.float32)
    invalid = x <= 0
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 126).astype(np.float32)  # exponent + 1
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(np.float32)  # [0.5, 1)
    mask = m < _SQRTHF
    e -= mask
    x = m - _ONE  # (exact, and so is x + m below: 2m - 1 where m < sqrt(1/2))
    np.add(x, m, out=x, where=mask)
    fused = _Fused(x)
    wide_x = x.astype(np.float64)
    z = x * x
    y = np.empty_like(x)
    fused(wide_x, _LOG_P[0], _LOG_P[1], y)
    for c in _LOG_P[2:]:
        fused(y, wide_x, c, y)
    y *= x
    fused(y, z, e * _LOG_Q1, y)
    y -= z * _HALF
    y += x
    e *= _LOG_Q2
    y += e
    if invalid.any():
        y[invalid] = np.nan
    return y


def sincos_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sine and cosine of a float32 array, as PyTorch's vectorised `sincos256_ps` rounds them.

    >>> s, c = sincos_ps(np.array([0.0], np.float32)); float(s[0]), float(c[0])
    (0.0, 1.0)
    """
    x = np.asarray(x, np.float32)
    sign_sin = x.view(np.uint32) & np.uint32(0x80000000)
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j &= ~1
    y = j.astype(np.float32)
    sign_sin ^= (j & 4).astype(np.uint32) << np.uint32(29)
    sign_cos = ((~(j - 2)) & 4).astype(np.uint32) << np.uint32(29)
    sine_poly = (j & 2) != 0  # (the sine's polynomial gives the sine here)
    x += y * _DP1
    x += y * _DP2
    x += y * _DP3
    z = x * x
    fused = _Fused(x)
    wide_z = z.astype(np.float64)
    cos_part = np.empty_like(x)
    fused(wide_z, _COS_P[0], _COS_P[1], cos_part)
    fused(cos_part, wide_z, _COS_P[2], cos_part)
    cos_part *= z
    fused(cos_part, wide_z, -(z * _HALF), cos_part)
    cos_part += _ONE
    sin_part = np.empty_like(x)
    fused(wide_z, _SIN_P[0], _SIN_P[1], sin_part)
    fused(sin_part, wide_z, _SIN_P[2], sin_part)
    sin_part *= z
    fused(sin_part, x, x, sin_part)
    sine = np.where(sine_poly, cos_part, sin_part)
    cosine = np.where(sine_poly, sin_part, cos_part)
    sine.view(np.uint32)[...] ^= sign_sin
    cosine.view(np.uint32)[...] ^= sign_cos
    return sine, cosine


__all__ = ["log_ps", "sincos_ps"]
