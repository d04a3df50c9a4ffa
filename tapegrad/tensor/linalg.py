"""Linear algebra: `@` and matmul (NumPy's rules for 1-D operands and batch axes), mm and bmm (no
broadcasting, as PyTorch's), outer, the matrix parts (diag, trace, tril, triu), PyTorch's other
products (mv, inner, vdot, kron, cross, the addmm family), dist (the
square-matrix methods det, inverse, cholesky... are linear_systems.py's).

Layer L3: numpy, the rule table, the storage base, `record.apply` and coerce.py. Each is one
matmul primitive or a composition of recorded primitives, so its gradient is theirs.
"""

from __future__ import annotations

import dis
import sys
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._utils import ShapeError
from .._state import overrides, state
from ..primitives import elementwise as E
from ..primitives import fused as F
from ..primitives import linalg as L
from ..primitives import shape as S
from .base import AS_IS, TensorBase
from .coerce import TensorLike, as_tensor, coerce, explain_matmul_error, one_dim
from .elementwise import where
from .record import apply
from .writing import unary_

if TYPE_CHECKING:
    from .tensor import Tensor


def matmul(x: TensorBase, other: Any) -> Tensor:
    """x @ other with NumPy's rules: vector . vector is `dot`, matrix @ vector `mv` (as PyTorch
    names them); a vector on the left is made a one-row matrix, and that axis dropped again."""
    y = other if isinstance(other, TensorBase) else as_tensor(other)
    if x._data.ndim > 1 and y._data.ndim > 1:  # (matrices: the commonest case, first)
        try:
            return apply(L.matmul, x, y)
        except ValueError:
            explain_matmul_error(x.shape, y.shape)
            raise
    a_shape, b_shape = x.shape, y.shape
    if not a_shape or not b_shape:
        explain_matmul_error(a_shape, b_shape)
    try:
        if x.ndim == 1 and y.ndim == 1:
            return apply(L.dot, x, y)
        if y.ndim == 1 and x.ndim == 2:
            return apply(L.mv, x, y)
        if y.ndim == 1:  # (a column, then that axis dropped)
            column = apply(S.reshape, y, shape=(b_shape[0], 1))
            return apply(L.matmul, x, column).squeeze(-1)
        if x.ndim == 1:  # (a row, then that axis dropped)
            row = apply(S.reshape, x, shape=(1, a_shape[0]))
            return apply(L.matmul, row, y).squeeze(-2)
        return apply(L.matmul, x, y)
    except ValueError:
        explain_matmul_error(a_shape, b_shape)
        raise


# ---- x @ w.T as one product --------------------------------------------------------------------
# `x @ w.T` records a transpose node and a matmul node; matmul_nt(x, w) is the same product in one
# node, whose backward makes no transpose (a recorded backward, create_graph, stays as small as
# nn.Linear's). It is only done when nothing can ever ask about the transposed tensor: it is a
# temporary that no name, container or hook holds (`wt = w.T; x @ wt` keeps both nodes, so
# grad(out, wt), wt.register_hook and wt.retain_grad see its gradient as before).


def _refs_of_a_temporary() -> int:
    """What sys.getrefcount says of a temporary right operand inside __matmul__ (the caller's
    stack, the argument, getrefcount's own), measured on this interpreter; 0 (never fold) where
    it does not tell a temporary from a named operand or `@` has no BINARY_OP (Python 3.10)."""

    class Probe:
        def __matmul__(self, other: Any) -> int:
            return sys.getrefcount(other)

    named = Probe()
    temporary, held = Probe() @ Probe(), Probe() @ named
    return temporary if temporary < held and "BINARY_OP" in dis.opmap else 0


_TEMPORARY_REFS = _refs_of_a_temporary()
_AT = (dis.opmap.get("BINARY_OP"), 4)  # the bytecode of `x @ y` (NB_MATRIX_MULTIPLY is 4)
_MATRIX_T = ((S.transpose, {"axes": (1, 0)}),)  # the view steps of w.T, w a matrix (no view)


