"""One ModuleInfo entry on PyTorch's module inputs: outputs, state and gradients after copying the
state dict.

Per module input (and per mode, train and eval, where PyTorch says they differ): PyTorch's module
is made from the input's constructor arguments and moved to float64; tapegrad's is made from the
same arguments (translated), moved to float64 with `.to(tg.float64)` and loaded with PyTorch's state
dict as NumPy arrays. Then the forward's result, the state after the forward (running statistics),
and the gradients of the outputs with a random cotangent, for the inputs and every parameter (by
name), must agree.
"""

from __future__ import annotations

import warnings
import zlib
from typing import Any

import numpy as np
import torch

import tapegrad as tg

from .mapping import module_class
from .run_ops import describe_values, tensors
from .translate import MissingName, Translator, cotangent
from .verdicts import PASSED, Outcome, Refused, Tally, compare, compare_arrays, tapegrad_side


def _state(module: Any) -> dict[str, np.ndarray]:
    return {
        k: np.asarray(v.numpy(force=True) if isinstance(v, torch.Tensor) else v.numpy())
        for k, v in module.state_dict().items()
    }


def run_module_input(info: Any, module_input: Any, training: bool, seed: int) -> Outcome:
    """One module input: construct, copy the state, forward, compare, differentiate, compare."""
    ours = module_class(info)
    made, forward = module_input.constructor_input, module_input.forward_input
    torch.manual_seed(seed % 2**31)
    t_module = info.module_cls(*made.args, **made.kwargs).to(torch.float64)
    t_module.train(training)
    if getattr(t_module, "has_uninitialized_params", lambda: False)():
        # a lazy layer: PyTorch's takes its shapes from the input (without running forward) so
        # that its state can be copied; tapegrad's lazy layer is then loaded with that state
        t_module._infer_parameters(t_module, forward.args, forward.kwargs)
    translate = Translator()
    try:
        args, kwargs = translate((made.args, made.kwargs))
        g_module = tapegrad_side(lambda: ours(*args, **kwargs))
        tapegrad_side(lambda: g_module.to(tg.float64))
        state = _state(t_module)
        tapegrad_side(lambda: g_module.load_state_dict(state))
        tapegrad_side(lambda: g_module.train(training))
        g_args, g_kwargs = translate((forward.args, forward.kwargs))
        got = tapegrad_side(lambda: g_module(*g_args, **g_kwargs))
    except MissingName as missing:
        return Outcome("refused", f"missing name: {missing.name}")
    except Refused as refused:
        return refused.outcome
    expected = t_module(*forward.args, **forward.kwargs)
    found = compare(expected, got)
    if found.verdict != "passed":
        return found
    found = _compare_states(_state(t_module), tapegrad_side(lambda: _state(g_module)))
    if found.verdict != "passed":
        return found
    try:
        return _gradients(t_module, g_module, (expected, got), translate, seed)
    except Refused as refused:
        return refused.outcome


def _compare_states(expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> Outcome:
    if set(expected) != set(got):
        return Outcome(
            "mismatch", "state", f"state_dict keys {sorted(expected)} expected, got {sorted(got)}"
        )
    for key, value in expected.items():
        found = compare_arrays(value, got[key], what="state")
        if found.verdict != "passed":
            found.detail = f"{key} after the forward: {found.detail}"
            return found
    return PASSED


def _gradients(
    t_module: Any, g_module: Any, results: tuple[Any, Any], translate: Translator, seed: int
) -> Outcome:
    expected, got = results
    outputs = [
        (t, g)
        for t, g in zip(tensors(expected), tensors(got))
        if t.requires_grad and t.dtype.is_floating_point
    ]
    t_params = dict(t_module.named_parameters())
    g_params = dict(tapegrad_side(lambda: g_module.named_parameters()))
    if set(t_params) != set(g_params):
        return Outcome(
            "mismatch", "parameters", f"{sorted(t_params)} expected, got {sorted(g_params)}"
        )
    names = [n for n, p in t_params.items() if p.requires_grad]
    pairs = translate.differentiable() + [(t_params[n], g_params[n]) for n in names]
    if not outputs or not pairs:
        return PASSED
    for _, g in outputs:
        if not getattr(g, "requires_grad", False):
            return Outcome("mismatch", "gradient", "the output is not on the tape (no grad_fn)")
    rng = np.random.default_rng(seed)
    vs = [cotangent(t, rng) for t, _ in outputs]
    t_grads = torch.autograd.grad(
        [t for t, _ in outputs],
        [t for t, _ in pairs],
        [torch.from_numpy(v) for v in vs],
        allow_unused=True,
    )
    g_grads = tapegrad_side(
        lambda: tg.autograd.grad(
            [g for _, g in outputs],
            [g for _, g in pairs],
            grad_outputs=[tg.tensor(v) for v in vs],
            allow_unused=True,
        )
    )
    labels = [f"input {i}" for i in range(len(pairs) - len(names))] + names
    for label, (t, _), t_grad, g_grad in zip(labels, pairs, t_grads, g_grads):
        want = np.zeros(tuple(t.shape)) if t_grad is None else t_grad.numpy(force=True)
        have = np.zeros(tuple(t.shape)) if g_grad is None else g_grad.numpy()
        found = compare_arrays(want, have, what="gradient")
        if found.verdict != "passed":
            found.detail = f"{label}: {found.detail}"
            return found
    return PASSED


def run_module(info: Any) -> Tally:
    """Every module input of `info` (float64), in train and eval mode where those differ."""
    name = info.module_cls.__name__
    tally = Tally(f"nn.{name}", "module")
    modes = (True, False) if info.train_and_eval_differ else (True,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for training in modes:
            torch.manual_seed(zlib.crc32(f"{name} {training}".encode()))  # (the same inputs)
            module_inputs = info.module_inputs_func(
                info, device="cpu", dtype=torch.float64, requires_grad=True, training=training
            )
            for index, module_input in enumerate(module_inputs):
                seed = zlib.crc32(f"{name} {training} {index}".encode())
                outcome = run_module_input(info, module_input, training, seed)
                if outcome.verdict != "passed":
                    made, forward = module_input.constructor_input, module_input.forward_input
                    outcome.detail += (
                        f" [{name}({describe_values(made.args, made.kwargs)}), "
                        f"{'train' if training else 'eval'}, "
                        f"forward({describe_values(forward.args, forward.kwargs)})]"
                    )
                tally.add(f"nn.{name}", outcome)
    return tally
