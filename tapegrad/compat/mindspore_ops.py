"""MindSpore's class-style ops (`ops.Sin()(x)`, `ops.MatMul(transpose_b=True)(a, b)`): made, then
called.

Layer L5: each class holds its attributes and calls a tapegrad function from math.py, so values,
gradients and higher orders are those of tg.sin, tg.matmul, ... Call signatures follow MindSpore's
Primitives (`ReduceSum(keep_dims)(x, axis=())`, `Transpose()(x, perm)`, `Reshape()(x, shape)`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import math as _m
from ..tensor import Tensor

__all__ = [
    "Abs",
    "Add",
    "Concat",
    "Cos",
    "Div",
    "Exp",
    "ExpandDims",
    "Log",
    "MatMul",
    "Maximum",
    "Minimum",
    "Mul",
    "Neg",
    "Pow",
    "ReduceMean",
    "ReduceSum",
    "Reshape",
    "Sigmoid",
    "Sin",
    "Sqrt",
    "Square",
    "Squeeze",
    "Stack",
    "Sub",
    "Tanh",
    "Transpose",
]


def _check_bool(op: str, name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"For '{op}', '{name}' must be a bool, got {value!r}")
    return bool(value)


def _check_int(op: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{name}' must be an int, got {value!r}")
    return int(value)


def _check_tensor(op: str, name: str, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"For '{op}', '{name}' must be a Tensor, got {type(value).__name__}; "
            f"wrap it first: Tensor(value)"
        )
    return value


class _Op:
    """A class-style op: its attributes are fixed when it is made; calling it runs the op."""

    def _attrs(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self._attrs().items())
        return f"{type(self).__name__}({attrs})"


class _Unary(_Op):
    _fn: Callable[[Any], Tensor]

    def __call__(self, x: Any) -> Tensor:
        return type(self)._fn(x)


class _Binary(_Op):
    _fn: Callable[[Any, Any], Tensor]

    def __call__(self, x: Any, y: Any) -> Tensor:
        if not isinstance(x, Tensor) and not isinstance(y, Tensor):
            raise TypeError(
                f"For '{type(self).__name__}', at least one input must be a Tensor, got "
                f"{type(x).__name__} and {type(y).__name__}"
            )
        return type(self)._fn(x, y)


# ---- elementwise ------------------------------------------------------------------------------
class Sin(_Unary):
    """sin(x). `ops.Sin()(tg.tensor([0.0]))` -> tensor([0.])"""

    _fn = staticmethod(_m.sin)


class Cos(_Unary):
    """cos(x). `ops.Cos()(tg.tensor([0.0]))` -> tensor([1.])"""

    _fn = staticmethod(_m.cos)


class Exp(_Unary):
    """exp(x). `ops.Exp()(tg.tensor([0.0]))` -> tensor([1.])"""

    _fn = staticmethod(_m.exp)


class Log(_Unary):
    """Natural log. `ops.Log()(tg.tensor([1.0]))` -> tensor([0.])"""

    _fn = staticmethod(_m.log)


class Tanh(_Unary):
    """tanh(x). `ops.Tanh()(tg.tensor([0.0]))` -> tensor([0.])"""

    _fn = staticmethod(_m.tanh)


class Sigmoid(_Unary):
    """1 / (1 + exp(-x)). `ops.Sigmoid()(tg.tensor([0.0]))` -> tensor([0.5])"""

    _fn = staticmethod(_m.sigmoid)


class Square(_Unary):
    """x * x. `ops.Square()(tg.tensor([3.0]))` -> tensor([9.])"""

    _fn = staticmethod(_m.square)


class Sqrt(_Unary):
    """sqrt(x). `ops.Sqrt()(tg.tensor([4.0]))` -> tensor([2.])"""

    _fn = staticmethod(_m.sqrt)


class Abs(_Unary):
    """|x|. `ops.Abs()(tg.tensor([-2.0]))` -> tensor([2.])"""

    _fn = staticmethod(_m.abs)


class Neg(_Unary):
    """-x. `ops.Neg()(tg.tensor([2.0]))` -> tensor([-2.])"""

    _fn = staticmethod(_m.neg)


class Add(_Binary):
    """x + y, broadcasting. `ops.Add()(tg.tensor([1.0]), 2.0)` -> tensor([3.])"""

    _fn = staticmethod(_m.add)


class Sub(_Binary):
    """x - y, broadcasting. `ops.Sub()(tg.tensor([1.0]), 2.0)` -> tensor([-1.])"""

    _fn = staticmethod(_m.sub)


class Mul(_Binary):
    """x * y, broadcasting. `ops.Mul()(tg.tensor([3.0]), 2.0)` -> tensor([6.])"""

    _fn = staticmethod(_m.mul)


class Div(_Binary):
    """x / y, broadcasting. `ops.Div()(tg.tensor([3.0]), 2.0)` -> tensor([1.5])"""

    _fn = staticmethod(_m.div)


class Pow(_Binary):
    """x ** y, broadcasting. `ops.Pow()(tg.tensor([3.0]), 2.0)` -> tensor([9.])"""

    _fn = staticmethod(_m.pow)


class Maximum(_Binary):
    """Elementwise max(x, y). `ops.Maximum()(tg.tensor([1.0, 5.0]), 3.0)` -> tensor([3., 5.])"""

    _fn = staticmethod(_m.maximum)


class Minimum(_Binary):
    """Elementwise min(x, y). `ops.Minimum()(tg.tensor([1.0, 5.0]), 3.0)` -> tensor([1., 3.])"""

    _fn = staticmethod(_m.minimum)


# ---- matrices and reductions --------------------------------------------------------------------
class MatMul(_Op):
    """The product of two 2-D tensors, either transposed first.

    >>> ops.MatMul(transpose_b=True)(tg.ones(1, 3), tg.ones(4, 3)).shape
    (1, 4)
    """

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a = _check_bool("MatMul", "transpose_a", transpose_a)
        self.transpose_b = _check_bool("MatMul", "transpose_b", transpose_b)

    def __call__(self, x: Any, y: Any) -> Tensor:
        x, y = _check_tensor("MatMul", "x", x), _check_tensor("MatMul", "y", y)
        if x.ndim != 2 or y.ndim != 2:
            raise ValueError(
                f"For 'MatMul', both inputs must be 2-D, got shapes {list(x.shape)} and "
                f"{list(y.shape)}; use tg.matmul for batched or vector products"
            )
        if x.dtype != y.dtype:
            raise TypeError(
                f"For 'MatMul', the inputs must have the same dtype, got {x.dtype} and "
                f"{y.dtype}; cast one with .astype(...)"
            )
        a = x.T if self.transpose_a else x
        b = y.T if self.transpose_b else y
        if a.shape[1] != b.shape[0]:
            raise ValueError(
                f"For 'MatMul', the columns of x ({a.shape[1]}) must equal the rows of y "
                f"({b.shape[0]}): shapes {list(x.shape)} (transpose_a={self.transpose_a}) and "
                f"{list(y.shape)} (transpose_b={self.transpose_b})"
            )
        return _m.matmul(a, b)


def _reduce_axis(op: str, x: Tensor, axis: Any) -> Any:
    """MindSpore's axis: () or [] = every axis (None here); an int or a tuple/list of ints."""
    if axis is None:
        raise ValueError(f"For '{op}', axis must not be None; use () to reduce over every axis")
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (tuple, list)):
        return tuple(_check_int(op, "axis", a) for a in axis) or None
    return _check_int(op, "axis", axis)


