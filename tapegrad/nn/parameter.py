"""Parameter: a named leaf Tensor that a Module registers and an optimizer updates; Buffer: a
tensor a Module registers as a buffer when assigned.

Layer L5: imports tensor.py, dtypes and the tape's grad mode only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._state import no_grad
from ..tensor import Tensor


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
