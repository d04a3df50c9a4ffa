"""NumPy on Tensors: ufuncs and NumPy functions run tapegrad's ops (recorded).

Layer L5: imports tensor, math, creation, dtypes and the grad mode. Tensor's `__array_ufunc__` and
`__array_function__` call the functions here. What NumPy name maps to what op is read off
tapegrad's public math functions; nothing is implemented twice. A NumPy name with no tapegrad rule
runs on the values when no tensor among its arguments requires grad (as PyTorch's `__array__`
lets it: np.median(t), np.linalg.norm(t)); with one that does, it is a clear error (the gradient
would be lost).
"""

from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable

import numpy as np

from .. import creation, dtypes
from .. import math as tgmath
from .._utils import normalize_axis, one_axis, tree_map
from .._state import is_grad_enabled
from ..tensor import Tensor
from .numpy_meanings import NUMPY_MEANING

__all__ = ["array_function", "array_ufunc", "numpy_support"]


def _public_functions(module: Any) -> dict[str, Callable]:
    """A module's public functions by name (its ops; not the classes or modules it imports)."""
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    found = {n: getattr(module, n) for n in names}
    return {n: f for n, f in found.items() if callable(f) and not isinstance(f, type)}


# tapegrad.math names that follow PyTorch where NumPy's namesake means something else (np.sort
# gives an array, tg.sort (values, indices); np.cumsum, np.cumprod and np.flip default to every
# axis; np.outer flattens; np.floor, np.round, np.argsort are value functions here; np.unique's
# second argument is return_index, tg.unique's is sorted): NumPy's are not sent to them
# (numpy_meanings.py gives NumPy's meaning: NUMPY_MEANING).
_PYTORCH_MEANING = frozenset(
    "sort argsort cumsum cumprod flip tile tril triu diag trace outer einsum var std roll".split()
    + "round floor ceil trunc fix all any unique".split()
    # (np.median averages the two middle values, tg.median takes the lower; np.nonzero gives a
    # tuple, np.put writes in place, np.select picks from lists, np.cross uses the last axis,
    # np.heaviside keeps NaN, np.nan_to_num's second argument is copy=)
    + "median nanmedian quantile nanquantile nonzero put select take cross heaviside".split()
    + ["nan_to_num"]
)
# tapegrad.math names whose NumPy namesakes mean the same but no case in tests/test_interop.py
# checks them yet: not sent there either (NumPy's value on constants; on a tensor that requires
# grad the clear TypeError), until such a case exists
_NOT_YET_FROM_NUMPY = frozenset(
    "ravel kron inner vdot isclose diff diagflat diagonal argwhere bincount corrcoef cov".split()
    + "count_nonzero hsplit vsplit dsplit fliplr flipud moveaxis rot90 imag real isreal".split()
    + "isneginf isposinf nanmean nansum searchsorted sinc trapezoid".split()
    + "tensordot isin unravel_index".split()  # (np.tensordot's axes= is tg's dims=)
)
_OPS = {
    n: f
    for n, f in _public_functions(tgmath).items()
    if n not in _PYTORCH_MEANING and n not in _NOT_YET_FROM_NUMPY
}


def _no_rule(what: str) -> TypeError:
    return TypeError(
        f"{what} has no tapegrad rule, so it cannot run on a Tensor and stay on the tape (its "
        f"gradient would be lost); call .numpy() on the tensor for an off-tape value "
        f"({what}(t.numpy())), or write it with tapegrad ops"
    )


def _numpy_name(func: Any) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    return module.replace("numpy", "np", 1) + "." + func.__name__


