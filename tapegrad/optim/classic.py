"""The older optimizers, PyTorch's exact update rules: Adadelta, Rprop, ASGD.

Layer L5: imports optim/optimizer.py and tensor. Each class is its hyperparameters plus one
`_update` done in place, as in algorithms.py. State keys and param_groups keys are PyTorch's;
`step` is an int (PyTorch: a scalar tensor).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, hyperparameter


class Adadelta(Optimizer):
    """Adadelta, PyTorch's rule: g += wd*p; v = rho*v + (1-rho)*g^2;
    d = sqrt(u + eps)/sqrt(v + eps) * g; u = rho*u + (1-rho)*d^2; p -= lr*d.
    maximize=True ascends; foreach and capturable change nothing here.

    >>> opt = tg.optim.Adadelta(net.parameters(), lr=1.0, rho=0.9)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        rho = group["rho"] = hyperparameter("rho", group["rho"])
        if rho > 1:  # (rho = 1 is allowed, as PyTorch: the averages then never change)
            raise ValueError(f"invalid rho: {rho} (it must be in [0, 1])")
        group["eps"] = hyperparameter("eps", group["eps"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        rho, eps, work = group["rho"], group["eps"], self._scratch(g)
        g = self._add_weight_decay(p, g, group["weight_decay"])
        if not state:  # PyTorch's state layout
            state.update(step=0, square_avg=np.zeros_like(g), acc_delta=np.zeros_like(g))
        state["step"] += 1
        v, u = state["square_avg"], state["acc_delta"]
        v *= rho
        v += np.multiply(np.square(g, out=work), 1 - rho, out=work)
        std = np.sqrt(np.add(v, eps, out=work), out=work)
        delta = self._scratch(g, slot=2)
        np.sqrt(np.add(u, eps, out=delta), out=delta)
        delta /= std
        delta *= g
        u *= rho
        u += np.multiply(np.square(delta, out=work), 1 - rho, out=work)
        self._descend_by(p, delta, group["lr"])


class Rprop(Optimizer):
    """Rprop (resilient backpropagation), PyTorch's rule: per element, a step size starting at
    lr grows by etas[1] while the gradient keeps its sign and shrinks by etas[0] when it flips
    (clipped to step_sizes); p -= sign(g) * step_size, where a flip skips the move (g counts as 0,
    also for the next comparison). maximize=True ascends; foreach and capturable change nothing.

    >>> opt = tg.optim.Rprop(net.parameters(), lr=0.01, etas=(0.5, 1.2))
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        for name in ("etas", "step_sizes"):
            pair = group[name]
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"{name} must be a pair of numbers, e.g. {name}=(0.5, 1.2)")
            low, high = (hyperparameter(f"{name}[{i}]", v, -math.inf) for i, v in enumerate(pair))
            group[name] = (low, high)
        minus, plus = group["etas"]
        if not 0.0 < minus < 1.0 < plus:
            raise ValueError(
                f"invalid etas: {minus}, {plus} (they must satisfy 0 < etas[0] < 1 < etas[1]: "
                f"a step shrinks on a sign flip and grows otherwise)"
            )

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        (minus, plus), (smallest, largest) = group["etas"], group["step_sizes"]
        if not state:  # PyTorch's state layout
            state.update(step=0, prev=np.zeros_like(g), step_size=np.full_like(g, group["lr"]))
        state["step"] += 1
        prev, size = state["prev"], state["step_size"]
        agreement = np.sign(np.multiply(g, prev, out=self._scratch(g)))
        factor = np.where(agreement > 0, plus, np.where(agreement < 0, minus, 1.0))
        factor[np.isnan(agreement)] = np.nan  # (PyTorch leaves a NaN sign as it is)
        size *= factor
        np.clip(size, smallest, largest, out=size)
        np.copyto(prev, g)
        prev[factor == minus] = 0  # a sign flip: no move now, and no comparison next step
        self._descend(p, np.multiply(np.sign(prev), size, out=self._scratch(g)))


class ASGD(Optimizer):
    """Averaged SGD, PyTorch's rule: g += wd*p; p *= 1 - lambd*eta; p -= eta*g; the average
    ax += mu*(p - ax) (ax = p while mu = 1); then eta = lr/(1 + lambd*lr*t)^alpha and
    mu = 1/max(1, t - t0). maximize=True ascends; foreach and capturable change nothing here.

    >>> opt = tg.optim.ASGD(net.parameters(), lr=0.01, t0=100)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        for name in ("lambd", "alpha", "t0"):  # (PyTorch checks none of them)
            group[name] = hyperparameter(name, group[name], -math.inf)

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        lr, lambd = group["lr"], group["lambd"]
        g = self._add_weight_decay(p, g, group["weight_decay"])
        if not state:  # PyTorch's state layout (eta and mu as _single says)
            state.update(step=0, eta=_single(lr), mu=1.0, ax=np.zeros_like(g))
        state["step"] += 1
        eta = state["eta"]
        p.mul_(1 - lambd * eta)
        self._descend_by(p, g, eta)
        ax = state["ax"]
        if state["mu"] != 1:
            ax += np.multiply(np.subtract(p.numpy(), ax, out=self._scratch(g)), state["mu"])
        else:
            np.copyto(ax, p.numpy())
        t = state["step"]
        state["eta"] = _single(lr / (1 + lambd * lr * t) ** group["alpha"])
        state["mu"] = _single(1 / max(1, t - group["t0"]))


def _single(value: float) -> float:
    """`value` rounded to float32: PyTorch keeps ASGD's eta and mu in float32 scalar tensors,
    and rounding the same way keeps the trajectories equal (~1e-7 relative per step otherwise)."""
    return float(np.float32(value))


__all__ = ["ASGD", "Adadelta", "Rprop"]
