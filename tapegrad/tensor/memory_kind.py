"""What kind of memory a tensor is in and how it is laid out, as PyTorch asks it: tapegrad's
tensors are dense (strided) NumPy arrays in ordinary CPU memory, so every such flag is False,
`layout` is tg.strided, and the calls that would move a tensor into other memory say so.

Layer L3: the devices module (tg.strided) and the storage base.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from .. import devices
from .base import TensorBase

if TYPE_CHECKING:
    from .tensor import Tensor


class MemoryKindMixin(TensorBase):
    """The memory-kind and layout queries of Tensor."""

    __slots__ = ()

    @property
    def layout(self) -> devices.layout:
        """tg.strided: a dense array with a step per axis (the only layout tapegrad has).

        >>> tg.zeros(2).layout
        tapegrad.strided
        """
        return devices.strided

    @property
    def is_sparse(self) -> bool:
        """False: tapegrad has no sparse tensors.

        >>> tg.zeros(2).is_sparse
        False
        """
        return False

    @property
    def is_quantized(self) -> bool:
        """False: tapegrad has no quantized tensors.

        >>> tg.zeros(2).is_quantized
        False
        """
        return False

    @property
    def is_meta(self) -> bool:
        """False: every tapegrad tensor holds its values (no meta device).

        >>> tg.zeros(2).is_meta
        False
        """
        return False

    @property
    def is_mkldnn(self) -> bool:
        """False: no MKL-DNN layout here.

        >>> tg.zeros(2).is_mkldnn
        False
        """
        return False

    @property
    def is_nested(self) -> bool:
        """False: tapegrad has no nested (ragged) tensors.

        >>> tg.zeros(2).is_nested
        False
        """
        return False

    @property
    def output_nr(self) -> int:
        """Which output of its op this tensor is: 0 (a leaf, or an op's first output).

        >>> (tg.ones(2, requires_grad=True) * 2).output_nr
        0
        """
        return 0

    def is_pinned(self, device: object = None) -> bool:
        """False: pinned (page-locked) memory serves copies to a GPU, which tapegrad has not.

        >>> tg.zeros(2).is_pinned()
        False
        """
        return False

    def is_shared(self) -> bool:
        """False: the memory is this process's own (share_memory_ does not move it).

        >>> tg.zeros(2).is_shared()
        False
        """
        return False

    def pin_memory(self, device: object = None) -> Tensor:
        """An error, as PyTorch's on a machine without an accelerator: pinning serves GPU copies.

        >>> tg.zeros(2).pin_memory()  # doctest: +SKIP
        """
        raise RuntimeError(
            "pin_memory: cannot access an accelerator device when none is available (tapegrad "
            "computes on the CPU); leave pin_memory() out (and DataLoader's pin_memory=False)"
        )

    def share_memory_(self) -> Tensor:
        """self, unchanged: tapegrad runs in one process, so there is nothing to share with.

        >>> x = tg.zeros(2); x.share_memory_() is x
        True
        """
        return cast("Tensor", self)