# ---- ufuncs ------------------------------------------------------------------------------------
# Every NumPy ufunc spelled as a tapegrad op (np.abs is np.absolute, np.pow np.power: keyed by the
# ufunc itself), then NumPy's names for ops tapegrad spells otherwise.
_UFUNCS: dict[np.ufunc, Callable] = {
    getattr(np, n): f for n, f in _OPS.items() if isinstance(getattr(np, n, None), np.ufunc)
}
_UFUNCS.update(
    {
        np.subtract: _OPS["sub"],
        np.multiply: _OPS["mul"],
        np.divide: _OPS["div"],  # (np.true_divide is np.divide)
        np.negative: _OPS["neg"],
        np.power: _OPS["pow"],  # (np.pow is new in NumPy 2)
        np.fabs: _OPS["abs"],
        np.positive: operator.pos,
    }
)
# With a non-Tensor first operand the Tensor's reflected operator runs, so `array - t` and
# `np.float64(2) * t` follow exactly the operators' rules (a NumPy scalar never upcasts).
_REFLECTED: dict[Any, Callable[[Tensor, Any], Tensor]] = {
    np.add: Tensor.__radd__,
    np.subtract: Tensor.__rsub__,
    np.multiply: Tensor.__rmul__,
    np.divide: Tensor.__rtruediv__,
    np.power: Tensor.__rpow__,
    np.matmul: Tensor.__rmatmul__,
    np.maximum: Tensor.maximum,  # (symmetric)
    np.minimum: Tensor.minimum,
}
_PLAIN = (np.ndarray, np.generic, int, float)
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}
# Ufuncs whose value means something but whose gradient is zero or undefined: computed on the
# values, the result does not require grad (as tapegrad's comparison operators).
_VALUE_UFUNCS = frozenset(
    "equal not_equal less less_equal greater greater_equal isnan isinf isfinite signbit "
    "logical_and logical_or logical_xor logical_not floor ceil rint trunc floor_divide "
    "invert bitwise_and bitwise_or bitwise_xor left_shift right_shift".split()
)
# NumPy keywords that change nothing at these values (dropped); any other value is refused.
_HARMLESS = {
    "out": (None,),
    "where": (True,),
    "casting": ("same_kind",),
    "order": ("C", "K"),
    "subok": (True, False),
    "copy": (None,),
    "equal_nan": (False,),
    "device": (None, "cpu"),
    "shape": (None,),
    "initial": (),
    "mean": (),
}


def _check_harmless(what: str, kwargs: dict) -> None:
    """Drop NumPy-only keywords given at a harmless value; refuse the others clearly."""
    for key in [k for k in kwargs if k in _HARMLESS]:
        value = kwargs.pop(key)
        if value is None or isinstance(value, (bool, str)):
            if any(type(value) is type(d) and value == d for d in _HARMLESS[key]):
                continue
        hint = (
            "tapegrad ops return a new tensor: write `y = ...` (or `t += ...` for in place)"
            if key == "out"
            else f"leave {key}= out"
        )
        raise TypeError(
            f"{what}(..., {key}={value!r}) is not supported on tapegrad Tensors; {hint}"
        )


