"""Functions of a square matrix: the matrix exponential exp(A) = I + A + A^2/2! + ... of a stack
of matrices, by scaling and squaring with the [13/13] Pade approximant (Higham, "The scaling and
squaring method for the matrix exponential revisited", 2005), in NumPy.

Its rule is the Frechet derivative read off a block matrix (Mathias; Higham's "Functions of
Matrices" 3.2): dA is the upper-right block of exp([[A^T, g], [0, A^T]]). The rule calls
matrix_exp itself, so it records under create_graph and gives every higher derivative.
Layer L1: numpy, registry, linalg.py's transpose, the shape family and linear_systems' batching.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .linalg import T  # noqa: F401  (the rule reads it)
from .linear_systems import matrices_batched
from .registry import primitive
from .shape import concatenate

# Higham's [13/13] Pade coefficients b_0 .. b_13, and the 1-norm up to which it is exact to
# double precision (theta_13): a matrix past it is scaled by 2^-s into range, then squared s times
_PADE_13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip
_THETA_13 = 5.371920351148152


def _expm(a: np.ndarray) -> np.ndarray:
    """exp of each matrix of a float64 stack (each scaled by its own power of 2)."""
    n = a.shape[-1]
    norm1 = np.abs(a).sum(-2).max(-1, initial=0.0)
    finite = np.isfinite(norm1)
    ratio = np.where(finite, norm1, 0.0) / _THETA_13
    squarings = np.ceil(np.log2(np.maximum(ratio, 1.0))).astype(np.int64)
    x = np.where(finite[..., None, None], a, 0.0) * np.exp2(-squarings)[..., None, None]
    b, eye = _PADE_13, np.eye(n)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (
        x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye
    )
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    out = np.linalg.solve(v - u, v + u)
    for k in range(int(squarings.max(initial=0))):
        out = np.where((squarings > k)[..., None, None], out @ out, out)
    return np.where(finite[..., None, None], out, np.nan)  # (PyTorch's too: NaN for inf or NaN)


def frechet_block(at: Any, g: Any) -> Any:
    """[[A^T, g], [0, A^T]]: the 2n x 2n matrix whose exp holds the derivative in its corner."""
    n, last = at.shape[-1], len(at.shape) - 1
    zeros = np.zeros(at.shape, dtype=at.dtype)
    top = concatenate(at, g, axis=last, sizes=(n, n))
    bottom = concatenate(zeros, at, axis=last, sizes=(n, n))
    return concatenate(top, bottom, axis=last - 1, sizes=(n, n))


def upper_right(m: Any) -> Any:
    """The upper-right n x n block of the 2n x 2n matrices m."""
    n = m.shape[-1] // 2
    return m[..., :n, n:]


@primitive(
    "matrix_exp",
    "exp(a)  (the matrix exponential)",
    batch=matrices_batched,
    a="upper_right(matrix_exp(frechet_block(T(a), g)))",
)
def matrix_exp(a):
    return _expm(a.astype(np.float64)).astype(a.dtype)