class ReduceSum(_Op):
    """Sum over `axis` (default (): every axis), keeping reduced axes as size 1 with keep_dims.

    >>> ops.ReduceSum(keep_dims=True)(tg.ones(2, 3), 1).shape
    (2, 1)
    """

    def __init__(self, keep_dims: bool = False, skip_mode: bool = False) -> None:
        self.keep_dims = _check_bool("ReduceSum", "keep_dims", keep_dims)
        self.skip_mode = _check_bool("ReduceSum", "skip_mode", skip_mode)

    def __call__(self, x: Any, axis: Any = ()) -> Tensor:
        x = _check_tensor("ReduceSum", "x", x)
        if self.skip_mode and isinstance(axis, (tuple, list)) and not axis:
            return x  # MindSpore: skip_mode with an empty axis does no reduction
        return _m.sum(x, axis=_reduce_axis("ReduceSum", x, axis), keepdims=self.keep_dims)


class ReduceMean(_Op):
    """Mean over `axis` (default (): every axis), keeping reduced axes as size 1 with keep_dims.

    >>> ops.ReduceMean()(tg.tensor([[1.0, 3.0]]))
    tensor(2.)
    """

    def __init__(self, keep_dims: bool = False) -> None:
        self.keep_dims = _check_bool("ReduceMean", "keep_dims", keep_dims)

    def __call__(self, x: Any, axis: Any = ()) -> Tensor:
        x = _check_tensor("ReduceMean", "x", x)
        return _m.mean(x, axis=_reduce_axis("ReduceMean", x, axis), keepdims=self.keep_dims)


