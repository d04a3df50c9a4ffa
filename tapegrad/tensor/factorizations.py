"""Factorizations and functions of matrices as torch.linalg gives them: qr (its modes, its named
tuple, the wide case as a composition), the LU factorization (lu_factor(_ex), lu, lu_unpack,
lu_solve: pivots as PyTorch's, 1-based int32 row swaps) and matrix_exp, with the Tensor methods
(qr, lu, matrix_exp: FactorizationsMixin, at the end) that tg.linalg's functions and tg.* share.

Layer L3: numpy, the factorizations and matrix_functions primitives, the checks of
linear_systems.py and decompositions.py, and `record.apply`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, cast

import numpy as np

from ..primitives import factorizations as F
from ..primitives import matrix_functions as MF
from ..primitives import shape as S
from ..primitives.batched_array import BatchedArray, result
from ..primitives.linear_systems import LinAlgError
from .base import TensorBase
from .coerce import TensorLike, as_tensor
from .decompositions import matrices
from .linear_systems import solve_triangular, square
from .record import apply

if TYPE_CHECKING:
    from .tensor import Tensor


class QRResult(NamedTuple):
    """What qr gives: (Q, R), as torch.return_types.linalg_qr (and torch.return_types.qr)."""

    Q: Tensor
    R: Tensor


_QR_MODES = ("reduced", "complete", "r")


def qr(A: TensorLike, mode: str = "reduced") -> QRResult:
    """(Q, R) with A = Q R for each matrix, a named tuple: mode 'reduced', 'complete' (Q square)
    or 'r' (Q empty). Differentiable as PyTorch's: not in mode 'r', nor 'complete' for m > n.

    >>> tg.linalg.qr(tg.tensor([[3.0, 0.0], [4.0, 1.0]])).Q
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    m = matrices(as_tensor(A), "linalg.qr")
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode {mode!r} but expected one of 'reduced' (default), "
            f"'r', or 'complete'"
        )
    rows, cols = m.shape[-2:]
    if mode == "r":  # (R has a recorded node whose backward raises PyTorch's error)
        return QRResult(as_tensor(np.zeros(0, m.dtype)), apply(F.qr_r, m, mode="r"))
    if rows >= cols:  # (complete on a square A is reduced: the same factors, differentiable)
        kind = "complete" if mode == "complete" and rows > cols else "reduced"
        return QRResult(apply(F.qr_q, m, mode=kind), apply(F.qr_r, m, mode=kind))
    # wide: A = [A_1 A_2] with A_1 square; Q R_1 = A_1, and R_2 = Q^T A_2 (a composition, so
    # its gradient is PyTorch's for the wide case)
    first, rest = m[..., :rows], m[..., rows:]
    q = apply(F.qr_q, first, mode="reduced")
    r = apply(
        S.concatenate,
        apply(F.qr_r, first, mode="reduced"),
        q.mT @ rest,
        axis=m.ndim - 1,
        sizes=(rows, cols - rows),
    )
    return QRResult(q, r)


# ---- LU ----------------------------------------------------------------------------------------
class LUFactorResult(NamedTuple):
    """What lu_factor gives: (LU, pivots), as torch.return_types.linalg_lu_factor."""

    LU: Tensor
    pivots: Tensor


class LUFactorExResult(NamedTuple):
    """What lu_factor_ex gives: (LU, pivots, info), as torch.return_types.linalg_lu_factor_ex."""

    LU: Tensor
    pivots: Tensor
    info: Tensor


class LUResult(NamedTuple):
    """What lu and lu_unpack give: (P, L, U) with A = P L U, as torch.return_types.linalg_lu."""

    P: Tensor
    L: Tensor
    U: Tensor


def _on_stack(data: Any, fn: Callable[[np.ndarray], Any]) -> Any:
    """fn on the stack of matrices behind a tensor's values; inside vmap, on the stacked
    examples (fn treats leading axes as batch axes, so the batch axis is one more of them)."""
    if isinstance(data, BatchedArray):
        return result(_on_stack(data.physical, fn), data.level, data.batched)
    return fn(data)


