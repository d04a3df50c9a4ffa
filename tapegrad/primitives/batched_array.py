"""The values of a tensor inside vmap: `BatchedArray`, one array per example of the batch held as
one physical array with the examples along axis 0, that answers NumPy as each example would.

Layer L1: numpy only (and registry, to know a Tensor when it holds one). A batched Tensor's `_data`
is a BatchedArray, so what the Tensor layer reads off `_data` sees one example: `.shape`, `.ndim`,
`.dtype`, and the values NumPy computes from them (a mask, a shift, class indices: ufuncs,
reductions, `np.where`, indexing, `astype`) come out batched. A value that must be one number
(`float(...)`, `bool(...)`, `.item()`) is read only when every example agrees; anything else NumPy
cannot do per example (np.asarray of the whole, an unsupported function) is a clear error.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from . import registry


class Level:
    """One running vmap: its depth (1 for the outermost), its batch size, what random ops do
    ("error", "different", "same"), and whether it is still running."""

    __slots__ = ("depth", "size", "randomness", "active")

    def __init__(self, depth: int, size: int, randomness: str) -> None:
        self.depth, self.size, self.randomness, self.active = depth, size, randomness, True

    def __repr__(self) -> str:
        return f"<vmap level {self.depth}: batch of {self.size}>"


ESCAPED = (
    "a batched tensor (made inside vmap) was used after its vmap returned; return it from the "
    "vmapped function instead of keeping it elsewhere"
)


class BatchedArray:
    """One example's view of a batch of arrays at a vmap level. `physical` holds the examples along
    axis 0 (`batched`), or is the one array every example shares (not `batched`: a tensor that only
    lives at this level because something there differentiates it). `tensor` is the physical
    Tensor behind a batched Tensor's values (None for values NumPy computed)."""

    __slots__ = ("level", "batched", "tensor", "_array")
    __array_priority__ = 1000  # (ndarray <op> BatchedArray defers to it)
    level: Level
    batched: bool
    tensor: Any
    _array: Any

    def __init__(self, values: Any, level: Level, batched: bool) -> None:
        self.level, self.batched = level, batched
        if isinstance(values, registry.layer.tensor_type):
            self.tensor, self._array = values, None
        else:
            self.tensor, self._array = None, values

    @property
    def physical(self) -> Any:
        """The examples stacked along axis 0 (an ndarray, or a BatchedArray of an outer vmap)."""
        return self.tensor._data if self.tensor is not None else self._array

    # ---- one example's shape -------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        s = self.physical.shape  # (read on every op inside vmap: no np.shape dispatch)
        return s[1:] if self.batched else s

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.physical.dtype

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def strides(self) -> tuple:
        s = self.physical.strides
        return tuple(s[1:]) if self.batched else tuple(s)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        how = "batched" if self.batched else "shared by the batch"
        return f"BatchedArray({how}, level {self.level.depth}, example shape {self.shape})"

    # ---- NumPy's protocols ----------------------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError(
            "vmap: the values of a batched tensor cannot become one NumPy array (np.asarray, "
            "np.array, a NumPy function without a batching rule here): inside vmap each example "
            "has its own values. Compute with tapegrad ops, or do it outside vmap"
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        level = top_level(inputs)
        into = kwargs.pop("out", None)
        if method == "__call__" and (ufunc.signature is None or ufunc is np.matmul):
            rank = max(np.ndim(x) for x in inputs)
            if ufunc is np.matmul and min(np.ndim(x) for x in inputs) < 2:
                raise TypeError("vmap: np.matmul of batched values needs matrices (2 or more axes)")
            batched = any_batched(inputs, level)
            if into is not None:
                return _into(ufunc, [operand(x, level, rank) for x in inputs], into, level, rank)
            out = ufunc(*[operand(x, level, rank) for x in inputs], **kwargs)
            if isinstance(out, tuple):
                return tuple(result(o, level, batched) for o in out)
            return result(out, level, batched)
        if into is not None:
            raise TypeError(f"vmap: np.{ufunc.__name__}.{method}(out=...) has no batching rule")
        if method in ("reduce", "accumulate") and len(inputs) == 1:
            x = inputs[0]
            if not x.batched:
                return getattr(ufunc, method)(x.physical, **kwargs)
            kwargs["axis"] = shifted(kwargs.get("axis", 0), x.ndim)
            return result(getattr(ufunc, method)(x.physical, **kwargs), level, True)
        raise TypeError(f"vmap: np.{ufunc.__name__}.{method} has no batching rule here")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        rule = FUNCTIONS.get(func)
        if rule is None:
            raise TypeError(
                f"vmap: np.{func.__name__} was called on the values of a batched tensor and has "
                f"no batching rule here; compute it with tapegrad ops, or outside vmap"
            )
        return rule(*args, **kwargs)

    # ---- methods ndarray has ---------------------------------------------------------------
    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> "BatchedArray":
        return self._same(self.physical.astype(dtype, *args, **kwargs))

    def copy(self) -> "BatchedArray":
        return self._same(self.physical.copy())

    def reshape(self, *shape: Any, **kwargs: Any) -> Any:
        return np.reshape(self, shape[0] if len(shape) == 1 else shape, **kwargs)

    def transpose(self, *axes: Any) -> Any:
        return np.transpose(self, axes[0] if len(axes) == 1 else (axes or None))

    def swapaxes(self, a: int, b: int) -> Any:
        return np.swapaxes(self, a, b)

    def squeeze(self, axis: Any = None) -> Any:
        return np.squeeze(self, axis)

    T = property(lambda self: np.transpose(self))

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        return np.sum(self, *args, **kwargs)

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        return np.mean(self, *args, **kwargs)

    def prod(self, *args: Any, **kwargs: Any) -> Any:
        return np.prod(self, *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> Any:
        return np.max(self, *args, **kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        return np.min(self, *args, **kwargs)

    def any(self, *args: Any, **kwargs: Any) -> Any:
        return np.any(self, *args, **kwargs)

    def all(self, *args: Any, **kwargs: Any) -> Any:
        return np.all(self, *args, **kwargs)

    def argmax(self, *args: Any, **kwargs: Any) -> Any:
        return np.argmax(self, *args, **kwargs)

    def argmin(self, *args: Any, **kwargs: Any) -> Any:
        return np.argmin(self, *args, **kwargs)

    def cumsum(self, *args: Any, **kwargs: Any) -> Any:
        return np.cumsum(self, *args, **kwargs)

    def __getitem__(self, index: Any) -> Any:
        from .batched_index import physical_index  # (that module indexes these arrays)

        where = physical_index(index, self.level, self.shape)
        if not self.batched and not where.batched:
            return self.physical[where.shared]
        values = self.physical
        if not self.batched:  # (a batched index into values the batch shares)
            values = np.broadcast_to(values, (self.level.size,) + self.shape)
        picked = values[where.index]
        return result(
            np.transpose(picked, where.order) if where.order else picked, self.level, True
        )

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            "vmap: writing into the values of a batched tensor (x.numpy()[...] = v) is not "
            "supported; use the tensor's in-place ops (x[...] = v)"
        )

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    # ---- one value for the whole batch ------------------------------------------------------
    def item(self) -> Any:
        """The one value, when every example has the same (else a clear error)."""
        if not self.batched:
            return self.physical.item()
        values = self.physical
        if self.level.size and not _all_equal(values):
            raise RuntimeError(
                "vmap: a value that differs between the examples of the batch was read as one "
                "Python value (.item(), float(), bool(), an `if` on a tensor): the examples would "
                "take different paths. Compute it with tapegrad ops (tg.where instead of `if`), "
                "or outside vmap"
            )
        return values[0].item()

    def tolist(self) -> Any:
        raise TypeError("vmap: .tolist() of a batched tensor: each example has its own values")

    def __bool__(self) -> bool:
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        return int(self.item())

    @property
    def flat(self) -> Any:
        raise TypeError("vmap: .flat of a batched tensor's values: index it instead")

    def _same(self, physical: Any) -> "BatchedArray":
        return BatchedArray(physical, self.level, self.batched)

    # ---- operators: NumPy's ufuncs -----------------------------------------------------------
    def __neg__(self) -> Any:
        return np.negative(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return np.absolute(self)

    def __invert__(self) -> Any:
        return np.invert(self)


def _operator(ufunc: Any, reflected: bool = False) -> Callable:
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


for _name, _ufunc in {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "truediv": np.true_divide,
    "floordiv": np.floor_divide,
    "mod": np.remainder,
    "pow": np.power,
    "matmul": np.matmul,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}.items():
    setattr(BatchedArray, f"__{_name}__", _operator(_ufunc))
    setattr(BatchedArray, f"__r{_name}__", _operator(_ufunc, reflected=True))
for _name, _ufunc in {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}.items():
    setattr(BatchedArray, f"__{_name}__", _operator(_ufunc))
BatchedArray.__hash__ = None  # type: ignore[assignment]  # (== is elementwise, as ndarray's)


# ---- helpers: operands at a level ----------------------------------------------------------------
def top_level(values: Any) -> Any:
    """The innermost running vmap level among the BatchedArrays in `values` (None: none)."""
    found = None
    for v in values:
        if v.__class__ is BatchedArray:
            if not v.level.active:
                raise RuntimeError("vmap: " + ESCAPED)
            if found is None or v.level.depth > found.depth:
                found = v.level
    return found


def any_batched(values: Any, level: Level) -> bool:
    """Whether some value is batched at `level`."""
    return any(v.__class__ is BatchedArray and v.level is level and v.batched for v in values)


def operand(x: Any, level: Level, rank: int) -> Any:
    """x as NumPy should see it beside operands of `rank` example axes: a batched value with its
    example axes padded to `rank` behind the batch axis, so the batch axis never meets theirs."""
    if x.__class__ is not BatchedArray or x.level is not level:
        return x
    p = x.physical
    if not x.batched or x.ndim == rank:
        return p
    return p.reshape((x.level.size,) + (1,) * (rank - x.ndim) + x.shape)


def _into(ufunc: Any, operands: list, into: Any, level: Level, rank: int) -> Any:
    """ufunc(..., out=...) into batched values of this level (a temporary of the Tensor layer's,
    such as the moments' `centered`): written into their stacked arrays; into values the batch
    shares, per-example results cannot go."""
    targets = into if isinstance(into, tuple) else (into,)
    for t in targets:
        if t.__class__ is not BatchedArray or t.level is not level or not t.batched:
            raise TypeError(
                f"vmap: np.{ufunc.__name__}(..., out=...) would write values that differ between "
                f"examples into an array the batch shares"
            )
        if t.ndim != rank:
            raise TypeError(f"vmap: np.{ufunc.__name__}(..., out=...): out has the wrong shape")
    ufunc(*operands, out=tuple(t.physical for t in targets))
    return targets[0] if len(targets) == 1 else targets


def result(values: Any, level: Level, batched: bool) -> Any:
    """NumPy's result at `level`: batched values wrapped, shared ones as they are."""
    return BatchedArray(values, level, True) if batched else values


def shifted(axis: Any, ndim: int) -> Any:
    """Axes of one example as axes of the stacked array (None: all of the example's axes)."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(shifted(a, ndim) for a in axis)
    return int(axis) % max(ndim, 1) + 1


def _all_equal(values: Any) -> bool:
    first = values[0]
    same = values == first
    if values.dtype.kind in "fc":
        same = same | (np.isnan(values) & np.isnan(first))
    return bool(np.all(same))


# ---- NumPy functions with a batching rule (batched_functions.py registers them) ---------------
FUNCTIONS: dict[Any, Callable] = {}


def implements(*funcs: Any) -> Callable:
    """Register a NumPy function's batching rule (`np.where`, `np.sum`, ...)."""

    def register(rule: Callable) -> Callable:
        for f in funcs:
            FUNCTIONS[f] = rule
        return rule

    return register
