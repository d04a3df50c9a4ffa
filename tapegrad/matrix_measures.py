"""torch.linalg's measures of a matrix built from its singular values or its inverse:
matrix_rank (how many singular values count as nonzero) and cond (the condition number).

Layer L4: compositions of tg.linalg's recorded ops (svdvals, eigvalsh, matrix_norm, inv_ex), so
cond's gradient is theirs; the rank is an integer count, off the tape.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .tensor import Tensor
from .tensor import decompositions as DE
from .tensor.coerce import TensorLike, as_tensor
from .tensor.linear_systems import floating

__all__ = ["matrix_rank", "cond"]


def _matrices(A: TensorLike, name: str, message: str) -> Tensor:
    a = as_tensor(A)
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {message} must have at least 2 dimensions.")
    return a


def matrix_rank(
    A: TensorLike,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
) -> Tensor:
    """How many singular values of each matrix exceed max(atol, rtol * the largest) (int64): rtol
    defaults to eps * max(m, n), or 0 when atol > 0 is given; tol (PyTorch's older spelling) is
    atol with rtol 0; hermitian=True counts |eigenvalues| of the lower triangle instead.

    >>> tg.linalg.matrix_rank(tg.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    a = floating(_matrices(A, "torch.linalg.matrix_rank", "input"), "linalg.matrix_rank")
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("matrix_rank: tol cannot be given together with atol or rtol")
        atol, rtol = tol, 0.0
    values = np.asarray(
        (DE.eigvalsh(a.detach()).abs() if hermitian else DE.svdvals(a.detach())).numpy()
    )
    eps = np.finfo(values.dtype).eps if values.dtype.kind == "f" else np.finfo(np.float64).eps
    floor = np.asarray(0.0 if atol is None else _number(atol))
    if rtol is None:
        rtol = 0.0 if np.all(floor > 0) and atol is not None else eps * max(a.shape[-2:])
    largest = values.max(axis=-1, initial=0.0)
    threshold = np.maximum(floor, np.asarray(_number(rtol)) * largest)
    return as_tensor((values > threshold[..., None]).sum(axis=-1).astype(np.int64))


def _number(x: Any) -> Any:
    """atol / rtol as a number or an array (PyTorch takes tensors too, broadcast per matrix)."""
    return x.detach().numpy() if isinstance(x, Tensor) else x


def cond(A: TensorLike, p: float | str | None = None) -> Tensor:
    """The condition number of each matrix in the p-norm: for p None or 2 the largest singular
    value over the smallest (-2: the inverse ratio; any shape); for 'fro', 'nuc', inf, -inf, 1, -1
    norm(A) * norm(A⁻¹) of square matrices, inf where A is singular (as PyTorch).

    >>> tg.linalg.cond(tg.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    """
    from . import linalg  # (tg.linalg's namespace re-exports this module)

    a = _matrices(A, "linalg.cond", "")
    if p is None or p in (2, -2):
        values = DE.svdvals(a)
        largest, smallest = values[..., 0], values[..., -1]
        return largest / smallest if p != -2 else smallest / largest
    if isinstance(p, bool) or p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
            f"{a.shape[-2]} by {a.shape[-1]} matrices"
        )
    inverse, info = linalg.inv_ex(a)
    singular = info.numpy() > 0
    if singular.any():  # (their inverse is NaN: the product would be too)
        eye = np.eye(a.shape[-1], dtype=a.dtype)
        keep = as_tensor(~singular[..., None, None])
        a, inverse = a.where(keep, eye), inverse.where(keep, eye)
    out = linalg.matrix_norm(a, p) * linalg.matrix_norm(inverse, p)
    return out.where(as_tensor(~singular), math.inf) if singular.any() else out