def _pivots(perm: np.ndarray, k: int) -> np.ndarray:
    """The k 1-based row swaps (LAPACK's pivots) that put the rows in the order perm."""
    count, m = int(np.prod(perm.shape[:-1], dtype=np.int64)), perm.shape[-1]
    flat, stack = perm.reshape(count, m), np.arange(count)
    rows = np.broadcast_to(np.arange(m), (count, m)).copy()  # (the row now at each position)
    pivots = np.empty((count, k), np.int32)
    for j in range(k):
        p = np.argmax(rows == flat[:, j, None], axis=1)
        pivots[:, j] = p + 1
        rows[stack, j], rows[stack, p] = rows[stack, p], rows[stack, j].copy()
    return pivots.reshape(perm.shape[:-1] + (k,))


def _permutation(pivots: np.ndarray, m: int, dtype: Any) -> np.ndarray:
    """P (A = P L U) of each matrix from its 1-based row swaps."""
    count = int(np.prod(pivots.shape[:-1], dtype=np.int64))
    flat = pivots.reshape(count, pivots.shape[-1]).astype(np.int64) - 1
    stack = np.arange(count)
    perm = np.broadcast_to(np.arange(m), (count, m)).copy()
    for j in range(flat.shape[1]):
        p = flat[:, j]
        perm[stack, j], perm[stack, p] = perm[stack, p], perm[stack, j].copy()
    p_matrix = (perm[:, None, :] == np.arange(m)[:, None]).astype(dtype)
    return p_matrix.reshape(pivots.shape[:-1] + (m, m))


def _packed(a: Tensor) -> tuple[Tensor, Tensor]:
    """(P, L\\U packed) of each matrix: its rows gathered in pivot order, factored without
    swaps; a tall or wide matrix as its square part and triangular solves for the rest (so the
    gradient is that composition's, PyTorch's for every shape)."""
    p = apply(F.lu_permutation, a)  # (recorded, with a zero gradient: P is piecewise constant)
    rows = p.mT @ a  # (the rows gathered: exact, each a sum of one entry and zeros; and vmap's)
    m, n = a.shape[-2:]
    if m == n:
        return p, apply(F.lu_unpivoted, rows)
    if m < n:  # [A_1 A_2] = L [U_1 U_2]: U_2 = L^-1 A_2
        first = apply(F.lu_unpivoted, rows[..., :m])
        rest = solve_triangular(first, rows[..., m:], upper=False, unitriangular=True)
        return p, apply(S.concatenate, first, rest, axis=a.ndim - 1, sizes=(m, n - m))
    if not a.requires_grad and isinstance(a._data, np.ndarray):  # (no gradient to follow: the
        return p, as_tensor(F.eliminate(a._data)[0])  # values even where U is singular)
    top = apply(F.lu_unpivoted, rows[..., :n, :])  # [A_1; A_2] = [L_1; L_2] U: L_2 = A_2 U^-1
    rest = solve_triangular(top, rows[..., n:, :], upper=True, left=False)
    return p, apply(S.concatenate, top, rest, axis=a.ndim - 2, sizes=(n, m - n))


def _checked(a: TensorBase, pivot: bool, name: str) -> Tensor:
    """a as a stack of float32/float64 matrices; pivot=False refused as PyTorch's CPU does."""
    if a.ndim < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(a.shape)} instead ({name} factors matrices or batches of them)"
        )
    m = matrices(a, name)
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")
    return m


def lu_factor_ex(
    A: TensorLike, *, pivot: bool = True, check_errors: bool = False
) -> LUFactorExResult:
    """(LU, pivots, info) as lu_factor, info > 0 (the 1-based column of U's first zero pivot; the
    factorization is complete even then) instead of an error; check_errors=True raises.

    >>> tg.linalg.lu_factor_ex(tg.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    tensor(2, dtype=int32)
    """
    m = _checked(as_tensor(A), pivot, "linalg.lu_factor_ex")
    p, packed = _packed(m)
    k = min(m.shape[-2:])
    pivots = _on_stack(p.argmax(-2)._data, lambda perm: _pivots(perm, k))
    info = _on_stack(packed._data, _zero_pivot)
    if check_errors and np.any(info):
        raise LinAlgError(f"linalg.lu_factor_ex: {_singular_message(info)}")
    return LUFactorExResult(packed, as_tensor(pivots), as_tensor(info))


def _zero_pivot(packed: np.ndarray) -> np.ndarray:
    """The 1-based position of the first exact zero on U's diagonal (0: none), as int32."""
    diagonal = np.diagonal(packed, axis1=-2, axis2=-1) == 0
    return np.where(diagonal.any(-1), diagonal.argmax(-1) + 1, 0).astype(np.int32)


