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
from .linear_systems import matrices_batched, solve_triangular, triangle
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


# ---- geqrf: LAPACK's compact form of QR (R on and above the diagonal, the Householder vectors
# below it, and their scales tau); NumPy's qr(mode='raw') returns it transposed. PyTorch has no
# derivative for it: the rules raise when a gradient is asked.
def not_implemented(input: str) -> Any:
    """geqrf's rule: PyTorch has no derivative for it either."""
    raise NotImplementedError(
        f"the derivative of geqrf with respect to {input} is not implemented (nor in PyTorch): "
        f"differentiate through linalg.qr instead, or pass a constant (.detach())"
    )


@primitive(
    "geqrf_reflectors",
    "geqrf(a)'s matrix: R on and above the diagonal, the Householder vectors below it",
    batch=matrices_batched,
    a="not_implemented('a')",
)
def geqrf_reflectors(a):
    return np.ascontiguousarray(np.swapaxes(np.linalg.qr(a, mode="raw")[0], -1, -2))


@primitive(
    "geqrf_tau",
    "geqrf(a)'s tau: the scales of the Householder reflectors",
    batch=matrices_batched,
    a="not_implemented('a')",
)
def geqrf_tau(a):
    return np.linalg.qr(a, mode="raw")[1]


# ---- the LU factorization P^T A = L U with partial pivoting (L unit lower, U upper triangular) --
# PyTorch and LAPACK give L and U packed in one matrix (L's ones left out) and the row swaps as
# pivots; NumPy has no LU, so the elimination is here, one column at a time for a whole stack.
# Two primitives: `lu_permutation` (P, piecewise constant: no gradient) and `lu_unpivoted`, the
# LU of a square matrix whose rows are already in pivot order (the Tensor layer gathers them and
# composes the rectangular cases from it with triangular solves, so their gradients follow).
def eliminate(a: np.ndarray, pivoting: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(packed L\\U, row order perm with A[perm] = L U, int32 info) of each matrix of the stack:
    info is the 1-based column of the first exactly zero pivot (0: none), as LAPACK's getrf,
    whose column below such a pivot is left as zeros rather than divided by it."""
    m, n = a.shape[-2:]
    work = np.array(a, dtype=a.dtype).reshape((-1, m, n))
    count = len(work)
    stack = np.arange(count)
    perm = np.broadcast_to(np.arange(m), (count, m)).copy()
    info = np.zeros(count, np.int32)
    for k in range(min(m, n)):
        if pivoting:  # (the largest |entry| on or below the diagonal; ties: the first, as LAPACK)
            p = k + np.argmax(np.abs(work[:, k:, k]), axis=1)
            work[stack, k], work[stack, p] = work[stack, p], work[stack, k].copy()
            perm[stack, k], perm[stack, p] = perm[stack, p], perm[stack, k].copy()
        pivot = work[:, k, k]
        zero = pivot == 0
        info = np.where((info == 0) & zero, k + 1, info).astype(np.int32)
        multipliers = work[:, k + 1 :, k] / np.where(zero, 1, pivot)[:, None]
        work[:, k + 1 :, k] = multipliers
        work[:, k + 1 :, k + 1 :] -= multipliers[:, :, None] * work[:, k, None, k + 1 :]
    batch = a.shape[:-2]
    return work.reshape(a.shape), perm.reshape(batch + (m,)), info.reshape(batch)


@primitive("lu_permutation", "P of the LU factorization a = P L U", batch=matrices_batched, a=None)
def lu_permutation(a):
    perm = eliminate(a)[1]
    m = a.shape[-2]
    return (perm[..., None, :] == np.arange(m)[:, None]).astype(a.dtype)  # (P[perm[i], i] = 1)


def unit_lower(m: Any) -> Any:
    """L of a packed L\\U: the strict lower triangle, with ones on the diagonal."""
    n = m.shape[-1]
    return triangle(m, False, True) + np.eye(n, dtype=m.dtype)


def lu_middle(g: Any, packed: Any) -> Any:
    """tril_-1(L^T gL) + triu(gU U^T): the cotangent of L^-1 dA U^-1, from g's two triangles."""
    g_lower, g_upper = triangle(g, False, True), triangle(g, True, False)
    return triangle(T(unit_lower(packed)) @ g_lower, False, True) + triangle(
        g_upper @ T(triangle(packed, True, False)), True, False
    )


# A = L U: dA = L^-T (tril_-1(L^T gL) + triu(gU U^T)) U^-T, as PyTorch's for a square A
@primitive(
    "lu_unpivoted",
    "L\\U of a = L U, without row swaps",
    batch=matrices_batched,
    a="times_inv_rt(solve_triangular(T(out), lu_middle(g, out), upper=True, unitriangular=True), "
    "out)",
)
def lu_unpivoted(a):
    return eliminate(a, pivoting=False)[0]
