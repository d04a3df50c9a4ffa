"""Adafactor, PyTorch's exact algorithm (torch.optim.Adafactor): second moments factored into a
row and a column average for parameters of two or more dimensions (over the last two axes),
a relative step size capped by lr, decoupled weight decay and update clipping.

Layer L5: imports optim/optimizer.py and tensor. State keys and param_groups keys are PyTorch's
("step", "row_var"/"col_var" or "variance"), so a state_dict reads the same; `step` is a float,
as PyTorch's scalar tensor holds it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, hyperparameter


def lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """start += weight * (end - start) in place, in PyTorch's two-sided form (exact at weight 1).

    >>> a = np.zeros(2); lerp_(a, np.ones(2), 0.25); a
    array([0.25, 0.25])
    """
    if weight < 0.5:
        start += weight * (end - start)
    else:
        np.subtract(end, (end - start) * (1.0 - weight), out=start)


class Adafactor(Optimizer):
    """Adafactor, PyTorch's rule: G = grad (negated with maximize); t += 1; beta = t^beta2_decay;
    rho = min(lr, 1/sqrt(t)); alpha = max(eps2, RMS(p)) * rho; p *= 1 - lr*wd; for >= 2-D
    parameters R, C (the mean of G^2 over the last axis and over the one before) move toward the
    new means by beta and V = R C / max(mean(R), eps1), else V moves toward G^2 by beta;
    U = G / max(sqrt(V), eps1); p -= alpha * U / max(1, RMS(U)/d). eps1=None is the dtype's
    machine epsilon; foreach changes nothing here.

    >>> opt = tg.optim.Adafactor(net.parameters(), lr=1e-2)
    """

    _state_like_params = False  # (row_var and col_var have a 1 where the parameter has a size)

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        decay = hyperparameter("beta2_decay", group["beta2_decay"], -math.inf)
        if decay > 0:
            raise ValueError(f"beta2_decay should be <= 0 but is: {decay}")
        group["beta2_decay"] = decay
        eps = group["eps"]
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise TypeError(
                f"eps must be a pair (eps1 or None, eps2), e.g. (None, 1e-3); got {eps!r}"
            )
        eps1 = None if eps[0] is None else hyperparameter("eps[0]", eps[0], -math.inf)
        if eps1 is not None and eps1 < 0:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps1}")
        eps2 = hyperparameter("eps[1]", eps[1], -math.inf)
        if eps2 < 0:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps2}")
        group["eps"] = (eps1, eps2)
        d = hyperparameter("d", group["d"], -math.inf)
        if d < 1:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        group["d"] = d

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        lr, (eps1, eps2) = group["lr"], group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(g.dtype).eps)
        if not state:  # PyTorch's state layout
            state["step"] = 0.0
            if g.ndim > 1:
                state["row_var"] = np.zeros(g.shape[:-1] + (1,), g.dtype)
                state["col_var"] = np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], g.dtype)
            else:
                state["variance"] = np.zeros_like(g)
        t = state["step"] = state["step"] + 1.0
        beta = t ** group["beta2_decay"]
        rho = min(lr, 1 / t**0.5)
        data = p.numpy()
        alpha = max(eps2, float(np.linalg.norm(data.ravel())) / data.size**0.5) * rho
        if group["weight_decay"]:
            p.mul_(1 - lr * group["weight_decay"])
        if g.ndim > 1:
            row, col = state["row_var"], state["col_var"]
            square = g * g
            lerp_(row, np.sqrt(square.sum(axis=-1, keepdims=True)) ** 2 / g.shape[-1], beta)
            lerp_(col, np.sqrt(square.sum(axis=-2, keepdims=True)) ** 2 / g.shape[-2], beta)
            estimate = row @ col
            estimate /= np.maximum(row.mean(axis=-2, keepdims=True), eps1)
        else:
            lerp_(state["variance"], g * g, beta)
            estimate = state["variance"].copy()
        update = np.maximum(estimate, eps1 * eps1, out=estimate)  # (eps1 squared: sqrt follows)
        np.divide(1.0, np.sqrt(update, out=update), out=update)  # (PyTorch's rsqrt, then * G)
        update *= g
        denom = max(1.0, float(np.linalg.norm(update.ravel())) / (update.size**0.5 * group["d"]))
        self._descend_by(p, update, alpha / denom)


__all__ = ["Adafactor"]
