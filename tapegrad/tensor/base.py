"""TensorBase: what every Tensor is underneath: its storage slots, shape and dtype, the bookkeeping
autodiff reads (requires_grad, grad, versions) and printing (through printing.py). The method rooms
(elementwise.py, reduction.py, ...) build on it, and tensor.py composes them into Tensor.

Layer L3: numpy, dtypes, devices and the L0 state only; nothing here records an op.
"""

from __future__ import annotations

import copy
import threading
import warnings
import weakref
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from .. import devices, dtypes
from .._state import overrides, state
from ..primitives.batched_array import BatchedArray
from .printing import tensor_repr

if TYPE_CHECKING:
    from ..tape.node import Node
    from .tensor import Tensor

_COUNTER_LOCK = threading.Lock()
_UNSAID_DTYPES = (np.dtype(np.int64), np.dtype(np.bool_))
_CPU = devices.device("cpu")

# Tensors made by .detach() of a tensor on the tape inside a custom Function's backward recorded
# for create_graph (by id; entries leave with their tensors): turned into NumPy there, they are
# PyTorch's `x.detach().numpy()`, which drops the second derivative as .numpy() does.
DETACHED_IN_BACKWARD: "weakref.WeakValueDictionary[int, TensorBase]" = weakref.WeakValueDictionary()


def as_array(data: Any, dtype: Any = None) -> np.ndarray:
    """User data as an ndarray: Python floats make the default float dtype (float32 unless
    tg.set_default_dtype changed it), ints stay integer, arrays keep their dtype."""
    if data.__class__ is BatchedArray:  # (inside vmap: numbers drawn for each example)
        values: Any = data if dtype is None else data.astype(dtypes.as_dtype(dtype))
        return values
    if isinstance(data, TensorBase):
        if overrides[0] and state.strict_backward:
            data._leaving_tape("tg.tensor(...)")
        data = data._data
    if isinstance(data, (dict, set, str, bytes)):
        raise TypeError(
            f"cannot make a tensor from a {type(data).__name__} ({data!r:.60}); "
            f"pass numbers, (nested) lists of numbers or a NumPy array"
        )
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    try:
        if dtype is not None:
            return np.array(data, dtype=dtype)
        if isinstance(data, (np.ndarray, np.generic)):
            return np.array(data)
        arr = np.array(data)
        if arr.dtype.kind == "O":  # e.g. a list of Tensors
            arr = np.array([np.asarray(getattr(d, "_data", d)) for d in data])
    except ValueError as e:  # ragged nested lists, strings with a float dtype, ...
        raise ValueError(f"cannot make a tensor from this data ({data!r:.60}): {e}") from None
    except TypeError as e:
        raise TypeError(
            f"cannot make a tensor from {type(data).__name__} data ({data!r:.60}): {e}"
        ) from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"cannot make a tensor from data of dtype {arr.dtype} ({data!r:.60})")
    return arr.astype(dtypes.default_float) if arr.dtype == np.float64 else arr


def check_can_require_grad(dtype: np.dtype) -> None:
    """Only floating-point tensors can require gradients."""
    if dtype.kind != "f":
        raise TypeError(
            f"only floating-point tensors can require gradients, but this tensor has dtype "
            f"{dtype}; create it with dtype=tg.float32 (or call .astype(tg.float32)) first"
        )


class Size(int):
    """`t.size` is the number of elements (NumPy); `t.size(dim)` / `t.size()` as in PyTorch."""

    _shape: tuple

    def __new__(cls, n: int, shape: tuple) -> "Size":
        obj = super().__new__(cls, n)
        obj._shape = shape
        return obj

    @overload
    def __call__(self, dim: None = None) -> tuple[int, ...]: ...
    @overload
    def __call__(self, dim: int) -> int: ...
    def __call__(self, dim: int | None = None) -> tuple[int, ...] | int:
        return self._shape if dim is None else self._shape[dim]


