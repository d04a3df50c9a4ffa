"""PyTorch's further Tensor methods: t, norm, cumsum, gather, masked_fill, sort/topk/argsort, flip,
repeat/tile, tril/triu, diag, trace, outer, round/frac, and the in-place forms of the unary ops.

Layer L3: numpy, the rule table and the Tensor class. Each function here is one Tensor method
(tensor.py delegates to it), so `self` is a Tensor. Most are compositions of recorded primitives:
picking elements is getitem with an advanced index (its gradient a scatter-add to the picked
positions), masking is `where`.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from .. import primitives as P
from .._utils import normalize_axis, shape_args
from .coerce import coerce
from .inplace import inplace
from .methods import along_axis, clip_bounds
from .record import apply
from .tensor import Tensor

E, R, S = P.elementwise, P.reduction, P.shape

# as torch.return_types.sort / .topk: named tuples (values, indices)
SortResult = namedtuple("sort", ["values", "indices"])  # type: ignore[name-match]
TopkResult = namedtuple("topk", ["values", "indices"])  # type: ignore[name-match]


def _axis(self: Tensor, dim: Any, name: str) -> int:
    """One dimension (an int, negative counts from the end) as a non-negative axis."""
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}")
    return normalize_axis(dim, self.ndim)[0]  # type: ignore[index]


def _int64(a: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(a, dtype=np.int64))


# ---- shape -------------------------------------------------------------------------------------
def t(self: Tensor) -> Tensor:
    """The transpose of a matrix; a 0-D or 1-D tensor as it is (as torch.Tensor.t).

    >>> tg.tensor([[1.0, 2.0]]).t().shape
    (2, 1)
    """
    if self.ndim > 2:
        raise ValueError(
            f"t() expects a tensor with <= 2 dimensions, but this one is {self.ndim}-D; use "
            f".transpose(dim0, dim1) or .mT to swap two of its axes"
        )
    return self.transpose(0, 1) if self.ndim == 2 else self


def flip(self: Tensor, *dims: Any) -> Tensor:
    """The elements in reverse order along dims (a copy, as PyTorch's).

    >>> tg.tensor([1.0, 2.0, 3.0]).flip(0)
    tensor([3., 2., 1.])
    """
    if not dims:
        raise TypeError("flip() needs the dims to reverse, e.g. x.flip(0) or x.flip((0, 1))")
    axes = set(normalize_axis(shape_args(dims), self.ndim) or ())
    if self.ndim == 0 or not axes:
        return self.clone()
    index = tuple(  # one open-mesh index over every axis: a single gather, and a copy
        (np.arange(n)[::-1] if i in axes else np.arange(n)).reshape(
            (1,) * i + (n,) + (1,) * (self.ndim - i - 1)
        )
        for i, n in enumerate(self.shape)
    )
    return apply(S.getitem, self, index=index)


def repeat(self: Tensor, *sizes: Any) -> Tensor:
    """The tensor tiled: `sizes[i]` copies along axis i (PyTorch's repeat is NumPy's tile; give
    at least one count per axis, extra counts add leading axes).

    >>> tg.tensor([1.0, 2.0]).repeat(2)
    tensor([1., 2., 1., 2.])
    """
    if not sizes:
        raise TypeError("repeat() needs the number of copies along each axis, e.g. x.repeat(2, 1)")
    reps = shape_args(sizes)
    if len(reps) < self.ndim:
        raise ValueError(
            f"repeat: {list(reps)} gives fewer counts than the tensor has dimensions "
            f"({self.ndim}); give one per dimension (or use tile, which pads with 1s)"
        )
    return _tiled(self, reps, "repeat")


def tile(self: Tensor, *dims: Any) -> Tensor:
    """The tensor tiled, as NumPy's tile: missing leading counts are 1.

    >>> tg.tensor([[1.0, 2.0]]).tile(2).shape
    (1, 4)
    """
    reps = shape_args(dims)
    return _tiled(self, (1,) * (self.ndim - len(reps)) + reps, "tile")


def _tiled(x: Tensor, reps: tuple, name: str) -> Tensor:
    """x (with leading axes of size 1 added to match reps) repeated reps[i] times along axis i: as
    a broadcast of x against a new axis before each one, then merged (so the gradient sums)."""
    if any(r < 0 for r in reps):
        raise ValueError(f"{name}: the counts must be >= 0, got {list(reps)}")
    shape = (1,) * (len(reps) - x.ndim) + x.shape
    spread = tuple(v for n in shape for v in (1, n))
    grown = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    out = x.reshape(spread).expand(grown).reshape(tuple(r * n for r, n in zip(reps, shape)))
    return out.clone() if np.may_share_memory(out.numpy(), x.numpy()) else out  # always a copy


def _triangle(self: Tensor, keep: np.ndarray) -> Tensor:
    """self where `keep` (a matrix mask, broadcast over batch axes), zeros elsewhere."""
    return apply(E.where, keep, self, np.zeros((), self.dtype))


def _matrix_mask(self: Tensor, name: str) -> tuple:
    if self.ndim < 2:
        raise ValueError(
            f"{name}: the tensor must have at least 2 dimensions (a matrix, or a batch of them), "
            f"got {self.ndim}-D"
        )
    return self.shape[-2:]


def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the `diagonal`-th diagonal) of each matrix; zeros above.

    >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).tril()
    tensor([[1., 0.],
            [3., 4.]])
    """
    n, m = _matrix_mask(self, "tril")
    return _triangle(self, np.tri(n, m, k=diagonal, dtype=bool))


def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the `diagonal`-th diagonal) of each matrix; zeros below.

    >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).triu()
    tensor([[1., 2.],
            [0., 4.]])
    """
    n, m = _matrix_mask(self, "triu")
    return _triangle(self, ~np.tri(n, m, k=diagonal - 1, dtype=bool))


def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    """A vector: the square matrix with it on the `diagonal`-th diagonal; a matrix: that diagonal.

    >>> tg.tensor([1.0, 2.0]).diag()
    tensor([[1., 0.],
            [0., 2.]])
    """
    k = int(diagonal)
    if self.ndim == 1:
        n = self.shape[0]
        pos = np.arange(n)
        size = n + abs(k)
        index = (pos + max(-k, 0), pos + max(k, 0))
        return apply(S.scatter_add, self, shape=(size, size), index=index)
    if self.ndim != 2:
        raise ValueError(
            f"diag: takes a 1-D tensor (to make a matrix) or a 2-D one (to take a diagonal), "
            f"got {self.ndim}-D; for batches use tg.einsum('...ii->...i', x)"
        )
    rows, cols = self.shape
    count = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
    pos = np.arange(count)
    return self[pos + max(-k, 0), pos + max(k, 0)]


def trace(self: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix.

    >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
    tensor(5.)
    """
    if self.ndim != 2:
        raise ValueError(f"trace: expected a matrix (2-D), got a {self.ndim}-D tensor")
    return diag(self).sum()


