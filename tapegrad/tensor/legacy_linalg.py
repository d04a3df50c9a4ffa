"""PyTorch's older linear algebra methods, kept by torch beside torch.linalg: svd (U, S, V, not
Vh; some / compute_uv), pinverse (rcond), cholesky_inverse and triangular_solve (B first, the
named tuple (solution, cloned_coefficient)); each composed from the torch.linalg forms here.

Layer L3: decompositions.py, linear_systems.py and the pinv primitive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..primitives import decompositions as D
from .base import TensorBase
from .coerce import TensorLike, as_tensor
from .decompositions import matrices, svd
from .linear_systems import cholesky_solve, solve_triangular, square
from .record import apply

if TYPE_CHECKING:
    from .tensor import Tensor


class SVDOldResult(NamedTuple):
    """What torch.svd gives: (U, S, V) with A = U diag(S) V^T (torch.return_types.svd)."""

    U: Tensor
    S: Tensor
    V: Tensor


class TriangularSolveResult(NamedTuple):
    """What triangular_solve gives (torch.return_types.triangular_solve)."""

    solution: Tensor
    cloned_coefficient: Tensor


class LegacyLinalgMixin(TensorBase):
    """Tensor.svd, pinverse, cholesky_inverse and triangular_solve (PyTorch's older API)."""

    __slots__ = ()

    def svd(self, some: bool = True, compute_uv: bool = True) -> SVDOldResult:
        """(U, S, V) with self = U diag(S) V^T (V, not linalg.svd's Vh); some=False: U and V
        square; compute_uv=False: U and V zero-filled (m x m, n x n), as PyTorch.

        >>> tg.tensor([[3.0, 0.0], [0.0, -4.0]]).svd().S
        tensor([4., 3.])
        """
        m = matrices(self, "svd")
        if not compute_uv:
            rows, cols = m.shape[-2:]
            s = apply(D.svdvals, m)
            zeros = (np.zeros(m.shape[:-2] + (n, n), m.dtype) for n in (rows, cols))
            return SVDOldResult(as_tensor(next(zeros)), s, as_tensor(next(zeros)))
        u, s, vh = svd(m, full_matrices=not some)
        return SVDOldResult(u, s, vh.mT)

    def pinverse(self, rcond: float = 1e-15) -> Tensor:
        """The pseudo-inverse, singular values at most rcond times the largest taken as 0
        (linalg.pinv with rtol=rcond).

        >>> tg.tensor([[2.0, 0.0], [0.0, 0.0]]).pinverse()
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
        """
        m = matrices(self, "pinverse")
        return apply(D.pinv, m, rtol=float(rcond), atol=0.0, hermitian=False)

    def cholesky_inverse(self, upper: bool = False) -> Tensor:
        """The inverse of A = L L^T from its Cholesky factor self (upper=True: A = U^T U); only
        that triangle is read, the gradient PyTorch's (the factor taken as a full matrix).

        >>> tg.tensor([[2.0, 0.0], [0.0, 0.5]]).cholesky_inverse()
        tensor([[0.2500, 0.0000],
                [0.0000, 4.0000]])
        """
        factor = square(self, "cholesky_inverse")
        eye = as_tensor(np.broadcast_to(np.eye(factor.shape[-1], dtype=factor.dtype), factor.shape))
        return cholesky_solve(eye, factor, upper)

    def triangular_solve(
        self,
        A: TensorLike,
        upper: bool = True,
        transpose: bool = False,
        unitriangular: bool = False,
    ) -> TriangularSolveResult:
        """X with A X = self (transpose: A^T X = self) for triangular A, and a copy of A: PyTorch's
        older form of linalg.solve_triangular (upper by default; self first).

        >>> tg.tensor([[1.0], [1.0]]).triangular_solve(tg.tensor([[2.0, 1.0], [0.0, 1.0]])).solution
        tensor([[0.],
                [1.]])
        """
        a = as_tensor(A)
        coefficient = a.mT if transpose else a
        x = solve_triangular(coefficient, self, upper != transpose, True, unitriangular)
        return TriangularSolveResult(x, a.clone())
