"""Functions of several tensors beyond cat and stack (math.py's): joining them along a named axis
(hstack, vstack, dstack, column_stack, row_stack, with atleast_1d/2d/3d that raise their ranks),
broadcasting them together (broadcast_tensors, broadcast_shapes, meshgrid, cartesian_prod,
and combinations, its unordered kin), block_diag, and cdist (the distances between two sets of
points).

Layer L4: the Tensor layer and math.py's cat and stack. Each is a composition of recorded views
and joins, so gradients flow to every input.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, Sequence

import numpy as np

from .math import cat, stack, where
from .tensor import Tensor
from .tensor.coerce import TensorLike, as_tensor

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
    "column_stack", "broadcast_tensors", "broadcast_shapes", "meshgrid", "cartesian_prod",
    "block_diag", "cdist", "combinations",
]  # fmt: skip


def _tensors(args: tuple, name: str) -> list[Tensor]:
    """The tensors of a call written f(a, b) or f([a, b]) (PyTorch takes both for some)."""
    if len(args) == 1 and isinstance(args[0], list | tuple):
        args = tuple(args[0])
    return [as_tensor(a) for a in args]


def _ranked(args: tuple, rank: int) -> Any:
    """Each tensor with at least `rank` axes, NumPy's way: a tensor alone, or a tuple."""
    out = []
    for x in _tensors(args, f"atleast_{rank}d"):
        if x.ndim < rank:
            shape = {
                0: (1,) * rank,
                1: (1, x.numel(), 1)[:rank] if rank == 3 else (1, x.numel()),
                2: (*x.shape, 1),
            }[x.ndim]
            x = x.reshape(*shape)
        out.append(x)
    single = len(args) == 1 and not isinstance(args[0], list | tuple)
    return out[0] if single else tuple(out)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 axis (a 0-d one becomes shape (1,)); one in, one out.

    >>> tg.atleast_1d(tg.tensor(3.0))
    tensor([3.])
    """
    return _ranked(tensors, 1)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 axes (a vector becomes one row).

    >>> tg.atleast_2d(tg.tensor([1.0, 2.0])).shape
    (1, 2)
    """
    return _ranked(tensors, 2)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 axes ((n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)).

    >>> tg.atleast_3d(tg.ones(2, 3)).shape
    (2, 3, 1)
    """
    return _ranked(tensors, 3)


def _joined(tensors: Sequence[TensorLike], name: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ValueError(f"{name} expects a non-empty list or tuple of tensors")
    return [as_tensor(t) for t in tensors]


def hstack(tensors: Sequence[TensorLike]) -> Tensor:
    """Joined along the columns: dim 1, or dim 0 for vectors (0-d tensors count as vectors).

    >>> tg.hstack([tg.tensor([1.0]), tg.tensor([2.0, 3.0])])
    tensor([1., 2., 3.])
    """
    ts = atleast_1d(_joined(tensors, "hstack"))
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[TensorLike]) -> Tensor:
    """Joined along the rows (dim 0), vectors counting as rows.

    >>> tg.vstack([tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0])]).shape
    (2, 2)
    """
    return cat(atleast_2d(_joined(tensors, "vstack")), 0)


row_stack = vstack  # (PyTorch's alias)


def dstack(tensors: Sequence[TensorLike]) -> Tensor:
    """Joined along the depth (dim 2), each made at least 3-D first.

    >>> tg.dstack([tg.ones(2, 3), tg.ones(2, 3)]).shape
    (2, 3, 2)
    """
    return cat(atleast_3d(_joined(tensors, "dstack")), 2)


def column_stack(tensors: Sequence[TensorLike]) -> Tensor:
    """Vectors (and 0-d tensors) as columns, joined with matrices along dim 1.

    >>> tg.column_stack([tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0])])
    tensor([[1., 3.],
            [2., 4.]])
    """
    ts = [t.reshape(t.numel(), 1) if t.ndim < 2 else t for t in _joined(tensors, "column_stack")]
    return cat(ts, 1)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape tensors of these shapes broadcast to (an error if they do not).

    >>> tg.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    try:
        return tuple(
            np.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes])
        )
    except ValueError:
        raise ValueError(
            f"broadcast_shapes: shapes {list(shapes)} cannot be broadcast together"
        ) from None


def broadcast_tensors(*tensors: TensorLike) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (views, as PyTorch's).

    >>> [t.shape for t in tg.broadcast_tensors(tg.ones(2, 1), tg.ones(3))]
    [(2, 3), (2, 3)]
    """
    ts = _tensors(tensors, "broadcast_tensors")
    shape = broadcast_shapes(*[t.shape for t in ts])
    return tuple(t if t.shape == shape else t.expand(*shape) for t in ts)


