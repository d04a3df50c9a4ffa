"""The QR factorization A = Q R of a stack of matrices (Q with orthonormal columns, R upper
triangular), one primitive per output as decompositions.py's: `qr_q` and `qr_r`, each running
NumPy's qr (LAPACK's Householder QR, as PyTorch's on CPU: the same signs).

Rules as PyTorch's derivatives give them for a tall or square A in mode 'reduced' (Walter and
Lehmann; Liao et al.): with M = R gR^T - gQ^T Q, dA = (gQ + Q sym_lower(M)) R^-T, sym_lower(M)
the symmetric matrix M's lower triangle stands for. A wide A is factored by the Tensor layer as
Q R_1 of its first m columns and R_2 = Q^T A_2 of the rest, so its gradient is that composition's.
Mode 'r' (no Q) and mode 'complete' of a tall A have none (PyTorch's errors, on backward).
Layer L1: numpy, registry, linalg.py's transpose, linear_systems' triangular solve and batching.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .linalg import T
from .linear_systems import matrices_batched, solve_triangular
from .registry import primitive


def sym_lower(m: Any) -> Any:
    """The symmetric matrix m's lower triangle (with its diagonal) stands for."""
    n = m.shape[-1]
    return m * np.tri(n, n, dtype=bool) + T(m * np.tri(n, n, k=-1, dtype=bool))


def times_inv_rt(x: Any, r: Any) -> Any:
    """x R^-T for the upper-triangular R: the transpose of R^-1 x^T, one triangular solve."""
    return T(solve_triangular(r, T(x), upper=True, unitriangular=False))


def not_differentiable(mode: str) -> Any:
    """Raise PyTorch's error for the modes whose factors have no gradient."""
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    raise RuntimeError(
        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
    )


def _mode(mode: str) -> str:
    """NumPy's mode giving the factor of torch's `mode` ('r' computes reduced R)."""
    return "complete" if mode == "complete" else "reduced"


@primitive(
    "qr_q",
    "Q of the QR factorization of a",
    batch=matrices_batched,
    a="times_inv_rt(g - out @ sym_lower(T(g) @ out), qr_r(a, mode=mode)) "
    "if mode == 'reduced' else not_differentiable(mode)",
)
def qr_q(a, *, mode):
    return np.linalg.qr(a, mode=_mode(mode))[0]


@primitive(
    "qr_r",
    "R of the QR factorization of a",
    batch=matrices_batched,
    a="times_inv_rt(qr_q(a, mode=mode) @ sym_lower(out @ T(g)), out) "
    "if mode == 'reduced' else not_differentiable(mode)",
)
def qr_r(a, *, mode):
    return np.linalg.qr(a, mode=_mode(mode))[1]
