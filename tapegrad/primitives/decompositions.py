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