def _cast(value: Any, dtype: Any) -> Any:
    """NumPy's dtype= (compute in that dtype): tensors and arrays cast, Python scalars stay weak."""
    if isinstance(value, (Tensor, np.ndarray)):
        return value.astype(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def _values(tree: Any) -> Any:
    return tree_map(lambda v: v.numpy() if isinstance(v, Tensor) else v, tree)


def _wrap(result: Any) -> Any:
    """Arrays (and tuples of them) computed off the tape as Tensors that do not require grad."""
    if isinstance(result, (np.ndarray, np.generic)):
        return Tensor(np.asarray(result))
    if isinstance(result, (tuple, list)):
        return type(result)(_wrap(r) for r in result)
    return result


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    """What `Tensor.__array_ufunc__` does: run the tapegrad op for a NumPy ufunc (recorded).

    >>> np.sin(tg.tensor([0.0], requires_grad=True))
    tensor([0.], grad_fn=<SinBackward>)
    """
    if method == "__call__" and not kwargs and len(inputs) == 2:  # `array * t`, `2.0 - t`: fast
        a, b = inputs
        reflected = _REFLECTED.get(ufunc)
        if reflected is not None and b.__class__ is Tensor and isinstance(a, _PLAIN):
            return reflected(b, a)
    for x in inputs:  # another library's array type: let it (or NumPy) decide
        if not isinstance(x, _PLAIN + (Tensor,)) and hasattr(type(x), "__array_ufunc__"):
            return NotImplemented
    name = ufunc.__name__
    out = kwargs.pop("out", None)
    if out is not None and not (len(out) == 1 and isinstance(out[0], Tensor)):
        raise TypeError(
            f"np.{name}(..., out=...) names a NumPy array, but the result on a Tensor is a Tensor; "
            f"drop out= (y = np.{name}(...)), or compute off the tape on .numpy() values "
            f"(`arr += t` is such a case: write `arr = arr + t` or `arr += t.numpy()`)"
        )
    what = f"np.{name}" if method == "__call__" else f"np.{name}.{method}"
    if out is not None:
        inputs = _before_writing(out[0], inputs, what)
    if name in _VALUE_UFUNCS and method != "at":
        result = _wrap(getattr(ufunc, method)(*_values(inputs), **_values(kwargs)))
    else:
        op = _UFUNCS.get(ufunc)
        if op is None or method not in ("__call__", "reduce", "outer"):
            if out is None and method != "at" and not _any_requires_grad((inputs, kwargs)):
                return _wrap(getattr(ufunc, method)(*_values(inputs), **_values(kwargs)))
            raise _no_rule(what)
        dtype = kwargs.pop("dtype", None)
        if dtype is not None:
            inputs = _cast(inputs, dtypes.as_dtype(dtype))
        if method == "reduce":
            result = _reduce(name, what, inputs[0], kwargs)
        else:
            _check_harmless(what, kwargs)
            if kwargs:
                raise TypeError(f"{what}() got keywords tapegrad does not take: {sorted(kwargs)}")
            if method == "outer":
                a, b = inputs
                a = tgmath.reshape(a, np.shape(_values(a)) + (1,) * np.ndim(_values(b)))
                inputs = (a, b)
            result = _call(ufunc, op, inputs)
    return result if out is None else _write_into(out[0], result, what)


def _call(ufunc: np.ufunc, op: Callable, inputs: tuple) -> Any:
    if len(inputs) == 2 and isinstance(inputs[1], Tensor) and not isinstance(inputs[0], Tensor):
        reflected = _REFLECTED.get(ufunc)
        if reflected is not None:
            return reflected(inputs[1], inputs[0])
    return op(*inputs)


def _reduce(name: str, what: str, x: Any, kwargs: dict) -> Any:
    """np.add.reduce and friends: tapegrad's reduction (NumPy's default axis for them is 0)."""
    if name not in _REDUCTIONS:
        raise _no_rule(what)
    axis, keepdims = kwargs.pop("axis", 0), kwargs.pop("keepdims", False)
    _check_harmless(what, kwargs)
    if kwargs:
        raise TypeError(f"{what}() got keywords tapegrad does not take: {sorted(kwargs)}")
    return _OPS[_REDUCTIONS[name]](x, axis=axis, keepdims=keepdims)


def _before_writing(target: Tensor, inputs: tuple, what: str) -> tuple:
    """out=t is refused where `t += ...` is; on the tape, t as an input is read from a recorded
    copy (as `+=` does), so what the op saves is not the memory about to be overwritten."""
    if not is_grad_enabled():
        return inputs
    if target.is_leaf and target.requires_grad:
        raise RuntimeError(
            f"{what}(..., out=t): t is a leaf tensor that requires grad, and writing into it in "
            f"place would lose what its gradient refers to (as `t += ...` would); do it inside "
            f"`with tg.no_grad():` (as optimizers do) or drop out= to get a new tensor"
        )
    if target.requires_grad or any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        return tuple(x.clone() if x is target else x for x in inputs)
    return inputs


def _write_into(target: Tensor, result: Any, what: str) -> Tensor:
    """out=t: the result written into t as an in-place op (as `t += ...`: version bumped)."""
    shape = np.shape(_values(result))
    try:
        fits = np.broadcast_shapes(shape, target.shape) == target.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{what}(..., out=t): the result has shape {list(shape)}, which does not fit t's "
            f"shape {list(target.shape)}"
        )
    return target.copy_(result)


# ---- NumPy functions ---------------------------------------------------------------------------
def _concatenate(arrays: Any, axis: Any = 0) -> Tensor:
    """np.concatenate; axis=None joins the flattened arrays, as NumPy."""
    if axis is None:
        arrays, axis = [tgmath.reshape(a, -1) for a in arrays], 0
    return tgmath.concatenate(arrays, axis)


def _dot(a: Any, b: Any) -> Tensor:
    """np.dot: a product for 0-d operands, matmul for 1-d and 2-d ones."""
    ndims = (np.ndim(_values(a)), np.ndim(_values(b)))
    if 0 in ndims:
        return array_ufunc(np.multiply, "__call__", (a, b), {})
    if max(ndims) > 2:
        raise TypeError(
            "np.dot of arrays with more than 2 axes contracts the last axis of a with the "
            "second-to-last of b for every pair of their other axes; tapegrad has no rule for "
            "it: use np.matmul (batched matrix products) or reshape the operands to 2-d"
        )
    return array_ufunc(np.matmul, "__call__", (a, b), {})


