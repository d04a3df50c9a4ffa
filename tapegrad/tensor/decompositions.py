"""Decompositions, as torch.linalg gives them: eigh / eigvalsh of symmetric matrices, svd /
svdvals of any matrix (leading axes are batch axes), their named tuples and checks.

Layer L3: numpy, the decompositions primitives (one per output), the checks of linear_systems.py
and `record.apply`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..primitives import decompositions as D
from ..primitives import shape as S
from .base import TensorBase
from .coerce import as_tensor
from .linear_systems import floating, square
from .record import apply

if TYPE_CHECKING:
    from .tensor import Tensor


class EighResult(NamedTuple):
    """What eigh gives: (eigenvalues, eigenvectors), as torch.return_types.linalg_eigh."""

    eigenvalues: Tensor
    eigenvectors: Tensor


def _upper(UPLO: str, name: str) -> bool:
    """Which triangle of a symmetric matrix to read: 'L' (False) or 'U' (True)."""
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "U"


def eigh(a: TensorBase, UPLO: str = "L") -> EighResult:
    """The eigenvalues (ascending) and orthonormal eigenvectors (columns) of each symmetric
    matrix, reading its UPLO triangle."""
    m, upper = square(a, "linalg.eigh"), _upper(UPLO, "linalg.eigh")
    return EighResult(apply(D.eigvalsh, m, upper=upper), apply(D.eigh_vectors, m, upper=upper))


def eigvalsh(a: TensorBase, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of each symmetric matrix, reading its UPLO triangle."""
    m, upper = square(a, "linalg.eigvalsh"), _upper(UPLO, "linalg.eigvalsh")
    return apply(D.eigvalsh, m, upper=upper)


class SVDResult(NamedTuple):
    """What svd gives: (U, S, Vh), as torch.return_types.linalg_svd."""

    U: Tensor
    S: Tensor
    Vh: Tensor


def matrices(a: TensorBase, name: str) -> Tensor:
    """a, checked as a stack of matrices: float32/float64, at least 2-D (PyTorch's
    RuntimeError)."""
    m = floating(a, name)
    if m.ndim < 2:
        raise RuntimeError(
            f"{name}: the input tensor A must have at least 2 dimensions, got {m.ndim}"
        )
    return m


def svdvals(a: TensorBase) -> Tensor:
    """The singular values of each matrix, descending."""
    return apply(D.svdvals, matrices(a, "linalg.svdvals"))


def svd(a: TensorBase, full_matrices: bool = True) -> SVDResult:
    """U, S, Vh with A = U diag(S) Vh for each matrix (S descending). full_matrices: U and Vh
    square, the columns (rows) past min(m, n) completing the basis; as PyTorch, no gradient
    flows through those."""
    m = matrices(a, "linalg.svd")
    u, s, vh = (apply(p, m) for p in (D.svd_u, D.svdvals, D.svd_vh))
    rows, cols = m.shape[-2:]
    if not full_matrices or rows == cols:
        return SVDResult(u, s, vh)
    full_u, _, full_vh = np.linalg.svd(m.detach().numpy(), full_matrices=True)
    k = min(rows, cols)
    if rows > cols:  # (U gets m - n more columns: any orthonormal completion)
        u = apply(
            S.concatenate, u, as_tensor(full_u[..., k:]), axis=m.ndim - 1, sizes=(k, rows - k)
        )
    else:
        extra = as_tensor(full_vh[..., k:, :])
        vh = apply(S.concatenate, vh, extra, axis=m.ndim - 2, sizes=(k, cols - k))
    return SVDResult(u, s, vh)