def _singular_message(info: np.ndarray) -> str:
    k = int(np.max(info)) - 1
    return (
        f"U[{k},{k}] is zero and using it on lu_solve would result in a division by zero. If you "
        f"still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
        f"linalg.lu_factor_ex(A, pivot)"
    )


def lu_factor(A: TensorLike, *, pivot: bool = True) -> LUFactorResult:
    """(LU, pivots): L (unit lower, its ones left out) and U packed in one matrix, and the 1-based
    int32 row swaps, as LAPACK's getrf; LinAlgError where U has a zero pivot.

    >>> tg.linalg.lu_factor(tg.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots
    tensor([2, 2], dtype=int32)
    """
    packed, pivots, info = lu_factor_ex(_checked(as_tensor(A), pivot, "linalg.lu_factor"))
    if np.any(info._data):
        raise LinAlgError(f"linalg.lu_factor: {_singular_message(info._data)}")
    return LUFactorResult(packed, pivots)


def _unpacked(packed: Tensor) -> tuple[Tensor, Tensor]:
    """L (m x k, unit lower) and U (k x n, upper) from the packed L\\U."""
    m, n = packed.shape[-2:]
    k = min(m, n)
    eye = as_tensor(np.eye(m, k, dtype=packed.dtype))
    return packed[..., :, :k].tril(-1) + eye, packed[..., :k, :].triu()


def lu(A: TensorLike, *, pivot: bool = True) -> LUResult:
    """(P, L, U) with A = P L U for each matrix, P a permutation, L unit lower, U upper (which
    may be singular).

    >>> tg.linalg.lu(tg.tensor([[1.0, 2.0], [3.0, 4.0]])).L
    tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]])
    """
    p, packed = _packed(_checked(as_tensor(A), pivot, "linalg.lu"))
    return LUResult(p, *_unpacked(packed))


def lu_unpack(
    packed: TensorBase, pivots: TensorBase, unpack_data: bool = True, unpack_pivots: bool = True
) -> LUResult:
    """(P, L, U) from lu_factor's (LU, pivots); the parts not unpacked are empty tensors."""
    data, piv = cast("Tensor", packed), cast("Tensor", pivots)
    m, n = data.shape[-2:] if data.ndim >= 2 else (0, 0)
    if data.ndim < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(data.shape)} instead"
        )
    if piv.dtype != np.int32:
        raise RuntimeError(
            f"torch.lu_unpack: LU_pivots is expected to be a tensor of torch.int32 dtype (as "
            f"lu_factor gives it), got {piv.dtype}"
        )
    if piv.shape != data.shape[:-2] + (min(m, n),):
        raise RuntimeError(
            f"torch.lu_unpack: LU_pivots must have shape {list(data.shape[:-2] + (min(m, n),))} "
            f"for LU_data of shape {list(data.shape)}, got {list(piv.shape)}"
        )
    if piv.numel() and (int(piv._data.min()) < 1 or int(piv._data.max()) > m):
        raise RuntimeError(
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive. Did you "
            "properly pass the result of lu_factor?"
        )
    empty = as_tensor(np.zeros(0, data.dtype))
    p = as_tensor(_permutation(piv._data, m, data.dtype)) if unpack_pivots else empty
    lower, upper = _unpacked(data) if unpack_data else (empty, empty)
    return LUResult(p, lower, upper)


