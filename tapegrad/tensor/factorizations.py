"""Factorizations and functions of matrices as torch.linalg gives them: qr (its modes, its named
tuple, the wide case as a composition) and matrix_exp, with the Tensor methods (qr,
matrix_exp: FactorizationsMixin, at the end) that tg.linalg's functions and tg.qr share.

Layer L3: numpy, the factorizations and matrix_functions primitives, the checks of
linear_systems.py and decompositions.py, and `record.apply`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..primitives import factorizations as F
from ..primitives import matrix_functions as MF
from ..primitives import shape as S
from .base import TensorBase
from .coerce import as_tensor
from .decompositions import matrices
from .linear_systems import square
from .record import apply

if TYPE_CHECKING:
    from .tensor import Tensor


class QRResult(NamedTuple):
    """What qr gives: (Q, R), as torch.return_types.linalg_qr (and torch.return_types.qr)."""

    Q: Tensor
    R: Tensor


_QR_MODES = ("reduced", "complete", "r")


def qr(a: TensorBase, mode: str = "reduced") -> QRResult:
    """Q (orthonormal columns) and R (upper triangular) with A = Q R for each matrix: mode
    'reduced' (k = min(m, n) columns of Q), 'complete' (Q square) or 'r' (R only, Q empty)."""
    m = matrices(a, "linalg.qr")
    if mode not in _QR_MODES:
        raise ValueError(
            f"qr received unrecognized mode {mode!r} but expected one of 'reduced' (default), "
            f"'r', or 'complete'"
        )
    rows, cols = m.shape[-2:]
    if mode == "r":  # (R has a recorded node whose backward raises PyTorch's error)
        return QRResult(as_tensor(np.zeros(0, m.dtype)), apply(F.qr_r, m, mode="r"))
    if rows >= cols:  # (complete on a square A is reduced: the same factors, differentiable)
        kind = "complete" if mode == "complete" and rows > cols else "reduced"
        return QRResult(apply(F.qr_q, m, mode=kind), apply(F.qr_r, m, mode=kind))
    # wide: A = [A_1 A_2] with A_1 square; Q R_1 = A_1, and R_2 = Q^T A_2 (a composition, so
    # its gradient is PyTorch's for the wide case)
    first, rest = m[..., :rows], m[..., rows:]
    q = apply(F.qr_q, first, mode="reduced")
    r = apply(
        S.concatenate,
        apply(F.qr_r, first, mode="reduced"),
        q.mT @ rest,
        axis=m.ndim - 1,
        sizes=(rows, cols - rows),
    )
    return QRResult(q, r)


def matrix_exp(a: TensorBase) -> Tensor:
    """exp(A) = sum A^k / k! of each square matrix (NaN where A has an inf or NaN)."""
    return apply(MF.matrix_exp, square(a, "linalg.matrix_exp"))


class FactorizationsMixin(TensorBase):
    """The Tensor methods qr and matrix_exp: the functions above."""

    __slots__ = ()

    def qr(self, some: bool = True) -> QRResult:
        """(Q, R) with self = Q R (PyTorch's older spelling: some=False gives a square Q).

        >>> tg.tensor([[3.0, 0.0], [4.0, 1.0]]).qr().R
        tensor([[-5.0000, -0.8000],
                [ 0.0000,  0.6000]])
        """
        return qr(self, "reduced" if some else "complete")

    def matrix_exp(self) -> Tensor:
        """The matrix exponential of each square matrix.

        >>> tg.tensor([[0.0, 1.0], [0.0, 0.0]]).matrix_exp()
        tensor([[1., 1.],
                [0., 1.]])
        """
        return matrix_exp(self)
