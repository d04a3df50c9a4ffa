"""Factories (tensor, zeros, ones, full, arange, eye, randn, rand, normal, randperm, from_numpy,
...) and the random seed.

Layer L4: imports tensor.py, dtypes and tg.autograd.Function (normal's zero gradient).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dt
from ._utils import shape_args
from .autograd.function import Function
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


def randperm(n: int, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A random permutation of 0..n-1 (int64 by default), from tapegrad's generator.

    >>> sorted(tg.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"randperm needs a number of elements n >= 0 (an int), got {n!r}")
    return _finish(_rng.permutation(int(n)), dtype, requires_grad, _dt.int64)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing `ndarray`'s memory and dtype (PyTorch's from_numpy): a write through either
    is seen by both. `tg.tensor(array)` copies instead.

    >>> a = np.zeros(2); t = tg.from_numpy(a); a[0] = 5; t
    tensor([5., 0.], dtype=float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(
            f"expected np.ndarray (got {type(ndarray).__name__}); use tg.tensor(data) to make a "
            f"tensor from other data"
        )
    try:
        _dt.as_dtype(ndarray.dtype)
    except TypeError:
        raise TypeError(
            f"can't convert np.ndarray of dtype {ndarray.dtype}: tapegrad supports float16/32/64, "
            f"int8/16/32/64, uint8 and bool; convert with ndarray.astype(...) first"
        ) from None
    t = Tensor(np.zeros((), ndarray.dtype))
    t.data = ndarray  # assigning .data takes the array itself as storage (no copy), as in PyTorch
    return t


class Normal(Function):
    """The sampled values, with zero gradients for tensor `mean`/`std` (as torch.normal's
    NormalBackward): a sample is not reparametrised; write mean + std * tg.randn(...) for that."""

    @staticmethod
    def forward(ctx: Any, mean: Any, std: Any, sample: np.ndarray) -> Tensor:
        ctx.shapes = [np.shape(v) if isinstance(v, Tensor) else None for v in (mean, std)]
        return Tensor(sample)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        zeros = [None if s is None else Tensor(np.zeros(s, g.dtype)) for s in ctx.shapes]
        return zeros[0], zeros[1], None


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples of N(mean, std^2) from tapegrad's generator, with torch.normal's overloads:
    `normal(mean_tensor, std_tensor)` (broadcast shapes), `normal(mean_tensor, std=1.0)`,
    `normal(mean, std_tensor)`, `normal(mean, std, size)` (floats and a shape).

    >>> tg.normal(0.0, 1.0, (2, 3)).shape
    (2, 3)
    """
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    for name, v in (("mean", mean), ("std", std)):
        if not isinstance(v, (Tensor, int, float, np.integer, np.floating)) or isinstance(v, bool):
            raise TypeError(f"normal: {name} must be a tensor or a number, got {v!r}")
        if isinstance(v, Tensor) and v.dtype.kind != "f":
            raise TypeError(f"normal: {name} must be a floating-point tensor, got {v.dtype}")
    if tensors and size is not None:
        raise TypeError(
            "normal: size= goes with float mean and std only; with a tensor mean or std the "
            "output takes their (broadcast) shape"
        )
    if not tensors and size is None:
        raise TypeError(
            "normal(mean, std) with two numbers needs a size: tg.normal(0.0, 1.0, (2, 3)), "
            "or pass a tensor mean/std"
        )
    m = mean.numpy() if isinstance(mean, Tensor) else mean
    s = std.numpy() if isinstance(std, Tensor) else std
    if np.any(np.asarray(s) < 0):
        raise ValueError("normal expects all elements of std >= 0.0")
    shape = _sizes((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    if dtype is None:
        dtype = np.result_type(*(t.dtype for t in tensors)) if tensors else _dt.float32
    sample = (_rng.standard_normal(shape) * s + m).astype(_dt.as_dtype(dtype))
    if any(t.requires_grad for t in tensors):
        return Normal.apply(mean, std, sample)
    return Tensor(sample, requires_grad=requires_grad)
