"""PyTorch's legacy tensor types, as older programs use them: `torch.FloatTensor(2, 3)` (a tensor
of that shape, uninitialized), `torch.LongTensor([1, 2])` (of that data, cast),
`isinstance(x, torch.FloatTensor)` (a float32 tensor), `torch.set_default_tensor_type(...)`.

They are not classes of tensors: calling one makes a tapegrad Tensor, and isinstance compares
the dtype, as PyTorch's.

Layer L4: creation.py, dtypes and the Tensor class.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes
from .creation import empty, tensor
from .devices import DeviceLike, check_device
from .tensor import Tensor

__all__ = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
    "set_default_tensor_type",
]


class _TensorType(type):
    """The type of the legacy tensor types: calling one makes a Tensor of its dtype."""

    dtype: np.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"

    def __call__(cls, *args: Any, device: DeviceLike = None) -> Tensor:
        check_device(device, cls.__name__)
        if not args:
            return empty(0, dtype=cls.dtype)
        if all(isinstance(a, int | np.integer) and not isinstance(a, bool) for a in args):
            return empty(tuple(int(a) for a in args), dtype=cls.dtype)
        if len(args) == 1:
            data = args[0]
            if isinstance(data, Tensor):
                if data.dtype != cls.dtype:
                    raise TypeError(
                        f"expected a tensor of dtype {cls.dtype} for {cls.__name__}(tensor), got "
                        f"{data.dtype}; convert with tensor.to({cls.dtype.name})"
                    )
                return data.detach()
            if isinstance(data, list | tuple | np.ndarray):
                return tensor(np.asarray(data).astype(cls.dtype))
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        raise TypeError(
            f"{cls.__name__}() takes sizes (ints) or one sequence of data, got "
            f"{', '.join(type(a).__name__ for a in args)}"
        )


def _tensor_type(name: str, dtype: np.dtype, doc: str) -> _TensorType:
    made = _TensorType(name, (), {"dtype": dtype, "__doc__": doc, "__module__": "tapegrad"})
    return made


FloatTensor = _tensor_type(
    "FloatTensor",
    dtypes.float32,
    """float32 tensors: `FloatTensor(2, 3)` uninitialized, `FloatTensor([1, 2])` of data.

    >>> tg.FloatTensor([1, 2])
    tensor([1., 2.])
    """,
)
DoubleTensor = _tensor_type(
    "DoubleTensor",
    dtypes.float64,
    """float64 tensors (isinstance: a float64 tensor).

    >>> isinstance(tg.ones(1, dtype=tg.float64), tg.DoubleTensor)
    True
    """,
)
HalfTensor = _tensor_type(
    "HalfTensor",
    dtypes.float16,
    """float16 tensors.

    >>> tg.HalfTensor([1]).dtype
    dtype('float16')
    """,
)
ByteTensor = _tensor_type(
    "ByteTensor",
    dtypes.uint8,
    """uint8 tensors.

    >>> tg.ByteTensor([1, 2]).dtype
    dtype('uint8')
    """,
)
CharTensor = _tensor_type(
    "CharTensor",
    dtypes.int8,
    """int8 tensors.

    >>> tg.CharTensor([1]).dtype
    dtype('int8')
    """,
)
ShortTensor = _tensor_type(
    "ShortTensor",
    dtypes.int16,
    """int16 tensors.

    >>> tg.ShortTensor([1]).dtype
    dtype('int16')
    """,
)
IntTensor = _tensor_type(
    "IntTensor",
    dtypes.int32,
    """int32 tensors.

    >>> tg.IntTensor([1]).dtype
    dtype('int32')
    """,
)
LongTensor = _tensor_type(
    "LongTensor",
    dtypes.int64,
    """int64 tensors: `LongTensor([1.7, 2])` truncates, as PyTorch.

    >>> tg.LongTensor([1.7, 2])
    tensor([1, 2])
    """,
)
BoolTensor = _tensor_type(
    "BoolTensor",
    dtypes.bool_,
    """bool tensors.

    >>> tg.BoolTensor([1, 0])
    tensor([ True, False])
    """,
)

_BY_NAME = {
    f"torch.{t.__name__}": t
    for t in (
        FloatTensor,
        DoubleTensor,
        HalfTensor,
        ByteTensor,
        CharTensor,
        ShortTensor,
        IntTensor,
        LongTensor,
        BoolTensor,
    )
}


def set_default_tensor_type(t: Any) -> None:
    """Make a floating legacy type (FloatTensor, DoubleTensor, HalfTensor, or its name) the
    default: tg.set_default_dtype of its dtype (deprecated in PyTorch, which warns).

    >>> tg.set_default_tensor_type("torch.FloatTensor"); tg.get_default_dtype()
    dtype('float32')
    """
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        if t.startswith("torch.cuda."):
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        if t not in _BY_NAME:
            raise TypeError(f"invalid type: '{t}'")
        t = _BY_NAME[t]
    if not isinstance(t, _TensorType):
        raise TypeError(f"invalid type: '{t!r}'; pass a legacy tensor type such as tg.DoubleTensor")
    if t.dtype.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(t.dtype)
