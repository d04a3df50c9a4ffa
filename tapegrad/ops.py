"""tg.ops: where MindSpore users look for functions (`ops.clip_by_global_norm`, `ops.stop_gradient`,
...) and class-style ops (`ops.Sin()`, `ops.MatMul()`, `ops.GradOperation()`).

Layer L6: re-exports only. The functional names (grad, value_and_grad, stop_gradient, ...) are
looked up lazily in tapegrad.functional, so this module never depends on its import order.
"""

from __future__ import annotations

from typing import Any

from .amp import DynamicLossScaler, StaticLossScaler, all_finite, clip_by_global_norm
from .creation import ones, ones_like, zeros, zeros_like
from .compat.mindspore import GradOperation, ParameterTuple
from .compat.mindspore_ops import (
    Abs,
    Add,
    Concat,
    Cos,
    Div,
    Exp,
    ExpandDims,
    Log,
    MatMul,
    Maximum,
    Minimum,
    Mul,
    Neg,
    Pow,
    ReduceMean,
    ReduceSum,
    Reshape,
    Sigmoid,
    Sin,
    Sqrt,
    Square,
    Squeeze,
    Stack,
    Sub,
    Tanh,
    Transpose,
)
from .math import (
    abs,
    cat,
    clip,
    concatenate,
    cos,
    exp,
    expand_dims,
    isfinite,
    log,
    log_softmax,
    logsumexp,
    matmul,
    maximum,
    mean,
    minimum,
    pow,
    relu,
    reshape,
    sigmoid,
    sin,
    softmax,
    sqrt,
    square,
    squeeze,
    stack,
    sum,
    tanh,
    transpose,
    where,
)

_FUNCTIONAL = (
    "grad",
    "value_and_grad",
    "stop_gradient",
    "vjp",
    "jvp",
    "jacobian",
    "jacrev",
    "jacfwd",
    "hessian",
)


def __getattr__(name: str) -> Any:
    if name in _FUNCTIONAL:
        from . import functional

        return getattr(functional, name)
    raise AttributeError(f"module 'tapegrad.ops' has no attribute '{name}'")


__all__ = [
    "Abs",
    "Add",
    "Concat",
    "Cos",
    "Div",
    "Exp",
    "ExpandDims",
    "GradOperation",
    "Log",
    "MatMul",
    "Maximum",
    "Minimum",
    "Mul",
    "Neg",
    "ParameterTuple",
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
    "DynamicLossScaler",
    "StaticLossScaler",
    "abs",
    "all_finite",
    "cat",
    "clip",
    "clip_by_global_norm",
    "concatenate",
    "cos",
    "exp",
    "expand_dims",
    "isfinite",
    "log",
    "log_softmax",
    "logsumexp",
    "matmul",
    "maximum",
    "mean",
    "minimum",
    "ones",
    "ones_like",
    "pow",
    "relu",
    "reshape",
    "sigmoid",
    "sin",
    "softmax",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "sum",
    "tanh",
    "transpose",
    "where",
    "zeros",
    "zeros_like",
    *_FUNCTIONAL,
]
