"""`tg.linalg`: torch.linalg's functions as PyTorch defines them (names, keywords, batching over
leading axes, named-tuple results, errors): norms, products, and square systems (det, slogdet,
inv, solve, cholesky, solve_triangular, matrix_power), eigh and svd, qr, LU and matrix_exp;
matrix_rank and cond (matrix_measures.py), tensorinv, tensorsolve and vander (tensor_equations.py),
householder_product (tensor/legacy_linalg.py);
eig and eigvals refused (complex results).

Layer L4: a namespace of functions over the Tensor layer. The math of the square systems lives in
primitives/linear_systems.py (rules) and tensor/linear_systems.py (checks); the norms and
products here are compositions of recorded ops, so their gradients are those ops'. eigh and svd:
tensor/decompositions.py and primitives/decompositions.py; qr, LU and matrix_exp:
tensor/factorizations.py, primitives/factorizations.py and matrix_functions.py.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, NoReturn, Sequence

import numpy as np

from ._utils import one_axis
from .math import matmul
from .primitives.linear_systems import LinAlgError
from .tensor import Tensor
from .tensor import linear_systems as LS
from .tensor.coerce import TensorLike, as_tensor
from .primitives import decompositions as PD
from .tensor import apply
from .tensor import decompositions as DE
from .tensor.decompositions import EighResult, SVDResult
from .tensor.factorizations import LUFactorExResult, LUFactorResult, LUResult, QRResult
from .tensor.factorizations import lu, lu_factor, lu_factor_ex, lu_solve, matrix_exp, qr
from .tensor.linear_systems import SlogdetResult
from .matrix_measures import cond, matrix_rank
from .tensor_equations import tensorinv, tensorsolve, vander
from .tensor.legacy_linalg import householder_product

__all__ = [
    "matmul", "vector_norm", "matrix_norm", "norm", "vecdot", "multi_dot", "matrix_power",
    "cross", "diagonal", "det", "slogdet", "inv", "inv_ex", "solve", "solve_ex", "cholesky",
    "cholesky_ex", "solve_triangular", "eigh", "eigvalsh", "LinAlgError", "SlogdetResult",
    "EighResult", "svd", "svdvals", "SVDResult", "pinv", "lstsq", "LstsqResult", "qr",
    "QRResult", "matrix_exp", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "LUFactorResult",
    "LUFactorExResult", "LUResult", "matrix_rank", "cond", "tensorinv", "tensorsolve", "vander",
    "eig", "eigvals", "householder_product",
]  # fmt: skip


# ---- norms -------------------------------------------------------------------------------------
def _floating(x: Tensor, dtype: Any, name: str) -> Tensor:
    """x in `dtype` if given; a floating-point tensor is required, as PyTorch."""
    x = x if dtype is None else x.to(dtype)
    if x.dtype.kind != "f":
        raise TypeError(
            f"linalg.{name}: expected a floating point tensor as input, got {x.dtype}; pass "
            f"dtype=tg.float32 or convert it first"
        )
    return x


def vector_norm(
    x: TensorLike,
    ord: float = 2,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """The ord-norm of x seen as vectors along dim (all elements when None): 2, 1, inf (max |x|),
    -inf (min |x|), 0 (non-zeros) or any other number.

    >>> tg.linalg.vector_norm(tg.tensor([3.0, 4.0]))
    tensor(5.)
    """
    t = _floating(as_tensor(x), dtype, "vector_norm")
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    axes = tuple(dim) if isinstance(dim, (tuple, list)) else dim
    if axes is None and keepdim:  # (every axis kept, of size 1)
        return t.norm(ord, tuple(range(t.ndim)), True) if t.ndim else t.norm(ord)
    return t.norm(ord, axes, keepdim)


def _matrix_axes(a: Tensor, dim: Sequence[int], name: str) -> tuple[int, int]:
    """The two distinct matrix axes of a (non-negative)."""
    if a.ndim < 2:
        raise ValueError(
            f"linalg.{name}: the input tensor A must have at least 2 dimensions, got {a.ndim}"
        )
    if len(dim) != 2:
        raise ValueError(f"linalg.{name}: dim must be a 2-tuple, got {tuple(dim)}")
    d0, d1 = (one_axis(d, a.ndim) for d in dim)
    if d0 == d1:
        raise ValueError(f"linalg.{name}: dims must be different, got ({d0}, {d1})")
    return d0, d1


def matrix_norm(
    A: TensorLike,
    ord: float | str = "fro",
    dim: tuple[int, int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """The ord-norm of the matrices in the dim planes: 'fro', 'nuc' (sum of the singular values),
    2 / -2 (largest / smallest singular value), 1 / -1 (max / min column sum of |A|), inf / -inf
    (max / min row sum).

    >>> tg.linalg.matrix_norm(tg.tensor([[1.0, -2.0], [3.0, 4.0]]), 1)
    tensor(6.)
    """
    a = _floating(as_tensor(A), dtype, "matrix_norm")
    rows, cols = _matrix_axes(a, dim, "matrix_norm")
    if ord == "fro":
        return a.norm(2, (rows, cols), keepdim)
    if ord in ("nuc", 2, -2):  # (of the singular values: their sum, the largest, the smallest)
        moved = a.movedim((rows, cols), (-2, -1))
        values = DE.svdvals(moved)
        out = values.sum(-1) if ord == "nuc" else values.amax(-1) if ord == 2 else values.amin(-1)
        if keepdim:
            for axis in sorted((rows, cols)):
                out = out.unsqueeze(axis)
        return out
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise ValueError(
            f"linalg.matrix_norm: order {ord!r} not supported; use 'fro', 1, -1, inf or -inf"
        )
    summed, across = (rows, cols) if abs(ord) == 1 else (cols, rows)  # (1: column sums)
    sums = a.abs().sum(summed, keepdim=True)
    out = sums.amax(across, keepdim=True) if ord > 0 else sums.amin(across, keepdim=True)
    return out if keepdim else out.squeeze((rows, cols))


def norm(
    A: TensorLike,
    ord: float | str | None = None,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """A vector norm (dim an int or 1 axis, or A 1-D) or a matrix norm (dim 2 axes, or A 2-D), as
    torch.linalg.norm chooses; ord None: the 2-norm of all elements flattened (or 'fro').

    >>> tg.linalg.norm(tg.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    """
    a = as_tensor(A)
    if dim is not None:
        axes = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if len(axes) not in (1, 2):
            raise ValueError(
                f"linalg.norm: if dim is specified, it must be of length 1 or 2, got {list(axes)}"
            )
    elif ord is None:
        return vector_norm(a, 2, None, keepdim, dtype=dtype)
    elif a.ndim in (1, 2):
        axes = tuple(range(a.ndim))
    else:
        raise ValueError(
            f"linalg.norm: if dim is not specified but ord is, the input must be 1-D or 2-D, "
            f"got {a.ndim}-D"
        )
    if len(axes) == 2:
        return matrix_norm(a, "fro" if ord is None else ord, axes, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise ValueError(f"linalg.norm: ord={ord!r} is a matrix norm; it needs two dims")
    return vector_norm(a, 2 if ord is None else ord, axes, keepdim, dtype=dtype)


# ---- products ----------------------------------------------------------------------------------
def vecdot(x: TensorLike, y: TensorLike, *, dim: int = -1) -> Tensor:
    """The dot product of x and y (broadcast) along dim.

    >>> tg.linalg.vecdot(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]))
    tensor(11.)
    """
    a, b = as_tensor(x), as_tensor(y)
    if a.dtype != b.dtype:
        raise TypeError(
            f"linalg.vecdot: x and y must have the same dtype, got {a.dtype}, {b.dtype}"
        )
    return (a * b).sum(dim)


def multi_dot(tensors: Sequence[TensorLike]) -> Tensor:
    """The product of a chain of matrices; the first may be a (row) vector, the last a (column)
    vector, as torch.linalg.multi_dot.

    >>> tg.linalg.multi_dot([tg.ones(2), tg.ones(2, 3), tg.ones(3)])
    tensor(6.)
    """
    ts = [as_tensor(t) for t in tensors]
    if len(ts) < 2:
        raise ValueError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        allowed = (1, 2) if i in (0, len(ts) - 1) else (2,)
        if t.ndim not in allowed:
            where = "the first and last" if len(allowed) == 2 else "the middle"
            raise ValueError(
                f"multi_dot(): {where} tensors must be {' or '.join(map(str, allowed))}-D, but "
                f"tensor {i} is {t.ndim}-D"
            )
    out = ts[0]
    for t in ts[1:]:
        out = out @ t
    return out


def matrix_power(A: TensorLike, n: int) -> Tensor:
    """Each square matrix of A to the integer power n (n < 0: of its inverse).

    >>> tg.linalg.matrix_power(tg.tensor([[2.0, 0.0], [0.0, 1.0]]), -1)
    tensor([[0.5000, 0.0000],
            [0.0000, 1.0000]])
    """
    return LS.matrix_power(as_tensor(A), n)


def cross(x: TensorLike, y: TensorLike, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along dim (x and y of one rank, their sizes broadcast).

    >>> tg.linalg.cross(tg.tensor([1.0, 0.0, 0.0]), tg.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    a, b = as_tensor(x), as_tensor(y)
    if a.ndim != b.ndim:  # (torch.linalg.cross broadcasts sizes, not ranks)
        raise ValueError(
            f"linalg.cross: inputs must have the same number of dimensions, got {a.ndim} and "
            f"{b.ndim}; unsqueeze the smaller one"
        )
    return a.cross(b, dim=dim)


def diagonal(A: TensorLike, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices in the last two axes (a view), as the last axis.

    >>> tg.linalg.diagonal(tg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    return as_tensor(A).diagonal(offset, dim1, dim2)


# ---- square systems ----------------------------------------------------------------------------
def det(A: TensorLike) -> Tensor:
    """The determinant of each square matrix.

    >>> tg.linalg.det(tg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    return LS.det(as_tensor(A))


def slogdet(A: TensorLike) -> SlogdetResult:
    """(sign, logabsdet) of each determinant, a named tuple.

    >>> tg.linalg.slogdet(tg.tensor([[1.0, 2.0], [3.0, 4.0]])).sign
    tensor(-1.)
    """
    return LS.slogdet(as_tensor(A))


def inv(A: TensorLike) -> Tensor:
    """The inverse of each square matrix (LinAlgError if one is singular).

    >>> tg.linalg.inv(tg.tensor([[2.0, 0.0], [0.0, 4.0]]))[1, 1]
    tensor(0.2500)
    """
    return LS.inv(as_tensor(A))


def solve(A: TensorLike, B: TensorLike, *, left: bool = True) -> Tensor:
    """X with A X = B (left=False: X A = B); B a vector or a matrix, by PyTorch's rule.

    >>> tg.linalg.solve(tg.tensor([[2.0, 0.0], [0.0, 4.0]]), tg.tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """
    return LS.solve(as_tensor(A), as_tensor(B), left=left)


def cholesky(A: TensorLike, *, upper: bool = False) -> Tensor:
    """The Cholesky factor L (A = L L^T) of each symmetric positive-definite matrix; upper: L^T.

    >>> tg.linalg.cholesky(tg.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    return LS.cholesky(as_tensor(A), upper=upper)


def solve_triangular(
    A: TensorLike, B: TensorLike, *, upper: bool, left: bool = True, unitriangular: bool = False
) -> Tensor:
    """X with A X = B (left=False: X A = B), A triangular (upper or lower; unitriangular: its
    diagonal taken as ones). Only that triangle of A is read.

    >>> tg.linalg.solve_triangular(tg.tensor([[2.0, 1.0], [0.0, 1.0]]), tg.ones(2, 1), upper=True)
    tensor([[0.],
            [1.]])
    """
    return LS.solve_triangular(as_tensor(A), as_tensor(B), upper, left, unitriangular)


def eig(A: TensorLike) -> NoReturn:
    """Refused: a general matrix's eigenvalues are complex and tapegrad's tensors are real."""
    raise _no_complex("eig", as_tensor(A))


def eigvals(A: TensorLike) -> NoReturn:
    """Refused, as eig: the eigenvalues of a general matrix are complex."""
    raise _no_complex("eigvals", as_tensor(A))


def _no_complex(name: str, a: Tensor) -> TypeError:
    return TypeError(
        f"linalg.{name}: a general matrix's eigenvalues are complex (PyTorch returns complex "
        f"tensors) and tapegrad has no complex dtype; for a symmetric matrix use linalg.eigh / "
        f"eigvalsh (real), or the singular values (linalg.svdvals); got shape {list(a.shape)}"
    )


def eigh(A: TensorLike, UPLO: str = "L") -> EighResult:
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, a named tuple;
    only the UPLO triangle is read. The gradient is PyTorch's (symmetric; infinite where
    eigenvalues repeat and the eigenvectors matter).

    >>> tg.linalg.eigh(tg.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    tensor([1., 2.])
    """
    return DE.eigh(as_tensor(A), UPLO)


def eigvalsh(A: TensorLike, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of each symmetric matrix; only the UPLO triangle is read.

    >>> tg.linalg.eigvalsh(tg.tensor([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    return DE.eigvalsh(as_tensor(A), UPLO)


def svd(A: TensorLike, full_matrices: bool = True) -> SVDResult:
    """(U, S, Vh) with A = U diag(S) Vh for each matrix, S descending, a named tuple (U's columns
    and Vh's rows are defined up to a shared sign). full_matrices=False: k = min(m, n) of each.

    >>> tg.linalg.svd(tg.tensor([[3.0, 0.0], [0.0, -4.0]])).S
    tensor([4., 3.])
    """
    return DE.svd(as_tensor(A), full_matrices)


def svdvals(A: TensorLike) -> Tensor:
    """The singular values of each matrix, descending.

    >>> tg.linalg.svdvals(tg.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor([4., 3.])
    """
    return DE.svdvals(as_tensor(A))


def pinv(
    A: TensorLike, *, atol: float | None = None, rtol: float | None = None, hermitian: bool = False
) -> Tensor:
    """The pseudo-inverse of each matrix from its SVD (hermitian: its eigh): singular values at
    most max(atol, rtol * the largest) count as 0 (rtol defaults to eps * max(m, n) when neither
    is given, as PyTorch). Its gradient is PyTorch's (the derivative at constant rank);
    hermitian=True reads A's lower triangle only.

    >>> tg.linalg.pinv(tg.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    a = DE.matrices(as_tensor(A), "linalg.pinv")
    if rtol is None:
        rtol = (
            0.0
            if atol is not None and atol > 0
            else float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
        )
    return apply(PD.pinv, a, rtol=float(rtol), atol=float(atol or 0.0), hermitian=bool(hermitian))


class LstsqResult(NamedTuple):
    """What lstsq gives, as torch.return_types.linalg_lstsq."""

    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


_DRIVERS = (None, "gels", "gelsy", "gelsd", "gelss")


def lstsq(
    A: TensorLike, B: TensorLike, rcond: float | None = None, *, driver: str | None = None
) -> LstsqResult:
    """The least-squares (minimum-norm) X of A X = B through the pseudo-inverse, as a named
    tuple; the other fields as PyTorch's driver fills them on CPU (rank except for 'gels', the
    singular values for 'gelsd'/'gelss', the residuals for those and 'gels' when A is tall and
    full-rank).

    >>> tg.linalg.lstsq(tg.tensor([[1.0], [1.0]]), tg.tensor([[1.0], [3.0]])).solution
    tensor([[2.]])
    """
    if driver not in _DRIVERS:
        raise RuntimeError(f"linalg.lstsq: driver must be one of {_DRIVERS}, got {driver!r}")
    a, b = DE.matrices(as_tensor(A), "linalg.lstsq"), as_tensor(B)
    if b.dtype != a.dtype:
        raise RuntimeError(
            f"linalg.lstsq: A and B must have the same dtype, got {a.dtype}, {b.dtype}"
        )
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    rhs = b.unsqueeze(-1) if vector else b
    if rhs.ndim < 2 or rhs.shape[-2] != a.shape[-2]:
        raise RuntimeError(
            f"linalg.lstsq: A and B need the same number of rows, got shapes {list(a.shape)} and "
            f"{list(b.shape)}"
        )
    rows, cols = a.shape[-2:]
    cut = float(np.finfo(a.dtype).eps) * max(rows, cols) if rcond is None or rcond < 0 else rcond
    x = pinv(a, rtol=cut) @ rhs
    singular = np.linalg.svd(a.detach().numpy(), compute_uv=False)
    rank = (singular > cut * singular.max(-1, initial=0.0, keepdims=True)).sum(-1)
    empty = as_tensor(np.zeros(0, a.dtype))
    residuals = x.reshape(-1)[:0]  # (empty, yet on the tape as PyTorch's)
    if driver in ("gels", "gelsd", "gelss") and rows > cols and (rank == cols).all():
        residuals = ((a @ x - rhs) ** 2).sum(-2)
    return LstsqResult(
        x.squeeze(-1) if vector else x,
        residuals.squeeze(-1) if vector and residuals.ndim else residuals,
        as_tensor(np.zeros(0, np.int64)) if driver == "gels" else as_tensor(rank.astype(np.int64)),
        as_tensor(singular) if driver in ("gelsd", "gelss") else empty,
    )


# ---- the _ex forms: an info tensor instead of an error -----------------------------------------
class InvExResult(NamedTuple):
    """What inv_ex gives, as torch.return_types.linalg_inv_ex."""

    inverse: Tensor
    info: Tensor


class CholeskyExResult(NamedTuple):
    """What cholesky_ex gives, as torch.return_types.linalg_cholesky_ex."""

    L: Tensor
    info: Tensor


class SolveExResult(NamedTuple):
    """What solve_ex gives, as torch.return_types.linalg_solve_ex."""

    result: Tensor
    info: Tensor


def _info(a: Tensor, fails: Any) -> Tensor:
    """The int32 info of each matrix: 0 where the op succeeds, else `fails(matrix)` (> 0)."""
    batch = a.shape[:-2]
    flat = a.detach().numpy().reshape((int(np.prod(batch)),) + a.shape[-2:])
    codes = [fails(m) for m in flat]
    return as_tensor(np.asarray(codes, dtype=np.int32).reshape(batch))


def _zero_pivot(m: np.ndarray) -> int:
    """0 for a matrix LU with partial pivoting can factor, else the 1-based position of the
    first exactly zero pivot (PyTorch's info for inv_ex and solve_ex)."""
    u = np.array(m, dtype=np.float64)
    for k in range(u.shape[0]):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        u[[k, p]] = u[[p, k]]
        u[k + 1 :] -= np.outer(u[k + 1 :, k] / u[k, k], u[k])
    return 0


def _non_positive_minor(m: np.ndarray) -> int:
    """0 for a positive-definite matrix, else the order of its first leading minor that is not
    positive-definite (PyTorch's info for cholesky_ex)."""
    for k in range(1, m.shape[0] + 1):
        try:
            np.linalg.cholesky(m[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def inv_ex(A: TensorLike, *, check_errors: bool = False) -> InvExResult:
    """(inverse, info): info 0 where a matrix is invertible, > 0 where singular (its inverse then
    NaN); check_errors=True raises instead.

    >>> tg.linalg.inv_ex(tg.tensor([[2.0, 0.0], [0.0, 4.0]])).info
    tensor(0, dtype=int32)
    """
    a = LS.square(as_tensor(A), "linalg.inv_ex")
    info = _info(a, _zero_pivot)
    if not info.numpy().any() or check_errors:
        return InvExResult(LS.inv(a), info)
    nan = np.where(info.numpy()[..., None, None] > 0, np.nan, 0.0).astype(a.dtype)
    safe = a.detach().numpy() * (nan == 0) + np.eye(a.shape[-1], dtype=a.dtype) * (nan != 0)
    return InvExResult(as_tensor(np.linalg.inv(safe) + nan), info)


def cholesky_ex(
    A: TensorLike, *, upper: bool = False, check_errors: bool = False
) -> CholeskyExResult:
    """(L, info): info 0 where a matrix is positive-definite, else the order of its first leading
    minor that is not (L is then NaN there); check_errors=True raises instead.

    >>> tg.linalg.cholesky_ex(tg.tensor([[4.0, 0.0], [0.0, -1.0]])).info
    tensor(2, dtype=int32)
    """
    a = LS.square(as_tensor(A), "linalg.cholesky_ex")
    info = _info(a, _non_positive_minor)
    if not info.numpy().any() or check_errors:
        return CholeskyExResult(LS.cholesky(a, upper=upper), info)
    bad = info.numpy()[..., None, None] > 0
    safe = np.where(bad, np.eye(a.shape[-1], dtype=a.dtype), a.detach().numpy())
    lower = np.where(bad, np.nan, np.linalg.cholesky(safe)).astype(a.dtype)
    return CholeskyExResult(as_tensor(np.swapaxes(lower, -1, -2) if upper else lower), info)


def solve_ex(
    A: TensorLike, B: TensorLike, *, left: bool = True, check_errors: bool = False
) -> SolveExResult:
    """(result, info) of solve: info > 0 where A is singular (the result then NaN);
    check_errors=True raises instead.

    >>> tg.linalg.solve_ex(tg.eye(2), tg.ones(2)).result
    tensor([1., 1.])
    """
    a = LS.square(as_tensor(A), "linalg.solve_ex")
    info = _info(a, _zero_pivot)
    if not info.numpy().any() or check_errors:
        return SolveExResult(solve(a, B, left=left), info)
    bad = info.numpy()[..., None, None] > 0
    safe = as_tensor(np.where(bad, np.eye(a.shape[-1], dtype=a.dtype), a.detach().numpy()))
    x = solve(safe, B, left=left).detach().numpy()
    mask = bad[..., 0] if x.ndim == a.ndim - 1 else bad  # (a vector B: one NaN row per matrix)
    return SolveExResult(as_tensor(np.where(mask, np.nan, x).astype(x.dtype)), info)
