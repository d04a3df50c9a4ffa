"""Indexing: `t[index]` (basic and advanced, PyTorch's order for ints mixed with arrays), iteration
over the first axis, gather and masked_fill. (Writing through an index, `t[index] = v`, is in
place: inplace.py.)

Layer L3: numpy, the rule table, the storage base, `record.apply` and coerce.py. Picking elements
is getitem with an advanced index, whose gradient is a scatter-add to the picked positions; masking
is `where`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, cast

import numpy as np

from ..primitives import elementwise as E
from ..primitives import shape as S
from .base import TensorBase
from .coerce import normalize_index, one_dim, split_int_indices
from .record import apply

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


def fill_value(x: TensorBase, value: Any) -> Any:
    """A fill value in x's dtype: a number (as a 0-d array), or a 0-d tensor (kept on the tape, so
    a value that requires grad gets its gradient)."""
    if isinstance(value, TensorBase):
        if value.ndim != 0:
            raise ValueError(
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
            raise ValueError(
                f"gather: index has {idx.ndim} dimension(s) but the tensor has {self.ndim}; "
                f"they must have the same number"
            )
        axis = one_dim(dim, self.ndim, "gather")
        for d, (n, m) in enumerate(zip(idx.shape, self.shape)):
            if d != axis and n > m:
                raise ValueError(
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
