"""A Module's full backward hooks and backward pre-hooks, as PyTorch runs them: forward's inputs
and outputs pass through an identity autograd.Function whose backward calls the hooks.

Layer L5: imports tensor.py, _state and tg.autograd.Function. The identity on the outputs sees
grad_output first (the pre-hooks may replace it); the identity on the inputs sees grad_input
once every use inside forward has added its share, and hands it to the hooks (which may replace
it). When no input needs a gradient, the hooks run at the outputs with grad_input all None.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .._state import state
from ..autograd.function import Function, FunctionCtx
from ..tensor import Tensor


class BackwardHookFunction(Function):
    """The identity on a module's tensors; its backward hands the gradients to a BackwardHook."""

    generate_vmap_rule = True  # (it passes tensors through: batched ones too, inside vmap)

    @staticmethod
    def forward(ctx: FunctionCtx, hook: "BackwardHook", side: str, *tensors: Tensor) -> tuple:
        ctx.hook, ctx.side = hook, side  # type: ignore[attr-defined]
        ctx.set_materialize_grads(False)  # (the hooks see None where no gradient came, as torch)
        return tensors

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> tuple:
        hook: BackwardHook = ctx.hook
        run = hook.at_inputs if ctx.side == "inputs" else hook.at_outputs
        return (None, None, *run(grads))


def _pack(index: list[int], values: tuple, size: int) -> tuple:
    """values placed at `index` in a tuple of `size`, None elsewhere (non-tensors, no grad)."""
    packed: list = [None] * size
    for i, v in zip(index, values):
        packed[i] = v
    return tuple(packed)


class BackwardHook:
    """One call of a module with backward hooks: links the gradients its outputs get with those
    its inputs get, and calls the hooks with both."""

    def __init__(self, module: Any, hooks: list[Callable], pre_hooks: list[Callable]) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = self.n_outputs = 0
        self.input_index: list[int] | None = None  # positions of inputs needing a gradient
        self.frozen_inputs: dict[int, tuple] = {}  # other tensor inputs' (shape, dtype): zeros
        self.output_index: list[int] | None = None

    def _wrap(self, values: tuple, side: str) -> tuple[tuple, list[int] | None]:
        """values with each tensor that needs a gradient replaced by its identity's output."""
        index = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
        if not index or not state.enabled:
            return values, None
        made = BackwardHookFunction.apply(self, side, *(values[i] for i in index))
        replaced = list(values)
        for i, t in zip(index, made):
            replaced[i] = t
        return (tuple(replaced) if type(values) is tuple else type(values)(*replaced)), index

    def setup_inputs(self, args: tuple) -> tuple:
        """forward's positional inputs, through the identity (keyword inputs are not hooked)."""
        self.n_inputs = len(args)
        wrapped, self.input_index = self._wrap(args, "inputs")
        if self.input_index is not None:  # (as torch: tensors needing no gradient get zeros)
            self.frozen_inputs = {
                i: (a.shape, a.dtype)
                for i, a in enumerate(args)
                if isinstance(a, Tensor) and i not in self.input_index
            }
        return wrapped

    def setup_outputs(self, result: Any) -> Any:
        """forward's result (a Tensor or a tuple), through the identity."""
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn(
                f"{type(self.module).__name__} returned a {type(result).__name__}: backward hooks "
                f"are called only for a module whose output is a Tensor or a tuple of Tensors",
                UserWarning,
                stacklevel=4,
            )
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        self.n_outputs = len(outputs)
        wrapped, self.output_index = self._wrap(outputs, "outputs")
        return wrapped[0] if single else wrapped

    def at_outputs(self, grads: tuple) -> tuple:
        """(backward) the outputs' gradients arrive: run the pre-hooks; with no input needing a
        gradient, the hooks too."""
        index = self.output_index or []  # (set when the identity was recorded)
        self.grad_outputs = _pack(index, grads, self.n_outputs)
        for pre_hook in self.pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if not isinstance(replaced, (tuple, list)) or len(replaced) != self.n_outputs:
                got = len(replaced) if isinstance(replaced, (tuple, list)) else 1
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got {got}, but "
                    f"expected {self.n_outputs} (one entry per output of "
                    f"{type(self.module).__name__}, None for those without a gradient)"
                )
            self.grad_outputs = tuple(replaced)
        grad_outputs = self.grad_outputs
        if self.input_index is None:
            self._hooks_without_input_grads()
        return tuple(grad_outputs[i] for i in index)

    def _hooks_without_input_grads(self) -> None:
        """No input of the module needs a gradient: the hooks run now, with grad_input all None."""
        warnings.warn(  # (as torch: also when only pre-hooks are registered)
            f"the full backward hooks of {type(self.module).__name__} run when the gradients of "
            f"its outputs are computed, since none of its inputs requires a gradient (grad_input "
            f"is all None)",
            UserWarning,
            stacklevel=2,
        )
        grad_inputs = (None,) * self.n_inputs
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None and not (
                isinstance(result, tuple) and all(r is None for r in result)
            ):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient should always "
                    "return None or None for all gradients."
                )
        self.grad_outputs = None

    def at_inputs(self, grads: tuple) -> tuple:
        """(backward) the inputs' gradients are complete: run the hooks, which may replace them."""
        index = self.input_index or []  # (set when the identity was recorded)
        if self.grad_outputs is None:  # reached without passing through the outputs (as torch:
            return grads  # e.g. a double backward): no hook runs
        grad_inputs = _pack(index, grads, self.n_inputs)
        if self.frozen_inputs:
            filled = list(grad_inputs)
            for i, (shape, dtype) in self.frozen_inputs.items():
                filled[i] = Tensor(np.zeros(shape, dtype))
            grad_inputs = tuple(filled)
        for hook in self.hooks:
            replaced = hook(self.module, grad_inputs, self.grad_outputs)
            if replaced is None:
                continue
            if not isinstance(replaced, (tuple, list)) or len(replaced) != self.n_inputs:
                got = len(replaced) if isinstance(replaced, (tuple, list)) else 1
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {got}, but "
                    f"expected {self.n_inputs} (one entry per positional input of "
                    f"{type(self.module).__name__}, None for non-tensors)"
                )
            grad_inputs = tuple(replaced)
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in index)
