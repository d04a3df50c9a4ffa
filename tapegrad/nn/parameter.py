"""Parameter: a named leaf Tensor that a Module registers and an optimizer updates; Buffer: a
tensor a Module registers as a buffer when assigned; UninitializedParameter / UninitializedBuffer:
a Lazy module's tensors before its first forward tells their shapes.

Layer L5: imports tensor.py (and its coerce.py's to() checks), dtypes and the tape's grad mode.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import dtypes as _dt
from .._state import no_grad
from ..tensor import Tensor
from ..tensor.coerce import to_dtype


class Parameter(Tensor):
    """A trainable leaf tensor with a `name` (a copy of `data`; floating point only).

    >>> w = tg.nn.Parameter(tg.zeros(1, 3), name="fc.weight"); w.set_data(tg.tensor([[2., 3., 4.]]))
    Parameter(name=fc.weight, shape=(1, 3), dtype=float32, requires_grad=True)
    """

    # _auto_name: the name was not given explicitly, so the owning Module may set it to the
    # parameter's dotted path (`fc.weight`), as MindSpore does.
    __slots__ = ("_auto_name",)

    def __init__(self, data: Any, name: str | None = None, requires_grad: bool = True) -> None:
        super().__init__(
            data
        )  # Tensor() copies the data, so updates never alias the caller's array
        if self._data.dtype.kind != "f":
            raise TypeError(
                f"a Parameter needs floating-point data, got dtype {self._data.dtype}; create it "
                "from "
                f"float values or cast first (e.g. tg.tensor(data, dtype=tg.float32))"
            )
        self._name = name
        self._auto_name = name is None
        self.requires_grad = requires_grad

    @property
    def name(self) -> str | None:
        """The parameter's name: given explicitly, or its dotted path in the Module that owns it."""
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        self._name = value
        self._auto_name = False

    def set_data(self, data: Any) -> "Parameter":
        """Replace the values in place (same shape; cast to this dtype); not recorded."""
        arr = np.asarray(data._data if isinstance(data, Tensor) else data)
        if arr.shape != self.shape:
            raise ValueError(
                f"set_data: the new data has shape {arr.shape} but parameter "
                f"{self._name or '(unnamed)'} has shape "
                f"{self.shape}; the shape cannot change (create a new Parameter for a new shape)"
            )
        with no_grad():
            self.copy_(arr.astype(self.dtype))  # copy_ bumps the version: stale graphs are detected
        return self

    def __repr__(self) -> str:
        return (
            f"Parameter(name={self._name}, shape={self.shape}, dtype={self.dtype.name}, "
            f"requires_grad={self.requires_grad})"
        )

    __str__ = __repr__


class Buffer(Tensor):
    """A tensor a Module registers as a buffer when assigned as its attribute (PyTorch's
    nn.Buffer): state that is not a parameter, saved in state_dict() if `persistent`. It shares
    `data`'s memory, cut from the tape (requires_grad kept); no data: an empty tensor.

    >>> m = tg.nn.Module(); m.steps = tg.nn.Buffer(tg.zeros(1)); [n for n, _ in m.named_buffers()]
    ['steps']
    """

    __slots__ = ("persistent",)

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        if data is None:
            data = Tensor(np.empty(0, _dt.default_float))
        if not isinstance(data, Tensor):
            raise TypeError(
                f"nn.Buffer takes a tapegrad Tensor, got {type(data).__name__}; wrap the values "
                f"first: nn.Buffer(tg.tensor(...))"
            )
        # (as Tensor.detach: the same memory and version counter, no history; not Tensor's
        # constructor, which copies)
        self._data = data._data
        self._grad_fn = None
        self._vc = data._version_counter()
        self._requires_grad = data.requires_grad
        self.persistent = bool(persistent)


_UNINITIALIZED_MESSAGE = (
    "Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
    "`LazyModule` or explicitly manipulating `tg.nn.UninitializedParameter` objects. When using "
    "LazyModules call `forward` with a dummy batch to initialize the parameters before calling "
    "methods on them, or building an optimizer's step on them."
)
# What an uninitialized tensor answers (everything else is a clear ValueError): what a Module
# and an optimizer's constructor read, and its own methods
_UNINITIALIZED_ALLOWED = frozenset(
    {
        "__class__",
        "__deepcopy__",
        "_auto_name",
        "_grad",
        "_grad_fn",
        "_name",
        "_requires_grad",
        "cls_to_become",
        "dtype",
        "grad",
        "is_leaf",
        "materialize",
        "name",
        "persistent",
        "requires_grad",
        "requires_grad_",
        "shape",
    }
)


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: no values (only a dtype) until
    `materialize(shape)` gives them an (uninitialized) array of that shape and makes them the
    class `cls_to_become`. Any other use is a clear error, as PyTorch's.

    >>> p = tg.nn.UninitializedParameter(); p.materialize((2, 3)); type(p).__name__, p.shape
    ('Parameter', (2, 3))
    """

    __slots__ = ()
    cls_to_become: type

    def __getattribute__(self, name: str) -> Any:
        if name in _UNINITIALIZED_ALLOWED:
            return object.__getattribute__(self, name)
        raise ValueError(_UNINITIALIZED_MESSAGE.format(repr(name)))

    @property
    def dtype(self) -> np.dtype:
        """The dtype the values will have."""
        return cast(np.dtype, object.__getattribute__(self, "_data").dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        """Not known yet: PyTorch's RuntimeError."""
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes."
        )

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor an array of `shape` (its values uninitialized, as torch.empty's) and
        make it a `cls_to_become` (a Parameter, a Tensor).

        >>> b = tg.nn.UninitializedBuffer(); b.materialize(4); b.shape
        (4,)
        """
        to_dtype((), dtype, device)  # (a device other than the CPU: the clear error)
        old = object.__getattribute__(self, "_data")
        kind = _dt.as_dtype(dtype) if dtype is not None else old.dtype
        size = (shape,) if isinstance(shape, int) else tuple(shape)
        object.__setattr__(self, "_data", np.empty(size, kind))
        object.__setattr__(self, "__class__", object.__getattribute__(self, "cls_to_become"))

    def __deepcopy__(self, memo: dict) -> Any:
        kind = type(self)
        requires_grad = object.__getattribute__(self, "_requires_grad")
        dtype = object.__getattribute__(self, "_data").dtype
        copied = kind(requires_grad=requires_grad, dtype=dtype)  # type: ignore[call-arg]
        memo[id(self)] = copied
        return copied

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


def _uninitialized(made: Tensor, cls: type) -> Any:
    """`made` (a Parameter or Tensor with an empty array of the dtype) turned into `cls`."""
    object.__setattr__(made, "__class__", cls)
    return made


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a Lazy module's weight): it becomes a Parameter
    at the module's first forward.

    >>> tg.nn.LazyLinear(3).weight
    <UninitializedParameter>
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> Any:
        to_dtype((), dtype, device)
        kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        return _uninitialized(Parameter(np.empty(0, kind), requires_grad=requires_grad), cls)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass  # (made in __new__)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a Lazy batch norm's running_mean): it becomes a
    Tensor at the module's first forward.

    >>> tg.nn.LazyBatchNorm1d().running_mean
    <UninitializedBuffer>
    """

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> Any:
        to_dtype((), dtype, device)
        kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        made = Tensor(np.empty(0, kind))
        made.requires_grad = requires_grad
        return _uninitialized(made, cls)

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> None:
        pass  # (made in __new__)
