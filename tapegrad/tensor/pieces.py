"""Pieces of a tensor: split (by size or sizes), chunk, unbind, narrow, and NumPy's way to cut,
tensor_split (into n nearly equal parts, or at given indices) with hsplit, vsplit and dsplit. Every
piece is a view (basic indexing), on the tape behind the tensor.

Layer L3: numpy, the rule table's getitem, the storage base, `record.apply`, coerce.py and the
L0 axis helper; shape.py's `along` (the index of one position along an axis).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._utils import ShapeError, one_axis
from ..primitives import shape as S
from .base import TensorBase
from .coerce import one_dim
from .record import apply, mark_view
from .shape import along

if TYPE_CHECKING:
    from .tensor import Tensor


class PiecesMixin(TensorBase):
    """The methods of Tensor that cut it into pieces."""

    __slots__ = ()

    def split(
        self, split_size_or_sections: Any, axis: int = 0, *, dim: int | None = None
    ) -> tuple[Tensor, ...]:
        """Pieces of `split_size` along axis (PyTorch), or of the given sizes if a list.

        >>> [p.shape for p in tg.zeros(5).split(2)]
        [(2,), (2,), (1,)]
        """
        axis = one_axis(dim if dim is not None else axis, self.ndim)
        n = self.shape[axis]
        if isinstance(split_size_or_sections, int | np.integer):
            size = int(split_size_or_sections)
            if size <= 0:
                raise ShapeError(f"split size must be positive, got {size}")
            sizes = [min(size, n - s) for s in range(0, n, size)] or [0]  # (an empty axis: one
        else:  # empty piece, as PyTorch)
            sizes = [int(s) for s in split_size_or_sections]
            if sum(sizes) != n:
                raise ShapeError(f"split sizes {sizes} do not add up to the axis length {n}")
        pieces, start = [], 0
        for s in sizes:
            pieces.append(apply(S.getitem, self, index=along(axis, slice(start, start + s))))
            start += s
        return tuple(pieces)

    def chunk(self, chunks: int, axis: int = 0, *, dim: int | None = None) -> tuple[Tensor, ...]:
        """At most `chunks` pieces of equal size along axis (the last may be smaller), as PyTorch.

        >>> [p.shape for p in tg.zeros(5).chunk(2)]
        [(3,), (2,)]
        """
        if isinstance(chunks, bool) or not isinstance(chunks, int | np.integer) or chunks < 1:
            raise ShapeError(f"chunk needs a positive number of chunks, got {chunks!r}")
        axis = one_axis(dim if dim is not None else axis, self.ndim)
        return self.split(max(1, -(-self.shape[axis] // int(chunks))), axis)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along dim, that axis removed: a tuple of views (as PyTorch's).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).unbind(1)
        (tensor([1., 3.]), tensor([2., 4.]))
        """
        if self.ndim == 0:
            raise IndexError(
                f"unbind: dimension specified as {dim} but the tensor has no dimensions"
            )
        axis = one_dim(dim, self.ndim, "unbind")
        return tuple(apply(S.getitem, self, index=along(axis, i)) for i in range(self.shape[axis]))

    def narrow(self, dim: int, start: Any, length: int) -> Tensor:
        """The `length` elements from `start` along dim (a view sharing memory, as PyTorch's; a
        negative start counts from the end).

        >>> tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).narrow(1, 1, 2)
        tensor([[2., 3.],
                [5., 6.]])
        """
        if self.ndim == 0:
            raise ShapeError("narrow() cannot be applied to a 0-dim tensor")
        axis = one_dim(dim, self.ndim, "narrow")
        start = int(start._data.item() if isinstance(start, TensorBase) else start)
        length, size = int(length), self.shape[axis]
        if length < 0:
            raise ShapeError(f"narrow(): length must be non-negative, got {length}")
        if not -size <= start <= size:
            raise IndexError(
                f"narrow(): start out of range (expected to be in range of [{-size}, {size}], but "
                f"got {start})"
            )
        start = start + size if start < 0 else start
        if start + length > size:
            raise ShapeError(
                f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size}) of "
                f"dimension {axis}"
            )
        return apply(S.getitem, self, index=along(axis, slice(start, start + length)))

    def tensor_split(self, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
        """n pieces along dim as equal as can be (the first n % size one longer: np.array_split),
        or the pieces between the given indices (a list or 1-D tensor of positions).

        >>> [p.shape for p in tg.zeros(5).tensor_split(3)]
        [(2,), (2,), (1,)]
        """
        axis = one_dim(dim, self.ndim, "tensor_split")
        n = self.shape[axis]
        cuts = indices_or_sections
        cuts = cuts._data if isinstance(cuts, TensorBase) else cuts
        if isinstance(cuts, np.ndarray) and cuts.ndim == 0:
            cuts = int(cuts)
        if isinstance(cuts, int | np.integer) and not isinstance(cuts, bool):
            sections = int(cuts)
            if sections <= 0:
                raise ShapeError(
                    f"tensor_split: number of sections must be larger than 0, got {sections}"
                )
            size, longer = divmod(n, sections)
            bounds = np.cumsum([0] + [size + 1] * longer + [size] * (sections - longer))
        else:
            if np.ndim(cuts) > 1:  # (a nested list or a matrix: PyTorch refuses it, as here)
                raise ShapeError(
                    "tensor_split: the indices must be an int, a list of ints or a 0-D or 1-D "
                    f"tensor, got {np.ndim(cuts)} dimensions"
                )
            positions = [int(i) for i in np.asarray(cuts).reshape(-1)]
            bounds = np.array([0, *positions, n])
        pieces = []
        for start, stop in zip(bounds[:-1], bounds[1:]):
            start, stop = _clamped(int(start), n), _clamped(int(stop), n)
            pieces.append(apply(S.getitem, self, index=along(axis, slice(start, max(start, stop)))))
        return tuple(pieces)

    def hsplit(self, sections: Any) -> tuple[Tensor, ...]:
        """tensor_split along the columns (dim 1; dim 0 for a vector); an int must divide it.

        >>> [p.shape for p in tg.zeros(2, 4).hsplit(2)]
        [(2, 2), (2, 2)]
        """
        return self._split_exactly(sections, 1 if self.ndim > 1 else 0, "hsplit", 1)

    def vsplit(self, sections: Any) -> tuple[Tensor, ...]:
        """tensor_split along the rows (dim 0) of a tensor of 2 or more dimensions.

        >>> [p.shape for p in tg.zeros(4, 2).vsplit([1])]
        [(1, 2), (3, 2)]
        """
        return self._split_exactly(sections, 0, "vsplit", 2)

    def dsplit(self, sections: Any) -> tuple[Tensor, ...]:
        """tensor_split along the depth (dim 2) of a tensor of 3 or more dimensions.

        >>> [p.shape for p in tg.zeros(1, 1, 4).dsplit(2)]
        [(1, 1, 2), (1, 1, 2)]
        """
        return self._split_exactly(sections, 2, "dsplit", 3)

    def _split_exactly(self, sections: Any, axis: int, name: str, least: int) -> tuple[Tensor, ...]:
        if self.ndim < least:
            raise ShapeError(
                f"torch.{name} requires a tensor with at least {least} dimension(s), but got a "
                f"tensor with {self.ndim} dimensions"
            )
        if isinstance(sections, int | np.integer) and (
            sections == 0 or self.shape[axis] % sections
        ):
            raise ShapeError(
                f"torch.{name} attempted to split along dimension {axis}, but the size of the "
                f"dimension {self.shape[axis]} is not divisible by the split_size {sections}!"
            )
        return self.tensor_split(sections, axis)

    def split_with_sizes(self, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces of the given sizes along dim (they must add up to its length).

        >>> [p.shape for p in tg.zeros(5).split_with_sizes([2, 3])]
        [(2,), (3,)]
        """
        return self.split(list(split_sizes), dim)

    # (PyTorch's names for the same pieces)
    unsafe_split, unsafe_chunk, unsafe_split_with_sizes = split, chunk, split_with_sizes

    def narrow_copy(self, dim: int, start: Any, length: int) -> Tensor:
        """narrow, as a new tensor rather than a view.

        >>> tg.tensor([1.0, 2.0, 3.0]).narrow_copy(0, 1, 2)
        tensor([2., 3.])
        """
        return self.narrow(dim, start, length).clone()

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        """Every window of `size` elements along dimension, `step` apart, as a new last axis (a
        view: a write into it reaches self, as in PyTorch).

        >>> tg.arange(5.0).unfold(0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
        """
        axis = one_dim(dimension, max(self.ndim, 1), "unfold")
        n = self.shape[axis] if self.ndim else 1
        if size < 0 or size > n:
            raise ShapeError(
                f"unfold: maximum size for tensor at dimension {axis} is {n} but size is {size}"
            )
        if step <= 0:
            raise ShapeError(f"unfold: step is {step} but must be > 0")
        x = cast("Tensor", self) if self.ndim else cast("Tensor", self).reshape(1)
        count = (n - size) // step + 1
        index = _window_index(x.shape, axis, np.arange(count) * step, size)
        out = x[index]  # (recorded: its gradient adds each window back)
        if self.ndim and x._data.__class__ is np.ndarray and count and size:  # (a view)
            strides = x._data.strides
            view_strides = (
                *strides[:axis],
                strides[axis] * step,
                *strides[axis + 1 :],
                strides[axis],
            )
            out._data = np.lib.stride_tricks.as_strided(x._data, out.shape, view_strides)
            mark_view(out, x, S.getitem, {"index": index})
        return out if self.ndim else out.reshape(size)  # (a 0-d tensor: one window, as PyTorch)


def _clamped(position: int, n: int) -> int:
    """A cut position as NumPy's array_split reads it (negative from the end, past n is n)."""
    position = position + n if position < 0 else position
    return min(max(position, 0), n)


def _window_index(shape: tuple, axis: int, starts: np.ndarray, size: int) -> tuple:
    """The advanced index whose x[index] is unfold's result: axis replaced by the windows'
    starts, every other axis in place, the window's offsets as a new last axis."""
    ndim = len(shape) + 1
    index = []
    for k, n in enumerate(shape):
        at = [1] * ndim
        at[k] = n if k != axis else len(starts)
        positions = np.arange(n) if k != axis else starts
        if k == axis:
            last = [1] * ndim
            last[-1] = size
            index.append(positions.reshape(at) + np.arange(size).reshape(last))
        else:
            index.append(positions.reshape(at))
    return tuple(index)
