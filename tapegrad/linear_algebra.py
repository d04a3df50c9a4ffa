"""PyTorch's top-level linear algebra functions (`tg.matmul`, `tg.det`, `tg.lu_unpack`,
`tg.einsum`, ...); torch.linalg's namespace is linalg.py.

Layer L4: thin wrappers over the Tensor layer's linear algebra rooms, star-imported by math.py.
"""

from __future__ import annotations

from string import ascii_letters
from typing import Any

from . import primitives as P
from ._free import FreeFunctions
from ._utils import one_axis
from .tensor import Tensor, apply
from .tensor import factorizations as _factorizations
from .tensor.coerce import TensorLike, as_tensor

# fmt: off
__all__ = [
    "matmul", "bmm", "mm", "diag", "outer", "trace", "ger", "tril", "triu", "dot", "einsum",
    "mv", "inner", "vdot", "kron", "cross", "dist", "addmm", "addmv", "addbmm", "baddbmm",
    "det", "logdet", "slogdet", "inverse", "cholesky", "matrix_power",
    "cholesky_solve", "qr", "matrix_exp", "lu", "lu_unpack", "lu_solve",
    "svd", "pinverse", "cholesky_inverse", "triangular_solve", "orgqr", "tensordot",
    "geqrf", "ormqr",
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
lu_solve = _function(Tensor.lu_solve)  # (PyTorch's older torch.lu_solve(b, LU_data, LU_pivots))


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


def tensordot(a: TensorLike, b: TensorLike, dims: Any = 2, out: None = None) -> Tensor:
    """Sum of products over axes of a paired with axes of b: dims=n pairs a's last n axes with
    b's first n; dims=([1, 0], [0, 1]) names the pairs (a 2-row tensor too; a paired axis of size
    1 is broadcast). The axes left follow in order, a's then b's. Recorded as an einsum.

    >>> tg.tensordot(tg.ones(2, 3), tg.ones(3, 4), dims=1).shape
    (2, 4)
    """
    if out is not None:
        raise TypeError(
            "tensordot: out= is not supported (tapegrad never writes into a given tensor)"
        )
    x, y = as_tensor(a), as_tensor(b)
    axes_a, axes_b = _paired_axes(dims, x.ndim, y.ndim)
    for i, j in zip(axes_a, axes_b):  # (as PyTorch, a paired axis of size 1 is broadcast)
        if x.shape[i] == 1 and y.shape[j] != 1:
            x = x.expand(*[y.shape[j] if k == i else -1 for k in range(x.ndim)])
        elif y.shape[j] == 1 and x.shape[i] != 1:
            y = y.expand(*[x.shape[i] if k == j else -1 for k in range(y.ndim)])
        elif x.shape[i] != y.shape[j]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {x.shape[i]} in dim {i} "
                f"and second has size {y.shape[j]} in dim {j}"
            )
    if x.dtype != y.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if x.ndim + y.ndim - len(axes_a) > len(ascii_letters):
        raise RuntimeError(f"tensordot: at most {len(ascii_letters)} axes in all are supported")
    names_a = list(ascii_letters[: x.ndim])
    names_b = list(ascii_letters[x.ndim : x.ndim + y.ndim])
    for i, j in zip(axes_a, axes_b):
        names_b[j] = names_a[i]
    kept = [n for i, n in enumerate(names_a) if i not in axes_a]
    kept += [n for j, n in enumerate(names_b) if j not in axes_b]
    return einsum(f"{''.join(names_a)},{''.join(names_b)}->{''.join(kept)}", x, y)


def _paired_axes(dims: Any, ndim_a: int, ndim_b: int) -> tuple[list[int], list[int]]:
    """tensordot's dims as two lists of non-negative axes, checked as PyTorch checks them."""
    if isinstance(dims, Tensor):
        dims = dims.tolist() if dims.ndim else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > ndim_a or dims > ndim_b:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(ndim_a - dims, ndim_a)), list(range(dims))
    if not isinstance(dims, list | tuple) or len(dims) != 2:
        raise TypeError(
            f"tensordot expects dims to be an int, or a pair of lists of axes, got {dims!r}"
        )
    first, second = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(first) != len(second):
        raise RuntimeError("both dimension lists should have same length")
    try:
        pairs = [(one_axis(i, ndim_a), one_axis(j, ndim_b)) for i, j in zip(first, second)]
    except (IndexError, ValueError) as e:
        raise IndexError(f"tensordot: {e}") from None
    axes_a, axes_b = [i for i, _ in pairs], [j for _, j in pairs]
    if len(set(axes_a)) < len(axes_a) or len(set(axes_b)) < len(axes_b):
        raise RuntimeError(f"tensordot: an axis is paired twice in dims={dims!r}")
    return axes_a, axes_b


# PyTorch's older forms (tensor/legacy_linalg.py): svd gives V, triangular_solve takes B first
svd, pinverse = _function(Tensor.svd), _function(Tensor.pinverse)
cholesky_inverse, triangular_solve = (
    _function(Tensor.cholesky_inverse),
    _function(Tensor.triangular_solve),
)
orgqr = _function(Tensor.orgqr)  # (linalg.householder_product)
geqrf, ormqr = _function(Tensor.geqrf), _function(Tensor.ormqr)