# ---- shapes -----------------------------------------------------------------------------------
class Reshape(_Op):
    """`x` with a new shape (one -1 is inferred).

    >>> ops.Reshape()(tg.ones(6), (2, 3)).shape
    (2, 3)
    """

    def __call__(self, x: Any, shape: Sequence[int]) -> Tensor:
        x = _check_tensor("Reshape", "x", x)
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"For 'Reshape', shape must be a tuple of ints, got {shape!r}")
        return _m.reshape(x, tuple(shape))


class Transpose(_Op):
    """Axes permuted: output axis i is input axis perm[i].

    >>> ops.Transpose()(tg.ones(2, 3, 4), (2, 0, 1)).shape
    (4, 2, 3)
    """

    def __call__(self, x: Any, perm: Sequence[int]) -> Tensor:
        x = _check_tensor("Transpose", "x", x)
        if not isinstance(perm, (tuple, list)) or len(perm) != x.ndim:
            raise ValueError(
                f"For 'Transpose', perm must be a tuple with one axis per dimension of x "
                f"({x.ndim}), got {perm!r}"
            )
        return _m.permute(x, tuple(perm))


class Concat(_Op):
    """The tensors of a tuple/list joined along `axis`. `ops.Concat(1)((a, b))`

    >>> ops.Concat(axis=1)((tg.ones(2, 1), tg.zeros(2, 2))).shape
    (2, 3)
    """

    def __init__(self, axis: int = 0) -> None:
        self.axis = _check_int("Concat", "axis", axis)

    def __call__(self, input_x: Sequence[Any]) -> Tensor:
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(
                f"For 'Concat', the input must be a tuple or list of tensors, got "
                f"{type(input_x).__name__}: ops.Concat(axis)((a, b))"
            )
        return _m.cat(list(input_x), self.axis)


class Stack(_Op):
    """Same-shape tensors stacked along a new `axis`.

    >>> ops.Stack(axis=0)([tg.ones(3), tg.zeros(3)]).shape
    (2, 3)
    """

    def __init__(self, axis: int = 0) -> None:
        self.axis = _check_int("Stack", "axis", axis)

    def __call__(self, input_x: Sequence[Any]) -> Tensor:
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(
                f"For 'Stack', the input must be a tuple or list of tensors, got "
                f"{type(input_x).__name__}: ops.Stack(axis)([a, b])"
            )
        return _m.stack(list(input_x), self.axis)


class ExpandDims(_Op):
    """A new axis of size 1 at `axis`. `ops.ExpandDims()(tg.ones(3), 0).shape` -> (1, 3)"""

    def __call__(self, x: Any, axis: int) -> Tensor:
        x = _check_tensor("ExpandDims", "x", x)
        return _m.unsqueeze(x, _check_int("ExpandDims", "axis", axis))


class Squeeze(_Op):
    """The size-1 axes removed: all of them (axis=()) or the given ones, which must have size 1.

    >>> ops.Squeeze(0)(tg.ones(1, 3, 1)).shape
    (3, 1)
    """

    def __init__(self, axis: Any = ()) -> None:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        self.axis = tuple(_check_int("Squeeze", "axis", a) for a in axes)

    def __call__(self, x: Any) -> Tensor:
        x = _check_tensor("Squeeze", "x", x)
        if not self.axis:
            return _m.squeeze(x)
        for a in self.axis:
            if not -x.ndim <= a < x.ndim or x.shape[a] != 1:
                raise ValueError(
                    f"For 'Squeeze', axis {a} must be an axis of size 1 of x, whose shape is "
                    f"{list(x.shape)}"
                )
        return _m.squeeze(x, self.axis)