# The classes of operands that coerce() returns as they are: Python numbers and every tensor class
# (each subclass of TensorBase adds itself as it is defined). Operators test `other.__class__ in
# AS_IS` first, which spares the commonest operands a coerce() call.
AS_IS: set[type] = {float, int}


class TensorBase:
    """The storage and bookkeeping every Tensor has (see Tensor for the ops)."""

    if TYPE_CHECKING:  # (Tensor defines it; .data below calls it)

        @staticmethod
        def _make(data: np.ndarray, grad_fn: Node | None = None) -> Tensor:
            """The fast constructor: wraps `data` as it is."""

    # The slots: the array; requires_grad; the node that made it (None: a leaf); .grad; the
    # version counter shared with views (None until an in-place op or a view needs one); hooks
    # of a leaf; retain_grad(); the last in-place op (for messages); (root, view ops) of a view;
    # weak references to a root's views; the name.
    _data: np.ndarray
    _requires_grad: bool
    _grad_fn: Any
    _grad: Any
    _vc: Any
    _hooks: list
    _retains_grad: bool
    _inplace_op: str
    _base: Any
    _views: list
    _name: str | None

    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad_fn",
        "_grad",
        "_vc",
        "_hooks",
        "_retains_grad",
        "_inplace_op",
        "_base",
        "_views",
        "_name",
        "__weakref__",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        AS_IS.add(cls)

    def __init__(
        self, data: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
    ) -> None:
        arr = as_array(data, dtype)
        if arr.__class__ is BatchedArray:  # (inside vmap: one value per example)
            from .batched import BatchedTensor  # (the class above this one, made on use)

            self.__class__ = BatchedTensor
        self._data = arr
        self._grad_fn = None
        self._requires_grad = False
        self._vc = None
        if requires_grad:
            check_can_require_grad(arr.dtype)
            self._requires_grad = True
        if name is not None:
            self.name = name

    # ---- attributes ----------------------------------------------------------------------------
    @property
    def data(self) -> "Tensor":
        """A detached Tensor sharing this one's memory, as PyTorch's `.data`: changes made through
        it are not tracked (`p.data -= lr * p.grad`). `t.data = values` replaces the values.

        >>> tg.tensor([1.0, 2.0], requires_grad=True).data
        tensor([1., 2.])
        """
        if overrides[0] and state.strict_backward:
            self._leaving_tape(".data")
        return self._make(self._data)

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value._data if isinstance(value, TensorBase) else np.asarray(value)

    @property
    def name(self) -> str | None:
        """A name for drawings and explanations (None until set): `x.name = "x"`."""
        return getattr(self, "_name", None)

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"a tensor's name is a str (or None), got {type(value).__name__}")
        self._name = value

    if TYPE_CHECKING:

        @property
        def shape(self) -> tuple[int, ...]:
            """The sizes of the axes, a tuple."""

        @property
        def ndim(self) -> int:
            """The number of axes."""

        @property
        def dtype(self) -> np.dtype:
            """The element type (a NumPy dtype)."""

    else:  # (attrgetter: read without a Python frame; rules read these on every recorded backward)
        shape = property(attrgetter("_data.shape"), doc="The sizes of the axes, a tuple.")
        ndim = property(attrgetter("_data.ndim"), doc="The number of axes.")
        dtype = property(attrgetter("_data.dtype"), doc="The element type (a NumPy dtype).")

    @property
    def device(self) -> devices.device:
        """Where the tensor lives: always `device(type='cpu')` (tapegrad computes with NumPy).

        >>> tg.zeros(2).device
        device(type='cpu')
        """
        return _CPU

    def dim(self) -> int:
        """The number of axes (PyTorch's name)."""
        return self._data.ndim

    ndimension = dim  # (PyTorch's older name)

    @property
    def is_cuda(self) -> bool:
        """False: tapegrad's tensors live on the CPU.

        >>> tg.zeros(1).is_cuda
        False
        """
        return False

    @property
    def is_cpu(self) -> bool:
        """True: tapegrad's tensors live on the CPU.

        >>> tg.zeros(1).is_cpu
        True
        """
        return True

    def get_device(self) -> int:
        """-1, PyTorch's answer for a tensor on the CPU.

        >>> tg.zeros(1).get_device()
        -1
        """
        return -1

    @property
    def nbytes(self) -> int:
        """The bytes the elements take (numel() * element_size()).

        >>> tg.zeros(2, 3).nbytes
        24
        """
        return int(self._data.nbytes)

    @property
    def itemsize(self) -> int:
        """The bytes one element takes (element_size()).

        >>> tg.zeros(2, dtype=tg.float64).itemsize
        8
        """
        return int(self._data.itemsize)

    def stride(self, dim: int | None = None) -> Any:
        """The steps, in elements, between neighbours along each axis (one axis with dim).

        >>> tg.zeros(2, 3).stride(), tg.zeros(2, 3).t().stride()
        ((3, 1), (1, 3))
        """
        steps = tuple(s // self._data.itemsize for s in self._data.strides)
        if dim is None:
            return steps
        from .coerce import one_dim  # (coerce imports this module)

        return steps[one_dim(dim, max(self._data.ndim, 1), "stride")] if steps else 1

    def storage_offset(self) -> int:
        """Where the first element sits in the memory it shares with its base (in elements).

        >>> tg.arange(6.0)[2:].storage_offset()
        2
        """
        base, data = self._data, self._data
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base is data:
            return 0
        start = data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return int(start // data.itemsize)

    def data_ptr(self) -> int:
        """The address of the first element (equal for tensors sharing their first element).

        >>> x = tg.zeros(3); x.data_ptr() == x.view(3).data_ptr()
        True
        """
        return int(self._data.__array_interface__["data"][0])

    def is_same_size(self, other: "TensorBase") -> bool:
        """Whether other has this shape.

        >>> tg.zeros(2, 3).is_same_size(tg.ones(2, 3))
        True
        """
        return self._data.shape == other._data.shape

    @property
    def size(self) -> "Size":
        """The number of elements; `t.size(dim)` and `t.size()` work as in PyTorch."""
        return Size(self._data.size, self._data.shape)

    def numel(self) -> int:
        """The number of elements.

        >>> tg.zeros(2, 3).numel()
        6
        """
        return int(self._data.size)

    nelement = numel  # (PyTorch's older name, as makemore writes it)

    def element_size(self) -> int:
        """The size of one element in bytes (4 for float32).

        >>> tg.zeros(2).element_size()
        4
        """
        return int(self._data.itemsize)

    @property
    def requires_grad(self) -> bool:
        """Whether ops on this tensor are recorded (settable on leaves)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad of leaf tensors; this tensor was computed by "
                f"{self._grad_fn.name}. Use .detach() to get a tensor cut from the tape."
            )
        if flag:
            check_can_require_grad(self._data.dtype)
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set requires_grad in place and return self."""
        self.requires_grad = requires_grad
        return cast(Any, self)

    @property
    def grad(self) -> "Tensor | None":
        """The gradient accumulated by backward() (None before the first)."""
        grad = getattr(self, "_grad", None)
        # PyTorch warns only when there is nothing (backward(inputs=[t]) fills a non-leaf)
        if grad is None and self._grad_fn is not None and not getattr(self, "_retains_grad", False):
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed: "
                "backward() does not fill it. Call .retain_grad() on the tensor before backward() "
                "to keep its gradient (or use tg.autograd.grad).",
                UserWarning,
                stacklevel=2,
            )
        return grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError(f"grad must be a Tensor or None, got {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"assigned grad has shape {list(value.shape)}, but the tensor "
                    f"has shape {list(self.shape)}; they must match"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for leaves); its name reads like `MulBackward`."""
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors no recorded op made (what backward() fills .grad of)."""
        return self._grad_fn is None

    @property
    def _version(self) -> int:
        vc = self._vc
        return vc[0] if vc is not None else 0

    def _version_counter(self) -> list:
        """The counter bumped by in-place ops (a list shared with views), made on first use. An
        op's output whose node keeps it (a rule reads `out`) shares it with that node, which
        checks it at backward: every in-place change reaches the memory through this call, and
        the history moves on (set_history, detach_) only after it made the counter."""
        vc = self._vc
        if vc is None:
            with _COUNTER_LOCK:  # two threads must not each make their own
                vc = self._vc
                if vc is None:
                    node = self._grad_fn
                    if node is not None and node.out_data is self._data:
                        vc = node.out_vc = node.out_vc or [0]
                    else:
                        vc = [0]
                    self._vc = vc
        return vc

    @property
    def retains_grad(self) -> bool:
        """Whether retain_grad() was called on this non-leaf tensor."""
        return getattr(self, "_retains_grad", False)

    def _leaving_tape(self, how: str) -> None:
        """Inside a custom Function's backward recorded for create_graph, taking a tensor on the
        tape off it would make its second derivative a silent zero: a clear error instead. So does
        taking off it what .detach() made there of a tensor on the tape (`x.detach().numpy()`)."""
        if not self._requires_grad:
            if DETACHED_IN_BACKWARD.get(id(self)) is not self:
                return  # a constant: nothing is lost
            how = f".detach(), then {how}"
        raise RuntimeError(
            f"{state.strict_backward}.backward takes a tensor that is on the tape off it "
            f"({how}) while create_graph=True records the backward to differentiate it again: "
            f"that derivative would be silently lost. Write backward with tapegrad ops (no "
            f".numpy(), .item(), .data or NumPy on the values, even after .detach()); a value "
            f"meant to be a constant can stay a tensor: x.detach()."
        )

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __reduce_ex__(self, protocol: Any) -> Any:
        if self._grad_fn is not None:  # (the tape is no data: a copy or a pickle of a result is a
            # new leaf with its values, as PyTorch's copy.copy and pickle give)
            return (_leaf_of, (type(self), np.array(self._data), self._requires_grad))
        return super().__reduce_ex__(protocol)

    def __deepcopy__(self, memo: dict) -> Any:
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol: this one has a grad_fn; deepcopy x.detach() (or x.detach().clone()) "
                "instead"
            )
        # (a leaf: what copy.deepcopy does without this method, its reduction rebuilt deeply)
        reduced: Any = super().__reduce_ex__(4)  # (copyreg's (__newobj__, (cls,), state, ...))
        rebuild, args, state = reduced[:3]
        out = rebuild(*args)
        memo[id(self)] = out
        fields, slots = state if isinstance(state, tuple) else (state, None)
        for name, value in {**(fields or {}), **(slots or {})}.items():
            object.__setattr__(out, name, copy.deepcopy(value, memo))
        return out

    def __repr__(self) -> str:
        data = self._data
        # as PyTorch: the default dtypes (the default float dtype, and int64 and bool when there
        # are values) unsaid
        shown = () if data.size == 0 else _UNSAID_DTYPES
        extras = (
            []
            if data.dtype == dtypes.default_float or data.dtype in shown
            else [f"dtype={data.dtype.name}"]
        )
        if self._grad_fn is not None:
            extras.append(f"grad_fn=<{self._grad_fn.name}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return tensor_repr(data, extras)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # as PyTorch: a 0-d tensor formats its number (f"{t}" -> 2.4543561935424805, f"{t:.4f}");
        # any other prints as it is, and has no format spec
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:
            raise TypeError(
                f"unsupported format string {spec!r} passed to Tensor.__format__: only a 0-d "
                f"tensor formats as a number; this one has shape {list(self._data.shape)} (format "
                f"t.item() for one element, or each element)"
            )
        return repr(self)


def _leaf_of(cls: type, data: np.ndarray, requires_grad: bool) -> Any:
    """A pickled or copied result of an op, rebuilt as a leaf of its values (pickle calls it)."""
    return cls(data, requires_grad=requires_grad)
