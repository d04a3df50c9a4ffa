"""Views by explicit geometry: as_strided (sizes, strides in elements and a storage offset, on the
memory the tensor shares with its base, as PyTorch's), as_strided_scatter and resize_ /
resize_as_ (a new shape over the same memory). new_empty_strided (fresh memory in a given layout)
is with the other new_* factories in conversion.py.

Layer L3: numpy, the rule table (getitem: the view's elements picked from self, so the gradient
adds back into the elements read, PyTorch's for a tensor whose elements do not overlap) and
record.py's `mark_view` (the result is a real view: writes into it reach self).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy as np

from ..primitives import shape as S
from .base import TensorBase
from .coerce import as_tensor
from .record import mark_view

if TYPE_CHECKING:
    from .tensor import Tensor


def _storage(x: TensorBase) -> np.ndarray:
    """The whole memory x's array lies in, as a flat array (the owner of its `.base` chain)."""
    owner = x._data
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner.base is not None or not owner.flags.c_contiguous or owner.dtype != x._data.dtype:
        raise RuntimeError(
            "as_strided: this tensor's memory is not one dense block of its dtype that tapegrad "
            "knows the start of (it came from a broadcast, a strided trick or another library's "
            "buffer); call it on x.contiguous()"
        )
    return owner.reshape(-1)


def _geometry(size: Sequence[int], stride: Sequence[int], offset: int, room: int) -> np.ndarray:
    """The storage position of each element of the view (checked: no negative stride or offset,
    nothing past the storage's `room` elements)."""
    size, stride = [int(n) for n in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(
            f"as_strided: mismatch in length of strides ({len(stride)}) and shape ({len(size)})"
        )
    if any(s < 0 for s in stride) or any(n < 0 for n in size):
        raise RuntimeError(
            f"as_strided: negative sizes or strides are not supported: {size}, {stride}"
        )
    if offset < 0:
        raise RuntimeError(f"as_strided: invalid storage offset {offset}")
    positions = np.full(size, offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        positions = positions + np.arange(n, dtype=np.int64).reshape(shape) * s
    end = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if positions.size else 0
    if end > room:
        raise RuntimeError(
            f"as_strided: sizes {size}, strides {stride} and storage offset {offset} need a "
            f"storage of {end} elements, but this tensor's has {room}"
        )
    return positions


class StridedMixin(TensorBase):
    """The explicit-geometry view methods of Tensor."""

    __slots__ = ()

    def as_strided(
        self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        """A view of self's memory with the given sizes, strides (in elements) and storage offset
        (default: self's); it may read only self's own elements, each once in self.

        >>> tg.arange(6.0).as_strided((2, 2), (1, 2), 1)
        tensor([[1., 3.],
                [2., 4.]])
        """
        storage = _storage(self)
        offset = self.storage_offset() if storage_offset is None else int(storage_offset)
        positions = _geometry(size, stride, offset, storage.size)
        # which element of self sits at each storage position (-1: none of self's)
        own = np.full(storage.size, -1, dtype=np.int64)
        start = self.storage_offset()
        mine = np.full(self.shape, start, dtype=np.int64)
        for axis, s in enumerate(self.stride()):
            shape = [1] * self.ndim
            shape[axis] = self.shape[axis]
            mine = mine + np.arange(self.shape[axis], dtype=np.int64).reshape(shape) * s
        if np.unique(mine).size != mine.size:
            raise RuntimeError(
                "as_strided: self's elements overlap in memory (an expanded tensor); call it on "
                "x.contiguous()"
            )
        own[mine.reshape(-1)] = np.arange(mine.size)
        picked = own[positions]
        if (picked < 0).any():
            raise RuntimeError(
                "as_strided: the view would read memory outside this tensor's own elements; call "
                "it on the tensor that owns the memory (its base), or on x.contiguous()"
            )
        index = np.unravel_index(picked, self.shape) if self.ndim else (Ellipsis,)
        out = cast("Tensor", self)[index]  # (recorded: its gradient adds back where it read)
        if offset <= storage.size and out._data.__class__ is np.ndarray:  # (a real view)
            item = storage.itemsize  # (np.ndarray on the owner, not stride_tricks: its .base
            # is then the owner, which storage_offset() and data_ptr() follow)
            out._data = np.ndarray(
                positions.shape,
                storage.dtype,
                buffer=storage.base if storage.base is not None else storage,
                offset=offset * item,
                strides=tuple(int(s) * item for s in stride),
            )
            mark_view(out, cast("Tensor", self), S.getitem, {"index": index})
        return out

    def as_strided_(
        self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        """as_strided in place: self becomes that view of its memory (not on a tensor that
        requires grad, whose recorded shape would no longer be its own).

        >>> x = tg.arange(4.0); x.as_strided_((2,), (2,))
        tensor([0., 2.])
        """
        if self._requires_grad:
            raise RuntimeError(
                "as_strided_: not on a tensor that requires grad (its recorded shape would no "
                "longer be its own); use the out-of-place as_strided"
            )
        self._data = self.as_strided(size, stride, storage_offset)._data
        return cast("Tensor", self)

    def resize_(self, *sizes: Any, memory_format: Any = None) -> Tensor:
        """self reshaped in place to `sizes` over its memory read in storage order (PyTorch's):
        shrinking keeps the first elements (a view of the same memory), growing adds zeros
        (PyTorch: uninitialised). Not on a tensor that requires grad, as PyTorch.

        >>> x = tg.arange(6.0); x.resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
        """
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        shape = tuple(sizes[0]) if len(sizes) == 1 and not np.isscalar(sizes[0]) else sizes
        shape = tuple(int(n) for n in shape)
        if any(n < 0 for n in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
        count = int(np.prod(shape))
        try:  # (the memory from self's first element on, in storage order)
            memory = _storage(self)[self.storage_offset() :]
        except RuntimeError:  # (memory tapegrad does not know the start of: self's elements)
            memory = self._data.reshape(-1)
        if count > memory.size:
            grown = np.zeros(count, dtype=self._data.dtype)
            grown[: memory.size] = memory
            memory = grown
        self._data = memory[:count].reshape(shape)
        self._version_counter()[0] += 1  # (anything saved from the old value is stale)
        return cast("Tensor", self)

    def resize_as_(self, the_template: TensorBase, memory_format: Any = None) -> Tensor:
        """resize_ to the_template's shape.

        >>> tg.zeros(4).resize_as_(tg.ones(2, 2)).shape
        (2, 2)
        """
        return self.resize_(the_template.shape)

    def as_strided_scatter(
        self,
        src: Any,
        size: Sequence[int],
        stride: Sequence[int],
        storage_offset: int | None = None,
    ) -> Tensor:
        """A copy of self (contiguous) with src written at the elements as_strided would view.

        >>> tg.zeros(4).as_strided_scatter(tg.ones(2), (2,), (2,))
        tensor([1., 0., 1., 0.])
        """
        out = cast("Tensor", self).contiguous().clone()
        part, values = out.as_strided(size, stride, storage_offset or 0), as_tensor(src)
        if values.shape != part.shape:
            raise RuntimeError(
                f"as_strided_scatter: src has shape {list(values.shape)}, the view "
                f"{list(part.shape)}; they must be equal"
            )
        part.copy_(values)
        return out
