"""Shape and views: reshape/view, flatten, permute/transpose/T, squeeze/unsqueeze, expand, the
memory layout (contiguous, is_contiguous), and the ops that repeat or move a tensor (repeat, tile,
flip, roll, rot90). (Cutting it into pieces, split and narrow, is pieces.py.)

Layer L3: numpy, the rule table (its shape ops, and contiguous), the storage base, `record.apply`,
coerce.py and the L0 axis helpers. PyTorch's and NumPy's spellings both work: `t.reshape(2, 3)`
and `t.reshape((2, 3))`, `dim=` and `axis=`. Results that share memory with the tensor are views
(record.py marks them).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import devices
from .._utils import ShapeError, normalize_axis, one_axis, shape_args
from ..primitives import elementwise as E
from ..primitives import shape as S
from .base import TensorBase
from .coerce import one_dim, resolve_shape
from .record import apply

_SWAP = (1, 0)  # a matrix's transpose

if TYPE_CHECKING:
    from .tensor import Tensor


def along(axis: int, index: int | slice | np.ndarray) -> tuple:
    """The index that takes `index` along `axis` and everything along the other axes."""
    return (slice(None),) * axis + (index,)


class ShapeMixin(TensorBase):
    """The shape and view methods of Tensor."""

    __slots__ = ()

    # ---- the same elements in a new shape -----------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        """The same elements in a new shape: `t.reshape(2, 3)` or `t.reshape((2, 3))` (one size may
        be -1).

        >>> tg.arange(6).reshape(2, -1).shape
        (2, 3)
        """
        sizes = shape_args(shape)
        try:
            target = resolve_shape(self._data.size, sizes)
        except ValueError as e:
            raise ShapeError(
                f"cannot reshape a tensor of shape {list(self.shape)} ({self._data.size} "
                f"elements) into {list(sizes)}: {e}"
            ) from None
        if target == self._data.shape:
            return cast("Tensor", self)
        return apply(S.reshape, self, shape=target)

    def view(self, *shape: Any) -> Tensor:
        """reshape that shares memory, as PyTorch's (an error where a copy would be needed).

        >>> tg.zeros(2, 3).view(6).shape
        (6,)
        """
        out = self.reshape(*shape)
        if out is not self and self._data.size and not np.may_share_memory(out._data, self._data):
            raise RuntimeError(
                f"view: a tensor of shape {list(self.shape)} with strides "
                f"{list(self._data.strides)} cannot be viewed as {list(out.shape)} without a copy "
                f"(its memory is not laid out in that order); use .reshape(...) (which copies "
                f"when it must), or .contiguous() first"
            )
        return out

    # ---- memory layout -------------------------------------------------------------------------
    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Whether the elements lie in memory row by row, with no gaps (as a fresh tensor's do;
        a transpose or a slice with a step does not).

        >>> x = tg.zeros(2, 3); x.is_contiguous(), x.t().is_contiguous()
        (True, False)
        """
        check_memory_format("is_contiguous", memory_format, self.ndim)
        flags = getattr(self._data, "flags", None)  # (inside vmap: no layout to speak of)
        return True if flags is None else bool(flags.c_contiguous)

    def contiguous(self, memory_format: Any = None) -> Tensor:
        """self when its elements already lie row by row in memory, else a copy that does (on the
        tape: the gradient flows back unchanged), so that .view() can follow.

        >>> x = tg.zeros(2, 3).t(); x.contiguous().view(6).shape
        (6,)
        """
        check_memory_format("contiguous", memory_format, self.ndim)
        if self.is_contiguous() and self._data.__class__ is np.ndarray:
            return cast("Tensor", self)
        return apply(E.contiguous, self)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Axes start_dim..end_dim merged into one.

        >>> tg.zeros(2, 3, 4).flatten(1).shape
        (2, 12)
        """
        if self.ndim == 0:
            return self.reshape(1)
        s, e = one_axis(start_dim, self.ndim), one_axis(end_dim, self.ndim)
        if s > e:
            raise ShapeError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
        shape = self.shape
        return self.reshape(shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])

    def ravel(self) -> Tensor:
        """All elements in one axis (as flatten()).

        >>> tg.zeros(2, 3).ravel().shape
        (6,)
        """
        return self.reshape(-1)

    def unflatten(self, dim: int, sizes: Any) -> Tensor:
        """Axis `dim` split into `sizes` (one of them may be -1).

        >>> tg.zeros(2, 12).unflatten(1, (3, 4)).shape
        (2, 3, 4)
        """
        axis, sizes = one_axis(dim, self.ndim), shape_args((sizes,))
        return self.reshape(self.shape[:axis] + sizes + self.shape[axis + 1 :])

    def squeeze(self, axis: Any = None, *, dim: Any = None) -> Tensor:
        """Axes of size 1 removed (all, or those given).

        >>> tg.zeros(1, 3, 1).squeeze().shape
        (3,)
        """
        axes = normalize_axis(dim if axis is None else axis, self.ndim)
        if axes is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        return self.reshape(
            tuple(n for i, n in enumerate(self.shape) if not (i in axes and n == 1))
        )

    def unsqueeze(self, axis: int) -> Tensor:
        """A new axis of size 1 at `axis`.

        >>> tg.zeros(3).unsqueeze(0).shape
        (1, 3)
        """
        axis = one_axis(axis, self.ndim + 1)
        return self.reshape(self.shape[:axis] + (1,) + self.shape[axis:])

    expand_dims = unsqueeze

    # ---- the axes in another order -------------------------------------------------------------
    def permute(self, *dims: Any) -> Tensor:
        """The axes in a new order: `t.permute(1, 0)`.

        >>> tg.zeros(2, 3, 4).permute(2, 0, 1).shape
        (4, 2, 3)
        """
        axes = shape_args(dims)
        if sorted(a % max(self.ndim, 1) for a in axes) != list(range(self.ndim)):
            raise ShapeError(f"permute: {list(axes)} is not a permutation of the {self.ndim} axes")
        axes = tuple(a % self.ndim for a in axes)
        if axes == tuple(range(self.ndim)):
            return cast("Tensor", self)
        return apply(S.transpose, self, axes=axes)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        """Axes `source` moved to positions `destination` (ints or sequences), the others kept in
        order.

        >>> tg.zeros(2, 3, 4).movedim(0, -1).shape
        (3, 4, 2)
        """
        src = [one_axis(a, self.ndim) for a in _as_dims(source)]
        dst = [one_axis(a, self.ndim) for a in _as_dims(destination)]
        if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise ShapeError(
                f"movedim: source {source!r} and destination {destination!r} must be as many "
                f"distinct axes each"
            )
        rest = iter(a for a in range(self.ndim) if a not in src)
        moved = dict(zip(dst, src))
        return self.permute(tuple(moved[i] if i in moved else next(rest) for i in range(self.ndim)))

    moveaxis = movedim

    def transpose(self, *dims: Any) -> Tensor:
        """No dims: axes reversed; two ints: swapped (PyTorch); a tuple: a permutation (NumPy).

        >>> tg.zeros(2, 3, 4).transpose(0, 2).shape
        (4, 3, 2)
        """
        if not dims:
            return self.T
        if len(dims) == 2 and self.ndim == 0:  # (dims 0 and -1 name the one "axis" of a 0-d tensor)
            one_dim(dims[0], 0, "transpose"), one_dim(dims[1], 0, "transpose")
            return cast("Tensor", self)
        if len(dims) == 2 and all(isinstance(d, int | np.integer) for d in dims):
            axes = list(range(self.ndim))
            a, b = one_axis(dims[0], self.ndim), one_axis(dims[1], self.ndim)
            axes[a], axes[b] = axes[b], axes[a]
            return self.permute(tuple(axes))
        return self.permute(*dims)

    def swapaxes(self, a: int, b: int) -> Tensor:
        """Axes a and b swapped.

        >>> tg.zeros(2, 3).swapaxes(0, 1).shape
        (3, 2)
        """
        return self.transpose(a, b)

    swapdims = swapaxes

    @property
    def T(self) -> Tensor:
        """The axes reversed."""
        if self._data.ndim == 2:  # (`x @ w.T`, the commonest: permute's checks cost more than it)
            return apply(S.transpose, self, axes=_SWAP)
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        """The last two axes swapped."""
        return self.transpose(-2, -1)

    @property
    def H(self) -> Tensor:
        """The conjugate transpose of a matrix (for real tensors: its transpose; a 0-D tensor as
        it is); other ranks are refused, as PyTorch's.

        >>> tg.ones(2, 3).H.shape
        (3, 2)
        """
        if self.ndim not in (0, 2):
            raise ShapeError(
                f"tensor.H is only supported on matrices (2-D tensors), got a {self.ndim}-D "
                f"tensor; for batches of matrices use tensor.mH"
            )
        return self.transpose(0, 1) if self.ndim else cast("Tensor", self)

    @property
    def mH(self) -> Tensor:
        """The conjugate transpose of the last two axes (for real tensors: mT)."""
        return self.transpose(-2, -1)

    def adjoint(self) -> Tensor:
        """The conjugate transpose of the last two axes (for real tensors: mT).

        >>> tg.ones(2, 3).adjoint().shape
        (3, 2)
        """
        return self.transpose(-2, -1)

    def t(self) -> Tensor:
        """The transpose of a matrix; a 0-D or 1-D tensor as it is (as torch.Tensor.t).

        >>> tg.tensor([[1.0, 2.0]]).t().shape
        (2, 1)
        """
        if self.ndim > 2:
            raise ShapeError(
                f"t() expects a tensor with <= 2 dimensions, but this one is {self.ndim}-D; use "
                f".transpose(dim0, dim1) or .mT to swap two of its axes"
            )
        return self.T if self.ndim == 2 else cast("Tensor", self)

    # ---- another tensor's shape ------------------------------------------------------------------
    def view_as(self, other: TensorBase) -> Tensor:
        """self.view(other.shape), PyTorch's spelling.

        >>> tg.zeros(6).view_as(tg.zeros(2, 3)).shape
        (2, 3)
        """
        return self.view(tuple(other.shape))

    def reshape_as(self, other: TensorBase) -> Tensor:
        """self.reshape(other.shape), PyTorch's spelling.

        >>> tg.zeros(6).reshape_as(tg.zeros(3, 2)).shape
        (3, 2)
        """
        return self.reshape(tuple(other.shape))

    def expand_as(self, other: TensorBase) -> Tensor:
        """self.expand(other.shape): a broadcast view of other's shape.

        >>> tg.zeros(1, 3).expand_as(tg.zeros(4, 3)).shape
        (4, 3)
        """
        return self.expand(tuple(other.shape))

    # ---- broadcast -----------------------------------------------------------------------------
    def expand(self, *shape: Any) -> Tensor:
        """A broadcast view: `t.expand(4, 3)` (-1 keeps an axis; new axes go in front).

        >>> tg.zeros(1, 3).expand(4, -1).shape
        (4, 3)
        """
        sizes = shape_args(shape)
        lead = len(sizes) - self.ndim
        if lead < 0:
            raise ShapeError(
                f"cannot expand a tensor of shape {list(self.shape)} to {list(sizes)}: give "
                f"at least one size per axis ({self.ndim}); new axes go in front"
            )
        for i, n in enumerate(sizes):
            if n == -1 and i < lead or n < -1:
                why = (
                    f"-1 (keep the size) is not allowed in a new leading axis ({i})"
                    if n == -1
                    else f"sizes must be >= 0 (or -1 to keep an existing axis), got {n}"
                )
                raise ShapeError(
                    f"cannot expand a tensor of shape {list(self.shape)} to {list(sizes)}: {why}"
                )
        sizes = tuple(self.shape[i - lead] if n == -1 else n for i, n in enumerate(sizes))
        try:
            fits = np.broadcast_shapes(self.shape, sizes) == sizes
        except ValueError:
            fits = False
        if not fits:
            raise ShapeError(
                f"cannot expand a tensor of shape {list(self.shape)} to {list(sizes)}: "
                f"only axes of size 1 can grow"
            )
        return cast("Tensor", self) if sizes == self.shape else apply(S.expand, self, shape=sizes)

    broadcast_to = expand

    def sum_to_size(self, *size: Any) -> Tensor:
        """Summed down to `size`, which self's shape must broadcast from (expand's adjoint).

        >>> tg.ones(2, 3).sum_to_size(1, 3)
        tensor([[2., 2., 2.]])
        """
        shape = tuple(shape_args(size))
        try:
            if np.broadcast_shapes(shape, self.shape) != self.shape:
                raise ShapeError
        except ValueError:
            raise ShapeError(
                f"sum_to_size: size {list(shape)} is not expandable to size {list(self.shape)}"
            ) from None
        lead = self.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and self.shape[lead + i] != 1
        )
        x = cast("Tensor", self)
        if not axes:  # (nothing to sum: self, but a 0-d tensor is summed, as PyTorch does)
            return x if x.ndim else x.sum()
        return x.sum(axes, keepdim=True).reshape(*shape)

    # ---- repeated and reversed -----------------------------------------------------------------
    def fliplr(self) -> Tensor:
        """Reversed along axis 1 (a matrix's columns: left to right); needs 2 or more axes.

        >>> tg.tensor([[1.0, 2.0]]).fliplr()
        tensor([[2., 1.]])
        """
        if self.ndim < 2:
            raise ShapeError(f"fliplr needs a tensor with at least 2 axes, got {self.ndim}")
        return self.flip(1)

    def flipud(self) -> Tensor:
        """Reversed along axis 0 (a matrix's rows: up to down); needs 1 or more axes.

        >>> tg.tensor([1.0, 2.0]).flipud()
        tensor([2., 1.])
        """
        if self.ndim < 1:
            raise ShapeError("flipud needs a tensor with at least 1 axis, got a 0-d one")
        return self.flip(0)

    def __reversed__(self) -> Tensor:
        """reversed(t): t flipped along its first axis, one tensor (as PyTorch), a 0-d one as is."""
        return self.flip(0) if self.ndim else cast("Tensor", self)

    def flip(self, *dims: Any, **dims_keyword: Any) -> Tensor:
        """The elements in reverse order along dims (a copy, as PyTorch's): `x.flip(0)`,
        `x.flip((0, 1))`, `x.flip(dims=(0, 1))`.

        >>> tg.tensor([1.0, 2.0, 3.0]).flip(0)
        tensor([3., 2., 1.])
        """
        if not dims and not dims_keyword:
            raise TypeError("flip() needs the dims to reverse, e.g. x.flip(0) or x.flip((0, 1))")
        dims = _dims_argument("flip", dims, dims_keyword)  # (dims=(): a copy, as PyTorch)
        axes = set(normalize_axis(shape_args(dims), self.ndim) or ())
        if self.ndim == 0 or not axes:
            return cast("Tensor", self).clone()
        index = tuple(  # one open-mesh index over every axis: a single gather, and a copy
            (np.arange(n)[::-1] if i in axes else np.arange(n)).reshape(
                (1,) * i + (n,) + (1,) * (self.ndim - i - 1)
            )
            for i, n in enumerate(self.shape)
        )
        return apply(S.getitem, self, index=index)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        """The elements shifted along dims, those pushed off the end coming back at the start
        (without dims: along the flattened tensor, then reshaped), as PyTorch's roll.

        >>> tg.tensor([1.0, 2.0, 3.0]).roll(1)
        tensor([3., 1., 2.])
        """
        steps = (shifts,) if isinstance(shifts, int | np.integer) else tuple(shifts)
        if dims is None:
            if len(steps) != 1:
                raise ShapeError(
                    f"roll: without dims, shifts must be one number, got {list(steps)}; pass dims "
                    f"(one per shift) to roll along several axes"
                )
            flat = self.reshape(-1).roll(steps[0], 0)
            return flat.reshape(self.shape)
        axes = (dims,) if isinstance(dims, int | np.integer) else tuple(dims)
        if len(axes) != len(steps):
            raise ShapeError(
                f"roll: shifts and dims must have the same length, got {len(steps)} shift(s) and "
                f"{len(axes)} dim(s)"
            )
        out = cast("Tensor", self)
        for shift, dim in zip(steps, axes):
            axis = one_dim(dim, self.ndim, "roll") if self.ndim else 0
            n = self.shape[axis] if self.ndim else 1
            if n and int(shift) % n:  # (a gather along the axis: the gradient scatters back)
                positions = (np.arange(n) - int(shift)) % n
                out = apply(S.getitem, out, index=along(axis, positions))
        return out if out is not self else cast("Tensor", self).clone()

    def rot90(self, k: int = 1, dims: Any = (0, 1)) -> Tensor:
        """Rotated by 90 degrees k times in the plane of dims, from the first axis toward the
        second (as np.rot90 and PyTorch).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).rot90()
        tensor([[2., 4.],
                [1., 3.]])
        """
        dims = tuple(dims)
        if len(dims) != 2:
            raise ShapeError(
                f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}"
            )
        if self.ndim < 2:
            raise ShapeError(f"rot90: expected total dims >= 2, but got total dims = {self.ndim}")
        a, b = (one_dim(d, self.ndim, "rot90") for d in dims)
        if a == b:
            raise ShapeError(
                f"rot90: expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}"
            )
        x = cast("Tensor", self)
        turns = int(k) % 4
        if turns == 1:
            return x.flip(b).transpose(a, b)
        if turns == 2:
            return x.flip(a, b)
        if turns == 3:
            return x.flip(a).transpose(a, b)
        return x * 1 if x._requires_grad else x.clone()  # (a new tensor, as PyTorch's copy)

    def repeat(self, *sizes: Any) -> Tensor:
        """The tensor tiled: `sizes[i]` copies along axis i (PyTorch's repeat is NumPy's tile; give
        at least one count per axis, extra counts add leading axes).

        >>> tg.tensor([1.0, 2.0]).repeat(2)
        tensor([1., 2., 1., 2.])
        """
        if not sizes:
            raise TypeError(
                "repeat() needs the number of copies along each axis, e.g. x.repeat(2, 1)"
            )
        reps = shape_args(sizes)
        if len(reps) < self.ndim:
            raise ShapeError(
                f"repeat: {list(reps)} gives fewer counts than the tensor has dimensions "
                f"({self.ndim}); give one per dimension (or use tile, which pads with 1s)"
            )
        return self._tiled(reps, "repeat")

    def tile(self, *dims: Any) -> Tensor:
        """The tensor tiled, as NumPy's tile: missing leading counts are 1.

        >>> tg.tensor([[1.0, 2.0]]).tile(2).shape
        (1, 4)
        """
        reps = shape_args(dims)
        return self._tiled((1,) * (self.ndim - len(reps)) + reps, "tile")

    def _tiled(self, reps: tuple, name: str) -> Tensor:
        """self (with leading axes of size 1 added to match reps) repeated reps[i] times along axis
        i: a broadcast of self against a new axis before each one, then merged (so the gradient
        sums)."""
        if any(r < 0 for r in reps):
            raise ShapeError(f"{name}: the counts must be >= 0, got {list(reps)}")
        shape = (1,) * (len(reps) - self.ndim) + self.shape
        spread = tuple(v for n in shape for v in (1, n))
        grown = tuple(v for r, n in zip(reps, shape) for v in (r, n))
        out = self.reshape(spread).expand(grown).reshape(tuple(r * n for r, n in zip(reps, shape)))
        return out.clone() if np.may_share_memory(out._data, self._data) else out  # always a copy


def _dims_argument(name: str, dims: tuple, keyword: dict) -> tuple:
    """The dims given positionally or as `dims=` (PyTorch's keyword), not both."""
    if not keyword:
        return dims
    if set(keyword) != {"dims"}:
        unknown = sorted(set(keyword) - {"dims"})[0]
        raise TypeError(f"{name}() got an unexpected keyword argument '{unknown}'")
    if dims:
        raise TypeError(f"{name}() got the dims twice: positionally and as dims=")
    given = keyword["dims"]
    return (given,) if isinstance(given, int | np.integer) else tuple(given)


def check_memory_format(who: str, memory_format: Any, ndim: int) -> None:
    """memory_format= as PyTorch takes it (a memory format suited to the tensor's rank); every
    layout is the same to tapegrad, so it changes nothing."""
    if memory_format is not None:
        devices.check_placement(who, memory_format=memory_format, ndim=ndim)


def _as_dims(dims: Any) -> list:
    """One axis or a sequence of them, as a list."""
    return list(dims) if isinstance(dims, (tuple, list)) else [dims]
