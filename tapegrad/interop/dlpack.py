"""DLPack in and out: a Tensor's memory shared, zero copy, with NumPy, PyTorch and JAX on the CPU.

Layer L5: imports tensor and dtypes. Tensor's `__dlpack__` and `__dlpack_device__` call the
functions here; NumPy's own exporter and importer do the work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..tensor import Tensor

__all__ = ["dlpack_device", "from_dlpack", "to_dlpack"]


def to_dlpack(
    t: Tensor,
    *,
    stream: Any = None,
    max_version: Any = None,
    dl_device: Any = None,
    copy: bool | None = None,
) -> Any:
    """What `Tensor.__dlpack__` does: a DLPack capsule sharing t's memory (NumPy's exporter).

    >>> np.from_dlpack(tg.tensor([1.0, 2.0]))
    array([1., 2.], dtype=float32)
    """
    if t.requires_grad:
        raise BufferError(
            "cannot export a tensor that requires grad through DLPack: the importer would share "
            "its values but not its tape; export t.detach() (it shares memory), as PyTorch asks"
        )
    arr = t.numpy()
    if copy is not True and any(s < 0 for s in arr.strides):
        raise BufferError(
            "this tensor is a reversed view (negative strides, e.g. t.flip or t[::-1]), which "
            "DLPack importers such as PyTorch cannot take; export a copy: t.clone()"
        )
    return arr.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def dlpack_device(t: Tensor) -> tuple:
    """What `Tensor.__dlpack_device__` does: (1, 0), the CPU (kDLCPU, device 0).

    >>> tg.tensor([1.0]).__dlpack_device__()
    (1, 0)
    """
    return t.numpy().__dlpack_device__()


class _Capsule:
    """A bare DLPack capsule (torch.utils.dlpack.to_dlpack's result) as an object NumPy imports."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple:
        return (1, 0)


def from_dlpack(obj: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A Tensor sharing the memory of any DLPack array on the CPU (NumPy, PyTorch, JAX, ...).

    >>> a = np.arange(3.0); t = tg.from_dlpack(a); t.numpy()[0] = 7.0; float(a[0])
    7.0
    """
    kind = f"{type(obj).__module__}.{type(obj).__qualname__}"
    if type(obj).__name__ == "PyCapsule":
        obj = _Capsule(obj)
    elif not hasattr(obj, "__dlpack__"):
        raise TypeError(
            f"tg.from_dlpack takes an array that supports DLPack (a NumPy array, a PyTorch or JAX "
            f"tensor, ...) or a DLPack capsule, got a {kind}; for Python data use tg.tensor(...)"
        )
    try:
        arr = np.from_dlpack(obj, device=device, copy=copy)
    except (BufferError, RuntimeError, TypeError, ValueError) as e:
        raise type(e)(
            f"tg.from_dlpack could not import this {kind} ({e}); it takes CPU arrays of dtype "
            f"float16/32/64, int8/16/32/64, uint8 or bool"
        ) from None
    if arr.dtype not in _DLPACK_DTYPES:
        raise TypeError(
            f"tg.from_dlpack: the {kind} has dtype {arr.dtype}, which tapegrad does not have; "
            f"convert it first to a float, int, uint8 or bool dtype (e.g. x.float() in PyTorch)"
        )
    t = Tensor(np.zeros((), arr.dtype))
    t.data = arr  # zero copy: the tensor's buffer is the imported one
    return t


_DLPACK_DTYPES = {
    dtypes.as_dtype(d) for d in "float16 float32 float64 int8 int16 int32 int64 uint8 bool".split()
}
