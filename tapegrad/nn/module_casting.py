"""A Module's dtype and device: to(), half/float/double, type(), and cpu()/share_memory() (the
CPU is the only device, so those two return the module as it is).

Layer L5: imports dtypes, tensor/coerce.py's to_dtype (PyTorch's to() arguments) and
nn/parameter.py (a lazy layer's uninitialized tensors take the dtype they will have).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from typing_extensions import Self

import numpy as np

from .. import dtypes as _dt
from ..tensor.coerce import to_dtype
from .parameter import UninitializedTensorMixin

if TYPE_CHECKING:
    from .module import Module


class CastingMixin:
    """Module's casting methods (Module inherits them)."""

    def to(self, *args: Any, dtype: Any = None, device: Any = None) -> Self:
        """Cast every parameter (and its grad) and every floating buffer to a floating dtype, e.g.
        `net.to(tg.float16)` (integer buffers such as num_batches_tracked keep theirs); a device
        may be given too, as in PyTorch, but only the CPU exists here (`net.to("cpu")`)."""
        dtype = to_dtype(args, dtype, device)
        if dtype is None:
            return self
        dtype = _dt.as_dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(f"parameters must stay floating point; cannot cast a Module to {dtype}")
        module = cast("Module", self)
        for p in module.parameters():
            if isinstance(p, UninitializedTensorMixin):  # (a lazy layer's: the dtype it will have)
                object.__setattr__(p, "_data", np.empty(0, dtype))
                continue
            p.data = p.numpy().astype(dtype)
            if p.grad is not None:
                p.grad = p.grad.detach().astype(dtype)
        for b in module.buffers():
            if isinstance(b, UninitializedTensorMixin):
                object.__setattr__(b, "_data", np.empty(0, dtype))
            elif b.dtype.kind == "f":
                b.data = b.numpy().astype(dtype)
        return self

    def half(self) -> Self:
        """Cast the parameters and floating buffers to float16."""
        return self.to(_dt.float16)

    def float(self) -> Self:
        """Cast the parameters and floating buffers to float32."""
        return self.to(_dt.float32)

    def double(self) -> Self:
        """Cast the parameters and floating buffers to float64."""
        return self.to(_dt.float64)

    def type(self, dst_type: Any) -> Self:
        """Cast every parameter and every buffer (integer ones too, as PyTorch) to dst_type.

        >>> tg.nn.BatchNorm1d(2).type(tg.float64).num_batches_tracked.dtype
        dtype('float64')
        """
        dtype = _dt.as_dtype(dst_type)
        if dtype.kind != "f":
            raise RuntimeError(
                f"cannot cast the parameters of {type(self).__name__} to {dtype}: parameters "
                f"must stay floating point"
            )
        self.to(dtype)
        for b in cast("Module", self).buffers():
            if b.dtype != dtype:
                b.data = b.numpy().astype(dtype)
        return self

    def cpu(self) -> Self:
        """self: every tensor is on the CPU already.

        >>> net = tg.nn.Linear(2, 1); net.cpu() is net
        True
        """
        return self

    def share_memory(self) -> Self:
        """self: PyTorch moves tensors to shared memory for worker processes; here it is a no-op.

        >>> net = tg.nn.Linear(2, 1); net.share_memory() is net
        True
        """
        return self
