"""Factories with PyTorch's signatures: tensor, zeros, ones, empty, full, the `*_like` family,
arange, linspace, eye, from_numpy. The random ones are in sampling.py.

Every factory takes PyTorch's keywords: `dtype=`, `device=` (the CPU only: see devices.py),
`layout=`, `requires_grad=`, and where PyTorch has them `pin_memory=` and `memory_format=`; and
tapegrad's `name=` (shown by drawings and explanations: `tg.zeros(3, name="b1")`).

Layer L4: imports the Tensor class, dtypes, devices and _utils.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence, Union

import numpy as np

from . import dtypes as _dt
from ._utils import shape_args
from .devices import DeviceLike, check_placement, layout as Layout, memory_format as MemoryFormat
from .tensor import Tensor

DTypeLike = Union[np.dtype, type, str, None]
Size = Union[int, Sequence[int]]
Number = Union[int, float, bool, np.number, Tensor]


def shape_of(args: Sequence[Any], size: Any, who: str) -> tuple[int, ...]:
    """A factory's shape from `f(2, 3)`, `f((2, 3))` or `f(size=(2, 3))`; every size >= 0."""
    if size is not None:
        if args:
            raise TypeError(f"{who}: the shape is given twice (as arguments and as size=)")
        args = (size,)
    shape = shape_args(args)
    if any(n < 0 for n in shape):
        raise RuntimeError(
            f"{who}: Trying to create tensor with negative dimension: shape {shape} has a negative "
            f"size; every size must be 0 or more"
        )
    return shape


def finish(
    values: np.ndarray,
    dtype: DTypeLike,
    requires_grad: bool,
    name: str | None,
    default: np.dtype | None = None,
) -> Tensor:
    """The factory's result: `values` cast to `dtype` (else to `default`, else to the default
    float dtype), requiring grad and named as asked."""
    target = _dt.as_dtype(dtype) if dtype is not None else (default or _dt.default_float)
    return Tensor(values.astype(target, copy=False), requires_grad=requires_grad, name=name)