def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """np.where(c, x, y) on the tape; np.where(c) is np.nonzero(c) (indices, no gradient)."""
    if x is None and y is None:
        return _wrap(np.nonzero(_values(condition)))
    if x is None or y is None:
        raise ValueError("np.where: give both x and y, or neither")
    return tgmath.where(condition, x, y)


def _split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """np.split: N equal sections, or cuts at the given indices (slices, on the tape)."""
    x = ary if isinstance(ary, Tensor) else Tensor(ary)
    axis = one_axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise ValueError(f"np.split: {k} sections do not divide an axis of length {n} equally")
        cuts = [i * (n // k) for i in range(1, k)]
    else:
        cuts = [int(i) for i in indices_or_sections]
    lead = (slice(None),) * axis
    return [x[lead + (slice(s, e),)] for s, e in zip([0, *cuts], [*cuts, None])]


def _expand_dims(a: Any, axis: Any) -> Tensor:
    """np.expand_dims with an int or a tuple of new axes."""
    shape = np.shape(_values(a))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    new = normalize_axis(axes, len(shape) + len(axes)) or ()
    sizes = iter(shape)
    return tgmath.reshape(
        a, tuple(1 if i in new else next(sizes) for i in range(len(shape) + len(new)))
    )


def _squeeze(a: Any, axis: Any = None) -> Tensor:
    """np.squeeze; naming an axis whose size is not 1 is an error, as in NumPy."""
    shape = np.shape(_values(a))
    for i in normalize_axis(axis, len(shape)) or ():
        if shape[i] != 1:
            raise ValueError(
                f"np.squeeze: axis {i} has size {shape[i]}, not 1; it cannot be squeezed"
            )
    return tgmath.squeeze(a, axis)


def _function_table() -> dict:
    """NumPy function -> tapegrad op: every public op (math, and the *_like factories) that NumPy
    spells the same way, then those where NumPy's meaning differs (np.concat, np.permute_dims
    are np.concatenate, np.transpose)."""
    likes = {n: f for n, f in _public_functions(creation).items() if n.endswith("_like")}
    ops = {**likes, **_OPS}
    table = {
        f: ops[n]
        for n, f in ((n, getattr(np, n, None)) for n in ops)
        if f is not None and not isinstance(f, np.ufunc) and hasattr(f, "_implementation")
    }
    table.update(
        {
            np.concatenate: _concatenate,
            np.dot: _dot,
            np.where: _where,
            np.split: _split,
            np.expand_dims: _expand_dims,
            np.squeeze: _squeeze,
        }
    )
    return table


_FUNCTIONS = _function_table()
# NumPy functions with no gradient to speak of: run on the values; arrays come back as Tensors
# that do not require grad (np.shape, np.ndim, np.size are Tensor attributes anyway: kept fast).
_ATTRIBUTES = {np.shape, np.ndim, np.size}
_VALUE_FUNCTIONS = {
    getattr(np, n)
    for n in (
        "all any isclose array_equal array_equiv count_nonzero nonzero flatnonzero argwhere "
        "argsort searchsorted round around result_type iscomplexobj isrealobj isreal iscomplex "
        "isneginf isposinf shares_memory may_share_memory array2string array_repr array_str"
    ).split()
}
# Conversions to ndarrays (NumPy documents them so, as np.asarray): the values, off the tape.
# SciPy calls np.atleast_1d on a gradient; a tensor that requires grad is refused, as PyTorch does.
_CONVERSIONS = {np.atleast_1d, np.atleast_2d, np.atleast_3d, np.copy}
_RENAMED = {"a_min": "min", "a_max": "max"}  # np.clip's names for tapegrad's


def numpy_support() -> dict[str, str]:
    """What each NumPy name does on Tensors: "op" (runs a tapegrad op, recorded), "value" (computed
    on the values; no gradient) or "conversion" (an ndarray); any other NumPy name raises TypeError.

    >>> tg.interop.numpy_support()["np.sin"]
    'op'
    """
    kinds = {f"np.{u.__name__}": "op" for u in _UFUNCS}
    kinds.update({f"np.{u}.reduce": "op" for u in _REDUCTIONS})
    kinds.update({f"np.{u}": "value" for u in _VALUE_UFUNCS})
    for funcs, kind in ((_CONVERSIONS, "conversion"), (_VALUE_FUNCTIONS | _ATTRIBUTES, "value")):
        kinds.update({_numpy_name(f): kind for f in funcs})
    kinds.update({_numpy_name(f): "op" for f in (*_FUNCTIONS, *NUMPY_MEANING)})
    return dict(sorted(kinds.items()))


@functools.lru_cache(maxsize=None)
def _signature(func: Any, op: Any) -> tuple:
    """func's signature, its positional names, the required ones, whether op takes dtype."""
    try:
        sig = inspect.signature(func)
    except ValueError:  # (a C function of an older NumPy: the adapters use NumPy's names)
        sig = inspect.signature(op)
    positional = [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    required = tuple(p.name for p in positional if p.default is p.empty)
    try:
        takes_dtype = "dtype" in inspect.signature(op).parameters
    except (TypeError, ValueError):
        takes_dtype = False
    return sig, tuple(p.name for p in positional), required, takes_dtype


def array_function(func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """What `Tensor.__array_function__` does: a NumPy function on Tensors runs tapegrad's op.

    >>> np.sum(tg.tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0)
    tensor([4., 6.])
    """
    if func in _ATTRIBUTES:
        return func._implementation(*args, **kwargs)
    if not all(issubclass(t, (Tensor, np.ndarray)) for t in types):
        return NotImplemented
    op = _FUNCTIONS.get(func)
    if op is not None:
        return _dispatch(func, op, args, kwargs)
    adapter = NUMPY_MEANING.get(func)
    if adapter is not None:  # (written with NumPy's signature)
        kwargs = dict(kwargs)
        _check_harmless(_numpy_name(func), kwargs)
        return adapter(*args, **kwargs)
    if func in _VALUE_FUNCTIONS:
        return _wrap(func(*_values(args), **_values(kwargs)))
    if func in _CONVERSIONS:
        for t in [a for a in args if isinstance(a, Tensor) and a.requires_grad]:
            raise RuntimeError(
                f"{_numpy_name(func)}() makes a NumPy array, which would drop a tensor that "
                f"requires grad from the tape; call it on t.detach() for the values, or use "
                f"tapegrad ops (t.reshape, t.clone) to stay differentiable"
            )
        return func(*_values(args), **_values(kwargs))
    if not _any_requires_grad((args, kwargs)):  # (NumPy's own result, as through __array__)
        return func(*_values(args), **_values(kwargs))
    raise _no_rule(_numpy_name(func))


def _any_requires_grad(tree: Any) -> bool:
    """Whether a tensor that requires grad is among the arguments (then an off-tape result would
    silently lose its gradient)."""
    found = [False]

    def look(v: Any) -> Any:
        if isinstance(v, Tensor) and v.requires_grad:
            found[0] = True
        return v

    tree_map(look, tree)
    return found[0]


def _dispatch(func: Any, op: Callable, args: tuple, kwargs: dict) -> Any:
    """Call op with NumPy's arguments: the required ones positionally, the rest by NumPy's names."""
    sig, names, required, takes_dtype = _signature(func, op)
    if len(args) <= len(names) and not kwargs.keys() & names[: len(args)]:
        params = dict(zip(names, args), **kwargs)  # (sig.bind's result, at a third of its cost)
    else:  # (an unusual call: sig.bind raises NumPy's own TypeError if it is wrong)
        params = dict(sig.bind(*args, **kwargs).arguments)
        params.update(params.pop("kwargs", {}))  # (np.clip's **kwargs)
    positional = [params.pop(n) for n in required if n in params]
    what = _numpy_name(func)
    dtype = params.pop("dtype", None)
    _check_harmless(what, params)
    params = {_RENAMED.get(k, k): v for k, v in params.items()}
    if params.get("axes", ()) is None:
        del params["axes"]  # np.transpose(a, axes=None): reverse the axes
    if "axes" in params:
        positional.append(params.pop("axes"))
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if takes_dtype:
            params["dtype"] = dtype
        else:
            positional[0] = _cast(positional[0], dtype)
    return op(*positional, **params)
