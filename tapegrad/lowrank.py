"""torch.svd_lowrank and torch.pca_lowrank: Halko, Martinsson and Tropp's randomized range finder
(their Algorithms 4.4 and 5.1), as PyTorch's torch/_lowrank.py runs them.

The random matrix is tg.randn(n, q) from the default generator, which draws PyTorch's CPU stream
value for value: with the same seed the results are PyTorch's. Everything else is recorded ops
(matmul, linalg.qr, linalg.svd, mean), so the results are differentiable as PyTorch's are.

Layer L4: imports tensor/ (qr, svd), math (matmul) and sampling (randn).
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dt
from .math import matmul
from .sampling import randn
from .tensor import Tensor
from .tensor.coerce import as_tensor
from .tensor.decompositions import svd
from .tensor.factorizations import qr

__all__ = ["svd_lowrank", "pca_lowrank"]


def _matrices(A: Any, name: str) -> Tensor:
    """A as a floating tensor of at least 2 dimensions (PyTorch: ValueError, RuntimeError)."""
    a = as_tensor(A)
    if a.ndim < 2:
        raise ValueError(
            f"{name}: A must have at least 2 dimensions (*, m, n), got shape {a.shape}"
        )
    if not _dt.is_floating(a.dtype):
        raise RuntimeError(
            f"{name}: expected a floating point A, got {a.dtype}; convert it with A.float() or "
            "A.double()"
        )
    return a


def _approximate_basis(A: Tensor, q: int, niter: int | None = 2, M: Tensor | None = None) -> Tensor:
    """Q, (*, m, q) with orthonormal columns, such that Q Q^H (A - M) approximates A - M
    (PyTorch's get_approximate_basis)."""
    niter = 2 if niter is None else niter
    R = randn(A.shape[-1], q, dtype=A.dtype)
    X = matmul(A, R)
    if M is not None:
        X = X - matmul(M, R)
    Q = qr(X).Q
    for _ in range(niter):
        X = matmul(A.mH, Q)
        if M is not None:
            X = X - matmul(M.mH, Q)
        Q = qr(X).Q
        X = matmul(A, Q)
        if M is not None:
            X = X - matmul(M, Q)
        Q = qr(X).Q
    return Q


def _svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = matmul(Q.mH, A)
    if M is not None:
        B = B - matmul(Q.mH, M)
    U, S, Vh = svd(B, full_matrices=False)
    V = Vh.mH
    U = matmul(Q, U)
    if m < n:
        U, V = V, U
    return U, S, V


def svd_lowrank(
    A: Any, q: int | None = 6, niter: int | None = 2, M: Any = None
) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, V) with A - M ~ U diag(S) V^H, U (*, m, q), S (*, q), V (*, n, q): randomized.

    >>> U, S, V = tg.svd_lowrank(tg.randn(5, 4), q=2); (U.shape, S.shape, V.shape)
    ((5, 2), (2,), (4, 2))
    """
    a = _matrices(A, "svd_lowrank")
    return _svd_lowrank(a, q, niter=niter, M=None if M is None else as_tensor(M))


def pca_lowrank(
    A: Any, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """(U, S, V): svd_lowrank of A minus its column means (center=True); V's columns are the
    principal directions, S ** 2 / (m - 1) the variances along them.

    >>> U, S, V = tg.pca_lowrank(tg.randn(6, 3)); (U.shape, S.shape, V.shape)
    ((6, 3), (3,), (3, 3))
    """
    a = _matrices(A, "pca_lowrank")
    m, n = a.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(a, q, niter=niter, M=None)
    C = a.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(a - C, q, niter=niter, M=None)
