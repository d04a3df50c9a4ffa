"""`tg.signal.windows`: torch.signal.windows' window functions (bartlett, blackman, cosine,
exponential, gaussian, general_cosine, general_hamming, hamming, hann, kaiser, nuttall), with its
signature: the length M, then keywords (sym=True: a symmetric window; sym=False: periodic), dtype
float32 or float64 (the default float dtype when none is asked), PyTorch's ValueErrors for a
negative length, another dtype or layout, and a parameter out of its range.

The formulas are tapegrad/windows.py's (evaluated in float64). Layer L4.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .. import dtypes as _dt
from ..creation import DTypeLike
from ..devices import DeviceLike, check_placement, layout as Layout, strided
from ..tensor import Tensor
from .. import windows as W

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine"]
__all__ += ["general_hamming", "hamming", "hann", "kaiser", "nuttall"]

NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)


def _make(
    who: str,
    M: Any,
    sym: bool,
    values: Callable[[np.ndarray, int], np.ndarray],
    dtype: DTypeLike,
    layout: Layout | None,
    device: DeviceLike,
    requires_grad: bool,
) -> Tensor:
    """The checks torch.signal.windows makes (ValueErrors), then the window."""
    length = W.window_length(M, who, "M", ValueError)
    if layout is not None and layout is not strided:
        raise ValueError(f"{who} is implemented for strided tensors only, got: {layout!r}")
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    if kind not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(
            f"{who} expects float32 or float64 dtypes, got: {kind} (pass dtype=tg.float32 or "
            f"tg.float64)"
        )
    check_placement(who, device)
    return W.window(length, sym, values, kind, requires_grad)


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The triangular window 1 - |2n/(M-1) - 1| (sym=False: periodic, as of length M + 1).

    >>> tg.signal.windows.bartlett(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _make("bartlett", M, sym, W.bartlett_values, dtype, layout, device, requires_grad)


def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window 0.42 - 0.5 cos(2πn/(M-1)) + 0.08 cos(4πn/(M-1)).

    >>> tg.signal.windows.blackman(3, dtype=tg.float64)
    tensor([-1.3878e-17,  1.0000e+00, -1.3878e-17], dtype=float64)
    """
    values = _cosine_sum(W.BLACKMAN)
    return _make("blackman", M, sym, values, dtype, layout, device, requires_grad)


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The cosine (sine) window sin(π(n + 1/2)/M).

    >>> tg.signal.windows.cosine(3)
    tensor([0.5000, 1.0000, 0.5000])
    """
    return _make("cosine", M, sym, W.cosine_values, dtype, layout, device, requires_grad)


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The exponential (Poisson) window exp(-|n - center| / tau), centred unless center= (which
    only a periodic window, sym=False, takes).

    >>> tg.signal.windows.exponential(3)
    tensor([0.3679, 1.0000, 0.3679])
    """
    if not tau > 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows (pass sym=False to center it)")

    def values(n: np.ndarray, N: int) -> np.ndarray:
        return W.exponential_values(n, N, tau, center)

    return _make("exponential", M, sym, values, dtype, layout, device, requires_grad)


def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Gaussian window exp(-(n - (M-1)/2)² / (2 std²)).

    >>> tg.signal.windows.gaussian(3)
    tensor([0.6065, 1.0000, 0.6065])
    """
    if not std > 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def values(n: np.ndarray, N: int) -> np.ndarray:
        return W.gaussian_values(n, N, std)

    return _make("gaussian", M, sym, values, dtype, layout, device, requires_grad)


def _cosine_sum(a: Iterable[float]) -> Callable[[np.ndarray, int], np.ndarray]:
    coefficients = tuple(float(w) for w in a)
    return lambda n, N: W.general_cosine_values(n, N, coefficients)


def general_cosine(
    M: int,
    *,
    a: Iterable[float],
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sum of cosines Σ_k (-1)^k a_k cos(2πkn/(M-1)) (a: a list or tuple of weights).

    >>> tg.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])
    """
    if not isinstance(a, (list, tuple)):
        raise TypeError(f"Coefficients must be a list/tuple, got {type(a).__name__}")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return _make("general_cosine", M, sym, _cosine_sum(a), dtype, layout, device, requires_grad)


def general_hamming(
    M: int,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalised Hamming window alpha - (1 - alpha) cos(2πn/(M-1)).

    >>> tg.signal.windows.general_hamming(3, alpha=0.5)
    tensor([0., 1., 0.])
    """
    values = _cosine_sum((alpha, 1.0 - alpha))
    return _make("general_cosine", M, sym, values, dtype, layout, device, requires_grad)


def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window 0.54 - 0.46 cos(2πn/(M-1)).

    >>> tg.signal.windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])
    """
    values = _cosine_sum((0.54, 0.46))
    return _make("general_cosine", M, sym, values, dtype, layout, device, requires_grad)


def hann(
    M: int,
    *,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window 0.5 - 0.5 cos(2πn/(M-1)).

    >>> tg.signal.windows.hann(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    values = _cosine_sum((0.5, 0.5))
    return _make("general_cosine", M, sym, values, dtype, layout, device, requires_grad)


def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window I0(β sqrt(1 - (2n/(M-1) - 1)²)) / I0(β), β >= 0.

    >>> tg.signal.windows.kaiser(3, beta=2.0)
    tensor([0.4387, 1.0000, 0.4387])
    """
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def values(n: np.ndarray, N: int) -> np.ndarray:
        return W.kaiser_values(n, N, beta)

    return _make("kaiser", M, sym, values, dtype, layout, device, requires_grad)


def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype: DTypeLike = None,
    layout: Layout | None = strided,
    device: DeviceLike = None,
    requires_grad: bool = False,
) -> Tensor:
    """Nuttall's four-term window (minimum 4-term Blackman-Harris), a sum of cosines.

    >>> tg.signal.windows.nuttall(3)
    tensor([3.6280e-04, 1.0000e+00, 3.6280e-04])
    """
    values = _cosine_sum(NUTTALL)
    return _make("general_cosine", M, sym, values, dtype, layout, device, requires_grad)
