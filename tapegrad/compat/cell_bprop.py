"""A Cell's own backward, MindSpore style: `def bprop(self, *inputs, out, dout)` replaces the tape.

Layer L5: imports tensor.py and tg.autograd.Function only. Module.__call__ sends a Cell that
defines `bprop` here: its construct/forward runs off the tape inside one autograd.Function whose
backward calls the Cell's bprop, so the gradient that flows to the inputs is bprop's, never the
tape's (and parameters used inside the Cell get no gradient through it, as in MindSpore).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..autograd.function import Function
from ..tensor import Tensor


def _as_tensors(value: Any) -> Any:
    return tuple(value) if isinstance(value, (tuple, list)) else value


class CellBprop(Function):
    """Runs `cell` forward without recording, and `cell.bprop(*inputs, out, dout)` backward."""

    @staticmethod
    def forward(ctx: Any, cell: Any, *inputs: Any) -> Any:
        out = cell.forward(*inputs)
        ctx.cell, ctx.inputs, ctx.out = cell, inputs, out
        return out

    @staticmethod
    def backward(ctx: Any, *douts: Any) -> tuple:
        cell, inputs = ctx.cell, ctx.inputs
        dout = douts[0] if len(douts) == 1 else tuple(douts)  # a tuple output gets a tuple dout
        grads = cell.bprop(*inputs, _as_tensors(ctx.out), dout)
        name = type(cell).__name__
        if isinstance(grads, Tensor) and len(inputs) == 1:
            grads = (grads,)
        if not isinstance(grads, (tuple, list)) or len(grads) != len(inputs):
            got = len(grads) if isinstance(grads, (tuple, list)) else f"a {type(grads).__name__}"
            example = ", ".join(f"d{i}" for i in range(len(inputs))) + (
                "," if len(inputs) == 1 else ""
            )
            raise RuntimeError(
                f"{name}.bprop returned {got} gradient(s), but {name} was called with "
                f"{len(inputs)} input(s): return a tuple with one gradient per input, in "
                f"order: return ({example})"
            )
        fixed = []
        for i, (g, x) in enumerate(zip(grads, inputs)):
            if isinstance(g, Tensor) and isinstance(x, Tensor) and g.shape != x.shape:
                raise RuntimeError(
                    f"{name}.bprop returned a gradient of shape {list(g.shape)} for input {i}, "
                    f"which has shape {list(x.shape)}; each gradient must have its input's shape"
                )
            fixed.append(g if isinstance(x, Tensor) else None)
        return (None, *fixed)


def call_with_bprop(cell: Any, args: tuple, kwargs: dict) -> Any:
    """`cell(*args, **kwargs)` for a Cell that defines bprop (keyword inputs bound by position)."""
    if kwargs:
        target = cell.construct if hasattr(cell, "construct") else cell.forward
        bound = inspect.signature(target).bind(*args, **kwargs)
        args = tuple(bound.arguments.values())
    return CellBprop.apply(cell, *args)
