"""Free-function forms of the ops (`tg.sin(x)`, `tg.cat([a, b])`, ...): thin wrappers over Tensor.

Layer L4: imports tensor.py. No rules here: every op's math lives once, in primitives/.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import primitives as P
from ._utils import one_axis
from .tensor import Tensor, apply
from .tensor import methods as M
from .tensor.coerce import as_tensor


def _unary(name: str) -> Any:
    def op(x: Any) -> Tensor:
        return getattr(as_tensor(x), name)()

    op.__name__ = name
    op.__doc__ = f"Elementwise {name} (see tg.autograd.formula({name!r}) for its derivative)."
    return op


exp, log, sin, cos, tan, tanh = (_unary(n) for n in ("exp", "log", "sin", "cos", "tan", "tanh"))
log1p, expm1 = _unary("log1p"), _unary("expm1")
sigmoid, relu, sqrt, abs, sign, square = (
    _unary(n) for n in ("sigmoid", "relu", "sqrt", "abs", "sign", "square")
)


def _reduction(name: str) -> Any:
    def op(x: Any, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Tensor:
        return getattr(as_tensor(x), name)(axis, keepdims, **kwargs)

    op.__name__ = name
    op.__doc__ = (
        f"{name} over `axis` (alias dim=), keeping reduced axes with keepdims=True (keepdim=)."
    )
    return op


sum, mean, var, std, prod, logsumexp, amax, amin = (
    _reduction(n) for n in ("sum", "mean", "var", "std", "prod", "logsumexp", "amax", "amin")
)
amax.__doc__ += """ Always the values, never (values, indices).

    >>> tg.amax(tg.tensor([[1.0, 5.0], [7.0, 2.0]]), 1), tg.amin(tg.tensor([[1.0, 5.0]]), dim=1)
    (tensor([5., 7.]), tensor([1.]))
    """
amin.__doc__ = amax.__doc__.replace("amax over", "amin over")


def max(x: Any, *args: Any, **kwargs: Any) -> Any:
    """The largest value; `tg.max(x, 1)` / `dim=1`: the named tuple (values, indices), as
    torch.max; `axis=1`: the values (NumPy); `tg.max(a, b)`: the elementwise maximum.

    >>> x = tg.tensor([[1.0, 5.0], [7.0, 2.0]])
    >>> tg.max(x, 1)
    max(values=tensor([5., 7.]), indices=tensor([1, 0]))
    >>> _, pred = tg.max(x, 1); pred
    tensor([1, 0])
    >>> tg.max(x, axis=1), tg.max(x)
    (tensor([5., 7.]), tensor(7.))
    """
    return as_tensor(x).max(*args, **kwargs)


def min(x: Any, *args: Any, **kwargs: Any) -> Any:
    """The smallest value; spellings as tg.max.

    >>> x = tg.tensor([[1.0, 5.0], [7.0, 2.0]])
    >>> tg.min(x, dim=0).indices, tg.min(x, axis=0), tg.min(x, tg.tensor(3.0))
    (tensor([0, 1]), tensor([1., 2.]), tensor([[1., 3.], [3., 2.]]))
    """
    return as_tensor(x).min(*args, **kwargs)


def pow(x: Any, y: Any) -> Tensor:
    return as_tensor(x) ** y if isinstance(x, Tensor) or not isinstance(y, Tensor) else x**y


def add(x: Any, y: Any) -> Tensor:
    return as_tensor(x) + y


def sub(x: Any, y: Any) -> Tensor:
    return as_tensor(x) - y


def mul(x: Any, y: Any) -> Tensor:
    return as_tensor(x) * y


def div(x: Any, y: Any) -> Tensor:
    return as_tensor(x) / y


def neg(x: Any) -> Tensor:
    return -as_tensor(x)


def reciprocal(x: Any) -> Tensor:
    """1 / x elementwise (floats for an integer tensor, as PyTorch).

    >>> tg.reciprocal(tg.tensor([2.0, 4.0]))
    tensor([0.5000, 0.2500])
    """
    return apply(P.elementwise.reciprocal, as_tensor(x))


def maximum(x: Any, y: Any) -> Tensor:
    return as_tensor(x).maximum(y)


def minimum(x: Any, y: Any) -> Tensor:
    return as_tensor(x).minimum(y)


def clip(x: Any, min: Any = None, max: Any = None) -> Tensor:
    return as_tensor(x).clip(min, max)


clamp = clip


def where(condition: Any, x: Any, y: Any) -> Tensor:
    """x where condition holds, else y (all three broadcast): `tg.where(x > 0, x, 0.0)`."""
    return M.where(condition, x, y)


def matmul(x: Any, y: Any) -> Tensor:
    return as_tensor(x).matmul(y)


def dot(x: Any, y: Any) -> Tensor:
    return as_tensor(x).matmul(y)


def softmax(x: Any, axis: int = -1, *, dim: int | None = None) -> Tensor:
    return as_tensor(x).softmax(axis, dim=dim)


def log_softmax(x: Any, axis: int = -1, *, dim: int | None = None) -> Tensor:
    return as_tensor(x).log_softmax(axis, dim=dim)


def reshape(x: Any, *shape: Any) -> Tensor:
    return as_tensor(x).reshape(*shape)


def transpose(x: Any, *dims: Any) -> Tensor:
    return as_tensor(x).transpose(*dims)


def permute(x: Any, *dims: Any) -> Tensor:
    return as_tensor(x).permute(*dims)


def squeeze(x: Any, axis: Any = None, *, dim: Any = None) -> Tensor:
    return as_tensor(x).squeeze(axis, dim=dim)


def unsqueeze(x: Any, axis: int) -> Tensor:
    return as_tensor(x).unsqueeze(axis)


expand_dims = unsqueeze


def expand(x: Any, *shape: Any) -> Tensor:
    return as_tensor(x).expand(*shape)


broadcast_to = expand


def flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return as_tensor(x).flatten(start_dim, end_dim)


def split(x: Any, split_size_or_sections: Any, axis: int = 0, *, dim: int | None = None) -> tuple:
    return as_tensor(x).split(split_size_or_sections, axis, dim=dim)


def concatenate(tensors: Sequence[Any], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """Join tensors along an existing axis (alias tg.cat)."""
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ValueError("concatenate expects a non-empty list or tuple of tensors")
    ts = [as_tensor(t) for t in tensors]
    ndim = ts[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional tensors cannot be concatenated; use tg.stack")
    axis = one_axis(dim if dim is not None else axis, ndim)
    for i, t in enumerate(ts):
        if (
            t.ndim != ndim
            or t.shape[:axis] + t.shape[axis + 1 :] != ts[0].shape[:axis] + ts[0].shape[axis + 1 :]
        ):
            raise ValueError(
                f"concatenate: tensor {i} has shape {list(t.shape)}, but tensor 0 has shape "
                f"{list(ts[0].shape)}; all axes except axis {axis} must match"
            )
    return apply(P.shape.concatenate, *ts, axis=axis, sizes=tuple(t.shape[axis] for t in ts))


cat = concatenate


def stack(tensors: Sequence[Any], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """Join tensors along a new axis."""
    if isinstance(tensors, Tensor) or not len(tensors):
        raise ValueError("stack expects a non-empty list or tuple of tensors")
    ts = [as_tensor(t) for t in tensors]
    axis = one_axis(dim if dim is not None else axis, ts[0].ndim + 1)
    for i, t in enumerate(ts):
        if t.shape != ts[0].shape:
            raise ValueError(
                f"stack: tensor {i} has shape {list(t.shape)}, tensor 0 has "
                f"{list(ts[0].shape)}; stacked tensors must have equal shapes"
            )
    return concatenate([t.unsqueeze(axis) for t in ts], axis)


def argmax(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return as_tensor(x).argmax(axis, keepdims)


def argmin(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    return as_tensor(x).argmin(axis, keepdims)


def allclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    return bool(np.allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol))


def isfinite(x: Any) -> Tensor:
    return Tensor._make(np.asarray(np.isfinite(as_tensor(x)._data)))


def _method(name: str) -> Any:
    """tg.<name>(x, ...) as x.<name>(...), with the method's docstring (PyTorch has both)."""

    def op(x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(as_tensor(x), name)(*args, **kwargs)

    op.__name__ = name
    op.__doc__ = getattr(Tensor, name).__doc__
    return op


erf, floor, ceil, trunc, round, frac = (
    _method(n) for n in ("erf", "floor", "ceil", "trunc", "round", "frac")
)
t, norm, cumsum, gather, masked_fill, outer, trace = (
    _method(n) for n in ("t", "norm", "cumsum", "gather", "masked_fill", "outer", "trace")
)
sort, argsort, topk, flip, tile, tril, triu, diag = (
    _method(n) for n in ("sort", "argsort", "topk", "flip", "tile", "tril", "triu", "diag")
)
rsqrt, cumprod, narrow, unbind, mm, bmm = (
    _method(n) for n in ("rsqrt", "cumprod", "narrow", "unbind", "mm", "bmm")
)
# in-place forms (torch.exp_(x) and friends)
exp_, log_, log1p_, expm1_, sqrt_, sin_, cos_, tan_, tanh_, sigmoid_, relu_, erf_ = (
    _method(n + "_")
    for n in ("exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid")
    + ("relu", "erf")
)
rsqrt_, reciprocal_ = _method("rsqrt_"), _method("reciprocal_")
abs_, neg_, floor_, ceil_, trunc_, round_, frac_, square_, clamp_, clip_ = (
    _method(n + "_")
    for n in ("abs", "neg", "floor", "ceil", "trunc", "round", "frac", "square", "clamp", "clip")
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
