"""The scatter family: values written or added at indices, out of place and in place: scatter and
scatter_add (positions along dim given per element, as gather's inverse), index_copy, index_add
and index_fill (whole slices along dim), masked_scatter, and select_scatter, slice_scatter and
diagonal_scatter (a view of a copy overwritten).

Layer L3: numpy, the rule table (index_put: a copy with some positions replaced; scatter_add:
values added into zeros), the storage base, `record.apply`, indexing.py's index checks and
writing.py (in-place forms). Gradients are theirs: a replaced position gives self no gradient and
the source its own; an added one gives both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from .._utils import ShapeError
from ..primitives import shape as S
from .base import TensorBase
from .coerce import as_tensor, one_dim
from .indexing import along_axis, bool_mask, fill_value, in_bounds, integer_index
from .record import apply
from .writing import unary_

if TYPE_CHECKING:
    from .tensor import Tensor


def positions(x: TensorBase, dim: int, index: Any, name: str) -> tuple[int, np.ndarray]:
    """scatter's axis and per-element index (as gather's: same number of dimensions, no larger
    than self off dim, in bounds)."""
    idx = integer_index(index, name)
    axis = one_dim(dim, max(x.ndim, 1), name)
    if idx.ndim != x.ndim:
        raise ShapeError(
            f"{name}: index has {idx.ndim} dimension(s) but the tensor has {x.ndim}; they must "
            f"have the same number"
        )
    for d, (n, m) in enumerate(zip(idx.shape, x.shape)):
        if d != axis and n > m:
            raise ShapeError(
                f"{name}: index has size {n} in dimension {d} but self only {m}; apart from dim, "
                f"index may not be larger than self"
            )
    in_bounds(idx, x.shape[axis] if x.ndim else 1, name, axis)
    return axis, idx


def source_part(src: Any, idx: np.ndarray, x: TensorBase, name: str) -> Any:
    """The part of src that index covers (its leading block of index's shape); a number fills
    index's shape in x's dtype."""
    if not isinstance(src, TensorBase):
        return np.full(idx.shape, src, dtype=x.dtype)
    if src.ndim != idx.ndim or any(n > m for n, m in zip(idx.shape, src.shape)):
        raise ShapeError(
            f"{name}: src of shape {list(src.shape)} must have index's number of dimensions and "
            f"be at least as large as index (shape {list(idx.shape)}) in each"
        )
    same_dtype(x, src, name)
    return cast("Tensor", src)[tuple(slice(0, n) for n in idx.shape)]


def same_dtype(x: TensorBase, src: TensorBase, name: str) -> None:
    """The values written must have self's dtype (no silent cast), as PyTorch requires."""
    if src.dtype != x.dtype:
        raise TypeError(
            f"{name}: self ({x.dtype}) and the source ({src.dtype}) must have the same dtype, "
            f"as in PyTorch; convert one (source.to(self.dtype))"
        )


def whole_slices(x: TensorBase, dim: int, index: Any, name: str) -> tuple[int, tuple]:
    """index_add/copy/fill's axis and index expression (whole slices at a 1-D index; a 0-d self
    is one element along its dim 0: the index expression is then Ellipsis-free `()` or empty)."""
    idx = integer_index(index, name, max_ndim=1).reshape(-1)
    axis = one_dim(dim, max(x.ndim, 1), name)
    in_bounds(idx, x.shape[axis] if x.ndim else 1, name, axis)
    if x.ndim == 0:  # (every entry names the one element: the whole tensor, or nothing)
        return axis, (np.ones((), dtype=bool),) if idx.size else (np.zeros((), dtype=bool),)
    return axis, (slice(None),) * axis + (idx,)


def check_source(x: TensorBase, source: Any, axis: int, count: int, name: str) -> Tensor:
    """A source with self's shape except `count` slices along axis."""
    src = as_tensor(source)
    want = list(x.shape)
    if want:
        want[axis] = count
    if list(src.shape) != want:
        raise ShapeError(
            f"{name}: source has shape {list(src.shape)}, expected {want} (self's shape with "
            f"as many slices along dim {axis} as index has entries)"
        )
    same_dtype(x, src, name)
    return src


def _view_replaced(x: TensorBase, src: Any, view: Callable[[Tensor], Tensor]) -> Tensor:
    """A copy of x whose view (a function of the copy) is overwritten with src, which must have
    the view's shape exactly (no broadcasting, as PyTorch); the copy_ is recorded, so src gets
    the view's gradient and x the rest."""
    out = cast("Tensor", x).clone()
    part, values = view(out), as_tensor(src)
    if values.shape != part.shape:
        raise ShapeError(
            f"expected src to have a size equal to the slice of self: src has shape "
            f"{list(values.shape)}, the slice {list(part.shape)}"
        )
    part.copy_(values)
    return out


class ScatterMixin(TensorBase):
    """The scatter methods of Tensor."""

    __slots__ = ()

    def scatter(
        self, dim: int, index: Any, src: Any = None, *, value: Any = None, reduce: str | None = None
    ) -> Tensor:
        """A copy of self with src[i][j] (or value) written at self[index[i][j]][j] (dim=0; and
        so on). Where index repeats a position, which write wins is unspecified, as in PyTorch.
        reduce="add" adds instead (scatter_add), "multiply" multiplies (no gradient: as PyTorch,
        which has none for it either).

        >>> tg.zeros(2, 3).scatter(0, tg.tensor([[1, 0, 1]]), tg.tensor([[5.0, 6.0, 7.0]]))
        tensor([[0., 6., 0.],
                [5., 0., 7.]])
        """
        if (src is None) == (value is None):
            raise TypeError("scatter: give exactly one of src (a tensor) and value (a number)")
        axis, idx = positions(self, dim, index, "scatter")
        part = source_part(src if value is None else value, idx, self, "scatter")
        if reduce is None:
            return apply(S.index_put, self, part, index=along_axis(idx, axis))
        if reduce == "add":
            added = apply(
                S.scatter_add, as_tensor(part), shape=self.shape, index=along_axis(idx, axis)
            )
            return cast("Tensor", self) + added
        if reduce != "multiply":
            raise ShapeError(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r}")
        if self._requires_grad or getattr(part, "_requires_grad", False):
            raise RuntimeError(
                "scatter(reduce='multiply') has no gradient (as in PyTorch); compute it under "
                "tg.no_grad(), or multiply by a scattered tensor of factors instead"
            )
        out = self._data.copy()
        np.multiply.at(out, along_axis(idx, axis), getattr(part, "_data", part))
        return as_tensor(out)

    def scatter_add(self, dim: int, index: Any, src: Any) -> Tensor:
        """self plus src[i][j] added at [index[i][j]][j] (dim=0; and so on); repeats add up.

        >>> tg.zeros(3).scatter_add(0, tg.tensor([0, 2, 0]), tg.tensor([1.0, 2.0, 3.0]))
        tensor([4., 0., 2.])
        """
        axis, idx = positions(self, dim, index, "scatter_add")
        part = source_part(as_tensor(src), idx, self, "scatter_add")
        added = apply(S.scatter_add, part, shape=self.shape, index=along_axis(idx, axis))
        return cast("Tensor", self) + added

    def index_copy(self, dim: int, index: Any, source: Any) -> Tensor:
        """A copy of self with the slices at index along dim replaced by source's slices in turn.

        >>> tg.zeros(3, 2).index_copy(0, tg.tensor([2, 0]), tg.tensor([[1.0, 1.0], [2.0, 2.0]]))
        tensor([[2., 2.],
                [0., 0.],
                [1., 1.]])
        """
        axis, where = whole_slices(self, dim, index, "index_copy")
        src = check_source(self, source, axis, where[-1].size, "index_copy")
        return apply(S.index_put, self, src, index=where)

    def index_add(self, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:
        """self plus alpha * source's slices added at the slices `index` names along dim (repeats
        add up).

        >>> tg.zeros(3).index_add(0, tg.tensor([0, 0, 2]), tg.tensor([1.0, 2.0, 5.0]))
        tensor([3., 0., 5.])
        """
        axis, where = whole_slices(self, dim, index, "index_add")
        src = check_source(self, source, axis, where[-1].size, "index_add")
        src = src if alpha == 1 else src * alpha
        return cast("Tensor", self) + apply(S.scatter_add, src, shape=self.shape, index=where)

    def index_fill(self, dim: int, index: Any, value: Any) -> Tensor:
        """A copy of self with the slices at index along dim filled with value (a number or a 0-d
        tensor, which then gets their gradient).

        >>> tg.ones(2, 3).index_fill(1, tg.tensor([0, 2]), -1.0)
        tensor([[-1.,  1., -1.],
                [-1.,  1., -1.]])
        """
        _, where = whole_slices(self, dim, index, "index_fill")
        if where[-1].dtype.kind in "iu":  # (a slice filled twice gives value one gradient)
            where = where[:-1] + (np.unique(where[-1] % max(self.shape[len(where) - 1], 1)),)
        return apply(S.index_put, self, fill_value(self, value), index=where)

    def masked_scatter(self, mask: Any, source: Any) -> Tensor:
        """A copy of self with source's first elements, in order, written where the mask (broadcast
        to self's shape) is true.

        >>> tg.zeros(4).masked_scatter(tg.tensor([True, False, True, False]), tg.tensor([1.0, 2.0]))
        tensor([1., 0., 2., 0.])
        """
        m = bool_mask(mask, "masked_scatter")
        shape = np.broadcast_shapes(self.shape, m.shape)
        x = cast("Tensor", self) if self.shape == shape else cast("Tensor", self).expand(*shape)
        m, src = np.broadcast_to(m, shape), as_tensor(source)
        count = int(m.sum())
        if src.numel() < count:
            raise ShapeError(
                f"masked_scatter: source has {src.numel()} elements, the mask selects {count}; "
                f"source needs at least as many"
            )
        same_dtype(x, src, "masked_scatter")
        values = src.reshape(-1)[:count]
        return apply(S.index_put, x, values, index=np.nonzero(m))

    def index_put(self, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
        """A copy of self with self[indices] = values (indices: a tuple of index tensors, as
        PyTorch's), or += values with accumulate=True (repeats add up).

        >>> tg.zeros(3).index_put((tg.tensor([0, 2]),), tg.tensor([5.0, 6.0]))
        tensor([5., 0., 6.])
        """
        index = tuple(i._data if isinstance(i, TensorBase) else np.asarray(i) for i in indices)
        src = (
            values if isinstance(values, TensorBase) else as_tensor(np.asarray(values, self.dtype))
        )
        same_dtype(self, src, "index_put")
        if not accumulate:
            return apply(S.index_put, self, src, index=index)
        part = cast("Tensor", src).expand(*np.shape(np.empty(self.shape, dtype=bool)[index]))
        return cast("Tensor", self) + apply(S.scatter_add, part, shape=self.shape, index=index)

    def put(self, index: Any, source: Any, accumulate: bool = False) -> Tensor:
        """A copy of self with its flattened elements at index set to source's (or added).

        >>> tg.zeros(2, 2).put(tg.tensor([3]), tg.tensor([9.0]))
        tensor([[0., 0.],
                [0., 9.]])
        """
        idx = integer_index(index, "put")
        in_bounds(idx, self._data.size, "put", 0)
        flat = cast("Tensor", self).reshape(-1)
        src = as_tensor(source).reshape(-1)
        if src.numel() != idx.size:
            raise ShapeError(
                f"put: source has {src.numel()} elements, index {idx.size}; they must match"
            )
        return flat.index_put((idx.reshape(-1),), src, accumulate).reshape(*self.shape)

    # ---- a whole view replaced (PyTorch casts src to self's dtype here) -----------------------
    def select_scatter(self, src: Any, dim: int, index: int) -> Tensor:
        """A copy of self with its select(dim, index) slice replaced by src (of that shape).

        >>> tg.zeros(2, 2).select_scatter(tg.ones(2), 0, 1)
        tensor([[0., 0.],
                [1., 1.]])
        """
        return _view_replaced(self, src, lambda out: out.select(dim, index))

    def slice_scatter(
        self,
        src: Any,
        dim: int = 0,
        start: int | None = None,
        end: int | None = None,
        step: int = 1,
    ) -> Tensor:
        """A copy of self with the slice start:end:step along dim replaced by src (of its shape).

        >>> tg.zeros(3).slice_scatter(tg.ones(2), start=1)
        tensor([0., 1., 1.])
        """
        if step <= 0:
            raise ShapeError(f"slice_scatter: slice step must be positive, got {step}")
        axis = one_dim(dim, max(self.ndim, 1), "slice_scatter")
        where = (slice(None),) * axis + (slice(start, end, step),)
        return _view_replaced(self, src, lambda out: out[where])

    def diagonal_scatter(self, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """A copy of self with its diagonal(offset, dim1, dim2) replaced by src (of its shape).

        >>> tg.zeros(2, 2).diagonal_scatter(tg.ones(2))
        tensor([[1., 0.],
                [0., 1.]])
        """
        return _view_replaced(self, src, lambda out: out.diagonal(offset, dim1, dim2))

    # ---- in place -----------------------------------------------------------------------------
    def scatter_(
        self, dim: int, index: Any, src: Any = None, *, value: Any = None, reduce: str | None = None
    ) -> Tensor:
        """scatter in place.

        >>> x = tg.zeros(3); x.scatter_(0, tg.tensor([2]), value=1.0)
        tensor([0., 0., 1.])
        """
        kept = {"src": src, "value": value, "reduce": reduce}
        return unary_(self, "scatter_", lambda old, _: as_tensor(old).scatter(dim, index, **kept))

    def scatter_add_(self, dim: int, index: Any, src: Any) -> Tensor:
        """scatter_add in place.

        >>> x = tg.zeros(2); x.scatter_add_(0, tg.tensor([1, 1]), tg.tensor([1.0, 2.0]))
        tensor([0., 3.])
        """
        return unary_(
            self, "scatter_add_", lambda old, s: as_tensor(old).scatter_add(dim, index, s), src
        )

    def index_copy_(self, dim: int, index: Any, source: Any) -> Tensor:
        """index_copy in place.

        >>> x = tg.zeros(2); x.index_copy_(0, tg.tensor([1]), tg.tensor([5.0]))
        tensor([0., 5.])
        """
        return unary_(
            self, "index_copy_", lambda old, s: as_tensor(old).index_copy(dim, index, s), source
        )

    def index_add_(self, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:
        """index_add in place.

        >>> x = tg.zeros(2); x.index_add_(0, tg.tensor([1, 1]), tg.tensor([1.0, 2.0]))
        tensor([0., 3.])
        """
        return unary_(
            self,
            "index_add_",
            lambda old, s: as_tensor(old).index_add(dim, index, s, alpha=alpha),
            source,
        )

    def index_fill_(self, dim: int, index: Any, value: Any) -> Tensor:
        """index_fill in place.

        >>> x = tg.ones(3); x.index_fill_(0, tg.tensor([1]), 0.0)
        tensor([1., 0., 1.])
        """
        return unary_(
            self, "index_fill_", lambda old, v: as_tensor(old).index_fill(dim, index, v), value
        )

    def masked_scatter_(self, mask: Any, source: Any) -> Tensor:
        """masked_scatter in place.

        >>> x = tg.zeros(2); x.masked_scatter_(tg.tensor([False, True]), tg.tensor([7.0]))
        tensor([0., 7.])
        """
        return unary_(
            self, "masked_scatter_", lambda old, s: as_tensor(old).masked_scatter(mask, s), source
        )

    def index_put_(self, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
        """index_put in place.

        >>> x = tg.zeros(3); x.index_put_((tg.tensor([1]),), tg.tensor(4.0))
        tensor([0., 4., 0.])
        """
        return unary_(
            self,
            "index_put_",
            lambda old, v: as_tensor(old).index_put(indices, v, accumulate),
            values,
        )

    def put_(self, index: Any, source: Any, accumulate: bool = False) -> Tensor:
        """put in place.

        >>> x = tg.zeros(3); x.put_(tg.tensor([2]), tg.tensor([1.0]), accumulate=True)
        tensor([0., 0., 1.])
        """
        return unary_(self, "put_", lambda old, s: as_tensor(old).put(index, s, accumulate), source)
