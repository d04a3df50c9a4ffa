"""Factories (tensor, zeros, ones, full, arange, eye, randn, rand, ...) and the random seed.

Layer L4: imports tensor.py and dtypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from ._utils import shape_args
from .tensor import Tensor

_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seed tapegrad's random generator (randn, rand, layer initialisation)."""
    global _rng
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"manual_seed expects an int, got {type(seed).__name__} {seed!r}")
    _rng = np.random.default_rng(int(seed))


def generator() -> np.random.Generator:
    """The generator behind randn/rand and nn initialisation."""
    return _rng


def _sizes(args: Any) -> tuple:
    """A factory's shape: varargs or a tuple, every size a non-negative int."""
    shape = shape_args(args)
    if any(n < 0 for n in shape):
        raise ValueError(f"shape {shape} has a negative size; every size must be 0 or more")
    return shape


def _finish(arr: np.ndarray, dtype: Any, requires_grad: bool, default: Any = _dt.float32) -> Tensor:
    dtype = _dt.as_dtype(dtype) if dtype is not None else default
    return Tensor(arr.astype(dtype, copy=False), requires_grad=requires_grad)


def tensor(
    data: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
) -> Tensor:
    """A new tensor from data (floats default to float32; ints stay int). `tg.tensor([1., 2.])`"""
    return Tensor(data, dtype=dtype, requires_grad=requires_grad, name=name)


def zeros(*shape: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """`tg.zeros(2, 3)` or `tg.zeros((2, 3))`."""
    return _finish(np.zeros(_sizes(shape)), dtype, requires_grad)


def ones(*shape: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """`tg.ones(2, 3)`."""
    return _finish(np.ones(_sizes(shape)), dtype, requires_grad)


def full(shape: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """`tg.full((2, 3), 7.0)`."""
    default = (
        _dt.float32
        if isinstance(fill_value, float)
        or dtype is None
        and not isinstance(fill_value, (bool, int, np.integer))
        else (_dt.bool_ if isinstance(fill_value, bool) else _dt.int64)
    )
    return _finish(np.full(_sizes((shape,)), fill_value), dtype, requires_grad, default)


def zeros_like(t: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    t = t if isinstance(t, Tensor) else Tensor(t)
    return _finish(np.zeros(t.shape), dtype if dtype is not None else t.dtype, requires_grad)


def ones_like(t: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    t = t if isinstance(t, Tensor) else Tensor(t)
    return _finish(np.ones(t.shape), dtype if dtype is not None else t.dtype, requires_grad)


def full_like(t: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    t = t if isinstance(t, Tensor) else Tensor(t)
    return _finish(
        np.full(t.shape, fill_value), dtype if dtype is not None else t.dtype, requires_grad
    )


def arange(
    start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """`tg.arange(5)` -> int64 0..4; float bounds give float32."""
    if step == 0:
        raise ValueError("arange step must be nonzero (as PyTorch); e.g. tg.arange(0, 5, 1)")
    arr = np.arange(start, stop, step) if stop is not None else np.arange(start)
    default = _dt.float32 if arr.dtype.kind == "f" else _dt.int64
    return _finish(arr, dtype, requires_grad, default)


def linspace(
    start: float, stop: float, num: int = 50, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """`num` evenly spaced values from start to stop (both included)."""
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 0:
        raise ValueError(f"linspace needs a number of steps >= 0, got {num!r}")
    return _finish(np.linspace(start, stop, num), dtype, requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """The n x m identity (m defaults to n)."""
    for name, size in (("n", n), ("m", m)):
        if size is not None and (
            isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0
        ):
            raise ValueError(f"eye needs sizes >= 0 (ints), got {name}={size!r}")
    return _finish(np.eye(n, m), dtype, requires_grad)


def _float_dtype(dtype: Any, fn: str) -> Any:
    if dtype is not None and not _dt.is_floating(_dt.as_dtype(dtype)):
        raise TypeError(
            f"{fn} samples real numbers: dtype must be a float dtype (tg.float32, ...), "
            f"got {_dt.as_dtype(dtype)}; use tg.randint for integers"
        )
    return dtype


def randn(*shape: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples from tapegrad's generator (see manual_seed)."""
    dtype = _float_dtype(dtype, "randn")
    return _finish(_rng.standard_normal(_sizes(shape)), dtype, requires_grad)


def rand(*shape: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Uniform [0, 1) samples from tapegrad's generator."""
    dtype = _float_dtype(dtype, "rand")
    return _finish(_rng.random(_sizes(shape)), dtype, requires_grad)


def randint(low: int, high: int, size: Any, dtype: Any = None) -> Tensor:
    return _finish(_rng.integers(low, high, size=_sizes((size,))), dtype, False, _dt.int64)
