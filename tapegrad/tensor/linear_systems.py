"""Square matrices, as torch.linalg takes them: the checks every op of a square system makes
(floating point, at least 2-D, square), and inv, det, slogdet, logdet, solve, solve_triangular,
cholesky and matrix_power on stacks of matrices (leading axes are batch axes). The Tensor methods
(det, inverse, ...: LinearSystemsMixin, at the end) and tg.linalg's functions call these.

Layer L3: numpy, the linear_systems primitives, the shape primitives and `record.apply`; each op
is one primitive or a composition of recorded ones, so its gradient is theirs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np

from ..primitives import elementwise as E
from ..primitives import linear_systems as LS
from ..primitives import shape as S
from .base import TensorBase
from .coerce import TensorLike, as_tensor
from .record import apply

if TYPE_CHECKING:
    from .tensor import Tensor


class SlogdetResult(NamedTuple):
    """What slogdet gives: (sign, logabsdet), as torch.return_types.linalg_slogdet."""

    sign: Tensor
    logabsdet: Tensor


# The ops whose dtype check PyTorch raises as NotImplementedError ("... not implemented for
# 'Long'"/'Half') rather than RuntimeError, for an integer A and for a half-precision one
# (torch 2.13 on the CPU, each checked; tests/test_linalg_error_types.py)
_NOT_IMPLEMENTED_FOR_INTEGERS = frozenset(
    """linalg.solve_triangular cholesky cholesky_solve cholesky_inverse linalg.eigh linalg.eigvalsh
    linalg.lu_factor linalg.lu_factor_ex linalg.lu""".split()
)
_NOT_IMPLEMENTED_FOR_HALVES = _NOT_IMPLEMENTED_FOR_INTEGERS | frozenset(
    """linalg.det linalg.solve linalg.solve_ex linalg.cholesky linalg.cholesky_ex linalg.svd
    linalg.svdvals svd linalg.qr""".split()
)


def floating(a: TensorBase, name: str) -> Tensor:
    """a, checked to be float32 or float64 (what NumPy's LAPACK takes): else PyTorch's error type
    (RuntimeError, or NotImplementedError where PyTorch's kernel is missing for the dtype)."""
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        table = (
            _NOT_IMPLEMENTED_FOR_HALVES if a.dtype.kind == "f" else _NOT_IMPLEMENTED_FOR_INTEGERS
        )
        error = NotImplementedError if name in table else RuntimeError
        raise error(
            f"{name}: expected a float32 or float64 tensor as input, got {a.dtype}; convert it "
            f"first (a.to(tg.float64))"
        )
    return cast("Tensor", a)


def square(a: TensorBase, name: str) -> Tensor:
    """a, checked as torch.linalg checks a stack of square matrices (float32/float64, at least
    2-D, the last two sizes equal): otherwise a clear error naming the op (PyTorch's types:
    RuntimeError, see floating for the dtype)."""
    floating(a, name)
    if a.ndim < 2:
        raise RuntimeError(
            f"{name}: the input tensor A must have at least 2 dimensions, got {a.ndim}"
        )
    n, m = a.shape[-2:]
    if n != m:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {n} by {m} matrices"
        )
    return cast("Tensor", a)


def inv(a: TensorBase) -> Tensor:
    """The inverse of each square matrix (LinAlgError where one is singular)."""
    return apply(LS.inv, square(a, "linalg.inv"))


def det(a: TensorBase) -> Tensor:
    """The determinant of each square matrix: shape a.shape[:-2]."""
    return apply(LS.det, square(a, "linalg.det"))


def slogdet(a: TensorBase) -> SlogdetResult:
    """(sign, log |det|) of each square matrix; sign 0 and logabsdet -inf where one is singular.
    The sign has no gradient (it is piecewise constant)."""
    m = square(a, "linalg.slogdet")
    logabsdet = apply(LS.logabsdet, m)
    # the sign on the tape with a zero gradient, as PyTorch's (a where picking it everywhere)
    sign = np.linalg.slogdet(m._data)[0]
    picked = apply(E.where, np.ones(np.shape(sign), bool), sign, logabsdet)
    return SlogdetResult(picked if m.requires_grad else as_tensor(sign), logabsdet)


def logdet(a: TensorBase) -> Tensor:
    """log det(A): NaN where the determinant is negative, -inf where it is 0, as PyTorch."""
    sign, logabsdet = slogdet(square(a, "logdet"))
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.log(sign._data)  # 0 (det > 0), -inf (det = 0) or NaN (det < 0)
    return logabsdet + shift.astype(logabsdet.dtype)


def _batch_of_vectors(a: Tensor, b: Tensor) -> bool:
    """PyTorch's rule for B in A X = B: a vector (or a batch of them) when it is 1-D, or when it
    has A's shape without A's last axis; otherwise a (batch of) matrices."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


def _check_rhs(a: Tensor, b: Tensor, name: str) -> None:
    """B must be floating point like A, at least 1-D, with A's number of rows."""
    if b.dtype != a.dtype:
        raise RuntimeError(f"{name}: A and B must have the same dtype, got {a.dtype} and {b.dtype}")
    if (
        b.ndim == 0
        or b.shape[-2 if b.ndim >= 2 and not _batch_of_vectors(a, b) else -1] != (a.shape[-1])
    ):
        raise RuntimeError(
            f"{name}: incompatible shapes of A and B for the equation AX = B: A is "
            f"{list(a.shape)}, B is {list(b.shape)} (B needs as many rows as A)"
        )


def solve(a: TensorBase, b: TensorBase, left: bool = True) -> Tensor:
    """X with A X = B (left=False: X A = B) for square A; B a vector or a matrix (each with batch
    axes broadcast against A's), PyTorch's rule saying which."""
    m, rhs = square(a, "linalg.solve"), cast("Tensor", b)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return solve(m.mT, rhs.mT).mT
    _check_rhs(m, rhs, "linalg.solve")
    if _batch_of_vectors(m, rhs):
        column = apply(S.reshape, rhs, shape=tuple(rhs.shape) + (1,))
        return apply(LS.solve, m, column).squeeze(-1)
    return apply(LS.solve, m, rhs)


def solve_triangular(
    a: TensorBase, b: TensorBase, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    """X with A X = B (left=False: X A = B) for a triangular A (only its upper or lower triangle
    is read; unitriangular: its diagonal taken as ones); B a (batch of) matrices."""
    m, rhs = square(a, "linalg.solve_triangular"), cast("Tensor", b)
    if not isinstance(upper, bool):
        raise TypeError(f"linalg.solve_triangular: upper must be True or False, got {upper!r}")
    if rhs.ndim < 2:
        raise RuntimeError(
            f"linalg.solve_triangular: B must be a matrix (or a batch of them), got {rhs.ndim}-D; "
            f"use B.unsqueeze(-1) for a vector"
        )
    if not left:  # X A = B  <=>  A^T X^T = B^T, whose triangle is the other one
        return solve_triangular(m.mT, rhs.mT, upper=not upper, unitriangular=unitriangular).mT
    _check_rhs(m, rhs, "linalg.solve_triangular")
    return apply(LS.solve_triangular, m, rhs, upper=upper, unitriangular=bool(unitriangular))


def cholesky(a: TensorBase, upper: bool = False, name: str = "linalg.cholesky") -> Tensor:
    """L (lower triangular) with A = L L^T for each symmetric positive-definite A (only its lower
    triangle is read); upper=True: U = L^T, with A = U^T U."""
    lower = apply(LS.cholesky, square(a, name))
    return lower.mT if upper else lower


def cholesky_solve(b: TensorBase, factor: TensorBase, upper: bool = False) -> Tensor:
    """X with A X = B, A = L L^T given its Cholesky factor L (upper=True: A = U^T U). Only the
    factor's triangle is read, yet its gradient is that of the factor taken as a full matrix, as
    PyTorch's formula gives it (so A is formed and solved, not two triangular solves)."""
    f = square(factor, "cholesky_solve")
    if b.ndim < 2:
        raise RuntimeError(
            f"cholesky_solve: B must be a matrix (or a batch of them), got {b.ndim}-D"
        )
    # (values from the triangle, gradient through every entry: f minus its detached other part)
    other = f.detach() - (f.detach().triu() if upper else f.detach().tril())
    lower = (f - other).mT if upper else f - other
    return solve(lower @ lower.mT, b)


def matrix_power(a: TensorBase, n: int) -> Tensor:
    """A^n by repeated squaring; n = 0 is the identity, a negative n the power of the inverse."""
    m = square(a, "linalg.matrix_power")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"linalg.matrix_power: n must be an integer, got {n!r}")
    if n == 0:
        eye = np.eye(m.shape[-1], dtype=m.dtype)  # (a where: A's gradient 0, even at NaN)
        return apply(E.where, np.ones(m.shape, bool), eye, m)
    base = inv(m) if n < 0 else m
    result: Tensor | None = None
    k = abs(int(n))
    while True:  # (binary powers: O(log n) products, as PyTorch)
        if k & 1:
            result = base if result is None else result @ base
        k >>= 1
        if not k:
            return result  # type: ignore[return-value]
        base = base @ base


class LinearSystemsMixin(TensorBase):
    """The square-matrix methods of Tensor (det, logdet, slogdet, inverse, cholesky,
    cholesky_solve, matrix_power): the functions above."""

    __slots__ = ()

    def det(self) -> Tensor:
        """The determinant of each square matrix (leading axes are batch axes).

        >>> tg.tensor([[2.0, 0.0], [0.0, 3.0]]).det()
        tensor(6.)
        """
        return det(self)

    def logdet(self) -> Tensor:
        """log det of each square matrix: NaN for a negative determinant, -inf for 0.

        >>> tg.tensor([[2.0, 0.0], [0.0, 0.5]]).logdet()
        tensor(0.)
        """
        return logdet(self)

    def slogdet(self) -> SlogdetResult:
        """(sign, logabsdet) of each square matrix's determinant, a named tuple.

        >>> tg.tensor([[0.0, 1.0], [1.0, 0.0]]).slogdet().sign
        tensor(-1.)
        """
        return slogdet(self)

    def inverse(self) -> Tensor:
        """The inverse of each square matrix (LinAlgError if one is singular).

        >>> tg.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse()
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
        """
        return inv(self)

    def cholesky(self, upper: bool = False) -> Tensor:
        """The Cholesky factor of each symmetric positive-definite matrix (lower; upper=True: its
        transpose).

        >>> tg.tensor([[4.0, 0.0], [0.0, 9.0]]).cholesky()
        tensor([[2., 0.],
                [0., 3.]])
        """
        return cholesky(self, upper=upper, name="cholesky")

    def cholesky_solve(self, input2: TensorLike, upper: bool = False) -> Tensor:
        """X with A X = self, given A's Cholesky factor input2 (A = L L^T; upper: A = U^T U).

        >>> tg.tensor([[4.0], [9.0]]).cholesky_solve(tg.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor([[1.],
                [1.]])
        """
        return cholesky_solve(self, as_tensor(input2), upper)

    def matrix_power(self, n: int) -> Tensor:
        """Each square matrix to the integer power n (n < 0: of its inverse; 0: the identity).

        >>> tg.tensor([[1.0, 1.0], [0.0, 1.0]]).matrix_power(3)
        tensor([[1., 3.],
                [0., 1.]])
        """
        return matrix_power(self, n)