def outer(self: Tensor, vec2: Any) -> Tensor:
    """The outer product of two vectors: out[i, j] = self[i] * vec2[j].

    >>> tg.tensor([1.0, 2.0]).outer(tg.tensor([1.0, 10.0]))
    tensor([[ 1., 10.],
            [ 2., 20.]])
    """
    other = vec2 if isinstance(vec2, Tensor) else Tensor(vec2)
    for name, v in (("self", self), ("vec2", other)):
        if v.ndim != 1:
            raise ValueError(f"outer: expected 1-D tensors, but {name} is {v.ndim}-D")
    return self.reshape(-1, 1) * other.reshape(1, -1)


# ---- picking and ordering -------------------------------------------------------------------
def gather(self: Tensor, dim: int, index: Any) -> Tensor:
    """out[i][j] = self[index[i][j]][j] for dim=0 (and so on): values picked along dim.

    >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).gather(1, tg.tensor([[1], [0]]))
    tensor([[2.],
            [3.]])
    """
    idx = index.numpy() if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"gather: index must be an integer tensor, got dtype {idx.dtype}")
    if idx.ndim != self.ndim:
        raise ValueError(
            f"gather: index has {idx.ndim} dimension(s) but the tensor has {self.ndim}; "
            f"they must have the same number"
        )
    if self.ndim == 0:
        return gather(self.reshape(1), 0, idx.reshape(1)).reshape(())
    axis = _axis(self, dim, "gather")
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


