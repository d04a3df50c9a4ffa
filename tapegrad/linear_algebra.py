"""PyTorch's top-level linear algebra functions (`tg.matmul`, `tg.det`, `tg.lu_unpack`,
`tg.einsum`, ...); torch.linalg's namespace is linalg.py.

Layer L4: thin wrappers over the Tensor layer's linear algebra rooms, star-imported by math.py.
"""

from __future__ import annotations

from typing import Any

from . import primitives as P
from ._free import FreeFunctions
from .tensor import Tensor, apply
from .tensor import factorizations as _factorizations
from .tensor.coerce import TensorLike, as_tensor

# fmt: off
__all__ = [
    "matmul", "bmm", "mm", "diag", "outer", "trace", "ger", "tril", "triu", "dot", "einsum",
    "mv", "inner", "vdot", "kron", "cross", "dist", "addmm", "addmv", "addbmm", "baddbmm",
    "det", "logdet", "slogdet", "inverse", "cholesky", "matrix_power",
    "cholesky_solve", "qr", "matrix_exp", "lu", "lu_unpack",
    "svd", "pinverse", "cholesky_inverse", "triangular_solve", "orgqr",
]
# fmt: on

_made_here = FreeFunctions(__name__)
_function = _made_here.of_method

matmul, mm, bmm = _function(Tensor.matmul), _function(Tensor.mm), _function(Tensor.bmm)
outer, trace, diag = _function(Tensor.outer), _function(Tensor.trace), _function(Tensor.diag)
ger = outer  # (PyTorch's old name)
tril, triu = _function(Tensor.tril), _function(Tensor.triu)


dot = _function(Tensor.dot)
mv, inner, vdot = _function(Tensor.mv), _function(Tensor.inner), _function(Tensor.vdot)
kron, cross, dist = _function(Tensor.kron), _function(Tensor.cross), _function(Tensor.dist)
addmm, addmv = _function(Tensor.addmm), _function(Tensor.addmv)
addbmm, baddbmm = _function(Tensor.addbmm), _function(Tensor.baddbmm)
det, logdet, slogdet = _function(Tensor.det), _function(Tensor.logdet), _function(Tensor.slogdet)
inverse, cholesky = _function(Tensor.inverse), _function(Tensor.cholesky)
matrix_power = _function(Tensor.matrix_power)
cholesky_solve = _function(Tensor.cholesky_solve)
qr, matrix_exp, lu = _function(Tensor.qr), _function(Tensor.matrix_exp), _function(Tensor.lu)


def lu_unpack(
    LU_data: TensorLike, LU_pivots: TensorLike, unpack_data: bool = True, unpack_pivots: bool = True
) -> _factorizations.LUResult:
    """(P, L, U) with A = P L U from lu_factor's (LU, pivots); the parts not unpacked are empty.

    >>> tg.lu_unpack(*tg.linalg.lu_factor(tg.tensor([[1.0, 2.0], [3.0, 4.0]]))).P
    tensor([[0., 1.],
            [1., 0.]])
    """
    return _factorizations.lu_unpack(
        as_tensor(LU_data), as_tensor(LU_pivots), unpack_data, unpack_pivots
    )


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation: `equation` names each operand's axes by letters ('ij,jk->ik' is a matrix
    product); '...' stands for unnamed axes (broadcast); without '->' the output is the letters
    used once, sorted. Operands may also come as one list.

    >>> tg.einsum("i,i->", tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]))
    tensor(11.)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = [as_tensor(x) for x in operands]
    spelled = P.einsum.spell_out(equation, [x.shape for x in tensors])
    return apply(P.einsum.einsum, *tensors, equation=spelled)


# PyTorch's older forms (tensor/legacy_linalg.py): svd gives V, triangular_solve takes B first
svd, pinverse = _function(Tensor.svd), _function(Tensor.pinverse)
cholesky_inverse, triangular_solve = (
    _function(Tensor.cholesky_inverse),
    _function(Tensor.triangular_solve),
)
orgqr = _function(Tensor.orgqr)  # (linalg.householder_product)