def lu_solve(
    LU: TensorLike, pivots: TensorLike, B: TensorLike, *, left: bool = True, adjoint: bool = False
) -> Tensor:
    """X with A X = B from A's lu_factor (adjoint: A^T X = B; left=False: X A = B). The gradient
    reaches LU's two triangles (and B), as PyTorch's.

    >>> f = tg.linalg.lu_factor(tg.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> tg.linalg.lu_solve(f.LU, f.pivots, tg.ones(2, 1))
    tensor([[0.5000],
            [0.2500]])
    """
    lu_data, rhs = as_tensor(LU), as_tensor(B)
    if lu_data.ndim >= 2 and lu_data.shape[-1] != lu_data.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
            f"{lu_data.shape[-2]} by {lu_data.shape[-1]} matrices"
        )
    lu_data = square(lu_data, "linalg.lu_solve")
    if rhs.ndim < 2:
        raise RuntimeError(
            "linalg.lu_solve: The input tensor B must have at least 2 dimensions (B is a matrix "
            "or a batch of them; use B.unsqueeze(-1) for a vector)."
        )
    if rhs.dtype != lu_data.dtype:
        raise RuntimeError(
            f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{lu_data.dtype} and B of type {rhs.dtype} instead"
        )
    piv = as_tensor(pivots)
    if piv.dtype != np.int32:
        raise RuntimeError(
            f"linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32, got "
            f"{piv.dtype} (pass lu_factor's pivots as they are)"
        )
    n = lu_data.shape[-1]
    if rhs.shape[-2 if left else -1] != n:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rhs.shape[-2]}x{rhs.shape[-1]})"
        )
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return lu_solve(lu_data, pivots, rhs.mT, adjoint=not adjoint).mT
    p = lu_unpack(lu_data.detach(), as_tensor(pivots), unpack_data=False).P
    if adjoint:  # A^T = U^T L^T P^T:  X = P L^-T U^-T B
        y = solve_triangular(lu_data.mT, rhs, upper=False)
        return p @ solve_triangular(lu_data.mT, y, upper=True, unitriangular=True)
    y = solve_triangular(lu_data, p.mT @ rhs, upper=False, unitriangular=True)
    return solve_triangular(lu_data, y, upper=True)


def matrix_exp(A: TensorLike) -> Tensor:
    """exp(A) = sum A^k / k! of each square matrix by scaling and squaring with the [13/13] Pade
    approximant (NaN where A has an inf or NaN, as PyTorch).

    >>> tg.linalg.matrix_exp(tg.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    return apply(MF.matrix_exp, square(as_tensor(A), "linalg.matrix_exp"))


_warned: list[bool] = []


def _warn_lu_solve_once() -> None:
    """PyTorch's deprecation warning for torch.lu_solve, once per process (its TORCH_WARN_ONCE)."""
    if not _warned:
        _warned.append(True)
        warnings.warn(
            "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
            "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
            "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
            "X = torch.linalg.lu_solve(LU, pivots, B)",
            UserWarning,
            stacklevel=3,
        )


class FactorizationsMixin(TensorBase):
    """The Tensor methods qr, lu, lu_solve and matrix_exp: the functions above."""

    __slots__ = ()

    def qr(self, some: bool = True) -> QRResult:
        """(Q, R) with self = Q R (PyTorch's older spelling: some=False gives a square Q).

        >>> tg.tensor([[3.0, 0.0], [4.0, 1.0]]).qr().R
        tensor([[-5.0000, -0.8000],
                [ 0.0000,  0.6000]])
        """
        return qr(self, "reduced" if some else "complete")

    def lu(
        self, pivot: bool = True, get_infos: bool = False
    ) -> tuple[Tensor, Tensor] | LUFactorExResult:
        """(LU, pivots) of each matrix, PyTorch's older lu_factor, a plain tuple as torch.lu's;
        get_infos=True: the named tuple (LU, pivots, info), not raising where U is singular.

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).lu()[1]
        tensor([2, 2], dtype=int32)
        """
        if get_infos:
            return lu_factor_ex(self, pivot=pivot)
        return tuple(lu_factor(self, pivot=pivot))  # type: ignore[return-value]

    def lu_solve(self, LU_data: TensorLike, LU_pivots: TensorLike) -> Tensor:
        """X with A X = self from A's lu_factor (LU_data, LU_pivots): PyTorch's older spelling of
        tg.linalg.lu_solve(LU_data, LU_pivots, self), with its deprecation warning.

        >>> f = tg.linalg.lu_factor(tg.tensor([[2.0, 0.0], [0.0, 4.0]]))
        >>> tg.ones(2, 1).lu_solve(f.LU, f.pivots)
        tensor([[0.5000],
                [0.2500]])
        """
        _warn_lu_solve_once()
        return lu_solve(LU_data, LU_pivots, self)

    def matrix_exp(self) -> Tensor:
        """The matrix exponential of each square matrix.

        >>> tg.tensor([[0.0, 1.0], [0.0, 0.0]]).matrix_exp()
        tensor([[1., 1.],
                [0., 1.]])
        """
        return matrix_exp(self)
