"""Reductions: sum, mean, prod, max/min (values, or PyTorch's named tuple with a dim),
argmax/argmin, logsumexp and softmax, norms, and the running sum and product along an axis (var
and std: statistics.py).

Layer L3: numpy, dtypes, the rule table, the storage base, record.py's apply and wrap, coerce.py,
the indexing room's `along_axis` and the tape's composite `mark`. PyTorch's signatures (positional
dim and keepdim, `dtype=`) and NumPy's keywords (`axis=`, `keepdims=`) both work. Composites stay
composites (softmax, norm): their derivatives are those of the primitives; softmax and log_softmax
mark their result so that tg.explain shows each call as one step with its textbook rule.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, cast, overload

import numpy as np

from .. import dtypes
from .._utils import normalize_axis, one_axis
from ..primitives import elementwise as E
from ..primitives import reduction as R
from ..primitives import shape as S
from ..primitives.registry import Primitive
from ..tape.composite import mark
from .base import TensorBase
from .coerce import coerce, one_dim
from .indexing import along_axis
from .record import apply, wrap

if TYPE_CHECKING:
    from .tensor import Tensor


class MaxResult(NamedTuple):
    """What max with a dim gives: the named tuple (values, indices), as torch.return_types.max."""

    values: Tensor
    indices: Tensor


class MinResult(NamedTuple):
    """What min with a dim gives: the named tuple (values, indices), as torch.return_types.min."""

    values: Tensor
    indices: Tensor


MaxResult.__name__ = MaxResult.__qualname__ = "max"  # (their repr: `max(values=..., ...)`)
MinResult.__name__ = MinResult.__qualname__ = "min"


def _in_dtype(x: TensorBase, dtype: Any) -> Tensor:
    """x cast to `dtype` before reducing (PyTorch's `dtype=`), or x itself."""
    if dtype is None:  # (no typing.cast here: it is a Python call, and this runs per reduction)
        return x  # type: ignore[return-value]
    return x.astype(dtypes.as_dtype(dtype))  # type: ignore[attr-defined]


def _reduce(
    prim: Primitive, x: TensorBase, axis: Any, keepdims: bool, dim: Any, keepdim: bool | None
) -> Tensor:
    """One reduction primitive over the given axes (PyTorch's dim and keepdim, positionally or by
    name, or NumPy's axis= and keepdims=)."""
    if axis is not None and dim is not None:
        raise TypeError(f"{prim.name}() got both dim and axis; pass one")
    keep = bool(keepdim) if keepdim is not None else bool(keepdims)
    if axis is None and dim is None:  # (the commonest call: every axis)
        return apply(prim, x, axis=None, keepdims=keep)
    axes = None if x.ndim == 0 else normalize_axis(dim if axis is None else axis, x.ndim)
    return apply(prim, x, axis=axes, keepdims=keep)


def _extreme(
    prim: Primitive,
    result: type[MaxResult] | type[MinResult],
    x: TensorBase,
    args: tuple,
    axis: Any,
    keepdims: bool,
    dim: Any,
    keepdim: bool | None,
) -> Any:
    """max/min in every spelling: no axis, or `axis=` (NumPy): the values; a dimension given
    positionally or as `dim=` (PyTorch, MindSpore): the named tuple (values, indices), the
    gradient going to the one position indices names; another tensor: maximum/minimum."""
    if args and isinstance(args[0], TensorBase | np.ndarray):
        if len(args) > 1:
            raise TypeError(f"{prim.name}(other) takes one other tensor, got {len(args)} arguments")
        return apply(E.maximum if prim is R.max else E.minimum, x, coerce(args[0]))
    if len(args) > 2:
        raise TypeError(f"{prim.name}() takes at most a dimension and keepdim, got {args}")
    if args:
        dim = args[0]
        if len(args) == 2:
            keepdim = args[1]
    if dim is None:
        return _reduce(prim, x, axis, keepdims, None, keepdim)
    if axis is not None:
        raise TypeError(f"{prim.name}() got both dim and axis; pass one")
    if not isinstance(dim, int | np.integer) or isinstance(dim, bool):
        raise TypeError(
            f"{prim.name}(dim) takes one dimension (an int), got {dim!r}; use amax/amin for several"
        )
    keep = bool(keepdim) if keepdim is not None else bool(keepdims)
    axis = one_axis(dim, x.ndim) if x.ndim else 0
    if x.ndim == 0:
        return result(cast("Tensor", x), wrap(np.asarray(0, dtype=np.int64)))
    if x.shape[axis] == 0:
        raise IndexError(
            f"{prim.name}(): the dimension {dim} has size 0; an empty reduction "
            f"has no {prim.name}imum"
        )
    pick = np.argmax if prim is R.max else np.argmin
    indices = np.expand_dims(pick(x._data, axis=axis), axis)
    values = apply(S.getitem, x, index=along_axis(indices, axis))
    if not keep:
        values, indices = values.squeeze(axis), np.squeeze(indices, axis)
    return result(values, wrap(np.asarray(indices, dtype=np.int64)))


def _scan(
    prim: Primitive, x: TensorBase, dim: Any, dtype: Any, axis: Any, name: str, verb: str
) -> Tensor:
    """cumsum/cumprod: `prim` along one dim (integers and bools as int64, as PyTorch)."""
    dim = axis if dim is None else dim
    if dim is None:
        raise TypeError(
            f"{name}() needs the dimension to {verb} along, e.g. x.{name}(0) (or dim=0)"
        )
    t = cast("Tensor", x) if dtype is None else cast("Tensor", x).astype(dtype)
    if t.dtype.kind in "biu":
        t = t.astype(np.int64)
    return apply(prim, t, axis=one_dim(dim, t.ndim, name) if t.ndim else 0)


def _root(s: Tensor, p: float) -> Tensor:
    """s ** (1/p), with value 0 and gradient 0 where s is 0 (PyTorch's subgradient at 0)."""
    return _masked(s == 0, s, 0.0, lambda v: v ** (1.0 / p))


def _masked(where_: Tensor, x: Tensor, fill: float, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """fn(x), but `fill` (with no gradient) where `where_` holds."""
    cond = where_._data
    safe = apply(E.where, cond, np.ones((), x.dtype), x)
    return apply(E.where, cond, np.full((), fill, x.dtype), fn(safe))


class ReductionMixin(TensorBase):
    """The reduction methods of Tensor."""

    __slots__ = ()

    def sum(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The sum over dim (one int or a tuple; all by default), in `dtype` if given (integers
        and bools sum as int64, as PyTorch).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(1)
        tensor([3., 7.])
        """
        keep = keepdim if keepdims is None else keepdims
        if dim is None and axis is None and dtype is None:  # (x.sum(), the commonest: a loss, a
            return apply(R.sum, self, axis=None, keepdims=bool(keep))  # dot product; no frames)
        x = _in_dtype(self, dtype)
        out = _reduce(R.sum, x, axis, keep, dim, None)
        return out if dtype is None else out.astype(dtype)  # (in dtype, as PyTorch accumulates)

    def mean(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The mean over dim (all by default), in `dtype` if given (an integer tensor needs one:
        its mean is not an integer).

        >>> tg.tensor([[1.0, 2.0], [3.0, 4.0]]).mean(0)
        tensor([2., 3.])
        """
        x = _in_dtype(self, dtype)
        if x._data.dtype.kind != "f":
            raise TypeError(
                f"mean needs a floating-point tensor, got {x._data.dtype}; use "
                f".astype(tg.float32) first, or pass dtype=tg.float32"
            )
        return _reduce(R.mean, x, axis, keepdim if keepdims is None else keepdims, dim, None)

    def prod(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The product over dim (all by default), in `dtype` if given.

        >>> tg.tensor([2.0, 3.0]).prod()
        tensor(6.)
        """
        x = _in_dtype(self, dtype)
        out = _reduce(R.prod, x, axis, keepdim if keepdims is None else keepdims, dim, None)
        return out if dtype is None else out.astype(dtype)  # (in dtype, as PyTorch accumulates)

    def logsumexp(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """log(sum(exp(self))) over axis, computed stably.

        >>> tg.tensor([0.0, 0.0]).logsumexp()
        tensor(0.6931)
        """
        return _reduce(
            R.logsumexp, self, axis, keepdim if keepdims is None else keepdims, dim, None
        )

    def amax(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The largest value over axis (ties share the gradient); never (values, indices).

        >>> tg.tensor([[1.0, 5.0], [7.0, 2.0]]).amax(1)
        tensor([5., 7.])
        """
        return _reduce(R.max, self, axis, keepdim if keepdims is None else keepdims, dim, None)

    def amin(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The smallest value over axis (ties share the gradient); never (values, indices).

        >>> tg.tensor([[1.0, 5.0], [7.0, 2.0]]).amin(1)
        tensor([1., 2.])
        """
        return _reduce(R.min, self, axis, keepdim if keepdims is None else keepdims, dim, None)

    # x.max(): the values; x.max(1) / x.max(dim=1): (values, indices); x.max(other): maximum
    @overload
    def max(
        self,
        *,
        axis: Any = None,
        keepdims: bool = False,
        dim: None = None,
        keepdim: bool | None = None,
    ) -> Tensor: ...
    @overload
    def max(self, other: TensorBase | np.ndarray, /) -> Tensor: ...
    @overload
    def max(self, dim: int | np.integer, /, keepdim: bool = False) -> MaxResult: ...
    @overload
    def max(
        self, *, dim: int | np.integer, keepdim: bool | None = None, keepdims: bool = False
    ) -> MaxResult: ...
    def max(
        self,
        *args: Any,
        axis: Any = None,
        keepdims: bool = False,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> Tensor | MaxResult:
        """The largest value; with a dimension (`x.max(1)`, `dim=1`) the named tuple (values,
        indices) as PyTorch; with `axis=` the values (NumPy); with a tensor, maximum.

        >>> x = tg.tensor([[1.0, 5.0], [7.0, 2.0]]); x.max(), x.max(1).indices
        (tensor(7.), tensor([1, 0]))
        """
        return _extreme(R.max, MaxResult, self, args, axis, keepdims, dim, keepdim)

    @overload
    def min(
        self,
        *,
        axis: Any = None,
        keepdims: bool = False,
        dim: None = None,
        keepdim: bool | None = None,
    ) -> Tensor: ...
    @overload
    def min(self, other: TensorBase | np.ndarray, /) -> Tensor: ...
    @overload
    def min(self, dim: int | np.integer, /, keepdim: bool = False) -> MinResult: ...
    @overload
    def min(
        self, *, dim: int | np.integer, keepdim: bool | None = None, keepdims: bool = False
    ) -> MinResult: ...
    def min(
        self,
        *args: Any,
        axis: Any = None,
        keepdims: bool = False,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> Tensor | MinResult:
        """The smallest value; `x.min(1)` gives (values, indices), as max does.

        >>> tg.tensor([[1.0, 5.0], [7.0, 2.0]]).min(dim=0)
        min(values=tensor([1., 2.]), indices=tensor([0, 1]))
        """
        return _extreme(R.min, MinResult, self, args, axis, keepdims, dim, keepdim)

    def argmax(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The position of the largest value (along one dim, or in the flattened tensor).

        >>> tg.tensor([[1.0, 5.0], [7.0, 2.0]]).argmax(1)
        tensor([1, 0])
        """
        keep = keepdim if keepdims is None else keepdims
        return self._arg_extreme(np.argmax, dim if axis is None else axis, bool(keep))

    def argmin(
        self,
        dim: Any = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        """The position of the smallest value (along one dim, or in the flattened tensor).

        >>> tg.tensor([[1.0, 5.0], [7.0, 2.0]]).argmin()
        tensor(0)
        """
        keep = keepdim if keepdims is None else keepdims
        return self._arg_extreme(np.argmin, dim if axis is None else axis, bool(keep))

    def _arg_extreme(self, pick: Any, axis: Any, keepdims: bool) -> Tensor:
        """argmax/argmin over one axis (an int) or all (keepdim then keeps every axis, size 1)."""
        if axis is not None:
            if not isinstance(axis, int | np.integer) or isinstance(axis, bool):
                raise TypeError(f"argmax/argmin take one axis (an int), got {axis!r}")
            axis = None if self.ndim == 0 else one_axis(axis, self.ndim)
        return wrap(np.asarray(pick(self._data, axis=axis, keepdims=keepdims), dtype=np.int64))

    # ---- along an axis -------------------------------------------------------------------------
    def log_softmax(self, dim: int = -1, dtype: Any = None, *, axis: int | None = None) -> Tensor:
        """log(softmax(self)) along dim (in `dtype` if given), computed stably (shifted by the max,
        taken as a constant).

        >>> tg.tensor([0.0, 0.0]).log_softmax()
        tensor([-0.6931, -0.6931])
        """
        x = _in_dtype(self, dtype)
        if x._data.dtype.kind != "f":
            raise TypeError(
                f"softmax/log_softmax need a floating-point tensor, got {x._data.dtype}; pass "
                f"dtype=tg.float32 (or convert with .float())"
            )
        axis = dim if axis is None else axis
        axes = None if x.ndim == 0 else normalize_axis(axis, x.ndim)
        if x._data.size == 0:  # nothing to normalise (and no max to shift by)
            return apply(E.sub, x, x.logsumexp(axes, keepdims=True))
        m = np.max(x._data, axis=axes, keepdims=True)
        # (rows of -inf shifted by 0; a row whose max is +inf gives nan everywhere, as PyTorch)
        shifted = apply(E.sub, x, coerce(np.where(m == -np.inf, 0, m)))
        out = shifted - shifted.logsumexp(axes, keepdims=True)
        return mark(out, "log_softmax", ("x",), (x,), {"dim": axis})

    def softmax(self, dim: int = -1, dtype: Any = None, *, axis: int | None = None) -> Tensor:
        """exp(self) normalised to sum to 1 along dim (in `dtype` if given).

        >>> tg.tensor([0.0, 0.0]).softmax()
        tensor([0.5000, 0.5000])
        """
        x = _in_dtype(self, dtype)
        out = x.log_softmax(dim, axis=axis).exp()
        return mark(out, "softmax", ("x",), (x,), {"dim": dim if axis is None else axis})

    def cumsum(self, dim: Any = None, *, dtype: Any = None, axis: Any = None) -> Tensor:
        """The running sum along dim (integers and bools sum as int64, as PyTorch).

        >>> tg.tensor([1.0, 2.0, 3.0]).cumsum(0)
        tensor([1., 3., 6.])
        """
        return _scan(R.cumsum, self, dim, dtype, axis, "cumsum", "sum")

    def cumprod(self, dim: Any = None, *, dtype: Any = None, axis: Any = None) -> Tensor:
        """The running product along dim (integers and bools multiply as int64, as PyTorch); the
        gradient is right where the input has zeros too.

        >>> tg.tensor([1.0, 2.0, 3.0]).cumprod(0)
        tensor([1., 2., 6.])
        """
        return _scan(R.cumprod, self, dim, dtype, axis, "cumprod", "multiply")

    # ---- norms ---------------------------------------------------------------------------------
    def norm(
        self, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
    ) -> Tensor:
        """The p-norm over dim (all elements by default): p = 'fro' or 2 (Euclidean), 1, inf (max
        |x|), -inf (min |x|), 0 (count of non-zeros) or any other number. Its gradient at 0 is 0,
        as PyTorch.

        >>> tg.tensor([3.0, 4.0]).norm()
        tensor(5.)
        """
        x = cast("Tensor", self) if dtype is None else cast("Tensor", self).astype(dtype)
        if x.dtype.kind != "f":
            raise TypeError(
                f"norm needs a floating-point tensor, got {x.dtype}; use .astype(tg.float32) first"
            )
        if isinstance(p, str):
            if p != "fro":
                raise ValueError(
                    f"norm: p={p!r} is not supported; use 'fro' or a number (2, 1, inf, -inf, 0, "
                    f"...)"
                    + (
                        " (the nuclear norm needs an SVD, which tapegrad has not)"
                        if p == "nuc"
                        else ""
                    )
                )
            if dim is not None and not isinstance(dim, int | np.integer) and len(dim) > 2:
                raise ValueError(f"norm: p='fro' takes one dimension or two, got dim={dim!r}")
            p = 2
        elif isinstance(p, bool) or not isinstance(p, int | float | np.integer | np.floating):
            raise TypeError(f"norm: p must be a number or 'fro', got {p!r}")
        axes = None if (x.ndim == 0 or dim is None or dim == () or dim == []) else dim
        a = x.abs()
        p = float(p)
        if p == math.inf:
            return a.amax(axes, keepdims=keepdim)
        if p == -math.inf:
            return a.amin(axes, keepdims=keepdim)
        if p == 0:  # how many are non-zero: sign's zero gradient makes x.grad zeros
            return a.sign().sum(axes, keepdims=keepdim)
        if p == 1:
            return a.sum(axes, keepdims=keepdim)
        if p == 2:
            return _root(apply(E.mul, x, x).sum(axes, keepdims=keepdim), 2.0)
        zero = a == 0
        # |x|**p with 0 at x = 0 (inf for p < 0) and no gradient there: a where on both sides
        # keeps a NaN (0 * inf) out of the gradient
        powers = _masked(zero, a, math.inf if p < 0 else 0.0, lambda s: s**p)
        return _root(powers.sum(axes, keepdims=keepdim), p)
