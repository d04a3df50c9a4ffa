"""Tensor: a NumPy array plus what autodiff needs (requires_grad, grad, grad_fn, hooks, version).

Layer L3: imports the rule table (primitives/) and the tape. `_record` is the ONLY place a Node is
created: built-in ops (via `_apply`) and user `autograd.Function`s both go through it.
"""

from __future__ import annotations

import numbers
import threading
import weakref
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import dtypes as _dt
from . import primitives as P
from ._utils import normalize_axis, shape_args
from .primitives import registry as _registry
from .tape import node as _node
from .tape.anomaly import capture_stack
from .tape.grad_mode import no_grad, overrides as _overrides, state
from .tape.node import Node

_ndarray = np.ndarray


def _as_array(data: Any, dtype: Any = None) -> np.ndarray:
    """User data -> ndarray: Python floats default to float32, ints stay integer, arrays keep dtype."""
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, (dict, set, str, bytes)):
        raise TypeError(
            f"cannot make a tensor from a {type(data).__name__} ({data!r:.60}); "
            f"pass numbers, (nested) lists of numbers or a NumPy array"
        )
    dtype = _dt.as_dtype(dtype) if dtype is not None else None
    try:
        if dtype is not None:
            return np.array(data, dtype=dtype)
        if isinstance(data, (np.ndarray, np.generic)):
            return np.array(data)
        arr = np.array(data)
        if arr.dtype.kind == "O":  # e.g. a list of Tensors
            arr = np.array([np.asarray(d._data if isinstance(d, Tensor) else d) for d in data])
    except ValueError as e:  # ragged nested lists, strings with a float dtype, ...
        raise ValueError(f"cannot make a tensor from this data ({data!r:.60}): {e}") from None
    except TypeError as e:
        raise TypeError(
            f"cannot make a tensor from {type(data).__name__} data ({data!r:.60}): {e}"
        ) from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"cannot make a tensor from data of dtype {arr.dtype} ({data!r:.60})")
    return arr.astype(np.float32) if arr.dtype == np.float64 else arr


def _check_can_require_grad(dtype: np.dtype) -> None:
    if dtype.kind != "f":
        raise TypeError(
            f"only floating-point tensors can require gradients, but this tensor has dtype {dtype}; "
            f"create it with dtype=tg.float32 (or call .astype(tg.float32)) first"
        )


class _Size(int):
    """`t.size` is the number of elements (NumPy); `t.size(dim)` / `t.size()` work as in PyTorch."""

    def __new__(cls, n: int, shape: tuple) -> "_Size":
        obj = super().__new__(cls, n)
        obj._shape = shape
        return obj

    def __call__(self, dim: int | None = None) -> Any:
        return self._shape if dim is None else self._shape[dim]