def tensor(
    data: Any,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    name: str | None = None,
    *,
    device: DeviceLike = None,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor from data (floats default to float32; ints stay int). `tg.tensor([1., 2.])`"""
    check_placement("tensor", device, pin_memory=pin_memory)
    return Tensor(data, dtype=dtype, requires_grad=requires_grad, name=name)


def zeros(
    *shape: Size,
    size: Sequence[int] | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """Zeros of the given shape: `tg.zeros(2, 3)`, `tg.zeros((2, 3))`, `tg.zeros(size=(2, 3))`."""
    dims = shape_of(shape, size, "zeros")
    check_placement("zeros", device, layout)
    return finish(np.zeros(dims), dtype, requires_grad, name)


def ones(
    *shape: Size,
    size: Sequence[int] | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """Ones of the given shape: `tg.ones(2, 3)`."""
    dims = shape_of(shape, size, "ones")
    check_placement("ones", device, layout)
    return finish(np.ones(dims), dtype, requires_grad, name)


def empty(
    *shape: Size,
    size: Sequence[int] | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """A tensor of the given shape whose values are whatever the memory held: `tg.empty(2, 3)`."""
    dims = shape_of(shape, size, "empty")
    check_placement("empty", device, layout, pin_memory, memory_format, len(dims))
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    return finish(np.empty(dims, kind), None, requires_grad, name, kind)


def scalar_tensor(
    s: Number,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A 0-d tensor holding the number s, of the default float dtype unless dtype says otherwise.

    >>> tg.scalar_tensor(3)
    tensor(3.)
    """
    check_placement("scalar_tensor", device, layout, pin_memory)
    value = s.item() if isinstance(s, Tensor) else s
    return finish(np.asarray(value), dtype, requires_grad, None)


def _fill_dtype(fill_value: Any) -> np.dtype:
    """full's dtype from its value, as PyTorch: bool, int64, or the default float dtype."""
    if isinstance(fill_value, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(fill_value, (int, np.integer)):
        return _dt.int64
    return _dt.default_float


def full(
    size: Sequence[int],
    fill_value: Number,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    *,
    layout: Layout | None = None,
    device: DeviceLike = None,
    name: str | None = None,
) -> Tensor:
    """A tensor of the given shape filled with one value: `tg.full((2, 3), 7.0)`."""
    dims = shape_of((size,), None, "full")
    check_placement("full", device, layout)
    value = _number(fill_value, "full")
    return finish(np.full(dims, value), dtype, requires_grad, name, _fill_dtype(value))


def _number(value: Any, who: str) -> Any:
    """A Python number from a number or a one-element tensor (PyTorch takes either)."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(
                f"{who}: a tensor given as a number must have one element, got shape {value.shape}"
            )
        return value.item()
    if isinstance(value, np.generic):
        return value.item()
    if not isinstance(value, (int, float)):
        raise TypeError(f"{who}: expected a number, got {type(value).__name__} {value!r}")
    return value


# ---- the *_like family: the input's shape (and dtype, unless dtype= says otherwise) ------------


def _like(
    input: Any,
    values: Callable[[tuple, np.dtype], np.ndarray],
    dtype: DTypeLike,
    requires_grad: bool,
    name: str | None,
    who: str,
    placement: dict,
) -> Tensor:
    source = input if isinstance(input, Tensor) else Tensor(input)
    check_placement(who, ndim=source.ndim, **placement)
    kind = _dt.as_dtype(dtype) if dtype is not None else source.dtype
    return finish(values(source.shape, kind), None, requires_grad, name, kind)


def zeros_like(
    input: Tensor,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    *,
    layout: Layout | None = None,
    device: DeviceLike = None,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """Zeros shaped like `input`, of its dtype unless `dtype` is given: `tg.zeros_like(x)`."""
    placement = dict(device=device, layout=layout, memory_format=memory_format)
    return _like(input, np.zeros, dtype, requires_grad, name, "zeros_like", placement)


def ones_like(
    input: Tensor,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    *,
    layout: Layout | None = None,
    device: DeviceLike = None,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """Ones shaped like `input`: `tg.ones_like(x)`."""
    placement = dict(device=device, layout=layout, memory_format=memory_format)
    return _like(input, np.ones, dtype, requires_grad, name, "ones_like", placement)


def empty_like(
    input: Tensor,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    *,
    layout: Layout | None = None,
    device: DeviceLike = None,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """An uninitialised tensor shaped like `input`: `tg.empty_like(x)`."""
    placement = dict(device=device, layout=layout, memory_format=memory_format)
    return _like(input, np.empty, dtype, requires_grad, name, "empty_like", placement)


def full_like(
    input: Tensor,
    fill_value: Number,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    *,
    layout: Layout | None = None,
    device: DeviceLike = None,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """`fill_value` everywhere, shaped like `input` (and of its dtype): `tg.full_like(x, 7.0)`."""
    value = _number(fill_value, "full_like")
    placement = dict(device=device, layout=layout, memory_format=memory_format)

    def values(shape: tuple, kind: np.dtype) -> np.ndarray:
        return np.full(shape, value).astype(kind)

    return _like(input, values, dtype, requires_grad, name, "full_like", placement)


# ---- ranges ----------------------------------------------------------------------------------


def _scalar(value: Any, who: str, what: str) -> Any:
    """A range bound as a Python number (a one-element tensor counts as its number; a bool is the
    integer it stands for, as PyTorch's arange(False, True) is [0])."""
    if not isinstance(value, (int, float, np.number, Tensor)):
        raise TypeError(f"{who}: {what} must be a number, got {type(value).__name__} {value!r}")
    return _number(value, who)


def arange(
    start: Number = 0,
    end: Number | None = None,
    step: Number = 1,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """start, start + step, ... up to end (excluded); `tg.arange(5)`, `tg.arange(1, 4)`,
    `tg.arange(end=5)`. int64 for int bounds, the default float dtype otherwise. With an integer
    dtype the bounds are cut to integers first, as PyTorch: `arange(2.1, -2.9, -1.0,
    dtype=tg.int64)` is [2, 1, 0, -1].

    >>> tg.arange(0, 1, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """
    check_placement("arange", device, layout)
    if end is None:
        start, end = 0, start
    bounds = [_scalar(v, "arange", w) for v, w in ((start, "start"), (end, "end"), (step, "step"))]
    if dtype is not None:
        kind = _dt.as_dtype(dtype)
    elif any(isinstance(v, float) for v in bounds):
        kind = _dt.default_float
    else:
        kind = _dt.int64
    integer = kind.kind in "iub"
    if not all(math.isfinite(v) for v in bounds):
        raise RuntimeError(f"arange: unsupported range: {bounds[0]} -> {bounds[1]}")
    if bounds[2] == 0:
        raise RuntimeError("arange step must be nonzero (as PyTorch); e.g. tg.arange(0, 5, 1)")
    if integer and int(bounds[2]) == 0:  # (a step cut to 0 by the dtype: PyTorch's int32 & co
        raise ValueError(  # would fill zeros, a silent wrong answer; refused here as for int64)
            f"arange step must be nonzero: step {bounds[2]} is 0 in {kind}; give an integer step"
        )
    # With an integer dtype the values are start + i * step of the bounds cut to integers
    # (toward zero). How many there are PyTorch counts on the cut bounds for int64 and on the
    # given ones for the narrower types: arange(2.1, -2.9, -1.0) has 4 values in int64, 5 in int32.
    counted = [int(v) for v in bounds] if kind == _dt.int64 else bounds
    first, last, stride = counted
    if (stride > 0 and last < first) or (stride < 0 and last > first):
        raise RuntimeError(
            f"arange: upper bound and lower bound inconsistent with step sign: from {first} to "
            f"{last} by {stride} never gets there"
        )
    count = math.ceil((last - first) / stride) if kind != _dt.int64 else -((first - last) // stride)
    if integer:
        start_at, stride = int(bounds[0]), int(bounds[2])
        values: np.ndarray = start_at + stride * np.arange(count, dtype=np.int64)
    else:
        values = first + stride * np.arange(count, dtype=np.float64)
    return finish(values, None, requires_grad, name, kind)


def linspace(
    start: Number,
    end: Number,
    steps: int,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """`steps` evenly spaced values from start to end, both included, in the default float dtype
    (or `dtype`). With an integer dtype the ends are cut to integers first and each value after,
    as PyTorch.

    >>> tg.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    check_placement("linspace", device, layout)
    first, last = _scalar(start, "linspace", "start"), _scalar(end, "linspace", "end")
    try:
        if isinstance(steps, bool):
            raise TypeError
        count = operator.index(steps)
    except TypeError:
        raise TypeError(f"linspace: steps must be an int, got {steps!r}") from None
    if count < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {count}")
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    work = _dt.float64 if kind.kind in "iub" else kind  # (PyTorch computes in the dtype itself)
    if kind.kind in "iub":
        first, last = int(first), int(last)
    a, b = work.type(first), work.type(last)
    step = (b - a) / work.type(max(count - 1, 1))
    i = np.arange(count, dtype=work)
    # from both ends, as PyTorch: the first half counts up from start, the second half down from
    # end, so that both ends are exact
    values = np.where(i < count // 2, a + step * i, b - step * (count - 1 - i))
    if count == 1:
        values = np.full(1, a)  # (one step: the start, as PyTorch)
    if kind.kind in "iub":
        values = np.trunc(values)
    return finish(values.astype(work, copy=False), None, requires_grad, name, kind)


def logspace(
    start: Number,
    end: Number,
    steps: int,
    base: float = 10.0,
    *,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """`steps` values base ** v for v evenly spaced from start to end (both included), in the
    default float dtype (or `dtype`).

    >>> tg.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    check_placement("logspace", device, layout)
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    first, last = _scalar(start, "logspace", "start"), _scalar(end, "logspace", "end")
    if kind.kind in "iub":  # (integer results: the ends cut to integers first, as PyTorch)
        first, last = int(first), int(last)
    exponents = linspace(first, last, steps, dtype=_dt.float64)._data
    values = np.power(float(base), exponents)
    if kind.kind in "iub":
        values = np.trunc(values)
    return finish(values, None, requires_grad, name, kind)


def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    layout: Layout | None = None,
) -> Tensor:
    """The (row, column) indices of a row x col matrix's lower triangle (on and below the
    offset-th diagonal), row by row: a (2, count) int64 tensor.

    >>> tg.tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    check_placement("tril_indices", device, layout)
    return finish(np.stack(np.tril_indices(row, offset, col)), dtype, False, None, _dt.int64)


def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: DTypeLike = None,
    device: DeviceLike = None,
    layout: Layout | None = None,
) -> Tensor:
    """The (row, column) indices of a row x col matrix's upper triangle (on and above the
    offset-th diagonal), row by row: a (2, count) int64 tensor.

    >>> tg.triu_indices(2, 2)
    tensor([[0, 0, 1],
            [0, 1, 1]])
    """
    check_placement("triu_indices", device, layout)
    return finish(np.stack(np.triu_indices(row, offset, col)), dtype, False, None, _dt.int64)


def eye(
    n: int,
    m: int | None = None,
    dtype: DTypeLike = None,
    requires_grad: bool = False,
    *,
    layout: Layout | None = None,
    device: DeviceLike = None,
    name: str | None = None,
) -> Tensor:
    """The n x m identity (m defaults to n): `tg.eye(3)`."""
    check_placement("eye", device, layout)
    for label, count in (("n", n), ("m", m)):
        if count is None:
            continue
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
            raise TypeError(f"eye(): argument '{label}' must be int, not {count!r}")
        if count < 0:
            raise RuntimeError(f"eye: {label} must be greater or equal to 0, got {count}")
    return finish(np.eye(n, m), dtype, requires_grad, name)


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


__all__ = [
    "arange",
    "empty",
    "empty_like",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "linspace",
    "logspace",
    "ones",
    "ones_like",
    "scalar_tensor",
    "tensor",
    "tril_indices",
    "triu_indices",
    "zeros",
    "zeros_like",
]
