"""Square linear systems: the inverse, the determinant and log |det|, solve (A X = B) and the
triangular solve, each on a stack of matrices (leading axes are batch axes, broadcast where there
are two operands) with the textbook rules, and the Cholesky factor (A = L L^T) of a
positive-definite matrix.

Conventions as in linalg.py (T(m): the last two axes swapped). The rules call these same
primitives (inv, solve, solve_triangular), so they record under create_graph and give second
derivatives. A failure NumPy reports (a singular matrix, one not positive-definite) is raised as
LinAlgError, a RuntimeError as PyTorch's, saying which matrix property failed.
Layer L1: numpy, registry, the shape family and linalg.py's transpose.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .batched_array import implements, result
from .batching import example_ndim, padded
from .linalg import T, expand_dims
from .registry import Primitive, primitive


class LinAlgError(RuntimeError):
    """A linear-algebra op could not be computed for this input (a singular matrix, one that is
    not positive-definite), as PyTorch's torch.linalg.LinAlgError (a RuntimeError)."""


def _run(what: str, problem: str, fn: Any, *args: Any) -> Any:
    """fn(*args), NumPy's LinAlgError raised as one saying what was wrong with the input."""
    try:
        return fn(*args)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{what}: {problem}") from None


def matrices_batched(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """vmap: the batch axis is one more leading (batch) axis of the stack of matrices; the
    operands are padded to one rank so that it pairs with batch axes only."""
    ndim = max(example_ndim(x, b) for x, b in zip(inputs, batched))
    return prim(*[padded(x, b, ndim) for x, b in zip(inputs, batched)], **params)


def scale(s: Any) -> Any:
    """One number per matrix (shape (...)) as a (..., 1, 1) factor that multiplies its matrix."""
    return expand_dims(expand_dims(s, -1), -1)


SINGULAR = (
    "the input matrix is singular (its determinant is 0), so the system has no unique solution"
)


@primitive("inv", "inv(a)", batch=matrices_batched, a="-(T(out) @ g @ T(out))")
def inv(a):
    return _run("linalg.inv", SINGULAR + "; it has no inverse", np.linalg.inv, a)


# (at an exactly singular matrix, inv(a) in the rule raises: PyTorch gives the adjugate there)
@primitive("det", "det(a)", batch=matrices_batched, a="scale(g * out) * T(inv(a))")
def det(a):
    return np.linalg.det(a)


@implements(np.linalg.slogdet)
def batched_slogdet(a: Any) -> tuple:
    """vmap: np.linalg.slogdet on the stacked matrices (the batch is one more leading axis)."""
    sign, logabs = np.linalg.slogdet(a.physical)
    return result(sign, a.level, a.batched), result(logabs, a.level, a.batched)


@primitive("logabsdet", "log(abs(det(a)))", batch=matrices_batched, a="scale(g) * T(inv(a))")
def logabsdet(a):
    return np.linalg.slogdet(a)[1]


@primitive(
    "solve",
    "solve(a, b)  (X with a X = b)",
    batch=matrices_batched,
    a="-(solve(T(a), g) @ T(out))",
    b="solve(T(a), g)",
)
def solve(a, b):
    return _run("linalg.solve", SINGULAR, np.linalg.solve, a, b)


def triangle(m: Any, upper: bool, unitriangular: bool) -> Any:
    """The part of m a triangular solve reads: its upper (or lower) triangle, without the
    diagonal when that is taken as ones (a constant mask)."""
    n = m.shape[-1]
    keep = np.tri(n, n, k=-1 if unitriangular else 0, dtype=bool)
    return m * (keep.T if upper else keep)


@primitive(
    "solve_triangular",
    "solve(triangle(a), b)",
    batch=matrices_batched,
    a="-triangle(solve_triangular(T(a), g, upper=not upper, unitriangular=unitriangular) "
    "@ T(out), upper, unitriangular)",
    b="solve_triangular(T(a), g, upper=not upper, unitriangular=unitriangular)",
)
def solve_triangular(a, b, *, upper, unitriangular):
    tri = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        n = a.shape[-1]
        tri[..., np.arange(n), np.arange(n)] = 1
    problem = "a diagonal element of the triangular matrix is zero (it is singular)"
    return _run("linalg.solve_triangular", problem, np.linalg.solve, tri, b)


def lower_half(m: Any) -> Any:
    """The lower triangle of m with its diagonal halved: Phi in the Cholesky rule."""
    n = m.shape[-1]
    return m * (np.tri(n, n, k=-1) + 0.5 * np.eye(n)).astype(m.dtype)


def symmetric_part(m: Any) -> Any:
    """(m + m^T) / 2."""
    return (m + T(m)) * 0.5


# L = cholesky(A): dA = L^-T Phi(L^T dL) L^-1 (made symmetric, as PyTorch's), Phi keeping the
# lower triangle with half the diagonal
@primitive(
    "cholesky",
    "cholesky(a)  (L with a = L L^T)",
    batch=matrices_batched,
    a="symmetric_part(T(inv(out)) @ lower_half(T(out) @ g) @ inv(out))",
)
def cholesky(a):
    problem = (
        "the input is not positive-definite, so it has no Cholesky factor (a symmetric matrix "
        "with positive eigenvalues is needed; add a multiple of the identity to fix a nearly "
        "singular one)"
    )
    return _run("linalg.cholesky", problem, np.linalg.cholesky, a)
