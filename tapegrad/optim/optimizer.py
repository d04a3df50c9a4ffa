"""Optimizers with PyTorch's exact update rules: SGD (momentum, dampening, nesterov, weight decay), Adam, AdamW.

Layer L5: imports tensor.py and the tape's grad mode. Updates are NumPy math on parameter values,
written back in place under no_grad (nothing is recorded; the version bump flags stale graphs).
Use PyTorch-style (`loss.backward(); opt.step()`) or with grads from tg.grad: `opt.step(grads)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .tape.grad_mode import enable_grad, no_grad
from .tensor import Tensor


def _check(name: str, value: Any, low: float = 0.0, high: float | None = None) -> float:
    """A hyperparameter as a float in [low, high) (high=None: no upper bound)."""
    try:
        if isinstance(value, (str, bytes, bool)):
            raise TypeError
        value = float(value)  # numbers, NumPy scalars, one-element tensors
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a number, got {value!r} ({type(value).__name__}); "
            f"pass e.g. {name}=0.01"
        ) from None
    if value < low or (high is not None and value >= high):
        span = f"[{low}, {high})" if high is not None else f">= {low}"
        raise ValueError(f"invalid {name}: {value} (it must be {span})")
    return value


class Optimizer:
    """Base: parameter groups (`param_groups`, each a dict with "params" and hyperparameters), per-
    parameter `state`, `step()`, `zero_grad()`. Subclasses define `_update(p, g, group, state)`."""

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}  # keyed by the parameter itself (Tensors hash by identity)
        self.param_groups: list[dict] = []
        groups = [params] if isinstance(params, Tensor) else list(params)
        if not groups:
            raise ValueError(
                f"{type(self).__name__} got an empty parameter list; pass e.g. "
                f"net.parameters() or net.trainable_params() (a generator such as "
                f"net.parameters() is used up after one pass: call it again)"
            )
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict) -> None:
        """Add {"params": [...], "lr": ..., ...}; missing hyperparameters take the defaults."""
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("a parameter group must be a dict with a 'params' entry")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        known = {id(p) for g in self.param_groups for p in g["params"]}
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"{type(self).__name__} can only optimize Tensors, but parameter {i} is a "
                    f"{type(p).__name__}"
                )
            if not p.is_leaf or p.dtype.kind != "f":
                raise ValueError(
                    f"parameter {i} must be a floating-point leaf tensor (e.g. an nn.Parameter); "
                    f"it is {'a computed tensor' if not p.is_leaf else p.dtype}"
                )
            if id(p) in known:
                raise ValueError(
                    f"parameter {i} appears twice (in one group or in two); pass each once"
                )
            known.add(id(p))
        full = {**self.defaults, **group, "params": params}
        self._validate(full)
        self.param_groups.append(full)

    def _validate(self, group: dict) -> None:
        group["lr"] = _check("lr", group["lr"])
        group["weight_decay"] = _check("weight_decay", group["weight_decay"])

    @property
    def params(self) -> list:
        """All parameters in order (the order `step(grads)` expects its gradients in)."""
        return [p for group in self.param_groups for p in group["params"]]

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of all parameters (None by default, as PyTorch)."""
        for p in self.params:
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad.numpy()[...] = 0

    def step(self, grads: Any = None) -> Any:
        """One update: from each parameter's .grad, or from `grads` (one per parameter, in order;
        None skips one). A callable is a PyTorch closure re-evaluating the loss; its value is returned."""
        loss = None
        if callable(grads) and not isinstance(grads, Tensor):
            with enable_grad():
                loss = grads()
            grads = None
        params = self.params
        if grads is None:
            grads = [p.grad for p in params]
        else:
            grads = [grads] if isinstance(grads, Tensor) else list(grads)
            if len(grads) != len(params):
                raise ValueError(
                    f"step() got {len(grads)} gradients for {len(params)} parameters; give one per parameter "
                    f"in the optimizer's order (e.g. build both from net.trainable_params())"
                )
        it = iter(enumerate(grads))
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    i, g = next(it)
                    if g is None:
                        continue
                    g = np.asarray(g.numpy() if isinstance(g, Tensor) else g, dtype=p.dtype)
                    if g.shape != p.shape:
                        name = getattr(p, "name", None)
                        raise ValueError(
                            f"gradient {i} has shape {g.shape} but parameter {i}"
                            f"{f' ({name})' if name else ''} has shape {p.shape}; give the gradients "
                            f"in the optimizer's parameter order (e.g. both from net.trainable_params())"
                        )
                    p.copy_(self._update(p.numpy(), g, group, self.state.setdefault(p, {})))
        return loss

    def __call__(self, grads: Any) -> Any:
        """MindSpore style: `optimizer(grads)` is `step(grads)`."""
        return self.step(grads)

    def state_dict(self) -> dict:
        """PyTorch's layout: {"state": {param index: {name: value}}, "param_groups": [hyperparameters
        with "params" as indices]}; arrays are copies."""
        index = {id(p): i for i, p in enumerate(self.params)}
        state = {
            index[id(p)]: {
                k: np.array(v, copy=True) if isinstance(v, np.ndarray) else v for k, v in s.items()
            }
            for p, s in self.state.items()
        }
        groups = [
            {
                **{k: v for k, v in g.items() if k != "params"},
                "params": [index[id(p)] for p in g["params"]],
            }
            for g in self.param_groups
        ]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what state_dict() saved, for an optimizer over parameters of the same shapes."""
        if not isinstance(state_dict, dict) or set(state_dict) != {"state", "param_groups"}:
            raise ValueError(
                "load_state_dict expects the dict made by Optimizer.state_dict(), with "
                "the keys 'state' and 'param_groups'"
            )
        groups = state_dict["param_groups"]
        sizes = [len(g["params"]) for g in self.param_groups]
        if [len(g["params"]) for g in groups] != sizes:
            raise ValueError(
                f"the saved optimizer has parameter groups of sizes "
                f"{[len(g['params']) for g in groups]}, this one {sizes}; build it over "
                f"the same parameters"
            )
        params = self.params
        state: dict = {}
        for i, saved in state_dict["state"].items():
            p = params[int(i)]
            for k, v in saved.items():
                if isinstance(v, np.ndarray) and v.shape != p.shape:
                    raise ValueError(
                        f"saved state {k!r} of parameter {i} has shape {v.shape}, but "
                        f"the parameter has shape {p.shape}"
                    )
            state[p] = {
                k: np.array(v, copy=True) if isinstance(v, np.ndarray) else v
                for k, v in saved.items()
            }
        for group, saved in zip(self.param_groups, groups):
            group.update({k: v for k, v in saved.items() if k != "params"})
        self.state = state

    def _update(self, p: np.ndarray, g: np.ndarray, group: dict, state: dict) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.defaults.items())
        return f"{type(self).__name__}({settings}, {len(self.params)} parameters)"


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's rule:
    g += wd*p; b = g (first step) or momentum*b + (1-dampening)*g; g = g + momentum*b (nesterov) or b;
    p -= lr*g.

    >>> opt = tg.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    """

    def __init__(
        self,
        params: Any,
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        dampening: float = 0.0,
    ) -> None:
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                weight_decay=weight_decay,
                nesterov=nesterov,
                dampening=dampening,
            ),
        )

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        group["momentum"] = _check("momentum", group["momentum"])
        group["dampening"] = float(group["dampening"])
        if group["nesterov"] and (group["momentum"] == 0 or group["dampening"] != 0):
            raise ValueError("nesterov momentum needs momentum > 0 and dampening = 0")

    def _update(self, p: np.ndarray, g: np.ndarray, group: dict, state: dict) -> np.ndarray:
        momentum = group["momentum"]
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p
        if momentum:
            buf = state.get("momentum_buffer")
            buf = g.copy() if buf is None else momentum * buf + (1 - group["dampening"]) * g
            state["momentum_buffer"] = buf
            g = g + momentum * buf if group["nesterov"] else buf
        return p - group["lr"] * g


