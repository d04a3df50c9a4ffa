"""One OptimizerInfo entry: 20-step trajectories for each of PyTorch's configurations, without a
scheduler and with each scheduler (or chain of them) PyTorch pairs the optimizer with.

Both sides start from the same float64 weight and bias and minimise the same small loss,
sum(tanh(W x + b)^2) + 0.1 sum(W^2); every parameter must agree after every step. A scheduler
steps after the optimizer, ReduceLROnPlateau with the loss, as PyTorch's tests do.
"""

from __future__ import annotations

import warnings
import zlib
from typing import Any

import numpy as np
import torch

import tapegrad as tg

from .mapping import optimizer_class, scheduler_as_tapegrad
from .translate import MissingName, Translator
from .verdicts import (
    PASSED,
    Outcome,
    Refused,
    Tally,
    classify,
    compare_arrays,
    tapegrad_side,
)

STEPS = 20
# Optimizers of matrices only (PyTorch's Muon refuses other parameters): their runs give the bias
# and the input a column axis, so that every parameter is 2-D (W x + b is then a column).
MATRICES_ONLY = {"Muon"}


def _loss(w: Any, b: Any, x: Any) -> Any:
    y = (w @ x + b).tanh()
    return (y * y).sum() + 0.1 * (w * w).sum()


def _plateau(scheduler: Any) -> bool:
    return type(scheduler).__name__ == "ReduceLROnPlateau"


def run_trajectory(info: Any, optim_input: Any, schedulers: list[Any], seed: int) -> Outcome:
    """One configuration with one list of schedulers, STEPS steps on both sides."""
    rng = np.random.default_rng(seed)
    start = [rng.standard_normal((4, 3)), rng.standard_normal(4)]
    x = rng.standard_normal(3)
    if info.optim_cls.__name__ in MATRICES_ONLY:
        start[1], x = start[1][:, None], x[:, None]
    t_params = [torch.tensor(a, requires_grad=True) for a in start]
    # (a tensor lr is changed in place by PyTorch's schedulers: each run gets its own copy, and
    # tapegrad's is taken before PyTorch's schedulers first scale it)
    t_kwargs = {
        k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in optim_input.kwargs.items()
    }
    t_opt = info.optim_cls(t_params, **t_kwargs)
    try:
        kwargs = Translator()(t_kwargs)
    except MissingName as missing:
        return Outcome("refused", f"missing name: {missing.name}")
    t_schedulers = [make(t_opt) for make in schedulers]
    try:
        g_params = [tg.tensor(a, requires_grad=True) for a in start]
        g_opt = tapegrad_side(lambda: optimizer_class(info)(g_params, **kwargs))
        g_schedulers = [
            tapegrad_side(lambda: scheduler_as_tapegrad(make)(g_opt)) for make in schedulers
        ]
        for step in range(STEPS):
            try:
                t_value = _step(t_opt, t_schedulers, t_params, torch.from_numpy(x))
            except RuntimeError as refusal:  # (SparseAdam with dense gradients): refuse too
                return _both_refuse(
                    refusal, lambda: _step(g_opt, g_schedulers, g_params, tg.tensor(x))
                )
            g_value = tapegrad_side(lambda: _step(g_opt, g_schedulers, g_params, tg.tensor(x)))
            for i, (t, g) in enumerate(zip(t_params, g_params)):
                found = compare_arrays(t.numpy(force=True), g.numpy(), what="trajectory")
                if found.verdict != "passed":
                    found.detail = (
                        f"after step {step + 1} (loss {t_value:.6g} vs {g_value:.6g}),"
                        f" parameter {i}: {found.detail}"
                    )
                    return found
    except MissingName as missing:
        return Outcome("refused", f"missing name: {missing.name}")
    except Refused as refused:
        return refused.outcome
    return PASSED


def _both_refuse(refusal: RuntimeError, tapegrad_step: Any) -> Outcome:
    """PyTorch refused to step: tapegrad must refuse with a clear error, not step silently."""
    try:
        tapegrad_step()
    except Exception as error:
        outcome = classify(error)
        return PASSED if outcome.verdict == "refused" else outcome
    return Outcome("mismatch", "error", f"PyTorch raised {refusal!r}; tapegrad stepped")


def _step(opt: Any, schedulers: list[Any], params: list[Any], x: Any) -> float:
    def closure() -> Any:
        opt.zero_grad()
        value = _loss(params[0], params[1], x)
        value.backward()
        return value

    if type(opt).__name__ == "LBFGS":  # (it evaluates the loss several times: closure only)
        loss = opt.step(closure)
    else:
        loss = closure()
        opt.step()
    for scheduler in schedulers:
        if _plateau(scheduler):
            scheduler.step(loss.item())
        else:
            scheduler.step()
    return float(loss.item())


def run_optimizer(info: Any) -> Tally:
    """Every configuration of `info`, with no scheduler and with each of PyTorch's."""
    name = info.optim_cls.__name__
    tally = Tally(f"optim.{name}", "optimizer")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for optim_input in info.optim_inputs_func(device="cpu", dtype=torch.float64):
            if optim_input.params is not None:  # (param groups: not translated yet)
                tally.add(name, Outcome("unclear", "harness: param groups are not translated"))
                continue
            for schedulers in [[], *info.scheduler_inputs]:
                label = ", ".join(_scheduler_name(s) for s in schedulers) or "no scheduler"
                seed = zlib.crc32(f"{name} {optim_input.desc} {label}".encode())
                outcome = run_trajectory(info, optim_input, list(schedulers), seed)
                if outcome.verdict != "passed":
                    outcome.detail += f" [{name}({optim_input.kwargs}), {label}]"
                tally.add(f"optim.{name}", outcome)
    return tally


def _scheduler_name(make: Any) -> str:
    names = [n for n in make.__code__.co_names if hasattr(torch.optim.lr_scheduler, n)]
    return names[0] if names else "scheduler"
