"""Adam's relatives, PyTorch's exact update rules: NAdam, RAdam, Adamax (and SparseAdam's
constructor: tapegrad has no sparse gradients for it to step with).

Layer L5: imports optim/optimizer.py and tensor. Each class is its hyperparameters plus one
`_update` done in place, as in algorithms.py (temporaries in the optimizer's scratch arrays, the
parameter written through `Optimizer._descend_by`). State keys and param_groups keys are
PyTorch's, so a state_dict reads the same; `step` is an int (PyTorch: a scalar tensor).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from .algorithms import adam_moments
from .optimizer import Optimizer, betas_pair, hyperparameter


class _AdamFamily(Optimizer):
    """Shared constructor checks of NAdam, RAdam and Adamax (betas, eps, the flags)."""

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["betas"] = betas_pair("betas", group["betas"])
        group["eps"] = hyperparameter("eps", group["eps"])
        if "decoupled_weight_decay" in group:
            group["decoupled_weight_decay"] = bool(group["decoupled_weight_decay"])


class NAdam(_AdamFamily):
    """NAdam (Adam with Nesterov momentum), PyTorch's rule: g += wd*p (or p *= 1 - lr*wd with
    decoupled_weight_decay); mu_t = b1*(1 - 0.5*0.96^(t*momentum_decay)), P_t = prod mu_1..mu_t;
    m, v as Adam; p -= lr*(1-mu_t)/(1-P_t) * g/d + lr*mu_{t+1}/(1-P_t*mu_{t+1}) * m/d with
    d = sqrt(v/(1-b2^t)) + eps. maximize=True ascends; foreach and capturable change nothing here.

    >>> opt = tg.optim.NAdam(net.parameters(), lr=2e-3)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["momentum_decay"] = hyperparameter("momentum_decay", group["momentum_decay"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        (b1, b2), lr, psi = group["betas"], group["lr"], group["momentum_decay"]
        g = self._decay(p, g, group, group["decoupled_weight_decay"])
        if not state:  # PyTorch's state layout
            state.update(
                step=0, mu_product=1.0, exp_avg=np.zeros_like(g), exp_avg_sq=np.zeros_like(g)
            )
        state["step"] += 1
        t = state["step"]
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        # PyTorch keeps the running product in a float32 scalar tensor: rounding it the same way
        # keeps the trajectories equal (the difference is ~1e-7 relative per step otherwise).
        product = state["mu_product"] = float(np.float32(state["mu_product"]) * np.float32(mu))
        work, denom = self._scratch(g), self._scratch(g, slot=2)
        adam_moments(g, state, b1, b2, work)
        np.sqrt(np.divide(state["exp_avg_sq"], 1 - b2**t, out=denom), out=denom)
        denom += group["eps"]
        self._descend_by(p, np.divide(g, denom, out=work), lr * (1.0 - mu) / (1.0 - product))
        step = lr * mu_next / (1.0 - product * mu_next)
        self._descend_by(p, np.divide(state["exp_avg"], denom, out=work), step)


class RAdam(_AdamFamily):
    """RAdam (rectified Adam), PyTorch's rule: g += wd*p (or p *= 1 - lr*wd with
    decoupled_weight_decay); m, v as Adam; rho_inf = 2/(1-b2) - 1,
    rho_t = rho_inf - 2t*b2^t/(1-b2^t); while rho_t <= 5, p -= lr * m/(1-b1^t) (plain momentum),
    then p -= lr * m/(1-b1^t) * r_t * sqrt(1-b2^t)/(sqrt(v) + eps) with the rectification
    r_t = sqrt((rho_t-4)(rho_t-2)rho_inf / ((rho_inf-4)(rho_inf-2)rho_t)).
    maximize=True ascends; foreach and capturable change nothing here.

    >>> opt = tg.optim.RAdam(net.parameters(), lr=1e-3)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        (b1, b2), lr = group["betas"], group["lr"]
        g = self._decay(p, g, group, group["decoupled_weight_decay"])
        if not state:  # PyTorch's state layout
            state.update(step=0, exp_avg=np.zeros_like(g), exp_avg_sq=np.zeros_like(g))
        state["step"] += 1
        t, work = state["step"], self._scratch(g)
        adam_moments(g, state, b1, b2, work)
        c1, c2 = 1 - b1**t, 1 - b2**t
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2**t / c2
        if rho_t <= 5.0:  # the variance estimate is not yet trustworthy: momentum SGD
            self._descend_by(p, state["exp_avg"], lr / c1)
            return
        rect = math.sqrt(
            (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
        )
        denom = np.sqrt(state["exp_avg_sq"], out=work)
        denom += group["eps"]
        d = np.divide(state["exp_avg"], denom, out=work)
        self._descend_by(p, d, lr / c1 * math.sqrt(c2) * rect)


class Adamax(_AdamFamily):
    """Adamax (Adam with an infinity norm), PyTorch's rule: g += wd*p; m = b1*m + (1-b1)*g;
    u = max(b2*u, |g| + eps); p -= lr/(1-b1^t) * m/u. maximize=True ascends; foreach and
    capturable change nothing here.

    >>> opt = tg.optim.Adamax(net.parameters(), lr=2e-3)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        (b1, b2), work = group["betas"], self._scratch(g)
        g = self._add_weight_decay(p, g, group["weight_decay"])
        if not state:  # PyTorch's state layout
            state.update(step=0, exp_avg=np.zeros_like(g), exp_inf=np.zeros_like(g))
        state["step"] += 1
        m, u = state["exp_avg"], state["exp_inf"]
        m *= b1
        m += np.multiply(g, 1 - b1, out=work)
        u *= b2
        norm = np.abs(g, out=work)
        norm += group["eps"]
        np.maximum(u, norm, out=u)
        self._descend_by(p, np.divide(m, u, out=work), group["lr"] / (1 - b1 ** state["step"]))


class SparseAdam(_AdamFamily):
    """PyTorch's SparseAdam signature and checks (lr > 0, eps > 0, betas in [0, 1)). Its step
    needs sparse gradients, which tapegrad does not make: a step with any gradient is a
    RuntimeError, as PyTorch's with a dense one (use Adam).

    >>> opt = tg.optim.SparseAdam(emb.parameters(), lr=1e-3)  # step() raises: use Adam
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        for name in ("lr", "eps"):  # (strictly positive here, as PyTorch checks them)
            if group[name] <= 0:
                raise ValueError(f"invalid {name}: {group[name]} (it must be > 0)")

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        raise RuntimeError(
            "SparseAdam steps only with sparse gradients, and tapegrad's gradients are dense "
            "(it has no sparse tensors); use tg.optim.Adam instead"
        )


__all__ = ["Adamax", "NAdam", "RAdam", "SparseAdam"]
