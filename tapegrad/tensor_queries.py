"""PyTorch's top-level questions about a tensor (`torch.is_tensor(x)`, `torch.numel(t)`,
`torch.is_floating_point(t)`, `torch.get_device(t)`, `torch.typename`, ...) and its two
factories that share memory with their data when they can (`torch.as_tensor`, `torch.asarray`).

The questions are the Tensor methods of the same names, taking only tensors (as PyTorch: a list
is a TypeError). tapegrad has no storage objects, so `is_storage` is always False.

Layer L4: the Tensor class, creation.py and devices (L0).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import dtypes
from .creation import from_numpy, tensor
from .devices import DeviceLike, check_device
from .tensor import Tensor

__all__ = [
    "is_tensor",
    "is_storage",
    "numel",
    "is_floating_point",
    "is_complex",
    "is_nonzero",
    "is_same_size",
    "is_signed",
    "is_inference",
    "get_device",
    "as_tensor",
    "asarray",
    "typename",
    "is_distributed",
    "cudnn_is_acceptable",
]


def _tensor_argument(input: Any, who: str, position: int = 1, name: str = "input") -> Tensor:
    """`input` if it is a tensor, else PyTorch's TypeError."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{who}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return input


def is_tensor(obj: Any) -> bool:
    """Whether `obj` is a tapegrad tensor (a Parameter too).

    >>> tg.is_tensor(tg.ones(2)), tg.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


def is_storage(obj: Any) -> bool:
    """Whether `obj` is a storage object: tapegrad has none (a tensor's memory is a NumPy array).

    >>> tg.is_storage(tg.ones(2))
    False
    """
    return False


def numel(input: Tensor) -> int:
    """The number of elements of `input`.

    >>> tg.numel(tg.ones(2, 3))
    6
    """
    return _tensor_argument(input, "numel").numel()


def is_floating_point(input: Tensor) -> bool:
    """Whether `input`'s dtype is a floating one.

    >>> tg.is_floating_point(tg.ones(2))
    True
    """
    return _tensor_argument(input, "is_floating_point").is_floating_point()


def is_complex(input: Tensor) -> bool:
    """Whether `input`'s dtype is complex: never (tapegrad has no complex dtypes).

    >>> tg.is_complex(tg.ones(2))
    False
    """
    return _tensor_argument(input, "is_complex").is_complex()


def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor is not zero (more or fewer elements: RuntimeError).

    >>> tg.is_nonzero(tg.tensor([0.5]))
    True
    """
    return _tensor_argument(input, "is_nonzero").is_nonzero()


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape.

    >>> tg.is_same_size(tg.ones(2), tg.ones(3))
    False
    """
    _tensor_argument(other, "is_same_size", 2, "other")
    return _tensor_argument(input, "is_same_size").is_same_size(other)


def is_signed(input: Tensor) -> bool:
    """Whether `input`'s dtype holds negative numbers (uint8 and bool do not).

    >>> tg.is_signed(tg.ones(2, dtype=tg.uint8))
    False
    """
    return _tensor_argument(input, "is_signed").is_signed()


def is_inference(input: Tensor) -> bool:
    """Whether `input` was made under tg.inference_mode().

    >>> tg.is_inference(tg.ones(2))
    False
    """
    return _tensor_argument(input, "is_inference").is_inference()


def get_device(input: Tensor) -> int:
    """The CUDA device index of `input`: -1, the CPU's (tapegrad computes on the CPU).

    >>> tg.get_device(tg.ones(2))
    -1
    """
    return _tensor_argument(input, "get_device").get_device()


def as_tensor(data: Any, dtype: Any = None, device: DeviceLike = None) -> Tensor:
    """`data` as a tensor, sharing memory where it can: a tensor of that dtype is returned as it
    is (another dtype: converted, on the tape), a NumPy array of that dtype shared; other data
    copied.

    >>> a = np.zeros(2); tg.as_tensor(a)[0] = 1; a
    array([1., 0.])
    """
    check_device(device, "as_tensor")
    want = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(data, Tensor):
        return data if want is None or want == data.dtype else data.to(want)
    if isinstance(data, np.ndarray) and (want is None or want == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=want)


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: DeviceLike = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Tensor:
    """`obj` (a tensor, a NumPy array, a number or nested sequences) as a tensor, as
    torch.asarray: shared when it can be (copy=None) or must be (copy=False: ValueError when the
    dtype differs), copied when copy=True; requires_grad None keeps a tensor's.

    >>> tg.asarray([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    check_device(device, "asarray")
    want = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(obj, Tensor | np.ndarray):
        have = obj.dtype
        if copy is False and want is not None and want != have:
            raise ValueError(
                f"can't alias tensor with dtype '{have}' into dtype '{want}': pass copy=None or "
                f"copy=True to convert"
            )
        result = obj if isinstance(obj, Tensor) else from_numpy(obj)
        if want is not None and want != have:
            result = result.to(want)
        elif copy:
            result = result.clone()
        if isinstance(obj, Tensor) and requires_grad is None and obj.requires_grad:
            warnings.warn(
                "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                "instead of False. Pass requires_grad=False explicitly to get the old behavior "
                "and silence this warning.",
                UserWarning,
                stacklevel=2,
            )
    else:
        result = tensor(obj, dtype=want)
    if requires_grad is None or requires_grad == result.requires_grad:
        return result
    if not requires_grad:
        return result.detach()
    if result.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    if result.grad_fn is None:
        return result.requires_grad_(True)
    return result


# PyTorch's legacy tensor type names, by dtype (what torch.typename and x.type() print)
_TYPE_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "uint8": "ByteTensor",
    "int8": "CharTensor",
    "int16": "ShortTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "bool": "BoolTensor",
}


def typename(obj: Any, /) -> str:
    """The full name of obj's type: PyTorch's legacy name for a tensor ('torch.FloatTensor', as
    programs compare it), else module.qualname (a builtin's bare name).

    >>> tg.typename(tg.ones(2)), tg.typename(len)
    ('torch.FloatTensor', 'len')
    """
    if isinstance(obj, Tensor):
        return "torch." + _TYPE_NAMES[obj.dtype.name]
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def is_distributed(input: Tensor) -> bool:
    """Whether `input` is a distributed tensor: never (one process).

    >>> tg.is_distributed(tg.ones(2))
    False
    """
    _tensor_argument(input, "is_distributed")
    return False


def cudnn_is_acceptable(input: Tensor) -> bool:
    """Whether cuDNN could run on `input`: never (no cuDNN on the CPU).

    >>> tg.cudnn_is_acceptable(tg.ones(2))
    False
    """
    _tensor_argument(input, "cudnn_is_acceptable")
    return False
