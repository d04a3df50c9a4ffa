"""Indexing: `t[index]` (basic and advanced, PyTorch's order for ints mixed with arrays), iteration
over the first axis, gather, masked_fill, and PyTorch's named pickers (index_select, select,
masked_select, take_along_dim, repeat_interleave, nonzero, diagonal as a view). (Writing through an
index, `t[index] = v`, is in place: inplace.py; the scatter family is in scatter.py.)

Layer L3: numpy, the rule table, the storage base, `record.apply` and coerce.py. Picking elements
is getitem with an advanced index, whose gradient is a scatter-add to the picked positions; masking
is `where`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, cast

import numpy as np

from .._utils import ShapeError
from ..primitives import elementwise as E
from ..primitives import shape as S
from .base import TensorBase
from .coerce import normalize_index, one_dim, split_int_indices
from .record import apply, mark_view, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


def along_axis(indices: np.ndarray, axis: int) -> tuple:
    """The index that picks `indices` along `axis` (np.take_along_axis as an index expression)."""
    shape = indices.shape
    return tuple(
        indices
        if i == axis
        else np.arange(n).reshape((1,) * i + (n,) + (1,) * (len(shape) - i - 1))
        for i, n in enumerate(shape)
    )


def bool_mask(mask: Any, name: str) -> np.ndarray:
    """A mask argument as a bool array (any other dtype: a clear error)."""
    m = mask._data if isinstance(mask, TensorBase) else np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(
            f"{name}: the mask must be a boolean tensor, got dtype {m.dtype}; "
            f"compare to make one (e.g. x > 0, or mask != 0)"
        )
    return m


def integer_index(index: Any, name: str, max_ndim: int | None = None) -> np.ndarray:
    """An index argument as an integer array (a float or bool one: a clear error)."""
    idx = index._data if isinstance(index, TensorBase) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{name}: the index must be an integer tensor, got dtype {idx.dtype}")
    if max_ndim is not None and idx.ndim > max_ndim:
        raise ShapeError(f"{name}: the index must be 0-D or 1-D, got a {idx.ndim}-D index")
    return idx


def in_bounds(idx: np.ndarray, size: int, name: str, axis: int) -> None:
    """Every index in -size..size-1 (else PyTorch's IndexError, saying which)."""
    if idx.size and (idx.min() < -size or idx.max() >= size):
        bad = idx.min() if idx.min() < -size else idx.max()
        raise IndexError(f"{name}: index {bad} is out of range for dimension {axis} of size {size}")


def repeat_counts(repeats: Any, n: int) -> np.ndarray:
    """repeat_interleave's counts: one per element (an int for all), non-negative integers."""
    counts = repeats._data if isinstance(repeats, TensorBase) else np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise TypeError(
            f"repeat_interleave: repeats must be an int or a 1-D integer tensor, got {repeats!r}"
        )
    if counts.ndim == 1 and counts.size not in (1, n):
        raise ShapeError(
            f"repeat_interleave: repeats must have {n} elements (one each), got {counts.size}"
        )
    if (counts < 0).any():
        raise ShapeError("repeat_interleave: repeats can not be negative")
    return np.broadcast_to(counts.reshape(-1), (n,))


def fill_value(x: TensorBase, value: Any) -> Any:
    """A fill value in x's dtype: a number (as a 0-d array), or a 0-d tensor (kept on the tape, so
    a value that requires grad gets its gradient)."""
    if isinstance(value, TensorBase):
        if value.ndim != 0:
            raise ShapeError(
                f"masked_fill: the value must be a number or a 0-dimensional tensor, got a "
                f"tensor of shape {list(value.shape)}"
            )
        return cast("Tensor", value).astype(x.dtype)
    return np.asarray(value).astype(x.dtype)


class IndexingMixin(TensorBase):
    """The indexing methods of Tensor."""

    __slots__ = ()

    def __getitem__(self, index: Any) -> Tensor:
        index = normalize_index(index)
        steps = split_int_indices(index)
        if steps is not None:  # PyTorch's order: the ints first (a view), then the rest
            return self[steps[0]][steps[1]]
        return apply(S.getitem, self, index=index)

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def gather(self, dim: int, index: Any) -> Tensor:
        """out[i][j] = self[index[i][j]][j] for dim=0 (and so on): values picked along dim.

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).gather(1, tg.tensor([[1], [0]]))
        tensor([[2.],
                [3.]])
        """
        idx = index._data if isinstance(index, TensorBase) else np.asarray(index)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"gather: index must be an integer tensor, got dtype {idx.dtype}")
        if self.ndim <= 1 and idx.ndim <= 1 and 0 in (self.ndim, idx.ndim):  # (as PyTorch: a 0-d
            # tensor or index counts as 1-D; the result has the index's shape)
            one_dim(dim, 1, "gather")
            flat = cast("Tensor", self).reshape(-1)
            return flat.gather(0, idx.reshape(-1)).reshape(idx.shape)
        if idx.size == 0 and idx.ndim:  # (an empty index: an empty result of its shape, as PyTorch)
            one_dim(dim, max(self.ndim, 1), "gather")
            flat = cast("Tensor", self).reshape(-1)
            return apply(S.getitem, flat, index=np.zeros(idx.shape, dtype=np.int64))
        if idx.ndim != self.ndim:
            raise ShapeError(
                f"gather: index has {idx.ndim} dimension(s) but the tensor has {self.ndim}; "
                f"they must have the same number"
            )
        axis = one_dim(dim, self.ndim, "gather")
        for d, (n, m) in enumerate(zip(idx.shape, self.shape)):
            if d != axis and n > m:
                raise ShapeError(
                    f"gather: index has size {n} in dimension {d} but the tensor only {m}; apart "
                    f"from dim, index may not be larger than the tensor"
                )
        if idx.size and (idx.min() < 0 or idx.max() >= self.shape[axis]):
            bad = idx.min() if idx.min() < 0 else idx.max()
            raise IndexError(
                f"gather: index {bad} is out of bounds for dimension {axis} with size "
                f"{self.shape[axis]} (indices must be in 0..{self.shape[axis] - 1})"
            )
        return self[along_axis(idx, axis)]

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        """self with `value` where the boolean mask is true (mask broadcasts); the gradient flows to
        the other positions (and to value, if it is a tensor that requires grad).

        >>> tg.tensor([1.0, 2.0, 3.0]).masked_fill(tg.tensor([True, False, True]), 0.0)
        tensor([0., 2., 0.])
        """
        m = bool_mask(mask, "masked_fill")
        return apply(E.where, m, fill_value(self, value), self)

    # ---- picking along one axis (getitem with an index array: gradients scatter back) ----------
    def index_select(self, dim: int, index: Any) -> Tensor:
        """The slices at `index` (a 1-D integer tensor) along dim, in its order (repeats allowed).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).index_select(0, tg.tensor([1, 1, 0]))
        tensor([[3., 4.],
                [3., 4.],
                [1., 2.]])
        """
        idx = integer_index(index, "index_select", max_ndim=1).reshape(-1)
        axis = one_dim(dim, max(self.ndim, 1), "index_select")
        size = self.shape[axis] if self.ndim else 1
        in_bounds(idx, size, "index_select", axis)
        if self.ndim == 0:  # (a 0-d tensor is one element along its dim 0, as PyTorch)
            return cast("Tensor", self).reshape(1)[idx].reshape(())
        return self[(slice(None),) * axis + (idx,)]

    def select(self, dim: int, index: int) -> Tensor:
        """The slice at `index` along dim, that axis removed (a view: self.select(0, i) is self[i]).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).select(1, -1)
        tensor([2., 4.])
        """
        axis = one_dim(dim, self.ndim, "select")
        n = self.shape[axis]
        if (
            isinstance(index, bool)
            or not isinstance(index, int | np.integer)
            or not -n <= index < n
        ):
            raise IndexError(
                f"select(): index {index} out of range for tensor of size {list(self.shape)} at "
                f"dimension {axis}"
            )
        return self[(slice(None),) * axis + (int(index),)]

    def masked_select(self, mask: Any) -> Tensor:
        """The elements where the boolean mask (broadcast with self) is true, as a 1-D tensor.

        >>> tg.tensor([1.0, 2.0, 3.0]).masked_select(tg.tensor([True, False, True]))
        tensor([1., 3.])
        """
        m = bool_mask(mask, "masked_select")
        shape = np.broadcast_shapes(self.shape, m.shape)
        x = cast("Tensor", self)
        x = x if x.shape == shape else x.expand(*shape)
        return x[np.broadcast_to(m, shape)]

    def take_along_dim(self, indices: Any, dim: int | None = None) -> Tensor:
        """Values picked at `indices` along dim (self and indices broadcast on the other axes;
        dim None: from the flattened tensor), as np.take_along_axis.

        >>> tg.tensor([[10.0, 30.0, 20.0]]).take_along_dim(tg.tensor([[1, 2]]), dim=1)
        tensor([[30., 20.]])
        """
        idx = integer_index(indices, "take_along_dim")
        x = cast("Tensor", self)
        if dim is None:
            x, idx, axis = x.reshape(-1), idx.reshape(-1), 0
        axis = one_dim(dim, x.ndim, "take_along_dim") if dim is not None else 0
        in_bounds(idx, x.shape[axis], "take_along_dim", axis)
        idx = np.where(idx < 0, idx + x.shape[axis], idx)  # (negative indices count from the end)
        if dim is None:
            return x.gather(0, idx)
        if idx.ndim != x.ndim:
            raise ShapeError(
                f"take_along_dim: indices have {idx.ndim} dimension(s), the tensor {x.ndim}; they "
                f"must have the same number"
            )
        outer = [1 if d == axis else n for d, n in enumerate(x.shape)]
        other = [1 if d == axis else n for d, n in enumerate(idx.shape)]
        common = list(np.broadcast_shapes(tuple(outer), tuple(other)))
        x = x.expand(*[x.shape[d] if d == axis else common[d] for d in range(x.ndim)])
        idx = np.broadcast_to(
            idx, [idx.shape[d] if d == axis else common[d] for d in range(x.ndim)]
        )
        return x.gather(axis, idx)

    def repeat_interleave(
        self, repeats: Any, dim: int | None = None, *, output_size: int | None = None
    ) -> Tensor:
        """Each element (each slice along dim; dim None: of the flattened tensor) repeated
        `repeats` times (an int, or one count per element).

        >>> tg.tensor([1.0, 2.0]).repeat_interleave(tg.tensor([1, 3]))
        tensor([1., 2., 2., 2.])
        """
        x = cast("Tensor", self) if dim is not None else cast("Tensor", self).reshape(-1)
        axis = one_dim(0 if dim is None else dim, max(x.ndim, 1), "repeat_interleave")
        n = x.shape[axis] if x.ndim else 1
        counts = repeat_counts(repeats, n)
        idx = np.repeat(np.arange(n), counts)
        if output_size is not None and output_size != idx.size:
            raise ShapeError(
                f"repeat_interleave: output_size {output_size} does not match the repeats' sum "
                f"{idx.size}"
            )
        return x.index_select(axis, idx)

    def take(self, index: Any) -> Tensor:
        """The elements of the flattened self at index (an integer tensor; the result has its
        shape; negative indices count from the end).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).take(tg.tensor([0, 3]))
        tensor([1., 4.])
        """
        idx = integer_index(index, "take")
        in_bounds(idx, self._data.size, "take", 0)
        return cast("Tensor", self).reshape(-1)[idx]

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        """The indices of the non-zero elements: an int64 tensor of shape (count, ndim), or with
        as_tuple=True one 1-D tensor per axis (as NumPy's nonzero).

        >>> tg.tensor([[0.0, 1.0], [2.0, 0.0]]).nonzero()
        tensor([[0, 1],
                [1, 0]])
        """
        data = self._data if self.ndim else self._data.reshape(1)
        found = np.nonzero(data)
        if as_tuple:
            return tuple(wrap(i.astype(np.int64)) for i in found)
        count = found[0].size
        rows = np.stack(found, axis=1) if self.ndim else np.zeros((count, 0))
        return wrap(rows.astype(np.int64))

    def nonzero_static(self, *, size: int, fill_value: int = -1) -> Tensor:
        """nonzero() with exactly `size` rows: the first `size` found, or the rest filled with
        fill_value (a shape known before the values are, as PyTorch's).

        >>> tg.tensor([0, 1, 0, 2]).nonzero_static(size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
        """
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise ShapeError(f"nonzero_static: size must be a non-negative integer, got {size!r}")
        found = self.nonzero()._data[:size]
        rows = np.full((int(size), found.shape[1]), fill_value, dtype=np.int64)
        rows[: len(found)] = found
        return wrap(rows)

    def argwhere(self) -> Tensor:
        """nonzero(): the indices of the non-zero elements, one row each.

        >>> tg.tensor([0.0, 3.0, 4.0]).argwhere()
        tensor([[1],
                [2]])
        """
        return self.nonzero()

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The diagonal of the (dim1, dim2) planes (offset above, below if negative), as the last
        axis: a view, so writing into it writes into self, as in PyTorch.

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).diagonal()
        tensor([1., 4.])
        """
        a1, a2 = one_dim(dim1, self.ndim, "diagonal"), one_dim(dim2, self.ndim, "diagonal")
        if a1 == a2:
            raise ShapeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        n1, n2 = self.shape[a1], self.shape[a2]
        first, second = max(-offset, 0), max(offset, 0)  # (where the diagonal starts)
        length = max(0, min(n1 - first, n2 - second))
        others = [d for d in range(self.ndim) if d not in (a1, a2)]
        planes = cast("Tensor", self).permute(*others, a1, a2)
        index = (Ellipsis, np.arange(length) + first, np.arange(length) + second)
        out = planes[index]  # (recorded: its gradient scatters back to the diagonal)
        if length and planes._data.__class__ is np.ndarray:  # (share self's memory: a view)
            start = planes._data[..., first:, second:]
            strides = start.strides[:-2] + (start.strides[-2] + start.strides[-1],)
            out._data = np.lib.stride_tricks.as_strided(start, out.shape, strides)
            mark_view(out, planes, S.getitem, {"index": index})
        return out