def _order(data: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The positions that sort `data` along axis, stably (equal values keep their order; NaN
    counts as the largest, as in PyTorch)."""
    if not descending:
        return np.argsort(data, axis=axis, kind="stable")
    # sort the reversed data ascending, then reverse: descending, and still stable
    rev = np.argsort(np.flip(data, axis), axis=axis, kind="stable")
    return data.shape[axis] - 1 - np.flip(rev, axis)


def sort(self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """The named tuple (values, indices) of the elements sorted along dim; the values carry the
    gradient back to where they came from. (tapegrad's sort is always stable.)

    >>> tg.tensor([3.0, 1.0, 2.0]).sort()
    sort(values=tensor([1., 2., 3.]), indices=tensor([1, 2, 0]))
    """
    if self.ndim == 0:
        values, indices = sort(self.reshape(1), 0, descending)
        return SortResult(values.reshape(()), indices.reshape(()))
    axis = _axis(self, dim, "sort")
    order = _order(self.numpy(), axis, descending)
    return SortResult(self[along_axis(order, axis)], _int64(order))


def argsort(self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """The positions that sort the tensor along dim (an int64 tensor).

    >>> tg.tensor([3.0, 1.0, 2.0]).argsort()
    tensor([1, 2, 0])
    """
    if self.ndim == 0:
        return _int64(np.zeros((), np.int64))
    return _int64(_order(self.numpy(), _axis(self, dim, "argsort"), descending))


def topk(
    self: Tensor, k: int, dim: int | None = None, largest: bool = True, sorted: bool = True
) -> Any:
    """The named tuple (values, indices) of the k largest (largest=False: smallest) elements along
    dim (the last by default), largest first; gradients go back to the picked positions.

    >>> tg.tensor([1.0, 3.0, 2.0]).topk(2)
    topk(values=tensor([3., 2.]), indices=tensor([1, 2]))
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise TypeError(f"topk: k must be an int, got {k!r}")
    x = self.reshape(1) if self.ndim == 0 else self
    axis = _axis(x, -1 if dim is None else dim, "topk")
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise ValueError(
            f"topk: k={k} is out of range: dimension {axis} has {n} element(s); k must be in 0..{n}"
        )
    order = _order(x.numpy(), axis, descending=largest)
    picked = np.take(order, np.arange(k), axis=axis)
    values, indices = x[along_axis(picked, axis)], _int64(picked)
    if self.ndim == 0:
        values, indices = values.reshape(()), indices.reshape(())
    return TopkResult(values, indices)


def masked_fill(self: Tensor, mask: Any, value: Any) -> Tensor:
    """self with `value` where the boolean mask is true (mask broadcasts); the gradient flows to
    the other positions (and to value, if it is a tensor that requires grad).

    >>> tg.tensor([1.0, 2.0, 3.0]).masked_fill(tg.tensor([True, False, True]), 0.0)
    tensor([0., 2., 0.])
    """
    m = _bool_mask(mask, "masked_fill")
    return apply(E.where, m, _fill_value(self, value), self)


def masked_fill_(self: Tensor, mask: Any, value: Any) -> Tensor:
    """masked_fill in place (the mask may not grow the tensor's shape).

    >>> x = tg.tensor([1.0, 2.0]); x.masked_fill_(tg.tensor([True, False]), 5.0)
    tensor([5., 2.])
    """
    m = _bool_mask(mask, "masked_fill_")
    v = _fill_value(self, value)
    return inplace(self, "masked_fill_", lambda old, val: E.where(m, val, old), v)


def _bool_mask(mask: Any, name: str) -> np.ndarray:
    m = mask.numpy() if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(
            f"{name}: the mask must be a boolean tensor, got dtype {m.dtype}; "
            f"compare to make one (e.g. x > 0, or mask != 0)"
        )
    return m


def _fill_value(self: Tensor, value: Any) -> Any:
    """A fill value in self's dtype: a number (as a 0-d array), or a 0-d tensor (kept on the
    tape, so a value that requires grad gets its gradient)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(
                f"masked_fill: the value must be a number or a 0-dimensional tensor, got a "
                f"tensor of shape {list(value.shape)}"
            )
        return value.astype(self.dtype)
    return np.asarray(value).astype(self.dtype)


# ---- reductions and norms --------------------------------------------------------------------
def cumsum(self: Tensor, dim: Any = None, *, dtype: Any = None, axis: Any = None) -> Tensor:
    """The running sum along dim (integers and bools sum as int64, as PyTorch).

    >>> tg.tensor([1.0, 2.0, 3.0]).cumsum(0)
    tensor([1., 3., 6.])
    """
    dim = axis if dim is None else dim
    if dim is None:
        raise TypeError("cumsum() needs the dimension to sum along, e.g. x.cumsum(0) (or dim=0)")
    x = self if dtype is None else self.astype(dtype)
    if x.dtype.kind in "biu":
        x = x.astype(np.int64)
    return apply(R.cumsum, x, axis=_axis(x, dim, "cumsum") if x.ndim else 0)


def norm(
    self: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    """The p-norm over dim (all elements by default): p = 'fro' or 2 (Euclidean), 1, inf (max |x|),
    -inf (min |x|), 0 (count of non-zeros) or any other number. Its gradient at 0 is 0, as PyTorch.

    >>> tg.tensor([3.0, 4.0]).norm()
    tensor(5.)
    """
    x = self if dtype is None else self.astype(dtype)
    if x.dtype.kind != "f":
        raise TypeError(
            f"norm needs a floating-point tensor, got {x.dtype}; use .astype(tg.float32) first"
        )
    if isinstance(p, str):
        if p != "fro":
            raise ValueError(
                f"norm: p={p!r} is not supported; use 'fro' or a number (2, 1, inf, -inf, 0, ...)"
                + (" (the nuclear norm needs an SVD, which tapegrad has not)" if p == "nuc" else "")
            )
        if dim is not None and not isinstance(dim, int | np.integer) and len(dim) > 2:
            raise ValueError(f"norm: p='fro' takes one dimension or two, got dim={dim!r}")
        p = 2
    elif isinstance(p, bool) or not isinstance(p, int | float | np.integer | np.floating):
        raise TypeError(f"norm: p must be a number or 'fro', got {p!r}")
    axes = None if (x.ndim == 0 or dim is None or dim == () or dim == []) else dim
    a = x.abs()
    p = float(p)
    if p == math.inf:
        return a.amax(axes, keepdims=keepdim)
    if p == -math.inf:
        return a.amin(axes, keepdims=keepdim)
    if p == 0:  # how many are non-zero: sign's zero gradient makes x.grad zeros
        return a.sign().sum(axes, keepdims=keepdim)
    if p == 1:
        return a.sum(axes, keepdims=keepdim)
    if p == 2:
        return _root(apply(E.mul, x, x).sum(axes, keepdims=keepdim), 2.0)
    zero = a == 0
    # |x|**p with 0 at x = 0 (inf for p < 0) and no gradient there: a where on both sides keeps
    # a NaN (0 * inf) out of the gradient
    powers = _masked(zero, a, math.inf if p < 0 else 0.0, lambda s: s**p)
    return _root(powers.sum(axes, keepdims=keepdim), p)


def _root(s: Tensor, p: float) -> Tensor:
    """s ** (1/p), with value 0 and gradient 0 where s is 0 (PyTorch's subgradient at 0)."""
    return _masked(s == 0, s, 0.0, lambda v: v ** (1.0 / p))


def _masked(where_: Tensor, x: Tensor, fill: float, fn: Any) -> Tensor:
    """fn(x), but `fill` (with no gradient) where `where_` holds."""
    cond = where_.numpy()
    safe = apply(E.where, cond, np.ones((), x.dtype), x)
    return apply(E.where, cond, np.full((), fill, x.dtype), fn(safe))


# ---- rounding ---------------------------------------------------------------------------------
def round(self: Tensor, decimals: int = 0) -> Tensor:
    """Each element rounded to `decimals` digits, halves to even; its gradient is 0 (as PyTorch).

    >>> tg.tensor([0.5, 1.5, 2.46]).round(decimals=1)
    tensor([0.5000, 1.5000, 2.5000])
    """
    return apply(E.round, self, decimals=int(decimals))


def frac(self: Tensor) -> Tensor:
    """The fractional part, self - trunc(self) (its gradient is 1).

    >>> tg.tensor([1.5, -2.25]).frac()
    tensor([ 0.5000, -0.2500])
    """
    if self.dtype.kind != "f":
        raise TypeError(f"frac needs a floating-point tensor, got {self.dtype}")
    return self - apply(E.trunc, self)


# ---- in place ---------------------------------------------------------------------------------
def unary_(self: Tensor, name: str, fn: Any, other: Any = None) -> Tensor:
    """In place: self becomes fn(self, other) (recorded when on the tape; see inplace.py), where fn
    takes Tensors or arrays. A result the tensor's dtype cannot hold (exp_ of an int tensor) is an
    error, as in PyTorch.

    >>> x = tg.tensor([0.0, 1.0]); x.exp_()
    tensor([1.0000, 2.7183])
    """

    def op(old: Any, value: Any) -> Any:
        new = fn(old, value)
        if not np.can_cast(new.dtype, old.dtype, casting="same_kind"):
            raise RuntimeError(
                f"{name}: the result has dtype {new.dtype}, which this {old.dtype} tensor cannot "
                f"hold; use the out-of-place {name.rstrip('_')} (or convert with .float() first)"
            )
        return new

    return inplace(self, name, op, other)


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """clamp in place: each element limited to [min, max].

    >>> x = tg.tensor([-1.0, 0.5, 2.0]); x.clamp_(0.0, 1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """
    bounds = clip_bounds(min, max)
    return unary_(self, "clamp_", lambda old, _: E.clip(old, **bounds))


def pow_(self: Tensor, exponent: Any) -> Tensor:
    """self ** exponent, in place.

    >>> x = tg.tensor([2.0, 3.0]); x.pow_(2)
    tensor([4., 9.])
    """
    return unary_(self, "pow_", lambda old, e: E.pow(old, e), coerce(exponent))


def round_(self: Tensor, decimals: int = 0) -> Tensor:
    """round in place.

    >>> x = tg.tensor([0.4, 1.6]); x.round_()
    tensor([0., 2.])
    """
    return unary_(self, "round_", lambda old, _: E.round(old, decimals=int(decimals)))


def frac_(self: Tensor) -> Tensor:
    """frac in place.

    >>> x = tg.tensor([1.5]); x.frac_()
    tensor([0.5000])
    """
    if self.dtype.kind != "f":
        raise TypeError(f"frac_ needs a floating-point tensor, got {self.dtype}")
    return unary_(self, "frac_", lambda old, _: old - E.trunc(old))


def square_(self: Tensor) -> Tensor:
    """self * self, in place.

    >>> x = tg.tensor([3.0]); x.square_()
    tensor([9.])
    """
    return unary_(self, "square_", lambda old, _: old * old)


# ---- further methods: their code is in extra_methods.py (this file's length); `_defer` finds them
from .extra_methods import bmm, cumprod, mm, narrow, reciprocal, reciprocal_  # noqa: E402, F401
from .extra_methods import rsqrt, rsqrt_, unbind  # noqa: E402, F401
