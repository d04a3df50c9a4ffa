"""Divergence and likelihood losses as functions (PyTorch's F. spellings): kl_div,
poisson_nll_loss and gaussian_nll_loss.

Layer L5: tapegrad ops only (functional_loss.py's reductions and target checks), each result
marked (`mark`) for the teaching tools (rules: primitives/composite_margins.py).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..math import where
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_loss import _checked_target, _reduce, reduction_mode


def kl_div(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """target * (log(target) - input) pointwise (0 where target = 0), input holding
    log-probabilities; log_target=True takes target as log-probabilities too. reduction
    'batchmean' divides the sum by the batch size (the KL divergence); 'mean' divides by every
    element, with PyTorch's warning.

    >>> F.kl_div(tg.tensor([-1.0]), tg.tensor([0.5]), reduction="sum")
    tensor(0.1534)
    """
    batchmean = reduction == "batchmean" and size_average is None and reduce is None
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    mode = reduction_mode(size_average, reduce, "sum" if batchmean else reduction)
    x, y = _checked_target(input, target, "kl_div", stacklevel=3)
    if log_target:
        losses = y.exp() * (y - x)
    else:
        zero = y.numpy() == 0
        # (y log y: 0 at y = 0, where the log reads a safe 1, so no 0 * inf in backward; NaN
        # for a negative target, as PyTorch's xlogy)
        with np.errstate(invalid="ignore"):
            losses = where(zero, 0.0, y * where(zero, 1.0, y).log()) - y * x
    out = _reduce(losses, mode)
    if batchmean and x.ndim:
        out = out / float(x.shape[0])
    params = {"reduction": reduction, "N": losses._data.size, "log_target": log_target}
    params["batch"] = x.shape[0] if x.ndim else 1
    return mark(out, "kl_div", ("x", "y"), (input, y), params)


def poisson_nll_loss(
    input: Tensor,
    target: Any,
    log_input: bool = True,
    full: bool = False,
    size_average: Any = None,
    eps: float = 1e-8,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """exp(input) - target * input (log_input=True: input is the log of the rate), else
    input - target * log(input + eps); full=True adds Stirling's term target log target - target
    + log(2 pi target) / 2 where target > 1.

    >>> F.poisson_nll_loss(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(1.)
    """
    reduction = reduction_mode(size_average, reduce, reduction)
    x, y = _checked_target(input, target, "poisson_nll_loss", stacklevel=3)
    losses = x.exp() - y * x if log_input else x - y * (x + eps).log()
    if full:
        counted = y.numpy() > 1
        safe = where(counted, y, 1.0)  # (the term's logs on a safe 1 where it is not counted)
        stirling = safe * safe.log() - safe + 0.5 * (safe * (2 * math.pi)).log()
        losses = losses + where(counted, stirling, 0.0)
    params = {"reduction": reduction, "N": losses._data.size, "log_input": log_input}
    params.update(full=full, eps=eps)
    return mark(_reduce(losses, reduction), "poisson_nll_loss", ("x", "y"), (input, y), params)


def gaussian_nll_loss(
    input: Tensor,
    target: Any,
    var: Any,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """(log(var) + (input - target)^2 / var) / 2 (+ log(2 pi) / 2 with full=True), var clamped
    below at eps for the value only (its gradient passes, as PyTorch's). var has input's shape,
    or one axis of size 1 (or the last one missing): one variance shared along it.

    >>> F.gaussian_nll_loss(tg.tensor([1.0]), tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.5000)
    """
    x, y = _checked_target(input, target, "gaussian_nll_loss", stacklevel=3)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        v = Tensor(np.full(x.shape, var, x.dtype))
    elif isinstance(var, Tensor):
        if (var.numpy() < 0).any():
            raise ValueError("var has negative entry/entries")
        v = var
    else:
        raise TypeError(f"gaussian_nll_loss: var must be a Tensor or a float, got {type(var)}")
    if v.shape != x.shape:
        if x.shape[:-1] == v.shape:
            v = v.unsqueeze(-1)  # (one variance per sample, shared by its last axis)
        elif not (x.ndim == v.ndim and sum(b for a, b in zip(x.shape, v.shape) if a != b) == 1):
            raise ValueError(
                f"var is of incorrect size: {v.shape} for input of shape {x.shape} (give the "
                f"input's shape, or one axis of size 1)"
            )
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not valid")
    values = v.numpy()
    clamped = v + (np.maximum(values, eps) - values)  # (a constant shift: the value's clamp)
    diff = x - y
    losses = 0.5 * (clamped.log() + diff * diff / clamped)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    params = {"reduction": reduction, "N": losses._data.size, "full": full}
    out = _reduce(losses, reduction)
    return mark(out, "gaussian_nll_loss", ("x", "y", "var"), (input, y, var), params)
