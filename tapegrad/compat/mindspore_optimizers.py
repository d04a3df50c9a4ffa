"""MindSpore's optimizers, `mindspore.nn.SGD / Momentum / Adam`: their signatures, defaults and the
update rules MindSpore's kernels run, on tapegrad's Optimizer (param groups, state, in-place steps).

Layer L5: imports optim/optimizer.py and tensor. What MindSpore does before every kernel, here in
`_gradient`: weight decay (Momentum, Adam: `g + wd*p`, skipping parameters whose name contains
"beta" or "gamma" when the parameters are not grouped; SGD: inside its kernel, on every parameter)
and the loss scale (`g * (1/loss_scale)`, after Momentum's and Adam's weight decay, before SGD's).
Sources: MindSpore's nn/optim/{optimizer,sgd,momentum,adam}.py and its SGD and Adam kernels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._state import enable_grad
from ..optim.optimizer import Optimizer, hyperparameter
from ..tensor import Tensor

# The keys MindSpore parses in a parameter group dict.
_GROUP_KEYS = {"params", "lr", "weight_decay", "grad_centralization"}


def _learning_rate(value: Any) -> float:
    """A fixed learning rate >= 0; MindSpore's dynamic ones (a list, a 1-D Tensor, a schedule)
    are refused with a pointer to what works here."""
    dynamic = isinstance(value, (list, tuple, range)) or callable(value)
    if isinstance(value, (Tensor, np.ndarray)) and np.size(value) != 1:
        dynamic = True
    if dynamic:
        raise TypeError(
            f"learning_rate must be one number here, got {type(value).__name__}: a dynamic "
            f"learning rate (a list, a 1-D Tensor or a LearningRateSchedule) is not supported; "
            f"use tg.optim.lr_scheduler on this optimizer, or set "
            f"optimizer.param_groups[i]['lr'] between steps"
        )
    return hyperparameter("learning_rate", value)


def _open_unit(name: str, value: Any) -> float:
    """A float strictly between 0 and 1 (MindSpore's check on beta1 and beta2)."""
    value = hyperparameter(name, value, 0.0, 1.0)
    if value == 0.0:
        raise ValueError(f"invalid {name}: 0.0 (it must be in (0.0, 1.0), e.g. {name}=0.9)")
    return value


class _MindSporeOptimizer(Optimizer):
    """Shared by SGD, Momentum and Adam: MindSpore's parameter groups (keys "params", "lr",
    "weight_decay", "grad_centralization", and a group {"order_params": [...]} that fixes the
    order gradients come in), learning_rate/weight_decay/loss_scale checks, and `_gradient`."""

    decay_in_kernel = False  # SGD: weight decay after the loss scale, on every parameter

    def __init__(self, params: Any, defaults: dict) -> None:
        self._order: list | None = None
        self._no_decay: set[int] = set()  # ids of ungrouped parameters named *beta* / *gamma*
        params = [params] if isinstance(params, Tensor) else list(params)
        if params and all(isinstance(g, dict) for g in params):
            orders = [g for g in params if "order_params" in g]
            params = [g for g in params if "order_params" not in g]
            if len(orders) > 1:
                raise ValueError("give 'order_params' in one group dict only")
            if orders:
                self._order = list(orders[0]["order_params"])
        elif any(isinstance(g, dict) for g in params):
            raise TypeError(
                f"{type(self).__name__} takes a list of Parameters or a list of group dicts, "
                f"not a mix of both"
            )
        else:  # MindSpore: ungrouped weight decay skips parameters named like norm scales
            for p in params:
                name = getattr(p, "name", None) or ""
                if "beta" in name or "gamma" in name:
                    self._no_decay.add(id(p))
        super().__init__(params, defaults)
        if self._order is not None:
            grouped = [p for g in self.param_groups for p in g["params"]]
            if {id(p) for p in self._order} != {id(p) for p in grouped} or len(self._order) != len(
                grouped
            ):
                raise ValueError(
                    "'order_params' must list exactly the parameters of the groups, each once"
                )

    def add_param_group(self, group: dict) -> None:
        """Add a MindSpore group {"params": [...], "lr": ..., "weight_decay": ...}.

        >>> optimizer.add_param_group({"params": [head.weight], "lr": 1e-3})
        """
        if isinstance(group, dict):
            unknown = set(group) - _GROUP_KEYS
            if unknown:
                raise ValueError(
                    f"{type(self).__name__} got the group key(s) {sorted(unknown)}; MindSpore's "
                    f"groups take 'params', 'lr', 'weight_decay', 'grad_centralization' and "
                    f"'order_params' (other settings are arguments of the optimizer)"
                )
            if group.get("grad_centralization", False):
                raise NotImplementedError(
                    "grad_centralization=True is not implemented in tapegrad; leave it out"
                )
        super().add_param_group(group)

    def _validate(self, group: dict) -> None:
        group["lr"] = _learning_rate(group["lr"])
        group["weight_decay"] = hyperparameter("weight_decay", group["weight_decay"])
        group["loss_scale"] = hyperparameter("loss_scale", group["loss_scale"])
        if group["loss_scale"] == 0:
            raise ValueError("invalid loss_scale: 0.0 (it must be > 0, e.g. loss_scale=1024.0)")
        group.pop("grad_centralization", None)

    @property
    def params(self) -> list:
        """All parameters in the order gradients are given in (`order_params` if one was given).

        >>> grad_fn = tg.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
        """
        if self._order is not None:
            return list(self._order)
        return [p for group in self.param_groups for p in group["params"]]

    parameters = params  # MindSpore's name: value_and_grad(fn, None, optimizer.parameters)

    def step(self, grads: Any = None) -> Any:
        """One update, as Optimizer.step; with `order_params`, gradients come in that order.

        >>> optimizer(grads)      # MindSpore style, the same as optimizer.step(grads)
        """
        if self._order is None:
            return super().step(grads)
        loss = None
        if callable(grads) and not isinstance(grads, Tensor):
            with enable_grad():
                loss = grads()
            grads = None
        if grads is None:
            grads = {id(p): p.grad for p in self._order}
        else:
            grads = [grads] if isinstance(grads, Tensor) else list(grads)
            if len(grads) != len(self._order):
                raise ValueError(
                    f"got {len(grads)} gradients for {len(self._order)} parameters; give them "
                    f"in the order of 'order_params' (optimizer.parameters)"
                )
            grads = {id(p): g for p, g in zip(self._order, grads)}
        self._order, order = None, self._order  # the groups' order, for the base step
        try:
            super().step([grads[id(p)] for g in self.param_groups for p in g["params"]])
        finally:
            self._order = order
        return loss

    def _gradient(self, p: Tensor, g: np.ndarray, group: dict) -> np.ndarray:
        """The gradient MindSpore's kernel sees: (g + wd*p) / loss_scale (Momentum, Adam; no wd
        for an ungrouped *beta*/*gamma* parameter) or g / loss_scale + wd*p (SGD). Scratch slot 1
        or 2; the caller's g is left alone."""
        wd, scale = group["weight_decay"], group["loss_scale"]
        if wd and not self.decay_in_kernel and id(p) in self._no_decay:
            wd = 0.0
        if scale == 1.0:
            return self._add_weight_decay(p, g, wd)
        out = self._scratch(g, slot=2)
        if self.decay_in_kernel:  # SGD: g * (1/loss_scale) + wd*p
            np.multiply(g, 1.0 / scale, out=out)
            if wd:
                out += np.multiply(p.numpy(), wd, out=self._scratch(g, slot=1))
            return out
        if wd:  # Momentum, Adam: (g + wd*p) * (1/loss_scale)
            np.add(g, np.multiply(p.numpy(), wd, out=out), out=out)
            return np.multiply(out, 1.0 / scale, out=out)
        return np.multiply(g, 1.0 / scale, out=out)

    def _momentum_step(self, p: Tensor, d: np.ndarray, group: dict, state: dict, key: str) -> None:
        """MindSpore's SGD kernel (Momentum's ApplyMomentum is it with dampening 0): with
        momentum u > 0, v = d on the first step, else v = u*v + (1-dampening)*d; then
        p -= lr * (d + u*v) (nesterov) or lr * v. With u = 0: p -= lr * d."""
        u, work = group["momentum"], self._scratch(d)
        if u > 0:
            v = state.get(key)
            if v is None:
                v = state[key] = d.copy()
            else:
                v *= u
                v += np.multiply(d, 1.0 - group.get("dampening", 0.0), out=work)
            if group["nesterov"]:
                d = np.add(d, np.multiply(v, u, out=work), out=self._scratch(d, slot=3))
            else:
                d = v
        p.sub_(np.multiply(d, group["lr"], out=work))


class SGD(_MindSporeOptimizer):
    """MindSpore's nn.SGD (learning_rate=0.1 by default), with MindSpore's update rule.

    d = g/loss_scale + wd*p; v = d on the first step (no dampening), then
    v = momentum*v + (1-dampening)*d; p -= lr*(d + momentum*v) if nesterov else lr*v
    (momentum 0: p -= lr*d). MindSpore's kernel is PyTorch's SGD rule; what differs is the loss
    scale, divided out before the weight decay is added, and weight decay applies to every
    parameter (no beta/gamma filter: it runs in SGD's kernel).

    >>> optimizer = tg.nn.SGD(model.trainable_params(), 1e-2); optimizer(grads)
    """

    decay_in_kernel = True

    def __init__(
        self,
        params: Any,
        learning_rate: float = 0.1,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        loss_scale: float = 1.0,
    ) -> None:
        defaults = dict(
            lr=learning_rate,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            loss_scale=loss_scale,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["momentum"] = hyperparameter("momentum", group["momentum"])
        group["dampening"] = hyperparameter("dampening", group["dampening"])
        if not isinstance(group["nesterov"], (bool, np.bool_)):
            raise TypeError(f"nesterov must be True or False, got {group['nesterov']!r}")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("nesterov=True needs momentum > 0.0 and dampening == 0.0")

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        self._momentum_step(p, self._gradient(p, g, group), group, state, "accum")


class Momentum(_MindSporeOptimizer):
    """MindSpore's nn.Momentum (learning_rate and momentum required), with its update rule.

    d = (g + wd*p)/loss_scale (wd skipped for ungrouped parameters named *beta*/*gamma*);
    v = momentum*v + d (v starts at 0; no dampening); p -= lr*(d + momentum*v) if use_nesterov
    else lr*v. Unlike PyTorch, the weight decay is divided by loss_scale too (it is added first).

    >>> optimizer = tg.nn.Momentum(model.trainable_params(), learning_rate=0.1, momentum=0.9)
    """

    def __init__(
        self,
        params: Any,
        learning_rate: float,
        momentum: float,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_nesterov: bool = False,
    ) -> None:
        defaults = dict(
            lr=learning_rate,
            momentum=momentum,
            weight_decay=weight_decay,
            loss_scale=loss_scale,
            nesterov=use_nesterov,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["momentum"] = hyperparameter("momentum", group["momentum"])
        if not isinstance(group["nesterov"], (bool, np.bool_)):
            raise TypeError(f"use_nesterov must be True or False, got {group['nesterov']!r}")

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        self._momentum_step(p, self._gradient(p, g, group), group, state, "moments")


class Adam(_MindSporeOptimizer):
    """MindSpore's nn.Adam (beta1, beta2, eps, use_nesterov, use_amsgrad), with its update rule.

    d = (g + wd*p)/loss_scale (wd skipped for ungrouped parameters named *beta*/*gamma*);
    m = b1*m + (1-b1)*d; v = b2*v + (1-b2)*d^2;
    p -= lr*sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps). Unlike PyTorch's Adam, eps is added to
    sqrt(v) itself, not to the bias-corrected sqrt(v/(1-b2^t)). use_nesterov: b1*m + (1-b1)*d
    replaces m in the last line; use_amsgrad: vhat = max(vhat, v) replaces v there. use_locking,
    use_lazy and use_offload are accepted and change nothing (dense gradients, one device).

    >>> optimizer = tg.nn.Adam(model.trainable_params(), learning_rate=1e-3)
    """

    def __init__(
        self,
        params: Any,
        learning_rate: float = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        use_locking: bool = False,
        use_nesterov: bool = False,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_amsgrad: bool = False,
        **kwargs: Any,
    ) -> None:
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise TypeError(f"Adam got unexpected keyword argument(s) {sorted(unknown)}")
        flags = dict(use_locking=use_locking, use_nesterov=use_nesterov, use_amsgrad=use_amsgrad)
        for name, flag in {**flags, **kwargs}.items():
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        if kwargs.get("use_lazy") and kwargs.get("use_offload"):
            raise ValueError("use_lazy and use_offload cannot both be True")
        if use_amsgrad and (use_nesterov or any(kwargs.values())):
            raise ValueError(
                "use_amsgrad=True cannot be combined with use_nesterov, use_lazy or use_offload "
                "(MindSpore's AMSGrad kernel has no Nesterov form)"
            )
        defaults = dict(
            lr=learning_rate,
            beta1=beta1,
            beta2=beta2,
            eps=eps,
            weight_decay=weight_decay,
            loss_scale=loss_scale,
            use_nesterov=bool(use_nesterov),
            use_amsgrad=bool(use_amsgrad),
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["beta1"] = _open_unit("beta1", group["beta1"])
        group["beta2"] = _open_unit("beta2", group["beta2"])
        group["eps"] = hyperparameter("eps", group["eps"])
        if group["eps"] == 0:
            raise ValueError("invalid eps: 0.0 (it must be > 0, e.g. eps=1e-8)")

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        b1, b2 = group["beta1"], group["beta2"]
        d = self._gradient(p, g, group)
        if not state:  # MindSpore's names: moment1, moment2 (and vhat), all starting at 0
            state.update(step=0, moment1=np.zeros_like(d), moment2=np.zeros_like(d))
        state["step"] += 1
        t, m, v, work = state["step"], state["moment1"], state["moment2"], self._scratch(d)
        m *= b1
        m += np.multiply(d, 1.0 - b1, out=work)
        v *= b2
        v += np.multiply(np.square(d, out=work), 1.0 - b2, out=work)
        if group["use_amsgrad"]:
            vhat = state.get("vhat")
            if vhat is None:
                vhat = state["vhat"] = np.zeros_like(d)
            v = np.maximum(vhat, v, out=vhat)
        denom = np.sqrt(v, out=work)
        denom += group["eps"]
        num = m
        if group["use_nesterov"]:  # b1*m + (1-b1)*d, into slot 3 (d may live in slot 1 or 2)
            num = np.multiply(d, 1.0 - b1, out=self._scratch(d, slot=3))
            num += np.multiply(m, b1, out=self._scratch(d, slot=4))
        lr_t = group["lr"] * math.sqrt(1.0 - b2**t) / (1.0 - b1**t)
        p.sub_(np.multiply(np.divide(num, denom, out=work), lr_t, out=work))


__all__ = ["Adam", "Momentum", "SGD"]
