"""Tensor: a NumPy array plus what autodiff needs (requires_grad, grad, grad_fn, hooks, version).

Layer L3. The class holds the public surface; each method is a line or two over the rule table
(`apply(P.x, ...)` records one op) and over the package's helpers: record.py (recording), inplace.py
(in-place ops and views), coerce.py (parsing what users pass), grad.py (gradients arriving here).
"""

from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any, Callable

import numpy as np

from .. import dtypes
from .._state import overrides, state
from .base import DETACHED_IN_BACKWARD, TensorBase
from .printing import unary_doc
from .. import primitives as P
from ..tape.composite import mark

_new = object.__new__
E, R, S = P.elementwise, P.reduction, P.shape

# torch.max(x, dim) and torch.min(x, dim) give these (as torch.return_types.max / .min)
MaxResult = namedtuple("max", ["values", "indices"])  # type: ignore[name-match]
MinResult = namedtuple("min", ["values", "indices"])  # type: ignore[name-match]


def _unary(prim: Any) -> Any:
    """The method `t.<op>()` of a one-input primitive."""

    def method(self: "Tensor") -> "Tensor":
        return apply(prim, self)

    method.__name__ = prim.name
    method.__doc__ = unary_doc(prim)
    return method


def _reduction(prim: Any, doc: str) -> Any:
    """The method `t.<op>(axis=None, keepdims=False, *, dim=None, keepdim=None)` of a reduction."""

    def method(
        self: "Tensor",
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        return M.reduce(prim, self, axis, keepdims, dim, keepdim)

    method.__name__ = prim.name
    method.__doc__ = doc + " `axis` (alias dim=), keepdims (alias keepdim=)."
    return method


def _binary(prim: Any) -> Any:
    """The operator `t <op> other`."""

    def op(self: "Tensor", other: Any) -> "Tensor":
        # (the commonest operands, Tensors and Python numbers, need no coerce call)
        return apply(prim, self, other if other.__class__ in AS_IS else coerce(other))

    op.__name__ = prim.name
    return op


def _reflected(prim: Any) -> Any:
    """The operator `other <op> t` for an `other` that is not a Tensor."""

    def op(self: "Tensor", other: Any) -> "Tensor":
        return apply(prim, other if other.__class__ in AS_IS else coerce(other), self)

    op.__name__ = "r" + prim.name
    return op


def _comparison(ufunc: Any) -> Any:
    """`t < other` and friends: a bool tensor, off the tape."""

    def op(self: "Tensor", other: Any) -> "Tensor":
        other = other._data if isinstance(other, Tensor) else other
        return Tensor._make(np.asarray(ufunc(self._data, other)))

    op.__name__ = ufunc.__name__
    return op


def _inplace(name: str, prim: Any, alpha: bool = False) -> Any:
    """`t += other` and `t.add_(other)`: in place, recorded when on the tape (see inplace.py)."""

    def op(self: "Tensor", other: Any, *args: Any, **kwargs: Any) -> "Tensor":
        other = coerce(other)
        if alpha:  # add_(other, alpha=2.0), sub_(...): other scaled first
            scale = kwargs.pop("alpha", args[0] if args else 1.0)
            other = other if scale == 1 else other * scale
        return inplace(self, name, prim, other)

    op.__name__ = name
    op.__doc__ = f"In place: self {name.rstrip('_')} other" + (" * alpha." if alpha else ".")
    return op


def _inplace_unary(prim: Any) -> Any:
    """The in-place method `t.<op>_()` of a one-input primitive (recorded when on the tape)."""

    def method(self: "Tensor") -> "Tensor":
        return X.unary_(self, prim.name + "_", lambda old, _: prim(old))

    method.__name__ = prim.name + "_"
    method.__doc__ = unary_doc(prim, inplace=True)
    return method


_DEFERRED: list = []


def _defer(*names: str) -> Any:
    """Methods whose code, signature and docstring live in more_methods.py (`name(self, ...)`)."""

    def make(name: str) -> Any:
        def method(self: "Tensor", *args: Any, **kwargs: Any) -> Any:
            return getattr(X, name)(self, *args, **kwargs)

        method.__name__ = name
        _DEFERRED.append(method)
        return method

    return tuple(make(n) for n in names)


class Tensor(TensorBase):
    """An n-dimensional array that can record the ops applied to it, for reverse-mode autodiff.

    >>> x = tg.tensor([1.0, 2.0], requires_grad=True); (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """

    __slots__ = ()  # (the storage slots are in TensorBase)
    __hash__ = object.__hash__  # (by identity: defining __eq__ would drop it)

    @staticmethod
    def _make(data: np.ndarray, grad_fn: Any = None) -> "Tensor":
        """The fast constructor: wraps `data` as it is."""
        t = _new(Tensor)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._vc = None
        return t

    def astype(self, dtype: Any) -> "Tensor":
        """A cast; differentiable between floating dtypes (the gradient is cast back)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype == self._data.dtype:
            return self
        if dtype.kind != "f" or self._data.dtype.kind != "f":
            return Tensor._make(self._data.astype(dtype))
        return apply(E.cast, self, dtype=dtype)

    def to(self, *args: Any, dtype: Any = None, device: Any = None, **kwargs: Any) -> "Tensor":
        """PyTorch's `to`: a dtype, another tensor (its dtype) or a device (only the CPU here)."""
        dtype = to_dtype(args, dtype, device)
        return self if dtype is None else self.astype(dtype)

    def cpu(self) -> "Tensor":
        """self (tapegrad computes on the CPU)."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> "Tensor":
        """A clear error: tapegrad computes with NumPy on the CPU."""
        check_device("cuda")
        return self

    # ---- the tape ------------------------------------------------------------------------------
    def detach(self) -> "Tensor":
        """The same values, cut from the tape (shares memory, hence the version counter too)."""
        t = Tensor._make(self._data)
        t._vc = self._version_counter()
        if overrides[0] and state.strict_backward and self._requires_grad:
            DETACHED_IN_BACKWARD[id(t)] = t  # (its values leaving the tape there: an error)
        return t

    def detach_(self) -> "Tensor":
        """Cut this tensor from the tape, in place."""
        self._grad_fn = None
        self._requires_grad = False
        return self

    def clone(self) -> "Tensor":
        """A copy that stays on the tape (the gradient flows back unchanged)."""
        return apply(E.add, self, np.zeros((), self._data.dtype))

    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
        trace: bool = False,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's .grad (see tg.autograd.backward)."""
        from ..autograd.functions import backward  # the layer above, imported when used

        backward(
            self,
            gradient,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
            trace=trace,
            _names=("this tensor", "gradient"),
        )

    def register_hook(self, hook: Callable[["Tensor"], "Tensor | None"]) -> HookHandle:
        """Call hook(grad) when this tensor's gradient is computed (it may return a replacement)."""
        return register_hook(self, hook)

    def retain_grad(self) -> None:
        """Keep .grad for this non-leaf tensor too (leaves always get it)."""
        retain_grad(self)

    # ---- in-place ------------------------------------------------------------------------------
    __iadd__, add_ = _inplace("+=", E.add), _inplace("add_", E.add, alpha=True)
    __isub__, sub_ = _inplace("-=", E.sub), _inplace("sub_", E.sub, alpha=True)
    __imul__, mul_ = _inplace("*=", E.mul), _inplace("mul_", E.mul)
    __itruediv__, div_ = _inplace("/=", E.div), _inplace("div_", E.div)

    exp_, log_, log1p_, expm1_ = (_inplace_unary(p) for p in (E.exp, E.log, E.log1p, E.expm1))
    sin_, cos_, tan_, tanh_ = (_inplace_unary(p) for p in (E.sin, E.cos, E.tan, E.tanh))
    sqrt_, sigmoid_, relu_, erf_ = (_inplace_unary(p) for p in (E.sqrt, E.sigmoid, E.relu, E.erf))
    abs_, neg_, sign_ = (_inplace_unary(p) for p in (E.abs, E.neg, E.sign))
    floor_, ceil_, trunc_ = (_inplace_unary(p) for p in (E.floor, E.ceil, E.trunc))
    rsqrt_, reciprocal_ = _defer("rsqrt_", "reciprocal_")
    round_, frac_, square_, pow_ = _defer("round_", "frac_", "square_", "pow_")
    clamp_, masked_fill_ = _defer("clamp_", "masked_fill_")
    clip_ = clamp_

    def zero_(self) -> "Tensor":
        """Fill with zeros in place (e.g. `x.grad.zero_()`)."""
        return self.fill_(0)

    def fill_(self, value: Any) -> "Tensor":
        """Fill with one value in place (recorded: the old values get a zero gradient)."""
        value = coerce(value)
        return inplace(self, "fill_", lambda old, v: apply(E.fill, old, value=v), value)

    def copy_(self, src: Any) -> "Tensor":
        """Copy src's values (broadcast to this shape) in; the gradient flows to src."""
        return inplace(self, "copy_", None, coerce(src))

    def __setitem__(self, index: Any, value: Any) -> None:
        index = normalize_index(index)
        steps = split_int_indices(index)
        if steps is not None:  # PyTorch's order: the ints first (a view), then the rest
            self[steps[0]][steps[1]] = value
            return
        inplace(self, "__setitem__", None, coerce(value), index=index)

    # ---- operators -----------------------------------------------------------------------------
    __add__, __radd__ = _binary(E.add), _reflected(E.add)
    __sub__, __rsub__ = _binary(E.sub), _reflected(E.sub)
    __mul__, __rmul__ = _binary(E.mul), _reflected(E.mul)
    __truediv__ = _binary(E.div)

    def __rtruediv__(self, other: Any) -> "Tensor":
        other = coerce(other)
        if other.__class__ is float or other.__class__ is int:  # as PyTorch: a reciprocal times
            return apply(E.mul, apply(E.reciprocal, self), other)  # the number (saves no input)
        return apply(E.div, other, self)

    __pow__, __rpow__ = _binary(E.pow), _reflected(E.pow)
    __lt__, __le__ = _comparison(np.less), _comparison(np.less_equal)
    __gt__, __ge__ = _comparison(np.greater), _comparison(np.greater_equal)
    __eq__, __ne__ = _comparison(np.equal), _comparison(np.not_equal)
    __and__, __or__ = _comparison(np.logical_and), _comparison(np.logical_or)

    def __matmul__(self, other: Any) -> "Tensor":
        return M.matmul(self, other if other.__class__ is Tensor else coerce(other))

    def __rmatmul__(self, other: Any) -> "Tensor":
        return as_tensor(other).matmul(self)

    def __neg__(self) -> "Tensor":
        return apply(E.neg, self)

    def __pos__(self) -> "Tensor":
        return self

    def __abs__(self) -> "Tensor":
        return self.abs()

    def __invert__(self) -> "Tensor":
        return Tensor._make(np.asarray(~self._data))

    def __getitem__(self, index: Any) -> "Tensor":
        index = normalize_index(index)
        steps = split_int_indices(index)
        if steps is not None:  # PyTorch's order: the ints first (a view), then the rest
            return self[steps[0]][steps[1]]
        return apply(S.getitem, self, index=index)

    # ---- math ----------------------------------------------------------------------------------
    exp, log, sin, cos = _unary(E.exp), _unary(E.log), _unary(E.sin), _unary(E.cos)
    tan, tanh, sigmoid, relu = _unary(E.tan), _unary(E.tanh), _unary(E.sigmoid), _unary(E.relu)
    sqrt, abs, sign = _unary(E.sqrt), _unary(E.abs), _unary(E.sign)
    log1p, expm1, neg = _unary(E.log1p), _unary(E.expm1), _unary(E.neg)
    erf, floor, ceil, trunc = _unary(E.erf), _unary(E.floor), _unary(E.ceil), _unary(E.trunc)
    round, frac, norm, cumsum = _defer("round", "frac", "norm", "cumsum")
    outer, trace, gather, masked_fill = _defer("outer", "trace", "gather", "masked_fill")
    sort, argsort, topk = _defer("sort", "argsort", "topk")
    rsqrt, reciprocal, cumprod = _defer("rsqrt", "reciprocal", "cumprod")
    narrow, unbind, mm, bmm = _defer("narrow", "unbind", "mm", "bmm")

    def square(self) -> "Tensor":
        """self * self."""
        return apply(E.mul, self, self)

    def pow(self, exponent: Any) -> "Tensor":
        """self ** exponent."""
        return self**exponent

    def maximum(self, other: Any) -> "Tensor":
        """The larger of self and other, elementwise (ties share the gradient)."""
        return apply(E.maximum, self, coerce(other))

    def minimum(self, other: Any) -> "Tensor":
        """The smaller of self and other, elementwise (ties share the gradient)."""
        return apply(E.minimum, self, coerce(other))

    def clip(self, min: Any = None, max: Any = None) -> "Tensor":
        """self limited to [min, max] (either may be None)."""
        return M.clip(self, min, max)

    clamp = clip

    def where(self, condition: Any, other: Any) -> "Tensor":
        """self where condition holds, else other (as torch.Tensor.where)."""
        return M.where(condition, self, other)

    def matmul(self, other: Any) -> "Tensor":
        """self @ other (NumPy's rules for 1-D operands and batch axes)."""
        return M.matmul(self, coerce(other))

    sum = _reduction(R.sum, "The sum over axis (all axes by default).")
    mean = _reduction(R.mean, "The mean over axis (all axes by default).")
    prod = _reduction(R.prod, "The product over axis (all axes by default).")
    logsumexp = _reduction(R.logsumexp, "log(sum(exp(self))) over axis, computed stably.")
    amax = _reduction(R.max, "The largest value over axis (ties share the gradient).")
    amin = _reduction(R.min, "The smallest value over axis (ties share the gradient).")

    def var(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> "Tensor":
        """The variance over axis (ddof=0; ddof=1 / unbiased=True / correction=1 as PyTorch)."""
        return M.var(self, axis, keepdims, **kwargs)

    def std(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> "Tensor":
        """The standard deviation: sqrt(var(...))."""
        v = M.var(self, axis, keepdims, **kwargs)
        called = getattr(v._grad_fn, "composite", None)  # (var's call: its axis and ddof)
        return mark(v.sqrt(), "std", ("x",), (self,), called.params if called else None)

    def max(
        self,
        *args: Any,
        axis: Any = None,
        keepdims: bool = False,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> Any:
        """The largest value; with a dimension (`x.max(1)`, `dim=1`) the named tuple (values,
        indices) as PyTorch; with `axis=` the values (NumPy); with a tensor, maximum."""
        return M.extreme(R.max, MaxResult, self, args, axis, keepdims, dim, keepdim)

    def min(
        self,
        *args: Any,
        axis: Any = None,
        keepdims: bool = False,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> Any:
        """The smallest value; `x.min(1)` gives (values, indices), as max does."""
        return M.extreme(R.min, MinResult, self, args, axis, keepdims, dim, keepdim)

    def log_softmax(self, axis: int = -1, *, dim: int | None = None) -> "Tensor":
        """log(softmax(self)) along axis, computed stably."""
        return M.log_softmax(self, axis, dim)

    def softmax(self, axis: int = -1, *, dim: int | None = None) -> "Tensor":
        """exp(self) normalised to sum to 1 along axis."""
        out = M.log_softmax(self, axis, dim).exp()
        return mark(out, "softmax", ("x",), (self,), {"dim": axis if dim is None else dim})

    def argmax(self, axis: Any = None, keepdims: bool = False, *, dim: Any = None) -> "Tensor":
        """The position of the largest value (over one axis, or of the flattened tensor)."""
        return M.arg_extreme(np.argmax, self, dim if axis is None else axis, keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False, *, dim: Any = None) -> "Tensor":
        """The position of the smallest value (over one axis, or of the flattened tensor)."""
        return M.arg_extreme(np.argmin, self, dim if axis is None else axis, keepdims)

    def all(self, axis: Any = None, *, dim: Any = None) -> "Tensor":
        """Whether every element is true (over axis)."""
        return M.logical(np.all, self, dim if axis is None else axis)

    def any(self, axis: Any = None, *, dim: Any = None) -> "Tensor":
        """Whether some element is true (over axis)."""
        return M.logical(np.any, self, dim if axis is None else axis)

    # ---- shape ---------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> "Tensor":
        """The same elements in a new shape: `t.reshape(2, 3)` or `t.reshape((2, 3))`."""
        return M.reshape(self, shape)

    def view(self, *shape: Any) -> "Tensor":
        """reshape that shares memory, as PyTorch's (an error where a copy would be needed)."""
        return M.view(self, shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Axes start_dim..end_dim merged into one."""
        return M.flatten(self, start_dim, end_dim)

    def permute(self, *dims: Any) -> "Tensor":
        """The axes in a new order: `t.permute(1, 0)`."""
        return M.permute(self, dims)

    def transpose(self, *dims: Any) -> "Tensor":
        """No dims: axes reversed; two ints: swapped (PyTorch); a tuple: a permutation (NumPy)."""
        return M.transpose(self, dims)

    def swapaxes(self, a: int, b: int) -> "Tensor":
        """Axes a and b swapped."""
        return M.transpose(self, (a, b))

    def squeeze(self, axis: Any = None, *, dim: Any = None) -> "Tensor":
        """Axes of size 1 removed (all, or those given)."""
        return M.squeeze(self, dim if axis is None else axis)

    def unsqueeze(self, axis: int) -> "Tensor":
        """A new axis of size 1 at `axis`."""
        return M.unsqueeze(self, axis)

    expand_dims = unsqueeze

    def expand(self, *shape: Any) -> "Tensor":
        """A broadcast view: `t.expand(4, 3)` (-1 keeps an axis)."""
        return M.expand(self, shape)

    broadcast_to = expand

    def split(self, split_size_or_sections: Any, axis: int = 0, *, dim: int | None = None) -> tuple:
        """Pieces of `split_size` along axis (PyTorch), or of the given sizes if a list."""
        return M.split(self, split_size_or_sections, dim if dim is not None else axis)

    def chunk(self, chunks: int, axis: int = 0, *, dim: int | None = None) -> tuple:
        """At most `chunks` pieces of equal size along axis (the last may be smaller)."""
        return M.chunk(self, chunks, dim if dim is not None else axis)

    t, flip, repeat, tile = _defer("t", "flip", "repeat", "tile")
    tril, triu, diag = _defer("tril", "triu", "diag")


AS_IS = frozenset({Tensor, float, int})  # operands that coerce() would return as they are

# The helpers make Tensors, so they import this module: they come after the class.
from .coerce import as_tensor, check_device, coerce, normalize_index, split_int_indices  # noqa: E402
from .coerce import to_dtype  # noqa: E402
from .grad import HookHandle, register_hook, retain_grad  # noqa: E402
from .inplace import inplace  # noqa: E402
from .record import apply  # noqa: E402
from . import methods as M  # noqa: E402
from . import more_methods as X  # noqa: E402

for _method in _DEFERRED:  # (their docstrings and signatures, for help() and inspect)
    functools.update_wrapper(_method, getattr(X, _method.__name__))
