"""Decompositions with several outputs, one primitive per output (the tape records one array per
op): the symmetric eigendecomposition A = V diag(L) V^T as `eigvalsh` (L, ascending) and
`eigh_vectors` (V). Each runs NumPy's eigh (the other output is thrown away: twice the work for
eigh, kept for one rule per output); the rules call both, so they record under create_graph.

Rules as PyTorch's derivatives give them for a symmetric input (only one triangle is read, the
gradient is symmetric): dA = V diag(gL) V^T from the eigenvalues, and from the eigenvectors
V (skew(V^T gV) / E) V^T with E[i, j] = L[j] - L[i] (infinite where eigenvalues repeat, as
PyTorch's). Layer L1: numpy, registry, linalg.py's transpose and linear_systems' batching.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .linalg import T, expand_dims
from .linear_systems import matrices_batched
from .registry import primitive


def _triangle(upper: bool) -> str:
    return "U" if upper else "L"


@primitive(
    "eigvalsh",
    "eigenvalues of the symmetric a",
    batch=matrices_batched,
    a="eigh_vectors(a, upper=upper) @ (expand_dims(g, -1) * T(eigh_vectors(a, upper=upper)))",
)
def eigvalsh(a, *, upper):
    return np.linalg.eigvalsh(a, UPLO=_triangle(upper))


def skew(m: Any) -> Any:
    """(m - m^T) / 2: the part of V^T gV a change of orthonormal eigenvectors can follow."""
    return (m - T(m)) * 0.5


def gaps(values: Any) -> Any:
    """E[..., i, j] = L[j] - L[i], with 1 on the diagonal (which skew(...) zeroes anyway)."""
    n = values.shape[-1]
    return expand_dims(values, -2) - expand_dims(values, -1) + np.eye(n, dtype=values.dtype)


@primitive(
    "eigh_vectors",
    "eigenvectors of the symmetric a",
    batch=matrices_batched,
    a="out @ (skew(T(out) @ g) / gaps(eigvalsh(a, upper=upper))) @ T(out)",
)
def eigh_vectors(a, *, upper):
    return np.linalg.eigh(a, UPLO=_triangle(upper))[1]


# ---- the singular value decomposition A = U diag(S) Vh (reduced: k = min(m, n) columns) --------
# (rules as PyTorch's for real input: S gives U diag(gS) Vh; U and Vh give
# U (skew(U^T gU) S_j + S_i skew(V^T gV)) / (S_j^2 - S_i^2) Vh, skew(X) = X - X^T, plus for a
# tall A (m > n) the part of gU outside U's columns, for a wide one that of gV outside V's)
@primitive(
    "svdvals",
    "singular values of a",
    batch=matrices_batched,
    a="svd_u(a) @ (expand_dims(g, -1) * svd_vh(a))",
)
def svdvals(a):
    return np.linalg.svd(a, compute_uv=False)


def skew_full(m: Any) -> Any:
    """m - m^T."""
    return m - T(m)


def square_gaps(s: Any) -> Any:
    """E[..., i, j] = S[j]^2 - S[i]^2, with 1 on the diagonal (where the numerators are 0)."""
    n = s.shape[-1]
    s2 = s * s
    return expand_dims(s2, -2) - expand_dims(s2, -1) + np.eye(n, dtype=s.dtype)


def beside(g: Any, basis: Any) -> Any:
    """g minus its part in the span of basis's (orthonormal) columns."""
    return g - basis @ (T(basis) @ g)


@primitive(
    "svd_u",
    "U of the reduced SVD of a",
    batch=matrices_batched,
    a="out @ (skew_full(T(out) @ g) * expand_dims(svdvals(a), -2) / square_gaps(svdvals(a))) "
    "@ svd_vh(a) + (beside(g, out) / expand_dims(svdvals(a), -2) @ svd_vh(a) "
    "if a.shape[-2] > a.shape[-1] else 0)",
)
def svd_u(a):
    return np.linalg.svd(a, full_matrices=False)[0]


@primitive(
    "svd_vh",
    "Vh of the reduced SVD of a",
    batch=matrices_batched,
    a="svd_u(a) @ (expand_dims(svdvals(a), -1) * skew_full(out @ T(g)) / square_gaps(svdvals(a))) "
    "@ out + (svd_u(a) @ (expand_dims(1 / svdvals(a), -1) * T(beside(T(g), T(out)))) "
    "if a.shape[-2] < a.shape[-1] else 0)",
)
def svd_vh(a):
    return np.linalg.svd(a, full_matrices=False)[2]


# ---- the pseudo-inverse P of A (m x n): from the SVD, singular values at most `cutoff` (one per
# matrix, from rtol and atol) taken as 0; its rule is the derivative at constant rank (Golub and
# Pereyra), as PyTorch's: -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A), with A as
# given even where hermitian=True reads only its lower triangle (PyTorch's too)
@primitive(
    "pinv",
    "pseudo-inverse of a",
    batch=matrices_batched,
    a="-(T(out) @ g @ T(out)) + (g_T(g) - a @ (out @ g_T(g))) @ (out @ T(out)) "
    "+ (T(out) @ out) @ (g_T(g) - (g_T(g) @ out) @ a)",
)
def pinv(a, *, rtol, atol, hermitian=False):
    if hermitian:  # (the matrix the lower triangle stands for, as PyTorch reads it)
        a = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    cutoff = np.maximum(atol, rtol * s.max(-1, initial=0.0, keepdims=True))
    kept = s > cutoff
    inverted = np.where(kept, 1.0 / np.where(kept, s, 1.0), 0.0).astype(a.dtype)
    return np.swapaxes(vh, -1, -2) * inverted[..., None, :] @ np.swapaxes(u, -1, -2)


def g_T(g: Any) -> Any:
    """g^T: the cotangent of P, transposed to A's shape."""
    return T(g)