class Tensor:
    """An n-dimensional array that can record the ops applied to it, for reverse-mode autodiff.

    >>> x = tg.tensor([1.0, 2.0], requires_grad=True); (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """

    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad_fn",
        "_grad",
        "_vc",
        "_hooks",
        "_retains_grad",
        "_inplace_op",
        "_base",
        "_name",
        "__weakref__",
    )
    __hash__ = object.__hash__

    # ---- NumPy protocols and DLPack: an upper layer (interop.py, L5) provides them, so they
    # import it when first called (tensor.py cannot import it at load time: it imports tensor.py)
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        from . import interop

        return interop.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        from . import interop

        return interop.array_function(func, types, args, kwargs)

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: Any = None,
        dl_device: Any = None,
        copy: Any = None,
    ) -> Any:
        from . import interop

        return interop.to_dlpack(
            self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self) -> tuple:
        from . import interop

        return interop.dlpack_device(self)

    def __init__(
        self, data: Any, dtype: Any = None, requires_grad: bool = False, name: str | None = None
    ) -> None:
        arr = _as_array(data, dtype)
        self._data = arr
        self._grad_fn = None
        self._requires_grad = False
        self._vc = None
        if requires_grad:
            _check_can_require_grad(arr.dtype)
            self._requires_grad = True
        if name is not None:
            self.name = name

    # ---- construction fast path -------------------------------------------------------------
    @staticmethod
    def _make(data: np.ndarray, grad_fn: Node | None = None) -> "Tensor":
        t = _new(Tensor)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = grad_fn is not None
        t._vc = None
        return t

    # ---- attributes -------------------------------------------------------------------------
    @property
    def data(self) -> "Tensor":
        """A detached Tensor sharing this one's memory, as PyTorch's `.data`: changes made through it
        are not tracked (`p.data -= lr * p.grad`). `t.data = values` replaces the values.

        >>> w = tg.tensor([1.0, 2.0], requires_grad=True); w.data.numpy()
        array([1., 2.], dtype=float32)
        """
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    @property
    def name(self) -> str | None:
        """A name for drawings and explanations (None until set): `x.name = "x"`."""
        return getattr(self, "_name", None)

    @name.setter
    def name(self, value: str | None) -> None:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"a tensor's name is a str (or None), got {type(value).__name__}")
        self._name = value

    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> _Size:
        return _Size(self._data.size, self._data.shape)

    def numel(self) -> int:
        return self._data.size

    @property
    def dtype(self) -> np.dtype:
        return self._data.dtype

    @property
    def T(self) -> "Tensor":
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> "Tensor":
        return self.transpose(-2, -1)

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad of leaf tensors; this tensor was computed by "
                f"{self._grad_fn.name}. Use .detach() to get a tensor cut from the tape."
            )
        if flag:
            _check_can_require_grad(self._data.dtype)
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> "Tensor | None":
        """The gradient accumulated by backward() (None before the first)."""
        return getattr(self, "_grad", None)

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad must be a Tensor or None, got {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"assigned grad has shape {list(value.shape)}, but the tensor has shape "
                    f"{list(self.shape)}; they must match"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for leaves); its name reads like `MulBackward`."""
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def _version(self) -> int:
        vc = self._vc
        return vc[0] if vc is not None else 0

    def _version_counter(self) -> list:
        """The counter bumped by in-place ops (a list shared with views), made on first use."""
        vc = self._vc
        if vc is None:
            with _COUNTER_LOCK:  # two threads must not each make their own
                vc = self._vc
                if vc is None:
                    vc = self._vc = [0]
        return vc

    @property
    def retains_grad(self) -> bool:
        return getattr(self, "_retains_grad", False)

    # ---- conversion ---------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (off the tape: gradients do not flow through it)."""
        return self._data

    asnumpy = numpy

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def item(self) -> Any:
        if self._data.size != 1:
            raise ValueError(
                f"item() needs a tensor with exactly one element, but this one has shape "
                f"{list(self.shape)} ({self._data.size} elements); index it first or use .tolist()"
            )
        return self._data.item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors can be used as an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"the truth value of a tensor with {self._data.size} elements is ambiguous; "
                "use .any() or .all()"
            )
        return bool(self._data.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        body = np.array2string(self._data, separator=", ", prefix="tensor(", threshold=1000)
        extras = []
        if self._data.dtype != _dt.float32:
            extras.append(f"dtype={self._data.dtype.name}")
        if self._grad_fn is not None:
            extras.append(f"grad_fn=<{self._grad_fn.name}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + ", ".join([body] + extras) + ")"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and spec:
            return format(self._data.item(), spec)
        return format(repr(self), spec)

    # ---- the tape -----------------------------------------------------------------------------
    def detach(self) -> "Tensor":
        """The same values, cut from the tape (shares memory, hence the version counter too)."""
        t = Tensor._make(self._data)
        t._vc = self._version_counter()
        return t

    def detach_(self) -> "Tensor":
        self._grad_fn = None
        self._requires_grad = False
        return self

    def clone(self) -> "Tensor":
        """A copy that stays on the tape (gradient flows back unchanged)."""
        return _apply(_ADD, self, np.zeros((), self._data.dtype))

    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
        trace: bool = False,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's .grad (see tg.autograd.backward)."""
        from .autograd.functions import backward as _backward  # upper layer, imported when used

        _backward(
            self,
            gradient,
            retain_graph=retain_graph,
            create_graph=create_graph,
            inputs=inputs,
            trace=trace,
            _names=("this tensor", "gradient"),
        )

    def register_hook(self, hook: Callable[["Tensor"], "Tensor | None"]) -> "_HookHandle":
        """Call hook(grad) when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self._requires_grad:
            raise RuntimeError(
                "cannot register a hook on a tensor that does not require grad; "
                "set requires_grad=True (or compute it from one that does) first"
            )
        if self._grad_fn is not None:
            self._grad_fn.register_hook(hook)
            hooks = self._grad_fn.pre_hooks
            for i, h in enumerate(hooks):  # retain_grad() sees the final gradient (as PyTorch)
                if getattr(h, "_retains_grad", False):
                    hooks.insert(i, hooks.pop())
                    break
            return _HookHandle(hooks, hook)
        if getattr(self, "_hooks", None) is None:
            self._hooks = []
        self._hooks.append(hook)
        return _HookHandle(self._hooks, hook)

    def retain_grad(self) -> None:
        """Keep .grad for this non-leaf tensor too (leaves always get it)."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError(
                    "can't retain_grad on a tensor that does not require grad; create "
                    "it with requires_grad=True (or compute it from one that does)"
                )
            return
        if getattr(self, "_retains_grad", False):
            return
        self._retains_grad = True
        ref = weakref.ref(self)  # weak: the node must not keep its own output alive (no cycle)

        def keep(grad: "Tensor") -> None:
            t = ref()
            if t is not None:
                t._accumulate_grad(grad, state.enabled)

        keep._retains_grad = True  # type: ignore[attr-defined]
        self._grad_fn.register_hook(keep)

    def _accumulate_grad(self, g: Any, create_graph: bool, owned: bool = False) -> None:
        """Add g (a Tensor, or an array from a plain backward) into .grad: in place when possible
        (as PyTorch), recorded when create_graph. Serialised, so concurrent backward() calls into
        one leaf lose nothing. .grad never aliases another gradient or a user's tensor, and is
        always writable (rules may return broadcast views, which are read-only): g is copied unless
        the engine says it `owned` it alone."""
        with _GRAD_LOCK:
            current = getattr(self, "_grad", None)
            if not isinstance(g, Tensor):
                if current is None:
                    self._grad = Tensor._make(
                        g if owned and g.flags.writeable else np.array(g, copy=True)
                    )
                elif (
                    current._grad_fn is None
                    and current._data.flags.writeable
                    and current._data.dtype == g.dtype
                ):
                    np.add(current._data, g, out=current._data)
                else:
                    self._grad = Tensor._make(current._data + g)
            elif create_graph and (
                g._grad_fn is not None or current is not None and current._grad_fn is not None
            ):
                # a recorded copy: the same gradient tensor may reach several leaves (e.g. through add)
                self._grad = current + g if current is not None else g.clone()
            elif current is None:
                self._grad = Tensor._make(np.array(g._data, copy=True))
            elif (
                current._grad_fn is None
                and current._data.flags.writeable
                and current._data.dtype == g._data.dtype
            ):
                np.add(current._data, g._data, out=current._data)
            else:
                self._grad = Tensor._make(current._data + g._data)

    # ---- in-place -----------------------------------------------------------------------------
    def _inplace(self, name: str, prim: Any, other: Any) -> "Tensor":
        """Shared path of `+=`, `x[i] = v`, add_, ...: recorded out of place, or applied to the buffer."""
        other_req = isinstance(other, Tensor) and other._requires_grad
        if (self._requires_grad or other_req) and state._enabled:  # (the flag, not its property)
            if self._grad_fn is None and self._requires_grad:
                raise RuntimeError(
                    f"a leaf tensor that requires grad is used in an in-place operation ({name}); "
                    f"do it inside `with tg.no_grad():` (as optimizers do) or use an out-of-place op"
                )
            # Record out of place on a copy of the old value, then write the result into this
            # tensor's memory (and through to its base, if it is a view).
            old = Tensor._make(self._data.copy(), self._grad_fn)
            old._requires_grad = self._requires_grad
            result = prim(old, other)
            _check_inplace_shape(name, result._data, self._data)
            _set_recorded(self, result, name)
        else:
            value = other._data if isinstance(other, Tensor) else other
            if prim is None:
                try:
                    self._data[...] = value
                except ValueError as e:
                    raise ValueError(f"{name}: {e}") from None
            else:
                ufunc = _INPLACE_UFUNCS.get(prim)
                try:  # straight into the buffer, as NumPy's own `a -= b`
                    if ufunc is None:
                        raise ValueError
                    ufunc(self._data, value, self._data)  # (out positional; casting: same_kind)
                except (
                    ValueError,
                    TypeError,
                ):  # broadcasting or casting problems: say them clearly
                    result = prim.forward(self._data, value)
                    _check_inplace_shape(name, result, self._data)
                    self._data[...] = result
        self._version_counter()[0] += 1
        self._inplace_op = name
        return self

    def __iadd__(self, other: Any) -> "Tensor":
        return self._inplace("+=", P.elementwise.add, _coerce(other))

    def __isub__(self, other: Any) -> "Tensor":
        return self._inplace("-=", P.elementwise.sub, _coerce(other))

    def __imul__(self, other: Any) -> "Tensor":
        return self._inplace("*=", P.elementwise.mul, _coerce(other))

    def __itruediv__(self, other: Any) -> "Tensor":
        return self._inplace("/=", P.elementwise.div, _coerce(other))

    def add_(self, other: Any, alpha: float = 1.0) -> "Tensor":
        other = _coerce(other)
        return self._inplace("add_", P.elementwise.add, other if alpha == 1 else other * alpha)

    def sub_(self, other: Any, alpha: float = 1.0) -> "Tensor":
        other = _coerce(other)
        return self._inplace("sub_", P.elementwise.sub, other if alpha == 1 else other * alpha)

    def mul_(self, other: Any) -> "Tensor":
        return self._inplace("mul_", P.elementwise.mul, _coerce(other))

    def div_(self, other: Any) -> "Tensor":
        return self._inplace("div_", P.elementwise.div, _coerce(other))

    def zero_(self) -> "Tensor":
        """Fill with zeros in place (e.g. `x.grad.zero_()`)."""
        return self.fill_(0)

    def fill_(self, value: Any) -> "Tensor":
        if state.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(
                "a leaf tensor that requires grad is used in an in-place operation (fill_); "
                "wrap it in `with tg.no_grad():`"
            )
        with no_grad():
            self._inplace("fill_", None, value)
        if self._grad_fn is not None:  # filled with constants: no longer depends on anything
            self._grad_fn = None
            self._requires_grad = False
        return self

    def copy_(self, src: Any) -> "Tensor":
        src = _coerce(src)
        if state.enabled and (
            (isinstance(src, Tensor) and src._requires_grad) or self._requires_grad
        ):
            return self._inplace("copy_", _copy_into, src)
        return self._inplace("copy_", None, src)

    def __setitem__(self, index: Any, value: Any) -> None:
        index = _normalize_index(index)
        value = _coerce(value)

        def put(x: Any, v: Any) -> Any:
            return _apply(P.shape.index_put, x, v, index=index)

        put.forward = lambda x, v: P.shape.index_put.forward(x, v, index=index)  # type: ignore[attr-defined]
        if state.enabled and (
            self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
        ):
            self._inplace("__setitem__", put, value)
        else:
            try:
                self._data[index] = value._data if isinstance(value, Tensor) else value
            except ValueError as e:
                raise ValueError(f"__setitem__: {e}") from None
            self._version_counter()[0] += 1
            self._inplace_op = "__setitem__"

    # ---- operators ----------------------------------------------------------------------------
    # (`other.__class__ is Tensor` first: the commonest operand needs no _coerce call)
    def __add__(self, other: Any) -> "Tensor":
        return _apply(_ADD, self, other if other.__class__ is Tensor else _coerce(other))

    def __radd__(self, other: Any) -> "Tensor":
        return _apply(_ADD, _coerce(other), self)

    def __sub__(self, other: Any) -> "Tensor":
        return _apply(_SUB, self, other if other.__class__ is Tensor else _coerce(other))

    def __rsub__(self, other: Any) -> "Tensor":
        return _apply(_SUB, _coerce(other), self)

    def __mul__(self, other: Any) -> "Tensor":
        return _apply(_MUL, self, other if other.__class__ is Tensor else _coerce(other))

    def __rmul__(self, other: Any) -> "Tensor":
        return _apply(_MUL, _coerce(other), self)

    def __truediv__(self, other: Any) -> "Tensor":
        return _apply(_DIV, self, other if other.__class__ is Tensor else _coerce(other))

    def __rtruediv__(self, other: Any) -> "Tensor":
        return _apply(_DIV, _coerce(other), self)

    def __pow__(self, other: Any) -> "Tensor":
        return _apply(P.elementwise.pow, self, _coerce(other))

    def __rpow__(self, other: Any) -> "Tensor":
        return _apply(P.elementwise.pow, _coerce(other), self)

    def __rmatmul__(self, other: Any) -> "Tensor":
        return _as_tensor(other).matmul(self)

    def __neg__(self) -> "Tensor":
        return _apply(P.elementwise.neg, self)

    def __pos__(self) -> "Tensor":
        return self

    def __abs__(self) -> "Tensor":
        return self.abs()

    def _compare(self, other: Any, op: Callable) -> "Tensor":
        other = other._data if isinstance(other, Tensor) else other
        return Tensor._make(np.asarray(op(self._data, other)))

    def __lt__(self, other: Any) -> "Tensor":
        return self._compare(other, np.less)

    def __le__(self, other: Any) -> "Tensor":
        return self._compare(other, np.less_equal)

    def __gt__(self, other: Any) -> "Tensor":
        return self._compare(other, np.greater)

    def __ge__(self, other: Any) -> "Tensor":
        return self._compare(other, np.greater_equal)

    def __eq__(self, other: Any) -> "Tensor":  # type: ignore[override]
        return self._compare(other, np.equal)

    def __ne__(self, other: Any) -> "Tensor":  # type: ignore[override]
        return self._compare(other, np.not_equal)

    def __invert__(self) -> "Tensor":
        return Tensor._make(np.asarray(~self._data))

    def __and__(self, other: Any) -> "Tensor":
        return self._compare(other, np.logical_and)

    def __or__(self, other: Any) -> "Tensor":
        return self._compare(other, np.logical_or)

    def __getitem__(self, index: Any) -> "Tensor":
        return _apply(P.shape.getitem, self, index=_normalize_index(index))

    # ---- math ---------------------------------------------------------------------------------
    def exp(self) -> "Tensor":
        return _apply(P.elementwise.exp, self)

    def log(self) -> "Tensor":
        return _apply(P.elementwise.log, self)

    def sin(self) -> "Tensor":
        return _apply(P.elementwise.sin, self)

    def cos(self) -> "Tensor":
        return _apply(P.elementwise.cos, self)

    def tan(self) -> "Tensor":
        return _apply(P.elementwise.tan, self)

    def tanh(self) -> "Tensor":
        return _apply(P.elementwise.tanh, self)

    def sigmoid(self) -> "Tensor":
        return _apply(P.elementwise.sigmoid, self)

    def relu(self) -> "Tensor":
        return _apply(P.elementwise.relu, self)

    def sqrt(self) -> "Tensor":
        return _apply(P.elementwise.sqrt, self)

    def abs(self) -> "Tensor":
        return _apply(P.elementwise.abs, self)

    def sign(self) -> "Tensor":
        return _apply(P.elementwise.sign, self)

    def square(self) -> "Tensor":
        return _apply(_MUL, self, self)

    def pow(self, exponent: Any) -> "Tensor":
        return self**exponent

    def maximum(self, other: Any) -> "Tensor":
        return _apply(P.elementwise.maximum, self, _coerce(other))

    def minimum(self, other: Any) -> "Tensor":
        return _apply(P.elementwise.minimum, self, _coerce(other))

    def clip(self, min: Any = None, max: Any = None) -> "Tensor":
        if min is None and max is None:
            raise ValueError("clip needs at least one of min and max")
        # bounds are constants; NumPy scalars and 0-d arrays become weak Python scalars (no upcast)
        min = None if min is None else _coerce(min._data if isinstance(min, Tensor) else min)
        max = None if max is None else _coerce(max._data if isinstance(max, Tensor) else max)
        return _apply(P.elementwise.clip, self, min=min, max=max)

    clamp = clip

    def where(self, condition: Any, other: Any) -> "Tensor":
        """`self` where condition holds, else `other` (as torch.Tensor.where)."""
        cond = np.asarray(
            condition._data if isinstance(condition, Tensor) else condition, dtype=bool
        )
        return _apply(P.elementwise.where, self, _coerce(other), cond=cond)

    def matmul(self, other: Any) -> "Tensor":
        other = _coerce(other)
        try:
            return _apply(P.linalg.matmul, self, other)
        except ValueError:
            _explain_matmul_error(
                self.shape, np.shape(other._data if isinstance(other, Tensor) else other)
            )
            raise

    __matmul__ = matmul

    def _reduce(self, prim: Any, axis: Any, keepdims: bool, dim: Any, keepdim: Any) -> "Tensor":
        axis = dim if axis is None else axis
        keepdims = bool(keepdim) if keepdim is not None else keepdims
        axis = normalize_axis(axis, self._data.ndim)
        if self._data.ndim == 0:
            axis = None
        return _apply(prim, self, axis=axis, keepdims=keepdims)

    def sum(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        return self._reduce(P.reduction.sum, axis, keepdims, dim, keepdim)

    def mean(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        if self._data.dtype.kind != "f":
            raise TypeError(
                f"mean needs a floating-point tensor, got {self._data.dtype}; use .astype(tg.float32)"
            )
        return self._reduce(P.reduction.mean, axis, keepdims, dim, keepdim)

    def var(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        ddof: int = 0,
        dim: Any = None,
        keepdim: bool | None = None,
        unbiased: bool | None = None,
        correction: int | None = None,
    ) -> "Tensor":
        """Variance; ddof=0 as NumPy and MindSpore (pass ddof=1, unbiased=True or correction=1 for PyTorch's)."""
        if unbiased is not None:
            ddof = int(unbiased)
        if correction is not None:
            ddof = correction
        axis = dim if axis is None else axis
        keepdims = bool(keepdim) if keepdim is not None else keepdims
        centered = self - self.mean(axis, keepdims=True)
        squares = (centered * centered).sum(axis, keepdims=keepdims)
        n = self._data.size // max(squares._data.size, 1)
        return squares / (n - ddof)

    def std(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> "Tensor":
        return self.var(axis, keepdims, **kwargs).sqrt()

    def max(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        return self._reduce(P.reduction.max, axis, keepdims, dim, keepdim)

    def min(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        return self._reduce(P.reduction.min, axis, keepdims, dim, keepdim)

    amax, amin = max, min

    def prod(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        return self._reduce(P.reduction.prod, axis, keepdims, dim, keepdim)

    def logsumexp(
        self,
        axis: Any = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: bool | None = None,
    ) -> "Tensor":
        return self._reduce(P.reduction.logsumexp, axis, keepdims, dim, keepdim)

    def _shifted(self, axis: Any) -> "Tensor":
        """self - max(self, axis), the max taken as a constant: log_softmax does not change under a
        constant shift, and logsumexp of the shifted values (<= 0, max 0) keeps full precision."""
        axes = None if self._data.ndim == 0 else normalize_axis(axis, self._data.ndim)
        m = np.max(self._data, axis=axes, keepdims=True)
        return self - np.where(np.isfinite(m), m, 0)  # rows of -inf: shift by 0, not nan

    def log_softmax(self, axis: int = -1, *, dim: int | None = None) -> "Tensor":
        axis = dim if dim is not None else axis
        shifted = self._shifted(axis)
        return shifted - shifted.logsumexp(axis, keepdims=True)

    def softmax(self, axis: int = -1, *, dim: int | None = None) -> "Tensor":
        return self.log_softmax(axis, dim=dim).exp()

    def argmax(self, axis: Any = None, keepdims: bool = False, *, dim: Any = None) -> "Tensor":
        axis = self._one_axis(dim if axis is None else axis)
        return Tensor._make(np.asarray(np.argmax(self._data, axis=axis, keepdims=keepdims)))

    def argmin(self, axis: Any = None, keepdims: bool = False, *, dim: Any = None) -> "Tensor":
        axis = self._one_axis(dim if axis is None else axis)
        return Tensor._make(np.asarray(np.argmin(self._data, axis=axis, keepdims=keepdims)))

    def _one_axis(self, axis: Any) -> int | None:
        if axis is None:
            return None
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise TypeError(f"argmax/argmin take one axis (an int), got {axis!r}")
        axes = normalize_axis(axis, self._data.ndim)
        return None if self._data.ndim == 0 else axes[0]

    def all(self, axis: Any = None, *, dim: Any = None) -> "Tensor":
        axis = normalize_axis(dim if axis is None else axis, self._data.ndim)
        return Tensor._make(np.asarray(np.all(self._data, axis=axis if self._data.ndim else None)))

    def any(self, axis: Any = None, *, dim: Any = None) -> "Tensor":
        axis = normalize_axis(dim if axis is None else axis, self._data.ndim)
        return Tensor._make(np.asarray(np.any(self._data, axis=axis if self._data.ndim else None)))

    # ---- shape --------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> "Tensor":
        shape = shape_args(shape)
        try:
            target = _resolve_shape(self._data.size, shape)
        except ValueError as e:
            raise ValueError(
                f"cannot reshape a tensor of shape {list(self.shape)} "
                f"({self._data.size} elements) into {list(shape)}: {e}"
            ) from None
        if target == self._data.shape:
            return self
        return _apply(P.shape.reshape, self, shape=target)

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        if self.ndim == 0:
            return self.reshape(1)
        s, e = normalize_axis(start_dim, self.ndim)[0], normalize_axis(end_dim, self.ndim)[0]
        if s > e:
            raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
        return self.reshape(
            self.shape[:s] + (int(np.prod(self.shape[s : e + 1])),) + self.shape[e + 1 :]
        )

    def permute(self, *dims: Any) -> "Tensor":
        axes = shape_args(dims)
        if sorted(a % max(self.ndim, 1) for a in axes) != list(range(self.ndim)):
            raise ValueError(f"permute: {list(axes)} is not a permutation of the {self.ndim} axes")
        axes = tuple(a % self.ndim for a in axes)
        if axes == tuple(range(self.ndim)):
            return self
        return _apply(P.shape.transpose, self, axes=axes)

    def transpose(self, *dims: Any) -> "Tensor":
        """No args: reverse the axes; two ints: swap them (PyTorch); a tuple: a full permutation (NumPy)."""
        if not dims:
            return self.T
        if len(dims) == 2 and all(isinstance(d, (int, np.integer)) for d in dims):
            axes = list(range(self.ndim))
            a, b = normalize_axis(dims[0], self.ndim)[0], normalize_axis(dims[1], self.ndim)[0]
            axes[a], axes[b] = axes[b], axes[a]
            return self.permute(axes)
        return self.permute(*dims)

    def swapaxes(self, a: int, b: int) -> "Tensor":
        return self.transpose(a, b)

    def squeeze(self, axis: Any = None, *, dim: Any = None) -> "Tensor":
        axis = normalize_axis(dim if axis is None else axis, self.ndim)
        if axis is None:
            return self.reshape(tuple(n for n in self.shape if n != 1))
        return self.reshape(
            tuple(n for i, n in enumerate(self.shape) if not (i in axis and n == 1))
        )

    def unsqueeze(self, axis: int) -> "Tensor":
        axis = normalize_axis(axis, self.ndim + 1)[0]
        return self.reshape(self.shape[:axis] + (1,) + self.shape[axis:])

    expand_dims = unsqueeze

    def expand(self, *shape: Any) -> "Tensor":
        shape = shape_args(shape)
        lead = len(shape) - self.ndim
        if lead < 0:
            raise ValueError(
                f"cannot expand a tensor of shape {list(self.shape)} to {list(shape)}: give "
                f"at least one size per axis ({self.ndim}); new axes go in front"
            )
        for i, n in enumerate(shape):
            if n == -1 and i < lead or n < -1:
                raise ValueError(
                    f"cannot expand a tensor of shape {list(self.shape)} to {list(shape)}: "
                    + (
                        f"-1 (keep the size) is not allowed in a new leading axis ({i})"
                        if n == -1
                        else f"sizes must be >= 0 (or -1 to keep an existing axis), got {n}"
                    )
                )
        shape = tuple(self.shape[i - lead] if n == -1 else n for i, n in enumerate(shape))
        try:
            fits = np.broadcast_shapes(self.shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"cannot expand a tensor of shape {list(self.shape)} to {list(shape)}: "
                f"only axes of size 1 can grow"
            )
        if shape == self.shape:
            return self
        return _apply(P.shape.expand, self, shape=shape)

    broadcast_to = expand

    def split(self, split_size_or_sections: Any, axis: int = 0, *, dim: int | None = None) -> tuple:
        """Pieces of `split_size` along axis (PyTorch), or at the given sizes if a list."""
        axis = normalize_axis(dim if dim is not None else axis, self.ndim)[0]
        n = self.shape[axis]
        if isinstance(split_size_or_sections, (int, np.integer)):
            size = int(split_size_or_sections)
            if size <= 0:
                raise ValueError(f"split size must be positive, got {size}")
            sizes = [min(size, n - s) for s in range(0, n, size)] or [0]  # (an empty axis: one
        else:  # empty piece, as PyTorch)
            sizes = [int(s) for s in split_size_or_sections]
            if sum(sizes) != n:
                raise ValueError(f"split sizes {sizes} do not add up to the axis length {n}")
        pieces, start = [], 0
        for s in sizes:
            pieces.append(self[(slice(None),) * axis + (slice(start, start + s),)])
            start += s
        return tuple(pieces)

    def chunk(self, chunks: int, axis: int = 0, *, dim: int | None = None) -> tuple:
        """At most `chunks` pieces of equal size along axis (the last may be smaller), as PyTorch."""
        if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or chunks < 1:
            raise ValueError(f"chunk needs a positive number of chunks, got {chunks!r}")
        axis = normalize_axis(dim if dim is not None else axis, self.ndim)[0]
        return self.split(max(1, -(-self.shape[axis] // int(chunks))), axis)

    # ---- dtype --------------------------------------------------------------------------------
    def astype(self, dtype: Any) -> "Tensor":
        """A cast; differentiable between floating dtypes (the gradient is cast back)."""
        dtype = _dt.as_dtype(dtype)
        if dtype == self._data.dtype:
            return self
        if dtype.kind != "f" or self._data.dtype.kind != "f":
            return Tensor._make(self._data.astype(dtype))
        return _apply(P.elementwise.cast, self, dtype=dtype)

    def to(self, *args: Any, dtype: Any = None, device: Any = None, **kwargs: Any) -> "Tensor":
        """PyTorch's `to`: a dtype, another tensor (its dtype), or a device, which can only be the
        CPU here (`x.to("cpu")` is x)."""
        dtype = _to_dtype(args, dtype, device)
        return self if dtype is None else self.astype(dtype)

    @property
    def device(self) -> str:
        """Always "cpu": tapegrad computes with NumPy."""
        return "cpu"

    def cpu(self) -> "Tensor":
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> "Tensor":
        _check_device("cuda")
        return self

    def type(self, dtype: Any) -> "Tensor":
        return self.astype(dtype)

    def float(self) -> "Tensor":
        return self.astype(_dt.float32)

    def double(self) -> "Tensor":
        return self.astype(_dt.float64)

    def half(self) -> "Tensor":
        return self.astype(_dt.float16)

    def long(self) -> "Tensor":
        return self.astype(_dt.int64)

    def int(self) -> "Tensor":
        return self.astype(_dt.int32)


_new = object.__new__


class _HookHandle:
    """Returned by register_hook; `.remove()` unregisters the hook."""

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


_DEVICES = ("cpu", "cuda", "mps", "xpu", "meta")


def _to_dtype(args: Sequence[Any], dtype: Any = None, device: Any = None) -> Any:
    """The dtype a PyTorch-style `.to(...)` asks for (None: keep it): from a dtype, a tensor or a
    device among `args`; a device other than the CPU is a clear error."""
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, str) and a.split(":")[0] in _DEVICES:
            device = a
        else:
            dtype = a
    if device is not None:
        _check_device(device)
    return dtype


def _check_device(device: Any) -> None:
    if str(device).split(":")[0] != "cpu":
        raise RuntimeError(
            f"tapegrad computes on the CPU with NumPy; device {str(device)!r} is not "
            f"available (leave the tensor where it is, or use .to('cpu'))"
        )


def _check_inplace_shape(name: str, result: Any, data: np.ndarray) -> None:
    if np.shape(result) != data.shape:
        raise RuntimeError(
            f"in-place {name}: the result has shape {list(np.shape(result))}, which does not match "
            f"the tensor's shape {list(data.shape)}; use an out-of-place op"
        )


def _explain_matmul_error(a_shape: tuple, b_shape: tuple) -> None:
    """Raise a clear error for shapes matmul cannot take (called only once NumPy has refused)."""
    if (
        len(a_shape) == 0
        or len(b_shape) == 0
        or a_shape[-1] != b_shape[-2 if len(b_shape) > 1 else 0]
    ):
        raise ValueError(
            f"matmul: shapes {list(a_shape)} and {list(b_shape)} are not aligned (the last axis "
            f"of the first must equal the {'second-to-last' if len(b_shape) > 1 else 'only'} axis "
            f"of the second)"
        )
    if len(a_shape) > 2 or len(b_shape) > 2:
        try:
            np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
        except ValueError:
            raise ValueError(
                f"matmul: shapes {list(a_shape)} and {list(b_shape)}: the batch axes "
                f"{list(a_shape[:-2])} and {list(b_shape[:-2])} do not broadcast together"
            ) from None


def _resolve_shape(size: int, shape: tuple) -> tuple:
    if shape.count(-1) > 1:
        raise ValueError("only one dimension can be -1")
    known = int(np.prod([n for n in shape if n != -1])) if shape else 1
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError("the sizes do not divide evenly")
        shape = tuple(size // known if n == -1 else n for n in shape)
    elif known != size:
        raise ValueError("the number of elements differs")
    return shape


def _coerce(other: Any) -> Any:
    """An operand as the op sees it: Tensors stay, Python/NumPy scalars become weak Python scalars
    (so they never upcast a float32 tensor, as in PyTorch), arrays stay arrays."""
    cls = other.__class__
    if cls is float or cls is int:  # the common case first
        return other
    if isinstance(other, Tensor):
        return other
    if isinstance(other, np.generic):  # before float: np.float64 is a subclass of float
        return other.item()
    if isinstance(other, (bool, int, float)):
        return other
    if isinstance(other, np.ndarray):
        return other.item() if other.ndim == 0 and other.dtype.kind in "biuf" else other
    if isinstance(other, (list, tuple)):
        return _as_array(other)
    if isinstance(other, numbers.Number):
        return complex(other) if isinstance(other, complex) else float(other)
    raise TypeError(f"unsupported operand type for a tensor op: {type(other).__name__}")


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def _normalize_index(index: Any) -> Any:
    """Tensors in an index become arrays; lists become integer/bool arrays."""
    if isinstance(index, tuple):
        return tuple(_normalize_index_item(i) for i in index)
    return _normalize_index_item(index)


def _normalize_index_item(i: Any) -> Any:
    if isinstance(i, Tensor):
        return i._data.item() if i._data.ndim == 0 and i._data.dtype.kind in "iu" else i._data
    if isinstance(i, list):
        return np.asarray([j._data if isinstance(j, Tensor) else j for j in i])
    return i


def _copy_into(x: Any, src: Any) -> Tensor:
    """Out-of-place form of copy_: src broadcast to x's shape (gradient flows to src only)."""
    shape = x.shape
    src = _as_tensor(src)
    return src.expand(shape) if src.shape != shape else src.clone()


_NO_PARAMS: dict = {}  # shared by every node without parameters (never mutated)
_NUMBERS = (float, int)  # Python numbers: weak scalars, they never change a float tensor's dtype


def _record(prim: Any, out: np.ndarray, args: Sequence[Any], params: dict) -> Tensor:
    """Create the Node for one op (the only place Nodes are made) and return its output tensor."""
    saves = prim.saves
    shapes: Any = None  # None: inputs shaped as the output (and dtypes: of its dtype)
    dtypes: Any = None
    versions: Any = None  # None: every saved input a Tensor at version 0
    n = len(args)
    if n == 1:  # the common arities without the general loop's lists
        a = args[0]  # (a Tensor that requires grad, or we would not be here)
        if not prim.keeps_shape:  # (elementwise ops keep it: no shape to compare)
            d, oshape, odtype = a._data, out.shape, out.dtype
            if d.shape != oshape or d.dtype is not odtype and d.dtype != odtype:
                shapes, dtypes = (d.shape,), (d.dtype,)
        edges: Any = (a._grad_fn if a._grad_fn is not None else a,)
        if saves and a._vc is not None:
            versions = (a._vc[0],)
    elif n == 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
        a, b = args
        da, db = a._data, b._data
        oshape, odtype = out.shape, out.dtype
        if a._requires_grad:
            edges = (
                (a._grad_fn or a, b._grad_fn or b) if b._requires_grad else (a._grad_fn or a, None)
            )
        else:
            edges = (None, b._grad_fn or b)
        if (
            a._requires_grad
            and (da.shape != oshape or da.dtype is not odtype and da.dtype != odtype)
            or b._requires_grad
            and (db.shape != oshape or db.dtype is not odtype and db.dtype != odtype)
        ):
            shapes, dtypes = (da.shape, db.shape), (da.dtype, db.dtype)
        if saves and (a._vc is not None or b._vc is not None):
            versions = (a._vc[0] if a._vc is not None else 0, b._vc[0] if b._vc is not None else 0)
    # A Tensor and a Python number (x * 2.0, 1 - x), and no params (such as where's cond): the output
    # is shaped as x, and has its dtype but for NumPy 1's value-based casting of big numbers.
    elif n == 2 and not params and args[1].__class__ in _NUMBERS and isinstance(args[0], Tensor):
        a = args[0]
        edges = (a._grad_fn if a._grad_fn is not None else a, None)
        if a._data.dtype is not out.dtype:
            shapes, dtypes = (a._data.shape, ()), (a._data.dtype, None)
        if saves:
            versions = (a._vc[0] if a._vc is not None else 0, None)
    elif n == 2 and not params and args[0].__class__ in _NUMBERS and isinstance(args[1], Tensor):
        b = args[1]
        edges = (None, b._grad_fn if b._grad_fn is not None else b)
        if b._data.dtype is not out.dtype:
            shapes, dtypes = ((), b._data.shape), (None, b._data.dtype)
        if saves:
            versions = (None, b._vc[0] if b._vc is not None else 0)
    else:
        oshape, odtype = out.shape, out.dtype
        same = True  # every input that needs a gradient has the output's shape and dtype
        fresh = True  # every input a Tensor without a version counter yet (version 0)
        edges = []
        for a in args:
            if isinstance(a, Tensor):
                if a._requires_grad:
                    edges.append(a._grad_fn or a)
                    if same:
                        d = a._data
                        if d.shape != oshape or d.dtype is not odtype and d.dtype != odtype:
                            same = False
                else:
                    edges.append(None)
                if a._vc is not None:
                    fresh = False
            else:
                edges.append(None)
                fresh = False
        edges = tuple(edges)
        if saves and not fresh:  # saved versions, checked again at backward (None: a constant)
            versions = tuple(
                [
                    (a._vc[0] if a._vc is not None else 0) if isinstance(a, Tensor) else None
                    for a in args
                ]
            )
        if not same:  # the engine must sum gradients back to these shapes and cast to these dtypes
            arrays = [a._data if isinstance(a, Tensor) else np.asarray(a) for a in args]
            shapes = tuple([d.shape for d in arrays])
            dtypes = tuple([d.dtype for d in arrays])
    node = _new(Node)  # (Node's fields, set here without an __init__ call: once per recorded op)
    node.prim = prim
    node.edges = edges
    node.saved = args if saves else None
    node.versions = versions
    node.params = params or _NO_PARAMS
    node.shapes = shapes
    node.dtypes = dtypes
    node.pre_hooks = node.stack = None
    t = _new(Tensor)
    t._data = out
    t._grad_fn = node
    t._requires_grad = True
    t._vc = None
    if prim.needs_out:
        node.out_data = out
        node.out_vc = t._vc = [0]
    else:
        node.out_data = node.out_vc = None
        if prim.view and isinstance(args[0], Tensor) and np.may_share_memory(out, args[0]._data):
            _mark_view(t, args[0], prim, node.params)  # views share their base's version counter
    if _overrides[0] and state._anomaly:
        node.stack = capture_stack()
    return t


def _apply(prim: Any, *args: Any, **params: Any) -> Tensor:
    """Run a primitive's forward on arrays and, in grad mode, record it when an input requires grad."""
    try:  # free in CPython >= 3.11 when nothing is raised
        if len(args) == 1:  # the common arities without building a list
            a = args[0]
            need = False  # (whether an input requires grad, found while unwrapping the arrays)
            if isinstance(a, Tensor):
                need = a._requires_grad
                a = a._data
            out = prim.forward(a, **params) if params else prim.forward(a)
        elif len(args) == 2:
            a, b = args
            need = False
            if isinstance(a, Tensor):
                need = a._requires_grad
                a = a._data
            if isinstance(b, Tensor):
                if b._requires_grad:
                    need = True
                b = b._data
            out = prim.forward(a, b, **params) if params else prim.forward(a, b)
        else:
            need = any(isinstance(a, Tensor) and a._requires_grad for a in args)
            out = prim.forward(*[a._data if isinstance(a, Tensor) else a for a in args], **params)
    except ValueError as e:  # e.g. shapes that do not broadcast: say which op
        raise ValueError(str(e) if str(e).startswith(prim.name) else f"{prim.name}: {e}") from None
    if out.__class__ is not _ndarray:
        out = np.asarray(out)
    if out.dtype is _F64 and prim is not _CAST and not _any_float64(args):
        out = out.astype(_dt.float32)  # ints and Python floats make float32, as in PyTorch
    if need and (not _overrides[0] or state._enabled):  # (the first test spares a thread-local
        #                                                  lookup; `_enabled` spares the property)
        return _record(prim, out, args, params)
    t = _new(Tensor)
    t._data = out
    t._grad_fn = None
    t._requires_grad = False
    t._vc = None
    if prim.view and isinstance(args[0], Tensor) and np.may_share_memory(out, args[0]._data):
        _mark_view(t, args[0], prim, params)
    return t


def _mark_view(view: Tensor, base: Tensor, prim: Any, params: dict) -> None:
    """A view shares its base's memory: it shares its version counter, and remembers how it was
    made, so an in-place op on it can write through to the base on the tape too."""
    view._vc = base._version_counter()
    view._base = (base, prim, params)


def _set_recorded(t: Tensor, value: Tensor, name: str) -> None:
    """Make t hold `value` (a recorded tensor of t's shape): its buffer is overwritten in place, so
    every view of it sees the change, and a view passes the change on to its base (recorded as the
    inverse of the view), as NumPy and PyTorch do."""
    view = getattr(t, "_base", None)
    if view is None:
        if t._grad_fn is None and t._requires_grad:
            raise RuntimeError(
                f"a view of a leaf tensor that requires grad is used in an in-place operation "
                f"({name}); do it inside `with tg.no_grad():` or on a copy (x.clone())"
            )
        if not t._data.flags.writeable:
            raise RuntimeError(
                f"{name}: this tensor's memory is read-only (a broadcast view); "
                f"use an out-of-place op"
            )
        t._data[...] = value._data
    else:
        base, view_prim, params = view
        old_base = Tensor._make(base._data, base._grad_fn)  # the base before, on the tape
        old_base._requires_grad = base._requires_grad
        if view_prim is P.shape.getitem:
            new_base = _apply(P.shape.index_put, old_base, value, index=params["index"])
        elif view_prim is P.shape.reshape:
            new_base = _apply(P.shape.reshape, value, shape=base.shape)
        elif view_prim is P.shape.transpose:
            new_base = _apply(P.shape.transpose, value, axes=tuple(np.argsort(params["axes"])))
        else:  # expand: one element of the base stands for many of the view
            raise RuntimeError(
                f"in-place {name} on a broadcast (expanded) view: several of its elements share one "
                f"memory location; make a copy first (x.expand(...).clone())"
            )
        _set_recorded(base, new_base, name)
        value = _apply(view_prim, base, **params)  # the view again, now of the new base
    t._grad_fn = value._grad_fn
    t._requires_grad = value._requires_grad


_F64 = np.dtype(np.float64)
_CAST = P.elementwise.cast  # an explicit .astype(float64) is meant


def _any_float64(args: Sequence[Any]) -> bool:
    """Whether float64 came in explicitly (a float64 tensor or array), not from NumPy's promotion
    of integers or Python floats."""
    for a in args:
        d = a._data if isinstance(a, Tensor) else a
        if getattr(d, "dtype", None) is _F64:
            return True
    return False


def _make_tensor(data: Any, node: Node | None, dtype: Any = None) -> Tensor:
    """How the tape turns saved arrays and constants back into Tensors (injected into tape.node)."""
    if not isinstance(data, _ndarray):
        data = np.asarray(
            data,
            dtype=dtype
            if dtype is not None and isinstance(data, (int, float)) and dtype.kind == "f"
            else None,
        )
    return Tensor._make(data, node)


_ADD, _SUB, _MUL, _DIV = P.elementwise.add, P.elementwise.sub, P.elementwise.mul, P.elementwise.div
_INPLACE_UFUNCS = {_ADD: np.add, _SUB: np.subtract, _MUL: np.multiply, _DIV: np.true_divide}
_GRAD_LOCK = threading.Lock()
_COUNTER_LOCK = threading.Lock()
_node.make_tensor = _make_tensor
_registry.apply = _apply
_registry.tensor_type = Tensor