def meshgrid(*tensors: TensorLike, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors: indexing "ij" (matrix, PyTorch's default, which it
    warns will change) or "xy" (Cartesian: the first two axes swapped, as NumPy's default).

    >>> [t.tolist() for t in tg.meshgrid(tg.tensor([1, 2]), tg.tensor([5]), indexing="ij")]
    [[[1], [2]], [[5], [5]]]
    """
    ts = _tensors(tensors, "meshgrid")
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument (tapegrad, as PyTorch, uses indexing='ij' when it is not given)",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f'meshgrid: indexing must be "ij" or "xy", got {indexing!r}')
    for i, t in enumerate(ts):
        if t.ndim > 1:
            raise ValueError(f"meshgrid: expects 0-D or 1-D tensors, tensor {i} is {t.ndim}-D")
    ts = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(*view).expand(*shape))
    if swap:  # (grids of shape (len(y), len(x), ...): the inputs' order back)
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: TensorLike) -> Tensor:
    """Every combination of one element of each 1-D tensor, as rows (itertools.product's order);
    one tensor is returned as it is.

    >>> tg.cartesian_prod(tg.tensor([1, 2]), tg.tensor([5, 6])).tolist()
    [[1, 5], [1, 6], [2, 5], [2, 6]]
    """
    ts = _tensors(tensors, "cartesian_prod")
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod: expects 1-D tensors, tensor {i} is {t.ndim}-D")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: TensorLike, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every choice of r elements of a 1-D tensor in their order, as rows (itertools.combinations'
    order; with_replacement: combinations_with_replacement's). Gathered, so gradients flow back.

    >>> tg.combinations(tg.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    x = as_tensor(input)
    if x.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return x[:0]
    choose = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(choose(range(x.shape[0]), r))
    index = np.asarray(rows, dtype=np.int64).reshape(len(rows), r)
    return x[index]


def block_diag(*tensors: TensorLike) -> Tensor:
    """The matrices (0-d: 1x1, 1-D: one row) along the diagonal of a zero matrix, in order.

    >>> tg.block_diag(tg.tensor([[1.0]]), tg.tensor([2.0, 3.0]))
    tensor([[1., 0., 0.],
            [0., 2., 3.]])
    """
    ts = [t.reshape(1, -1) if t.ndim < 2 else t for t in _tensors(tensors, "block_diag")]
    for i, t in enumerate(ts):
        if t.ndim > 2:
            raise ValueError(
                f"block_diag: tensors must have 2 or fewer dimensions; {i} has {t.ndim}"
            )
    if not ts:
        return as_tensor(np.zeros((1, 0), dtype=np.float32))
    dtype = np.result_type(*[t.dtype for t in ts])
    width = sum(t.shape[1] for t in ts)
    rows, left = [], 0
    for t in ts:
        n, m = t.shape
        before = as_tensor(np.zeros((n, left), dtype=dtype))
        after = as_tensor(np.zeros((n, width - left - m), dtype=dtype))
        rows.append(cat([before, t if t.dtype == dtype else t.astype(dtype), after], 1))
        left += m
    return cat(rows, 0)


_CDIST_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def cdist(
    x1: TensorLike,
    x2: TensorLike,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The p-norm distance between each row of x1 (..., P, M) and each row of x2 (..., R, M):
    shape (..., P, R), batch axes broadcast. For p = 2 and more than 25 rows on a side (or
    compute_mode "use_mm_for_euclid_dist") it is computed through a matrix product, as PyTorch;
    the gradient at distance 0 is 0.

    >>> tg.cdist(tg.tensor([[0.0, 0.0]]), tg.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
    """
    a, b = as_tensor(x1), as_tensor(x2)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"cdist: x1 and x2 must be at least 2-D with the same last size (the points' "
            f"coordinates), got shapes {list(a.shape)} and {list(b.shape)}"
        )
    if p < 0:
        raise ValueError(f"cdist only supports non-negative p values, got {p}")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {_CDIST_MODES}, got {compute_mode!r}")
    rows = a.shape[-2] if a.shape[-2] > b.shape[-2] else b.shape[-2]  # (max is tg.max here)
    by_product = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == _CDIST_MODES[0] and rows > 25
    )
    if p == 2 and by_product:  # |x|^2 + |y|^2 - 2 x.y, square-rooted where positive
        squares = (a * a).sum(-1, keepdim=True) + (b * b).sum(-1).unsqueeze(-2) - 2 * (a @ b.mT)
        positive = squares > 0
        return where(positive, where(positive, squares, 1.0).sqrt(), 0.0)  # (no NaN gradient)
    return (a.unsqueeze(-2) - b.unsqueeze(-3)).norm(p, dim=-1)
