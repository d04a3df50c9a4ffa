"""The interpolation matrices of F.interpolate, one per resized axis: row i holds output position
i's weights over the input's positions, as PyTorch's CPU kernels compute them (its source
coordinates, clamped borders, float32 arithmetic where PyTorch's is, and its antialiasing
filters). Every mode is separable, so a resize is one matrix product per axis.

Layer L5 helpers on NumPy arrays only (functional_resampling applies them).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

__all__: list[str] = []

CUBIC_A = -0.75  # (PyTorch's cubic convolution; its antialiased bicubic uses -0.5, as PIL's)


def _scales_value(scale: float | None, n: int, out: int, dtype: Any) -> Any:
    """PyTorch's compute_scales_value: 1 / scale_factor when given, else n / out (in `dtype`)."""
    if scale is not None and scale > 0:
        return dtype(1.0 / scale)
    return dtype(n) / dtype(out)


def _area_scale(n: int, out: int, align: bool, scale: float | None, dtype: Any) -> Any:
    """PyTorch's area_pixel_compute_scale: the source step per output position."""
    if align:
        return dtype(n - 1) / dtype(out - 1) if out > 1 else dtype(0)
    return _scales_value(scale, n, out, dtype)


def _source(step: Any, out: int, align: bool, cubic: bool, dtype: Any) -> np.ndarray:
    """PyTorch's area_pixel_compute_source_index for every output position."""
    dst = np.arange(out).astype(dtype)
    if align:
        return step * dst
    src = step * (dst + dtype(0.5)) - dtype(0.5)
    return src if cubic else np.maximum(src, dtype(0))


def nearest(n: int, out: int, scale: float | None, exact: bool, shortcut: bool) -> np.ndarray:
    """(out, n): 'nearest' (floor(i * step)) or 'nearest-exact' (floor((i + 0.5) * step)), in
    float32 as PyTorch's kernels compute them; `shortcut`: PyTorch's 2-D 'nearest' copies when
    the sizes agree and halves the index when out = 2 n, whatever scale_factor says.

    >>> nearest(2, 4, None, False, False).argmax(1)
    array([0, 0, 1, 1])
    """
    dst = np.arange(out)
    if shortcut and not exact and out in (n, 2 * n):
        m = np.zeros((out, n))
        m[dst, dst >> (out != n)] = 1.0
        return m
    step = _scales_value(scale, n, out, np.float32)
    where = (dst + 0.5) * np.float64(step) if exact else dst.astype(np.float32) * step
    src = np.minimum(np.floor(where.astype(np.float32)).astype(np.int64), n - 1)
    m = np.zeros((out, n))
    m[dst, src] = 1.0
    return m


def linear(n: int, out: int, scale: float | None, align: bool, dtype: Any) -> np.ndarray:
    """(out, n): two neighbours weighed by the distance to the source coordinate (PyTorch's
    compute_source_index_and_lambda; the identity when the sizes agree).

    >>> linear(2, 4, None, False, np.float64)[1]
    array([0.75, 0.25])
    """
    if out == n:
        return np.eye(n)
    step = _area_scale(n, out, align, scale, dtype)
    src = _source(step, out, align, False, dtype)
    low = np.minimum(np.floor(src).astype(np.int64), n - 1)
    frac = np.clip(src - low.astype(dtype), 0, 1)
    high = np.minimum(low + 1, n - 1)
    m = np.zeros((out, n))
    rows = np.arange(out)
    np.add.at(m, (rows, low), dtype(1) - frac)
    np.add.at(m, (rows, high), frac)
    return m


def _cubic1(x: Any, a: float) -> Any:
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x: Any, a: float) -> Any:
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic(n: int, out: int, scale: float | None, align: bool, dtype: Any) -> np.ndarray:
    """(out, n): Keys' cubic convolution (A = -0.75) over four neighbours, the taps past a border
    clamped to it (PyTorch's upsample_bicubic2d).

    >>> cubic(2, 4, None, True, np.float64).sum(1)
    array([1., 1., 1., 1.])
    """
    step = _area_scale(n, out, align, scale, dtype)
    src = _source(step, out, align, True, dtype)
    low = np.minimum(np.floor(src).astype(np.int64), n - 1)
    t = np.clip(src - low.astype(dtype), 0, 1).astype(dtype)
    one = dtype(1)
    taps = [_cubic2(t + one, CUBIC_A), _cubic1(t, CUBIC_A)]
    taps += [_cubic1(one - t, CUBIC_A), _cubic2(dtype(2) - t, CUBIC_A)]
    m = np.zeros((out, n))
    rows = np.arange(out)
    for k, w in enumerate(taps):
        np.add.at(m, (rows, np.clip(low + k - 1, 0, n - 1)), w)
    return m


def _triangle(x: np.ndarray) -> np.ndarray:
    return np.maximum(1 - np.abs(x), 0)


def _keys(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, _cubic1(x, -0.5), np.where(x < 2, _cubic2(x, -0.5), 0))


def _lanczos(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0)


FILTERS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], int]] = {
    "bilinear": (_triangle, 2),
    "bicubic": (_keys, 4),
    "lanczos": (_lanczos, 6),
}


def antialiased(
    n: int, out: int, scale: float | None, align: bool, mode: str, dtype: Any
) -> np.ndarray:
    """(out, n): PyTorch's antialiasing (PIL's): on downscaling the filter stretched by the
    scale, so each output averages every input it covers; the weights of a row normalised to 1.

    >>> antialiased(4, 2, None, False, "bilinear", np.float64)
    array([[0.42857143, 0.42857143, 0.14285714, 0.        ],
           [0.        , 0.14285714, 0.42857143, 0.42857143]])
    """
    filter_fn, size = FILTERS[mode]
    step = float(_area_scale(n, out, align, scale, dtype))
    support = size * 0.5 * step if step >= 1.0 else size * 0.5
    invscale = 1.0 / step if step >= 1.0 else 1.0
    m = np.zeros((out, n))
    width = int(math.ceil(support)) * 2 + 1
    for i in range(out):
        center = step * (i + 0.5)
        xmin = max(int(center - support + 0.5), 0)
        xsize = max(min(min(int(center + support + 0.5), n) - xmin, width), 0)
        j = np.arange(xsize)
        w = filter_fn((j + xmin - center + 0.5) * invscale).astype(dtype)
        total = w.sum()
        m[i, xmin : xmin + xsize] = w / total if total != 0 else w
    return m
