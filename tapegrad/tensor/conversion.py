"""Conversion: what a tensor becomes in another dtype (astype, to, float, ...), the new tensors
made in its dtype (PyTorch's new_* factories, new_empty_strided among them), and what leaves the
tape for Python and NumPy (numpy, item, tolist, float(t), bool(t), the NumPy protocols).

Layer L3: numpy, dtypes, the L0 state, the storage base, record.py's apply and wrap, and coerce.py.
Values that leave the tape inside a custom Function's backward recorded for create_graph are an
error (base.py says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

import numpy as np

from .. import devices, dtypes
from .._utils import shape_args
from .._state import overrides, state
from ..primitives import elementwise as E
from .base import TensorBase
from .coerce import check_device, to_arguments
from .shape import check_memory_format
from .record import apply, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


def _cast(dtype: np.dtype) -> Callable[..., Tensor]:
    """`t.float()` and friends: astype(dtype) (memory_format= accepted, as PyTorch's)."""

    def method(self: TensorBase, memory_format: Any = None) -> Tensor:
        check_memory_format(dtype.name, memory_format, self.ndim)
        return astype(self, dtype)

    method.__doc__ = f"astype({dtype.name})."
    return method


def _dtype_like(x: TensorBase, dtype: Any) -> np.dtype:
    """The dtype of a tensor made by x.new_*: `dtype` when given, else x's."""
    return x._data.dtype if dtype is None else dtypes.as_dtype(dtype)


def _made_like(
    who: str, values: np.ndarray, device: Any, requires_grad: bool, layout: Any, pin_memory: bool
) -> Tensor:
    """A new_* factory's result: placement checked as the factories check it, off the tape."""
    devices.check_placement(who, device, layout, pin_memory)
    made = wrap(values)
    return made.requires_grad_() if requires_grad else made


def astype(x: TensorBase, dtype: Any) -> Tensor:
    """x cast to dtype; differentiable between floating dtypes (the gradient is cast back)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype == x._data.dtype:
        return cast("Tensor", x)
    if dtype.kind != "f" or x._data.dtype.kind != "f":
        return wrap(x._data.astype(dtype))
    return apply(E.cast, x, dtype=dtype)


class ConversionMixin(TensorBase):
    """The conversion methods of Tensor."""

    __slots__ = ()

    def astype(self, dtype: Any) -> Tensor:
        """A cast; differentiable between floating dtypes (the gradient is cast back).

        >>> tg.tensor([1.5, 2.0]).astype(tg.float64)
        tensor([1.5000, 2.0000], dtype=float64)
        """
        return astype(self, dtype)

    def to(
        self,
        *args: Any,
        dtype: Any = None,
        device: Any = None,
        non_blocking: bool = False,
        copy: bool = False,
        memory_format: Any = None,
    ) -> Tensor:
        """PyTorch's `to`: `to(dtype, non_blocking, copy)`, `to(device, dtype, non_blocking, copy)`
        or `to(other, ...)` (its dtype); the device must be the CPU. Without copy=True the tensor
        itself comes back when nothing changes.

        >>> tg.tensor([1, 2]).to(tg.float32)
        tensor([1., 2.])
        """
        dtype, copy = to_arguments(args, dtype, device, copy)
        check_memory_format("to", memory_format, self.ndim)
        out = cast("Tensor", self) if dtype is None else astype(self, dtype)
        return out.clone() if copy and out is self else out

    def type(self, dtype: Any) -> Tensor:
        """astype(dtype), PyTorch's spelling.

        >>> tg.tensor([1.7]).type(tg.int32)
        tensor([1], dtype=int32)
        """
        return astype(self, dtype)

    def type_as(self, other: TensorBase) -> Tensor:
        """self in other's dtype (self itself when it has it already), PyTorch's spelling.

        >>> tg.tensor([1, 2]).type_as(tg.tensor([0.5])).dtype
        dtype('float32')
        """
        return self.to(other.dtype)

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating one (float16/32/64).

        >>> tg.tensor([1]).is_floating_point()
        False
        """
        return self._data.dtype.kind == "f"

    def is_signed(self) -> bool:
        """Whether the dtype holds negative numbers (all but uint8 and bool).

        >>> tg.tensor([1], dtype=tg.uint8).is_signed()
        False
        """
        return self._data.dtype.kind in "fic"

    def is_nonzero(self) -> bool:
        """The truth of a one-element tensor (an error for more or fewer elements).

        >>> tg.tensor([0.5]).is_nonzero()
        True
        """
        if self._data.size != 1:
            count = "no values" if not self._data.size else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {count} is ambiguous")
        return bool(self._data.reshape(()))

    def is_inference(self) -> bool:
        """Whether made under tg.inference_mode() (tapegrad marks none: False).

        >>> tg.zeros(1).is_inference()
        False
        """
        return False

    def is_neg(self) -> bool:
        """Whether the negative bit is set (a lazy negation PyTorch has; never here: False).

        >>> tg.zeros(1).is_neg()
        False
        """
        return False

    def is_complex(self) -> bool:
        """Whether the dtype is a complex one (tapegrad's tensors never are: always False here).

        >>> tg.tensor([1.0]).is_complex()
        False
        """
        return self._data.dtype.kind == "c"

    def cpu(self) -> Tensor:
        """self (tapegrad computes on the CPU).

        >>> tg.tensor([1.0]).cpu()
        tensor([1.])
        """
        return cast("Tensor", self)

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        """A clear error: tapegrad computes with NumPy on the CPU."""
        check_device("cuda")
        return cast("Tensor", self)

    # ---- new tensors in this one's dtype (PyTorch's new_* factories) ----------------------------
    def new_zeros(
        self,
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        """Zeros of `size` (ints or one tuple) in this tensor's dtype unless `dtype` is given.

        >>> tg.tensor([1.5]).new_zeros(2, 3).shape
        (2, 3)
        """
        values = np.zeros(shape_args(size), _dtype_like(self, dtype))
        return _made_like("new_zeros", values, device, requires_grad, layout, pin_memory)

    def new_ones(
        self,
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        """Ones of `size` (ints or one tuple) in this tensor's dtype unless `dtype` is given.

        >>> tg.tensor([1, 2]).new_ones(2)
        tensor([1, 1])
        """
        values = np.ones(shape_args(size), _dtype_like(self, dtype))
        return _made_like("new_ones", values, device, requires_grad, layout, pin_memory)

    def new_empty(
        self,
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        """An uninitialised tensor of `size` in this tensor's dtype unless `dtype` is given.

        >>> tg.tensor([1.5]).new_empty((2, 2)).shape
        (2, 2)
        """
        values = np.empty(shape_args(size), _dtype_like(self, dtype))
        return _made_like("new_empty", values, device, requires_grad, layout, pin_memory)

    def new_full(
        self,
        size: Any,
        fill_value: Any,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        """`fill_value` everywhere in a tensor of `size`, in this tensor's dtype unless `dtype`.

        >>> tg.tensor([1.5]).new_full((2,), 7)
        tensor([7., 7.])
        """
        values = np.full(shape_args((size,)), fill_value, _dtype_like(self, dtype))
        return _made_like("new_full", values, device, requires_grad, layout, pin_memory)

    def new_empty_strided(
        self,
        size: Sequence[int],
        stride: Sequence[int],
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        """A new tensor of `size` laid out with `stride` (in elements) over fresh memory, in
        this tensor's dtype unless `dtype` is given (its values: zeros, where PyTorch leaves the
        memory uninitialised).

        >>> tg.ones(2).new_empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
        """
        sizes, strides = [int(n) for n in size], [int(n) for n in stride]
        room = 1 + sum((n - 1) * abs(s) for n, s in zip(sizes, strides)) if all(sizes) else 0
        memory = wrap(np.zeros(max(room, 0), _dtype_like(self, dtype)))
        view = memory.as_strided(sizes, strides, 0)._data  # (as_strided checks the geometry)
        return _made_like("new_empty_strided", view, device, requires_grad, layout, pin_memory)

    def new_tensor(
        self,
        data: Any,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        """A copy of `data` in this tensor's dtype unless `dtype` is given (off the tape).

        >>> tg.tensor([1.5]).new_tensor([1, 2])
        tensor([1., 2.])
        """
        values = np.array(getattr(data, "_data", data), _dtype_like(self, dtype))
        return _made_like("new_tensor", values, device, requires_grad, layout, pin_memory)

    # ---- to Python and NumPy: off the tape -----------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (no copy; off the tape: gradients do not flow through it).

        >>> tg.tensor([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
        if overrides[0] and state.strict_backward:
            self._leaving_tape(".numpy()")
        return self._data

    asnumpy = numpy

    def item(self) -> int | float | bool:
        """The one element as a Python number.

        >>> tg.tensor([2.5]).item()
        2.5
        """
        if overrides[0] and state.strict_backward:
            self._leaving_tape(".item()")
        if self._data.size != 1:
            raise ValueError(
                f"item() needs a tensor with exactly one element, but this one has shape "
                f"{list(self.shape)} ({self._data.size} elements); index it or use .tolist()"
            )
        return self._data.item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists (a number for a 0-d tensor: Any, as NumPy types it).

        >>> tg.tensor([[1, 2]]).tolist()
        [[1, 2]]
        """
        if overrides[0] and state.strict_backward:
            self._leaving_tape(".tolist()")
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors can be used as an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"the truth value of a tensor with {self._data.size} elements is "
                f"ambiguous; use .any() or .all()"
            )
        return bool(self._data.item())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if overrides[0] and state.strict_backward:
            self._leaving_tape("NumPy")
        arr = self._data if dtype is None else self._data.astype(dtype)
        return arr.copy() if copy and arr is self._data else arr  # (NumPy 2 trusts copy=)

    # ---- NumPy protocols and DLPack: an upper layer (tapegrad.interop, L5) provides them, so they
    # import it when first called (this layer cannot import it at load time: it imports this one)
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        from .. import interop

        return interop.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        from .. import interop

        return interop.array_function(func, types, args, kwargs)

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: Any = None,
        dl_device: Any = None,
        copy: Any = None,
    ) -> Any:
        from .. import interop

        return interop.to_dlpack(
            cast("Tensor", self),
            stream=stream,
            max_version=max_version,
            dl_device=dl_device,
            copy=copy,
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        from .. import interop

        return interop.dlpack_device(cast("Tensor", self))

    # (last: these names shadow the builtins float and int in the rest of the class body)
    float, double, half = _cast(dtypes.float32), _cast(dtypes.float64), _cast(dtypes.float16)
    long, int = _cast(dtypes.int64), _cast(dtypes.int32)
    short, char, byte = _cast(dtypes.int16), _cast(dtypes.int8), _cast(dtypes.uint8)
    bool = _cast(dtypes.bool_)