def _fold_transpose(x: TensorBase, wt: Any) -> Tensor | None:
    """x @ wt as matmul_nt(x, w) when `wt` is `w.T` for a matrix w and was passed as a temporary
    by `x @ w.T` itself (so nothing else holds it: see above); None otherwise. Called from
    __matmul__ once its refcount test passed."""
    base = getattr(wt, "_base", None)
    if base is None or base[1] != _MATRIX_T or x._data.ndim < 2:
        return None
    if overrides[0] and state.vmap_levels:  # (batched tensors: their own rules)
        return None
    caller = sys._getframe(2)  # the user's frame: `@` itself, not a call of __matmul__ by name
    code = caller.f_code.co_code
    if (code[caller.f_lasti], code[caller.f_lasti + 1]) != _AT:
        return None
    return apply(F.matmul_nt, x, base[0])


def _matrix_shape(x: TensorBase, name: str) -> tuple[int, ...]:
    """The last two sizes of a matrix (or a batch of them); fewer than 2 axes is an error."""
    if x.ndim < 2:
        raise ShapeError(
            f"{name}: the tensor must have at least 2 dimensions (a matrix, or a batch of them), "
            f"got {x.ndim}-D"
        )
    return x.shape[-2:]


class LinalgMixin(TensorBase):
    """The linear algebra methods of Tensor."""

    __slots__ = ()

    def __matmul__(self, other: TensorLike) -> Tensor:
        node = getattr(other, "_grad_fn", None)
        if node is not None and node.prim is S.transpose:  # (x @ w.T: one node, see above)
            if sys.getrefcount(other) == _TEMPORARY_REFS:
                folded = _fold_transpose(self, other)
                if folded is not None:
                    return folded
        return matmul(self, other if other.__class__ in AS_IS else coerce(other))

    def __rmatmul__(self, other: TensorLike) -> Tensor:
        return matmul(as_tensor(other), self)

    def matmul(self, other: TensorLike) -> Tensor:
        """self @ other (NumPy's rules for 1-D operands and batch axes).

        >>> tg.tensor([[1.0, 2.0]]).matmul(tg.tensor([3.0, 4.0]))
        tensor([11.])
        """
        return matmul(self, coerce(other))

    def mm(self, mat2: TensorLike) -> Tensor:
        """The product of two matrices (2-D only, no broadcasting: matmul is the general one).

        >>> tg.tensor([[1.0, 2.0]]).mm(tg.tensor([[3.0], [4.0]]))
        tensor([[11.]])
        """
        other = as_tensor(mat2)
        for name, m in (("self", self), ("mat2", other)):
            if m.ndim != 2:
                raise ShapeError(f"mm: {name} must be a matrix (2-D), got a {m.ndim}-D tensor")
        if self.shape[1] != other.shape[0]:
            raise ShapeError(
                "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})".format(
                    *self.shape, *other.shape
                )
            )
        return apply(L.matmul, self, other)

    def bmm(self, mat2: TensorLike) -> Tensor:
        """Batched matrix products: (b, n, m) @ (b, m, p) -> (b, n, p); both 3-D with the same batch
        size (no broadcasting, as PyTorch's).

        >>> tg.ones(2, 3, 4).bmm(tg.ones(2, 4, 5)).shape
        (2, 3, 5)
        """
        other = as_tensor(mat2)
        for name, m in (("batch1", self), ("batch2", other)):
            if m.ndim != 3:
                raise ShapeError(f"bmm: {name} must be a 3D tensor, got a {m.ndim}-D tensor")
        expected = [self.shape[0], self.shape[2]]
        if list(other.shape[:2]) != expected:
            raise ShapeError(
                f"bmm: expected size for first two dimensions of batch2 tensor to be: {expected} "
                f"but got: {list(other.shape[:2])} (batch1 has shape {list(self.shape)})"
            )
        return apply(L.matmul, self, other)

    def outer(self, vec2: TensorLike) -> Tensor:
        """The outer product of two vectors: out[i, j] = self[i] * vec2[j].

        >>> tg.tensor([1.0, 2.0]).outer(tg.tensor([1.0, 10.0]))
        tensor([[ 1., 10.],
                [ 2., 20.]])
        """
        other = as_tensor(vec2)
        for name, v in (("self", self), ("vec2", other)):
            if v.ndim != 1:
                raise ShapeError(f"outer: expected 1-D tensors, but {name} is {v.ndim}-D")
        return cast("Tensor", self).reshape(-1, 1) * other.reshape(1, -1)

    ger = outer  # (PyTorch's old name)

    def dot(self, other: TensorLike) -> Tensor:
        """The dot product of two vectors (1-D, of equal length, as PyTorch's; matmul takes more).

        >>> tg.tensor([1.0, 2.0]).dot(tg.tensor([3.0, 4.0]))
        tensor(11.)
        """
        vector = as_tensor(other)
        if self.ndim != 1 or vector.ndim != 1:
            raise ShapeError(
                f"dot: 1D tensors expected, but got {self.ndim}D and {vector.ndim}D tensors; use "
                f"matmul (or @) for matrices"
            )
        if self.shape[0] != vector.shape[0]:
            raise ShapeError(
                f"dot: inconsistent tensor size, expected tensor [{self.shape[0]}] and src "
                f"[{vector.shape[0]}] to have the same number of elements, but got "
                f"{self.shape[0]} and {vector.shape[0]} elements respectively"
            )
        return matmul(self, vector)

    # ---- the parts of a matrix -----------------------------------------------------------------
    def diag(self, diagonal: int = 0) -> Tensor:
        """A vector: the square matrix with it on the `diagonal`-th diagonal; a matrix: that
        diagonal.

        >>> tg.tensor([1.0, 2.0]).diag()
        tensor([[1., 0.],
                [0., 2.]])
        """
        k = int(diagonal)
        if self.ndim == 1:
            n = self.shape[0]
            pos = np.arange(n)
            size = n + abs(k)
            index = (pos + max(-k, 0), pos + max(k, 0))
            return apply(S.scatter_add, self, shape=(size, size), index=index)
        if self.ndim != 2:
            raise ShapeError(
                f"diag: takes a 1-D tensor (to make a matrix) or a 2-D one (to take a diagonal), "
                f"got {self.ndim}-D; for batches use tg.einsum('...ii->...i', x)"
            )
        rows, cols = self.shape
        count = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
        pos = np.arange(count)
        return apply(S.getitem, self, index=(pos + max(-k, 0), pos + max(k, 0)))

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
        """Zeros with the last axis of self placed on the diagonal (offset above, below if
        negative) of the planes (dim1, dim2) of the result, which has one axis more.

        >>> tg.tensor([1.0, 2.0]).diag_embed()
        tensor([[1., 0.],
                [0., 2.]])
        """
        x = cast("Tensor", self)
        if x.ndim == 0:
            raise ShapeError("diag_embed: the input must have at least 1 dimension")
        n = x.shape[-1]
        size = n + abs(offset)
        a1, a2 = one_dim(dim1, x.ndim + 1, "diag_embed"), one_dim(dim2, x.ndim + 1, "diag_embed")
        if a1 == a2:
            raise ShapeError(f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}")
        rows, cols = np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)
        shape = (*x.shape[:-1], size, size)
        planes = apply(S.scatter_add, x, shape=shape, index=(Ellipsis, rows, cols))
        return planes.movedim((-2, -1), (a1, a2))

    def trace(self) -> Tensor:
        """The sum of the main diagonal of a matrix.

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).trace()
        tensor(5.)
        """
        if self.ndim != 2:
            raise ShapeError(f"trace: expected a matrix (2-D), got a {self.ndim}-D tensor")
        return self.diag().sum()

    def tril(self, diagonal: int = 0) -> Tensor:
        """The lower triangle (on and below the `diagonal`-th diagonal) of each matrix; zeros above.

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).tril()
        tensor([[1., 0.],
                [3., 4.]])
        """
        n, m = _matrix_shape(self, "tril")
        keep = np.tri(n, m, k=diagonal, dtype=bool)
        return apply(E.where, keep, self, np.zeros((), self.dtype))

    def triu(self, diagonal: int = 0) -> Tensor:
        """The upper triangle (on and above the `diagonal`-th diagonal) of each matrix; zeros below.

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).triu()
        tensor([[1., 2.],
                [0., 4.]])
        """
        n, m = _matrix_shape(self, "triu")
        keep = ~np.tri(n, m, k=diagonal - 1, dtype=bool)
        return apply(E.where, keep, self, np.zeros((), self.dtype))

    # ---- more products (PyTorch's names; compositions, so their gradients are theirs) ----------
    def mv(self, vec: TensorLike) -> Tensor:
        """The product of a matrix and a vector: (n, m) @ (m,) -> (n,).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).mv(tg.tensor([1.0, 1.0]))
        tensor([3., 7.])
        """
        other = as_tensor(vec)
        if self.ndim != 2 or other.ndim != 1:
            raise ShapeError(
                f"mv: expected a matrix (2-D) and a vector (1-D), got {self.ndim}-D and "
                f"{other.ndim}-D tensors"
            )
        if self.shape[1] != other.shape[0]:
            raise ShapeError(
                f"mv: size mismatch, got input ({self.shape[0]}x{self.shape[1]}) and vec "
                f"({other.shape[0]})"
            )
        return matmul(self, other)

    def inner(self, other: TensorLike) -> Tensor:
        """The inner product over the last axis of each: shape self.shape[:-1] + other.shape[:-1]
        (a 0-d tensor on either side multiplies).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).inner(tg.tensor([1.0, 10.0]))
        tensor([21., 43.])
        """
        x, y = cast("Tensor", self), as_tensor(other)
        if x.ndim == 0 or y.ndim == 0:
            return x * y
        if x.shape[-1] != y.shape[-1]:
            raise ShapeError(
                f"inner: the last dimensions must match, got {list(x.shape)} and {list(y.shape)}"
            )
        k = x.shape[-1]
        flat = x.reshape(-1, k) @ y.reshape(-1, k).t()
        return flat.reshape(*x.shape[:-1], *y.shape[:-1])

    def vdot(self, other: TensorLike) -> Tensor:
        """The dot product of two vectors, the first conjugated (for real tensors: dot).

        >>> tg.tensor([1.0, 2.0]).vdot(tg.tensor([3.0, 4.0]))
        tensor(11.)
        """
        return self.dot(other)

    def kron(self, other: TensorLike) -> Tensor:
        """The Kronecker product: every element of self times the whole of other, in blocks (the
        shorter shape padded with leading 1s).

        >>> tg.tensor([1.0, 10.0]).kron(tg.tensor([1.0, 2.0]))
        tensor([ 1.,  2., 10., 20.])
        """
        x, y = cast("Tensor", self), as_tensor(other)
        ndim = max(x.ndim, y.ndim)
        a, b = (1,) * (ndim - x.ndim) + x.shape, (1,) * (ndim - y.ndim) + y.shape
        spread_x = x.reshape(*[s for n in a for s in (n, 1)])  # (a0, 1, a1, 1, ...)
        spread_y = y.reshape(*[s for n in b for s in (1, n)])  # (1, b0, 1, b1, ...)
        return (spread_x * spread_y).reshape(*[m * n for m, n in zip(a, b)])

    def cross(self, other: TensorLike, dim: int | None = None) -> Tensor:
        """The cross product of 3-vectors along `dim` (both broadcast; None: the first axis of
        size 3, as torch.cross without dim, which PyTorch deprecates in favour of dim=-1).

        >>> tg.tensor([1.0, 0.0, 0.0]).cross(tg.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
        """
        x, y = cast("Tensor", self), as_tensor(other)
        shape = np.broadcast_shapes(x.shape, y.shape)
        x, y = x.expand(*shape), y.expand(*shape)
        if dim is None:
            dim = next((i for i, n in enumerate(shape) if n == 3), None)
            if dim is None:
                raise ShapeError(f"cross: no dimension of size 3 in input of shape {list(shape)}")
        if not -len(shape) <= dim < len(shape) or shape[dim] != 3:
            raise ShapeError(
                f"cross: dimension {dim} does not have size 3 (the shapes broadcast to "
                f"{list(shape)})"
            )
        dim %= len(shape)
        xs, ys = [x.narrow(dim, i, 1) for i in range(3)], [y.narrow(dim, i, 1) for i in range(3)]
        parts = [
            xs[(i + 1) % 3] * ys[(i + 2) % 3] - xs[(i + 2) % 3] * ys[(i + 1) % 3] for i in (0, 1, 2)
        ]
        return apply(S.concatenate, *parts, axis=dim, sizes=(1, 1, 1))

    def addmm(self, mat1: TensorLike, mat2: TensorLike, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """beta * self + alpha * (mat1 @ mat2), mat1 and mat2 matrices (with beta 0, self is not
        read: its NaNs do not spread, as PyTorch).

        >>> tg.zeros(2, 2).addmm(tg.eye(2), tg.ones(2, 2), alpha=3)
        tensor([[3., 3.],
                [3., 3.]])
        """
        return _scaled_sum(self, as_tensor(mat1).mm(mat2), beta, alpha)

    def addmv(self, mat: TensorLike, vec: TensorLike, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """beta * self + alpha * (mat @ vec), mat a matrix and vec a vector.

        >>> tg.ones(2).addmv(tg.eye(2), tg.tensor([1.0, 2.0]))
        tensor([2., 3.])
        """
        return _scaled_sum(self, as_tensor(mat).mv(vec), beta, alpha)

    def baddbmm(
        self, batch1: TensorLike, batch2: TensorLike, *, beta: Any = 1, alpha: Any = 1
    ) -> Tensor:
        """beta * self + alpha * bmm(batch1, batch2) (3-D batches of matrices).

        >>> tg.zeros(2, 1, 1).baddbmm(tg.ones(2, 1, 3), tg.ones(2, 3, 1)).flatten()
        tensor([3., 3.])
        """
        return _scaled_sum(self, as_tensor(batch1).bmm(batch2), beta, alpha)

    def addbmm(
        self, batch1: TensorLike, batch2: TensorLike, *, beta: Any = 1, alpha: Any = 1
    ) -> Tensor:
        """beta * self + alpha * the sum over the batch of batch1[i] @ batch2[i].

        >>> tg.zeros(1, 1).addbmm(tg.ones(2, 1, 3), tg.ones(2, 3, 1))
        tensor([[6.]])
        """
        return _scaled_sum(self, as_tensor(batch1).bmm(batch2).sum(0), beta, alpha)

    def addmm_(
        self, mat1: TensorLike, mat2: TensorLike, *, beta: Any = 1, alpha: Any = 1
    ) -> Tensor:
        """addmm in place.

        >>> x = tg.zeros(1, 1); x.addmm_(tg.ones(1, 2), tg.ones(2, 1))
        tensor([[2.]])
        """
        return cast("Tensor", self).copy_(self.addmm(mat1, mat2, beta=beta, alpha=alpha))

    def addmv_(self, mat: TensorLike, vec: TensorLike, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """addmv in place.

        >>> x = tg.ones(2); x.addmv_(tg.eye(2), tg.tensor([1.0, 2.0]))
        tensor([2., 3.])
        """
        return cast("Tensor", self).copy_(self.addmv(mat, vec, beta=beta, alpha=alpha))

    def baddbmm_(
        self, batch1: TensorLike, batch2: TensorLike, *, beta: Any = 1, alpha: Any = 1
    ) -> Tensor:
        """baddbmm in place.

        >>> x = tg.zeros(1, 1, 1); x.baddbmm_(tg.ones(1, 1, 2), tg.ones(1, 2, 1)).flatten()
        tensor([2.])
        """
        return cast("Tensor", self).copy_(self.baddbmm(batch1, batch2, beta=beta, alpha=alpha))

    def addbmm_(
        self, batch1: TensorLike, batch2: TensorLike, *, beta: Any = 1, alpha: Any = 1
    ) -> Tensor:
        """addbmm in place.

        >>> x = tg.zeros(1, 1); x.addbmm_(tg.ones(2, 1, 2), tg.ones(2, 2, 1))
        tensor([[4.]])
        """
        return cast("Tensor", self).copy_(self.addbmm(batch1, batch2, beta=beta, alpha=alpha))

    def addr(self, vec1: TensorLike, vec2: TensorLike, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """beta * self + alpha * outer(vec1, vec2).

        >>> tg.zeros(2, 2).addr(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 1.0]))
        tensor([[1., 1.],
                [2., 2.]])
        """
        v1, v2 = as_tensor(vec1), as_tensor(vec2)
        if self.dtype == v1.dtype == v2.dtype == np.bool_:  # (bools: or of ands, as PyTorch)
            both = np.logical_and.outer(v1._data, v2._data) & bool(alpha)
            return as_tensor(both | (self._data & bool(beta)))
        return _scaled_sum(self, v1.outer(v2), beta, alpha)

    def addr_(self, vec1: TensorLike, vec2: TensorLike, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """addr in place.

        >>> x = tg.zeros(1, 2); x.addr_(tg.tensor([2.0]), tg.tensor([1.0, 3.0]))
        tensor([[2., 6.]])
        """
        return cast("Tensor", self).copy_(self.addr(vec1, vec2, beta=beta, alpha=alpha))

    def diagflat(self, offset: int = 0) -> Tensor:
        """A square matrix with the flattened self on the offset-th diagonal.

        >>> tg.tensor([[1.0, 2.0]]).diagflat()
        tensor([[1., 0.],
                [0., 2.]])
        """
        return cast("Tensor", self).reshape(-1).diag(offset)

    def renorm(self, p: float, dim: int, maxnorm: float) -> Tensor:
        """Each slice along dim whose p-norm is above maxnorm scaled down to norm maxnorm (the
        others as they are), as PyTorch (which divides by the norm plus 1e-7).

        >>> tg.tensor([[3.0, 4.0], [0.3, 0.4]]).renorm(2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
        """
        x = cast("Tensor", self)
        axis = one_dim(dim, x.ndim, "renorm")
        if not maxnorm >= 0:
            raise ShapeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
        others = tuple(d for d in range(x.ndim) if d != axis)
        norms = x.norm(p, dim=others, keepdim=True) if others else x.abs()
        over = norms._data > maxnorm
        factor = where(over, maxnorm / (norms + 1e-7), 1.0)
        return x * factor

    def renorm_(self, p: float, dim: int, maxnorm: float) -> Tensor:
        """renorm in place.

        >>> x = tg.tensor([[3.0, 4.0]]); x.renorm_(2, 0, 1.0)
        tensor([[0.6000, 0.8000]])
        """
        return unary_(self, "renorm_", lambda old, _: as_tensor(old).renorm(p, dim, maxnorm))

    # ---- distances -----------------------------------------------------------------------------
    def dist(self, other: TensorLike, p: float = 2) -> Tensor:
        """The p-norm of self - other (broadcast): a 0-d tensor.

        >>> tg.tensor([0.0, 0.0]).dist(tg.tensor([3.0, 4.0]))
        tensor(5.)
        """
        return (cast("Tensor", self) - as_tensor(other)).norm(p)


def _scaled_sum(x: TensorBase, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """beta * x + alpha * product, as the add* family computes it: a factor of 1 is no op, beta 0
    ignores x (NaN and inf in x do not spread), and integer tensors take the factors' integer
    parts (alpha=2.5 is 2: the result stays integer), as PyTorch."""
    if product.dtype.kind in "iu" and x.dtype.kind in "iu":
        beta, alpha = int(beta), int(alpha)
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled.expand(*np.broadcast_shapes(x.shape, scaled.shape)) * 1
    return (cast("Tensor", x) if beta == 1 else x * beta) + scaled
