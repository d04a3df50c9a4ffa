"""PyTorch's older linear algebra methods, kept by torch beside torch.linalg: svd (U, S, V, not
Vh; some / compute_uv), pinverse (rcond), cholesky_inverse and triangular_solve (B first, the
named tuple (solution, cloned_coefficient)), geqrf (LAPACK's compact QR: no derivative, as
PyTorch's), orgqr (linalg.householder_product: the product of the Householder reflectors geqrf
stores) and ormqr (that product applied to a matrix, reflector by reflector); each composed from
recorded ops.

Layer L3: decompositions.py, linear_systems.py and the pinv primitive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np

from ..primitives import decompositions as D
from ..primitives import factorizations as QR
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


class GeqrfResult(NamedTuple):
    """What geqrf gives (torch.return_types.geqrf): R on and above the diagonal of `a`, the
    Householder vectors below it, and their scales `tau`."""

    a: Tensor
    tau: Tensor


class TriangularSolveResult(NamedTuple):
    """What triangular_solve gives (torch.return_types.triangular_solve)."""

    solution: Tensor
    cloned_coefficient: Tensor


def householder_product(A: TensorLike, tau: TensorLike) -> Tensor:
    """The m x n matrix of the first n columns of the product of the Householder reflectors
    stored in A's columns (below the diagonal) and tau (leading axes are batch axes).

    >>> tg.linalg.householder_product(tg.zeros(2, 2), tg.zeros(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    a, t = as_tensor(A), as_tensor(tau)
    name = "torch.linalg.householder_product"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = a.shape[-2:]
    if m < n:
        raise RuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if t.ndim != a.ndim - 1 or t.shape[-1] > n:
        raise RuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1], and tau "
            f"must have one dimension less than input (got input {list(a.shape)}, tau "
            f"{list(t.shape)})"
        )
    below = as_tensor(np.tril(np.ones((m, n), dtype=a.dtype), -1))
    eye = np.eye(m, n, dtype=a.dtype)
    vectors = a * below + as_tensor(eye)  # (unit diagonal, zeros above: v_i's fixed parts)
    q = as_tensor(np.broadcast_to(eye, a.shape[:-2] + (m, n)).copy())
    for i in reversed(range(t.shape[-1])):  # (Q = H_1 (H_2 (... H_k I)))
        v = vectors[..., :, i : i + 1]
        q = q - (t[..., i : i + 1].unsqueeze(-1) * v) * (v.mT @ q)
    # (on the tape even for k = 0, as PyTorch's: sums over empty slices add exact zeros)
    return q + a[..., :0, :].sum(-2, keepdim=True) + t[..., :0].sum(-1)[..., None, None]


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

    def geqrf(self) -> GeqrfResult:
        """(a, tau): LAPACK's compact QR of each matrix (PyTorch has no derivative for it: asking
        for one raises).

        >>> tg.tensor([[3.0], [4.0]]).geqrf().a
        tensor([[-5.0000],
                [ 0.5000]])
        """
        m = matrices(self, "torch.geqrf")  # (float32/float64, at least 2-D: PyTorch's errors)
        return GeqrfResult(apply(QR.geqrf_reflectors, m), apply(QR.geqrf_tau, m))

    def ormqr(
        self, input2: TensorLike, input3: TensorLike, left: bool = True, transpose: bool = False
    ) -> Tensor:
        """op(Q) @ input3 (left) or input3 @ op(Q), Q the product of the Householder reflectors
        stored in self (geqrf's a) and input2 (its tau), op a transpose if `transpose`.

        >>> a, tau = tg.tensor([[3.0], [4.0]]).geqrf()
        >>> a.ormqr(tau, tg.eye(2), transpose=True) @ tg.tensor([[3.0], [4.0]])  # R
        tensor([[-5.],
                [ 0.]])
        """
        tau, other = as_tensor(input2), as_tensor(input3)
        name = "torch.ormqr"
        if self.ndim < 2 or other.ndim < 2:
            which = "input" if self.ndim < 2 else "other"
            raise RuntimeError(f"{name}: {which} must have at least 2 dimensions.")
        axis = -2 if left else -1
        mn = other.shape[axis]
        if self.shape[-2] != mn:
            raise RuntimeError(f"{name}: other.shape[{axis}] must be equal to input.shape[-2]")
        k = min(mn, self.shape[-1])
        if tau.ndim != self.ndim - 1 or tau.shape[-1] != k:
            raise RuntimeError(
                f"{name}: tau.shape[-1] must be equal to min(other.shape[{axis}], "
                f"input.shape[-1]), and tau must have one dimension less than input"
            )
        below = as_tensor(np.tril(np.ones((mn, k), dtype=self.dtype), -1))
        vectors = cast("Tensor", self)[..., :, :k] * below + as_tensor(
            np.eye(mn, k, dtype=self.dtype)
        )
        # (Q = H_1 ... H_k: Q C applies H_k first, Q^T C H_1 first; C Q H_1 first, C Q^T H_k)
        order = range(k) if left == transpose else reversed(range(k))
        out = cast("Tensor", other)
        for i in order:
            v, t = vectors[..., :, i : i + 1], tau[..., i : i + 1].unsqueeze(-1)
            out = out - (t * v) * (v.mT @ out) if left else out - (out @ v) * (t * v.mT)
        return out

    def orgqr(self, input2: TensorLike) -> Tensor:
        """linalg.householder_product(self, input2): Q from geqrf's reflectors and tau.

        >>> tg.zeros(2, 2).orgqr(tg.zeros(2))
        tensor([[1., 0.],
                [0., 1.]])
        """
        return householder_product(self, input2)