class Adam(Optimizer):
    """Adam, PyTorch's rule (weight_decay is L2, added to the gradient):
    m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2; p -= lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps).

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
    ) -> None:
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        betas = group["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(
                f"betas must be a pair (beta1, beta2), e.g. (0.9, 0.999); got {betas!r}"
            )
        b1, b2 = betas
        group["betas"] = (_check("betas[0]", b1, 0.0, 1.0), _check("betas[1]", b2, 0.0, 1.0))
        group["eps"] = _check("eps", group["eps"])

    def _update(self, p: np.ndarray, g: np.ndarray, group: dict, state: dict) -> np.ndarray:
        (b1, b2), lr, wd = group["betas"], group["lr"], group["weight_decay"]
        if wd and self.decoupled:
            p = p * (1 - lr * wd)
        elif wd:
            g = g + wd * p
        if not state:
            state.update(step=0, exp_avg=np.zeros_like(p), exp_avg_sq=np.zeros_like(p))
        state["step"] += 1
        t = state["step"]
        m = state["exp_avg"] = b1 * state["exp_avg"] + (1 - b1) * g
        v = state["exp_avg_sq"] = b2 * state["exp_avg_sq"] + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)  # bias correction: m, v start at 0
        return p - lr * m_hat / (np.sqrt(v_hat) + group["eps"])


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
    ) -> None:
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)


__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
