"""Window functions, PyTorch's factories: tg.bartlett_window, blackman_window, hamming_window,
hann_window, kaiser_window (torch's spellings: window_length, periodic=True, and the window's
parameters), and the formulas tg.signal.windows builds on (one per shape of window).

Every window is evaluated at n = 0 .. M-1 as the symmetric window of length N: N = M for a
symmetric window, N = M + 1 for a periodic one (the symmetric window one longer, its last value
dropped: what a DFT of length M repeats without a seam). Arithmetic in float64, the result in the
asked floating dtype (the default float dtype when none is asked); a window of length 1 is [1],
of length 0 empty, as PyTorch's. The result is a leaf (requires_grad= as asked).

Layer L4: numpy, dtypes, devices, the Tensor class and the I0 numerics of primitives.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence

import numpy as np

from . import dtypes as _dt
from .creation import DTypeLike
from .devices import DeviceLike, check_placement, layout as Layout, strided
from .primitives.bessel_functions import i0e
from .tensor import Tensor

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]

BLACKMAN = (0.42, 0.5, 0.08)  # a_k of Σ (-1)^k a_k cos(2πkn/(N-1))


# ---- the shapes: each the window's values at n (float64) for the symmetric length N > 1


def general_cosine_values(n: np.ndarray, N: int, a: Sequence[float]) -> np.ndarray:
    """Σ_k (-1)^k a_k cos(2πkn/(N-1)) (hann, hamming, blackman, nuttall are such sums)."""
    phase = 2.0 * math.pi * n / (N - 1)
    out = np.zeros_like(n)
    for k, weight in enumerate(a):
        out = out + (-1.0) ** k * float(weight) * np.cos(k * phase)
    return out


def bartlett_values(n: np.ndarray, N: int) -> np.ndarray:
    """The triangle 1 - |2n/(N-1) - 1|."""
    return 1.0 - np.abs(2.0 * n / (N - 1) - 1.0)


def kaiser_values(n: np.ndarray, N: int, beta: float) -> np.ndarray:
    """I0(β sqrt(1 - (2n/(N-1) - 1)²)) / I0(β), as a ratio of exp-scaled I0 (finite for any β)."""
    b = abs(float(beta))
    x = 2.0 * n / (N - 1) - 1.0
    s = np.sqrt(np.maximum(1.0 - x * x, 0.0))
    with np.errstate(under="ignore"):
        return i0e(b * s) / i0e(np.float64(b)) * np.exp(b * (s - 1.0))


def gaussian_values(n: np.ndarray, N: int, std: float) -> np.ndarray:
    """exp(-(n - (N-1)/2)² / (2 std²))."""
    return np.exp(-0.5 * ((n - (N - 1) / 2.0) / std) ** 2)


def exponential_values(n: np.ndarray, N: int, tau: float, center: float | None) -> np.ndarray:
    """exp(-|n - center| / tau), the centre (N-1)/2 unless given."""
    middle = (N - 1) / 2.0 if center is None else float(center)
    return np.exp(-np.abs(n - middle) / tau)


def cosine_values(n: np.ndarray, N: int) -> np.ndarray:
    """sin(π(n + 1/2)/N): the half period of a sine."""
    return np.sin(math.pi * (n + 0.5) / N)


# ---- the window as a tensor


def window(
    M: int,
    symmetric: bool,
    values: Callable[[np.ndarray, int], np.ndarray],
    dtype: np.dtype,
    requires_grad: bool,
) -> Tensor:
    """The window of length M (symmetric, or periodic: one longer, its last value dropped)."""
    if M <= 1:
        out = np.ones(M)
    else:
        out = values(np.arange(M, dtype=np.float64), M if symmetric else M + 1)
    return Tensor(out.astype(dtype), requires_grad=requires_grad)


def window_length(value: Any, who: str, name: str, negative: type[Exception]) -> int:
    """A window's length as an int, refused (as `negative`) below 0."""
    try:
        if isinstance(value, (float, np.floating)):
            raise TypeError
        M = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{who}(): argument '{name}' (position 1) must be int, not {type(value).__name__}"
        ) from None
    if M < 0:
        raise negative(f"{who} requires non-negative window_length, got {name}={M}")
    return M


def _factory_dtype(dtype: DTypeLike, who: str) -> np.dtype:
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    if kind.kind != "f":
        raise RuntimeError(
            f"{who} expects floating point dtypes, got {kind}: pass dtype=tg.float32 or "
            f"tg.float64 (or leave it out)"
        )
    return kind


def _start(
    who: str, length: Any, dtype: DTypeLike, layout: Layout | None, device: DeviceLike
) -> tuple[int, np.dtype]:
    if isinstance(length, bool):
        raise TypeError(f"{who}(): argument 'window_length' (position 1) must be int, not bool")
    M = window_length(length, who, "window_length", RuntimeError)
    check_placement(who, device, layout)
    return M, _factory_dtype(dtype, who)


def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The triangular (Bartlett) window 1 - |2n/(N-1) - 1|; periodic: N = window_length + 1.

    >>> tg.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    M, kind = _start("bartlett_window", window_length, dtype, layout, device)
    return window(M, not periodic, bartlett_values, kind, requires_grad)


def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window 0.42 - 0.5 cos(2πn/(N-1)) + 0.08 cos(4πn/(N-1)).

    >>> tg.blackman_window(3, periodic=False, dtype=tg.float64)
    tensor([-1.3878e-17,  1.0000e+00, -1.3878e-17], dtype=float64)
    """
    M, kind = _start("blackman_window", window_length, dtype, layout, device)
    return window(M, not periodic, lambda n, N: general_cosine_values(n, N, BLACKMAN), kind,
                  requires_grad)  # fmt: skip


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalised Hamming window alpha - beta cos(2πn/(N-1)).

    >>> tg.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    M, kind = _start("hamming_window", window_length, dtype, layout, device)
    a = (float(alpha), float(beta))
    return window(M, not periodic, lambda n, N: general_cosine_values(n, N, a), kind, requires_grad)


def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window 0.5 - 0.5 cos(2πn/(N-1)) (sin² of πn/(N-1)).

    >>> tg.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    M, kind = _start("hann_window", window_length, dtype, layout, device)
    a = (0.5, 0.5)
    return window(M, not periodic, lambda n, N: general_cosine_values(n, N, a), kind, requires_grad)


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window I0(β sqrt(1 - (2n/(N-1) - 1)²)) / I0(β).

    >>> tg.kaiser_window(3, periodic=False, beta=2.0)
    tensor([0.4387, 1.0000, 0.4387])
    """
    M, kind = _start("kaiser_window", window_length, dtype, layout, device)
    return window(M, not periodic, lambda n, N: kaiser_values(n, N, beta), kind, requires_grad)
