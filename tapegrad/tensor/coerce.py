"""Turning what users pass into what ops take: data into arrays, operands into weak scalars or
tensors, index expressions, shapes, dtypes and devices.

Layer L3: numpy, the storage base (every tensor is a TensorBase) and record.py's `wrap` (to make
one). The method rooms call these helpers.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Sequence, TypeAlias

import numpy as np

from .. import devices
from .._utils import ShapeError, normalize_axis
from ..primitives.batched_array import BatchedArray
from .base import TensorBase, as_array
from .record import wrap

if TYPE_CHECKING:
    from .tensor import Tensor

# What an operand may be: a tensor, a Python or NumPy number, a NumPy array or (nested) lists.
TensorLike: TypeAlias = (
    TensorBase | float | int | np.ndarray | np.generic | list[Any] | tuple[Any, ...]
)


def to_dtype(args: Sequence[Any], dtype: Any = None, device: Any = None) -> Any:
    """The dtype a PyTorch-style `.to(...)` asks for (None: keep it): from a dtype, a tensor or a
    device among `args`; a device other than the CPU is a clear error."""
    return to_arguments(args, dtype, device)[0]


def to_arguments(
    args: Sequence[Any], dtype: Any = None, device: Any = None, copy: bool = False
) -> tuple[Any, bool]:
    """(dtype or None, copy) from `.to(...)`'s arguments as PyTorch reads them: `to(dtype,
    non_blocking, copy)`, `to(device, dtype, non_blocking, copy)` or `to(other, non_blocking,
    copy)`; bools are those flags, never dtypes. A device other than the CPU is a clear error."""
    rest = list(args)
    if rest and isinstance(rest[0], TensorBase):  # to(other): its dtype (and device)
        dtype = rest.pop(0).dtype
    elif rest and (_is_device(rest[0]) or rest[0] is None):
        device = rest.pop(0)
        if rest and not isinstance(rest[0], bool):
            dtype = rest.pop(0)
    elif rest and not isinstance(rest[0], bool):
        dtype = rest.pop(0)
    flags = [a for a in rest if isinstance(a, bool)]
    if len(flags) != len(rest) or len(flags) > 2:
        raise TypeError(
            f"to() takes (dtype, non_blocking, copy), (device, dtype, non_blocking, copy) or "
            f"(tensor, non_blocking, copy); got {tuple(args)!r}"
        )
    if len(flags) == 2:
        copy = flags[1]
    if device is not None:
        check_device(device)
    return dtype, bool(copy)


def _is_device(a: Any) -> bool:
    """A device as `.to(...)` takes one: "cpu", "cuda:0", a tg.device (a dtype's name is not)."""
    if isinstance(a, devices.device):
        return True
    return isinstance(a, str) and a.split(":")[0] in devices.DEVICE_TYPES


def check_device(device: Any) -> None:
    """The CPU ("cpu", "cpu:0", tg.device("cpu"), a tensor's .device); anything else is a clear
    error (devices.py's check, which the factories run too)."""
    devices.check_device(device, "to")


def explain_matmul_error(a_shape: tuple, b_shape: tuple) -> None:
    """Raise a clear error for shapes matmul cannot take (called only once NumPy has refused)."""
    if (
        len(a_shape) == 0
        or len(b_shape) == 0
        or a_shape[-1] != b_shape[-2 if len(b_shape) > 1 else 0]
    ):
        raise ShapeError(
            f"matmul: shapes {list(a_shape)} and {list(b_shape)} are not aligned (the last axis "
            f"of the first must equal the {'second-to-last' if len(b_shape) > 1 else 'only'} axis "
            f"of the second)"
        )
    if len(a_shape) > 2 or len(b_shape) > 2:
        try:
            np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
        except ValueError:
            raise ShapeError(
                f"matmul: shapes {list(a_shape)} and {list(b_shape)}: the batch axes "
                f"{list(a_shape[:-2])} and {list(b_shape[:-2])} do not broadcast together"
            ) from None


def resolve_shape(size: int, shape: tuple) -> tuple:
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be -1")
    known = int(math.prod(n for n in shape if n != -1))  # (np.prod of a list: ~10x the cost)
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError("the sizes do not divide evenly")
        shape = tuple(size // known if n == -1 else n for n in shape)
    elif known != size:
        raise ValueError("the number of elements differs")
    return shape


def coerce(other: Any) -> Any:
    """An operand as the op sees it: Tensors stay, Python/NumPy scalars become weak Python scalars
    (so they never upcast a float32 tensor, as in PyTorch), arrays stay arrays."""
    cls = other.__class__
    if cls is float or cls is int:  # the common case first
        return other
    if isinstance(other, TensorBase):
        return other
    if isinstance(other, np.generic):  # before float: np.float64 is a subclass of float
        return other.item()
    if isinstance(other, (bool, int, float)):
        return other
    if isinstance(other, np.ndarray):
        return other.item() if other.ndim == 0 and other.dtype.kind in "biuf" else other
    if isinstance(other, (list, tuple)):
        return as_array(other)
    if cls is BatchedArray:  # values computed from a batched tensor, inside vmap
        return other
    if isinstance(other, numbers.Number):
        number: Any = other
        return complex(number) if isinstance(number, complex) else float(number)
    raise TypeError(f"unsupported operand type for a tensor op: {type(other).__name__}")


def as_tensor(x: Any) -> Tensor:
    """x as a Tensor (Tensors as they are)."""
    if isinstance(x, TensorBase):  # (a TensorBase is a Tensor: the rooms are never made alone;
        return x  # type: ignore[return-value]  # cast() would cost a call for every tg.f(x))
    return wrap(as_array(x))


def one_dim(dim: Any, ndim: int, op: str) -> int:
    """One dimension (an int; negative counts from the end) as a non-negative axis; a 0-d tensor
    takes 0 and -1, as PyTorch."""
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(f"{op}: dim must be an int, got {dim!r}")
    return normalize_axis(dim, ndim)[0]  # type: ignore[index]  # (an int in: a 1-tuple out)


def normalize_index(index: Any) -> Any:
    """Tensors in an index become arrays; lists become integer/bool arrays."""
    if isinstance(index, tuple):
        return tuple(normalize_index_item(i) for i in index)
    return normalize_index_item(index)


def normalize_index_item(i: Any) -> Any:
    if isinstance(i, TensorBase):
        if i._data.__class__ is BatchedArray:  # one index per example, inside vmap
            return i._data
        return i._data.item() if i._data.ndim == 0 and i._data.dtype.kind in "iu" else i._data
    if isinstance(i, list):
        return np.asarray([j._data if isinstance(j, TensorBase) else j for j in i])
    return i


def _is_int(i: Any) -> bool:
    """An int index, or one int per example (a 0-d batched index, inside vmap)."""
    if i.__class__ is BatchedArray:
        return i.ndim == 0
    return isinstance(i, (int, np.integer)) and not isinstance(i, bool)


def split_int_indices(index: Any) -> tuple[tuple, tuple] | None:
    """PyTorch applies integer indices first (each removes its axis) and then the array indices;
    NumPy treats an int as one more array index when arrays are present, which moves axes around
    when a slice separates them (`x[0, :, [0, 0]]` on shape (1, 4, 2): PyTorch (4, 2), NumPy
    (2, 4)). For an index mixing ints and arrays: (the ints with slices elsewhere, the rest)."""
    items = index if isinstance(index, tuple) else (index,)
    is_int = [_is_int(i) for i in items]
    arrays = [isinstance(i, (np.ndarray, BatchedArray)) and i.ndim > 0 for i in items]
    if not any(is_int) or not any(arrays):
        return None
    ints_first: list = []
    rest: list = []
    for item, integer in zip(items, is_int):
        if integer:
            ints_first.append(item)
        elif item is None:
            rest.append(None)
        elif item is Ellipsis:
            ints_first.append(Ellipsis)
            rest.append(Ellipsis)
        else:  # a slice or an array: it keeps its axes for the second step
            taken = (
                item.ndim
                if isinstance(item, (np.ndarray, BatchedArray)) and item.dtype == bool
                else 1
            )
            ints_first.extend([slice(None)] * taken)
            rest.append(item)
    return tuple(ints_first), tuple(rest)
