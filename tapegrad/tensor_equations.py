"""torch.linalg's tensor equations: tensorinv (the inverse of a tensor read as a square matrix)
and tensorsolve (A X = B contracted over X's axes), and vander (the Vandermonde matrix of
powers): each a reshape or a cumulative product around tg.linalg's recorded ops, so their
gradients are those ops'.

Layer L4: the Tensor layer's inv and solve (tensor/linear_systems.py) and math.py's cat.
"""

from __future__ import annotations

import math
from typing import Sequence

from .math import cat
from .tensor import Tensor
from .tensor import linear_systems as LS
from .tensor.coerce import TensorLike, as_tensor

__all__ = ["tensorinv", "tensorsolve", "vander"]


def _square_split(a: Tensor, ind: int, requirement: str) -> tuple[int, int]:
    """prod(a.shape[:ind]) and prod(a.shape[ind:]), which must agree (PyTorch's message)."""
    rows, cols = math.prod(a.shape[:ind]), math.prod(a.shape[ind:])
    if rows != cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement {requirement}, but got {cols} != {rows}"
        )
    return rows, cols


def tensorinv(A: TensorLike, ind: int = 2) -> Tensor:
    """The X with tensordot(X, A, ind) the identity: A read as a prod(shape[:ind]) x
    prod(shape[ind:]) matrix, inverted, shaped shape[ind:] + shape[:ind].

    >>> tg.linalg.tensorinv(tg.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = as_tensor(A)
    if isinstance(ind, bool) or not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _square_split(a, ind, "prod(self.shape[ind:]) == prod(self.shape[:ind])")
    inverse = LS.inv(LS.square(a.reshape(rows, cols), "linalg.tensorinv"))
    return inverse.reshape(*a.shape[ind:], *a.shape[:ind])


def tensorsolve(A: TensorLike, B: TensorLike, dims: Sequence[int] | None = None) -> Tensor:
    """The X with tensordot(A, X, X.ndim) = B: A's axes in dims moved to the end first, then A
    read as a prod(B.shape) x prod(the rest) matrix; X has the rest's shape.

    >>> tg.linalg.tensorsolve(tg.eye(6).reshape(2, 3, 6), tg.ones(2, 3)).shape
    (6,)
    """
    a, b = as_tensor(A), as_tensor(B)
    if dims is not None:
        moved = [d % a.ndim for d in dims]
        a = a.movedim(moved, list(range(a.ndim - len(moved), a.ndim)))
    rows, cols = _square_split(
        a, b.ndim, "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim])"
    )
    solution = LS.solve(a.reshape(rows, cols), b.reshape(rows), True)
    return solution.reshape(*a.shape[b.ndim :])


def vander(x: TensorLike, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of the last axis: columns x**0, x**1, ..., x**(N - 1) (N defaults to
    x's length; PyTorch's increasing powers, as a cumulative product).

    >>> tg.linalg.vander(tg.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    v = as_tensor(x)
    v = v.reshape(1) if v.ndim == 0 else v  # (a number is a vector of one, as in PyTorch)
    count = v.shape[-1] if N is None else N
    if count <= 1:
        raise RuntimeError("N must be greater than 1.")
    column = v.unsqueeze(-1)
    powers = column.expand(*v.shape, count - 1).cumprod(-1)  # (x, x², ...: defined at x = 0)
    return cat([column.new_ones(column.shape), powers], -1)
