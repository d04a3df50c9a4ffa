"""More of PyTorch's Tensor methods: rsqrt, reciprocal and their in-place forms, cumprod, narrow,
unbind, mm and bmm (more_methods.py imports them, so tensor.py's `_defer` finds them there).

Layer L3: numpy, the rule table and the Tensor class; each function is one Tensor method (`self` a
Tensor). All but cumprod (a primitive: its gradient with zeros in the input is not a composition)
are compositions of recorded primitives, so their gradients are those of the primitives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import primitives as P
from .._utils import one_axis
from .more_methods import unary_
from .record import apply
from .tensor import Tensor

E, R, L = P.elementwise, P.reduction, P.linalg

# the Tensor methods defined here (tensor.py's class body does not list them yet: see the end)


def _dim(self: Tensor, dim: Any, name: str) -> int:
    """One dimension (an int, negative from the end) as a non-negative axis; a 0-d tensor takes
    0 and -1, as PyTorch."""
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}")
    return one_axis(int(dim), max(self.ndim, 1))


# ---- elementwise -------------------------------------------------------------------------------
def rsqrt(self: Tensor) -> Tensor:
    """1 / sqrt(self), elementwise (its gradient -g / (2 x^1.5), as PyTorch's).

    >>> tg.tensor([4.0, 0.25]).rsqrt()
    tensor([0.5000, 2.0000])
    """
    return apply(E.reciprocal, apply(E.sqrt, self))


def rsqrt_(self: Tensor) -> Tensor:
    """rsqrt in place.

    >>> x = tg.tensor([4.0, 0.25]); x.rsqrt_()
    tensor([0.5000, 2.0000])
    """
    return unary_(self, "rsqrt_", lambda old, _: E.reciprocal(E.sqrt(old)))


def reciprocal(self: Tensor) -> Tensor:
    """1 / self, elementwise (floats for an integer tensor, as PyTorch).

    >>> tg.tensor([2.0, 4.0]).reciprocal()
    tensor([0.5000, 0.2500])
    """
    return apply(E.reciprocal, self)


def reciprocal_(self: Tensor) -> Tensor:
    """reciprocal in place (an integer tensor cannot hold the result: an error, as PyTorch).

    >>> x = tg.tensor([2.0, 4.0]); x.reciprocal_()
    tensor([0.5000, 0.2500])
    """
    return unary_(self, "reciprocal_", lambda old, _: E.reciprocal(old))


# ---- running product ---------------------------------------------------------------------------
def cumprod(self: Tensor, dim: Any = None, *, dtype: Any = None, axis: Any = None) -> Tensor:
    """The running product along dim (integers and bools multiply as int64, as PyTorch); the
    gradient is right where the input has zeros too.

    >>> tg.tensor([1.0, 2.0, 3.0]).cumprod(0)
    tensor([1., 2., 6.])
    """
    dim = axis if dim is None else dim
    if dim is None:
        raise TypeError(
            "cumprod() needs the dimension to multiply along, e.g. x.cumprod(0) (dim=0)"
        )
    x = self if dtype is None else self.astype(dtype)
    if x.dtype.kind in "biu":
        x = x.astype(np.int64)
    return apply(R.cumprod, x, axis=_dim(x, dim, "cumprod") if x.ndim else 0)


# ---- views -------------------------------------------------------------------------------------
def narrow(self: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """The `length` elements from `start` along dim (a view sharing memory, as PyTorch's; a
    negative start counts from the end).

    >>> tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).narrow(1, 1, 2)
    tensor([[2., 3.],
            [5., 6.]])
    """
    if self.ndim == 0:
        raise ValueError("narrow() cannot be applied to a 0-dim tensor")
    axis = _dim(self, dim, "narrow")
    start = int(start.item() if isinstance(start, Tensor) else start)
    length, size = int(length), self.shape[axis]
    if length < 0:
        raise ValueError(f"narrow(): length must be non-negative, got {length}")
    if not -size <= start <= size:
        raise IndexError(
            f"narrow(): start out of range (expected to be in range of [{-size}, {size}], but got "
            f"{start})"
        )
    start = start + size if start < 0 else start
    if start + length > size:
        raise ValueError(
            f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size}) of "
            f"dimension {axis}"
        )
    return self[(slice(None),) * axis + (slice(start, start + length),)]


def unbind(self: Tensor, dim: int = 0) -> tuple:
    """The slices along dim, that axis removed: a tuple of views (as PyTorch's).

    >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).unbind(1)
    (tensor([1., 3.]), tensor([2., 4.]))
    """
    if self.ndim == 0:
        raise IndexError(f"unbind: dimension specified as {dim} but the tensor has no dimensions")
    axis = _dim(self, dim, "unbind")
    return tuple(self[(slice(None),) * axis + (i,)] for i in range(self.shape[axis]))


# ---- matrix products ---------------------------------------------------------------------------
def _operand(other: Any) -> Tensor:
    return other if isinstance(other, Tensor) else Tensor(other)


def mm(self: Tensor, mat2: Any) -> Tensor:
    """The matrix product of two matrices (2-D only, no broadcasting: matmul is the general one).

    >>> tg.tensor([[1.0, 2.0]]).mm(tg.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """
    other = _operand(mat2)
    for name, m in (("self", self), ("mat2", other)):
        if m.ndim != 2:
            raise ValueError(f"mm: {name} must be a matrix (2-D), got a {m.ndim}-D tensor")
    if self.shape[1] != other.shape[0]:
        raise ValueError(
            "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})".format(
                *self.shape, *other.shape
            )
        )
    return apply(L.matmul, self, other)


def bmm(self: Tensor, mat2: Any) -> Tensor:
    """Batched matrix products: (b, n, m) @ (b, m, p) -> (b, n, p); both 3-D with the same batch
    size (no broadcasting, as PyTorch's).

    >>> tg.ones(2, 3, 4).bmm(tg.ones(2, 4, 5)).shape
    (2, 3, 5)
    """
    other = _operand(mat2)
    for name, m in (("batch1", self), ("batch2", other)):
        if m.ndim != 3:
            raise ValueError(f"bmm: {name} must be a 3D tensor, got a {m.ndim}-D tensor")
    expected = [self.shape[0], self.shape[2]]
    if list(other.shape[:2]) != expected:
        raise ValueError(
            f"bmm: expected size for first two dimensions of batch2 tensor to be: {expected} but "
            f"got: {list(other.shape[:2])} (batch1 has shape {list(self.shape)})"
        )
    return apply(L.matmul, self, other)
