"""The optimizers, PyTorch's exact update rules: SGD, Adam, AdamW, RMSprop, Adagrad.

Layer L5: imports optim/optimizer.py and tensor. Each class is its hyperparameters plus one small
`_update` done in place: temporaries go to the optimizer's scratch arrays (NumPy `out=`), state
arrays are updated where they live, and the parameter changes through `Optimizer._descend_by`
(p -= scale * d in place, with the version bump of an in-place op; one BLAS pass with SciPy).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, betas_pair, hyperparameter


def adam_moments(g: np.ndarray, state: dict, b1: float, b2: float, work: np.ndarray) -> None:
    """m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2, in place (the moments of Adam, NAdam, RAdam).

    >>> adam_moments(g, state, 0.9, 0.999, work)  # state["exp_avg"], state["exp_avg_sq"] updated
    """
    m, v = state["exp_avg"], state["exp_avg_sq"]
    m *= b1
    m += np.multiply(g, 1 - b1, out=work)
    v *= b2
    v += np.multiply(np.square(g, out=work), 1 - b2, out=work)


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's rule:
    g += wd*p; b = g (first step) or momentum*b + (1-dampening)*g;
    g = g + momentum*b (nesterov) or b; p -= lr*g. maximize=True ascends (g is negated first);
    foreach (PyTorch's multi-tensor kernels) is accepted and changes nothing here.

    >>> opt = tg.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        dampening: float = 0.0,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                weight_decay=weight_decay,
                nesterov=nesterov,
                dampening=dampening,
                maximize=maximize,
                foreach=foreach,
            ),
        )

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["momentum"] = hyperparameter("momentum", group["momentum"])
        group["dampening"] = float(group["dampening"])
        if group["nesterov"] and (group["momentum"] == 0 or group["dampening"] != 0):
            raise ValueError("nesterov momentum needs momentum > 0 and dampening = 0")

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        momentum, decay = group["momentum"], group["weight_decay"]
        d = self._add_weight_decay(p, g, decay) if decay else g  # (plain SGD: no call)
        if momentum:
            work = self._scratch(g)
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = d.copy()
            else:
                buf *= momentum
                if group["dampening"]:
                    buf += np.multiply(d, 1 - group["dampening"], out=work)
                else:
                    buf += d
            if group["nesterov"]:  # d + momentum * buf, into slot 1 (d may already be there)
                d = np.add(d, np.multiply(buf, momentum, out=work), out=self._scratch(g, slot=1))
            else:
                d = buf
        self._descend_by(p, d, group["lr"])


class Adam(Optimizer):
    """Adam, PyTorch's rule (weight_decay is L2, added to the gradient):
    m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2;
    p -= lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps).
    amsgrad=True: v_max = max(v_max, v) replaces v in the last line (PyTorch's AMSGrad);
    maximize=True ascends (g is negated first); foreach is accepted and changes nothing here.

    >>> opt = tg.optim.Adam(net.parameters(), lr=1e-3)
    """

    decoupled = False  # AdamW: decay the weights directly instead of through the gradient

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["betas"] = betas_pair("betas", group["betas"])
        group["eps"] = hyperparameter("eps", group["eps"])
        group["amsgrad"] = bool(group["amsgrad"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        (b1, b2), lr = group["betas"], group["lr"]
        g = self._decay(p, g, group, self.decoupled)
        if not state:
            state.update(step=0, exp_avg=np.zeros_like(g), exp_avg_sq=np.zeros_like(g))
        state["step"] += 1
        t, m, v, work = state["step"], state["exp_avg"], state["exp_avg_sq"], self._scratch(g)
        adam_moments(g, state, b1, b2, work)
        if group["amsgrad"]:  # the largest second moment so far, bias-corrected as v would be
            v_max = state.get("max_exp_avg_sq")
            if v_max is None:  # (PyTorch's state name)
                v_max = state["max_exp_avg_sq"] = np.zeros_like(g)
            v = np.maximum(v_max, v, out=v_max)
        # Bias correction (m and v start at 0) folded into two scalars, which saves a pass:
        # lr/c1 * m / (sqrt(v)/sqrt(c2) + eps) == lr*sqrt(c2)/c1 * m / (sqrt(v) + eps*sqrt(c2)).
        root_c2 = math.sqrt(1 - b2**t)
        denom = np.sqrt(v, out=work)
        denom += group["eps"] * root_c2
        self._descend_by(p, np.divide(m, denom, out=work), lr * root_c2 / (1 - b1**t))


class AdamW(Adam):
    """Adam with decoupled weight decay (PyTorch's AdamW): p *= 1 - lr*wd, then the Adam step.

    >>> opt = tg.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-2)
    """

    decoupled = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        super().__init__(
            params,
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            foreach=foreach,
            maximize=maximize,
        )


class RMSprop(Optimizer):
    """RMSprop, PyTorch's rule: g += wd*p; v = alpha*v + (1-alpha)*g^2; centered: a = alpha*a +
    (1-alpha)*g and v - a^2 replaces v; d = g / (sqrt(v) + eps); with momentum b = momentum*b + d,
    p -= lr*b, else p -= lr*d. maximize=True ascends (g is negated first); foreach (PyTorch's
    multi-tensor kernels) is accepted and changes nothing here.

    >>> opt = tg.optim.RMSprop(net.parameters(), lr=1e-2, momentum=0.9)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            alpha=alpha,
            eps=eps,
            weight_decay=weight_decay,
            momentum=momentum,
            centered=centered,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        for name in ("alpha", "eps", "momentum"):
            group[name] = hyperparameter(name, group[name])
        group["centered"] = bool(group["centered"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        alpha, momentum, work = group["alpha"], group["momentum"], self._scratch(g)
        g = self._add_weight_decay(p, g, group["weight_decay"])
        if not state:  # PyTorch's state layout
            state.update(step=0, square_avg=np.zeros_like(g))
            if momentum > 0:
                state["momentum_buffer"] = np.zeros_like(g)
            if group["centered"]:
                state["grad_avg"] = np.zeros_like(g)
        state["step"] += 1
        v = state["square_avg"]
        v *= alpha
        v += np.multiply(np.square(g, out=work), 1 - alpha, out=work)
        if group["centered"]:  # the variance of g, not its second moment
            a = state["grad_avg"]
            a += np.multiply(np.subtract(g, a, out=work), 1 - alpha, out=work)
            avg = np.sqrt(np.subtract(v, np.square(a, out=work), out=work), out=work)
        else:
            avg = np.sqrt(v, out=work)
        avg += group["eps"]
        d = np.divide(g, avg, out=work)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf *= momentum
            buf += d
            d = buf
        self._descend_by(p, d, group["lr"])


class Adagrad(Optimizer):
    """Adagrad, PyTorch's rule: g += wd*p; s += g^2;
    p -= lr / (1 + (t-1)*lr_decay) * g / (sqrt(s) + eps); s starts at initial_accumulator_value.
    maximize=True ascends (g is negated first); foreach is accepted and changes nothing here.

    >>> opt = tg.optim.Adagrad(net.parameters(), lr=1e-2)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:  # PyTorch fills the state at construction
            for p in group["params"]:
                self._initial_state(p.numpy(), group, self.state.setdefault(p, {}))

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        for name in ("lr_decay", "initial_accumulator_value", "eps"):
            group[name] = hyperparameter(name, group[name])

    @staticmethod
    def _initial_state(like: np.ndarray, group: dict, state: dict) -> None:
        state.update(step=0, sum=np.full_like(like, group["initial_accumulator_value"]))

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        work = self._scratch(g)
        g = self._add_weight_decay(p, g, group["weight_decay"])
        if not state:  # a parameter group added after construction
            self._initial_state(g, group, state)
        state["step"] += 1
        lr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        s = state["sum"]
        s += np.square(g, out=work)
        std = np.sqrt(s, out=work)
        std += group["eps"]
        self._descend_by(p, np.divide(g, std, out=work), lr)


__all__ = ["Adagrad", "Adam", "AdamW", "RMSprop", "SGD"]
