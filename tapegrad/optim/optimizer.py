"""The Optimizer base class: parameter groups, per-parameter state, step() in both calling styles.

Layer L5: imports tensor and the tape's grad mode. A subclass writes one `_update(p, g, group,
state)` that changes the parameter in place (NumPy `out=` into scratch arrays, the last write
through `_descend` or a Tensor in-place method under no_grad: the version bump flags stale graphs).
Use PyTorch-style (`loss.backward(); opt.step()`) or with grads from tg.grad: `opt.step(grads)`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar, overload

import numpy as np

from .._blas import axpy
from .._state import enable_grad, no_grad
from .._state import state as modes
from ..tensor import Tensor

Loss = TypeVar("Loss")  # what a PyTorch closure given to step() returns


def hyperparameter(name: str, value: Any, low: float = 0.0, high: float | None = None) -> float:
    """A hyperparameter as a float in [low, high) (high=None: no upper bound), else a clear error.

    >>> hyperparameter("lr", 0.1)
    0.1
    """
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


def betas_pair(name: str, value: Any) -> tuple[float, float]:
    """A pair of decay rates, each in [0, 1) (Adam's betas, Rprop's etas use their own check).

    >>> betas_pair("betas", (0.9, 0.999))
    (0.9, 0.999)
    """
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (beta1, beta2), e.g. (0.9, 0.999); got {value!r}")
    return (
        hyperparameter(f"{name}[0]", value[0], 0.0, 1.0),
        hyperparameter(f"{name}[1]", value[1], 0.0, 1.0),
    )


class Optimizer:
    """Base: parameter groups (`param_groups`, each a dict with "params" and hyperparameters), per-
    parameter `state`, `step()`, `zero_grad()`. Subclasses define `_update(p, g, group, state)`.

    >>> opt = tg.optim.SGD(net.parameters(), lr=0.1); opt.param_groups[0]["lr"]
    0.1
    """

    _state_like_params = True  # every state array has its parameter's shape (load checks it)

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        self.state: dict = {}  # keyed by the parameter itself (Tensors hash by identity)
        self.param_groups: list[dict] = []
        self._work: dict = {}  # scratch arrays reused by every update (not state: never saved)
        groups: list[Any] = [params] if isinstance(params, Tensor) else list(params)
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
        group["lr"] = hyperparameter("lr", group["lr"])
        if "weight_decay" in group:  # (Rprop has none)
            group["weight_decay"] = hyperparameter("weight_decay", group["weight_decay"])
        if "maximize" in group:
            group["maximize"] = bool(group["maximize"])
        if group.get("differentiable"):  # (capturable, for CUDA graphs, changes nothing here)
            raise ValueError(
                f"{type(self).__name__}(differentiable=True) would record the update on the "
                f"tape; tapegrad's optimizers step under no_grad only: leave it False"
            )

    @property
    def params(self) -> list:
        """All parameters in order (the order `step(grads)` expects its gradients in)."""
        return [p for group in self.param_groups for p in group["params"]]

    # MindSpore's name: `ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)`
    parameters = params

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of all parameters (None by default, as PyTorch)."""
        for p in self.params:
            grad = getattr(p, "_grad", None)  # (a leaf's .grad, without the property's call)
            if set_to_none or grad is None:
                p._grad = None
            else:
                grad.numpy()[...] = 0

    @overload
    def step(self, grads: Callable[[], Loss]) -> Loss: ...
    @overload
    def step(self, grads: Iterable[Any] | Tensor | None = None) -> None: ...
    def step(self, grads: Any = None) -> Any:
        """One update: from each parameter's .grad, or from `grads` (one per parameter, in order;
        None skips one). A callable is a PyTorch closure re-evaluating the loss; its value is
        returned.

        >>> loss.backward(); opt.step()       # or, functionally: opt.step(grads)
        """
        loss = None
        if callable(grads) and not isinstance(grads, Tensor):
            with enable_grad():
                loss = grads()
            grads = None
        params = self.params
        if grads is None:  # (each parameter is a leaf: its ._grad is what .grad reads)
            grads = [getattr(p, "_grad", None) for p in params]
        else:
            grads = [grads] if isinstance(grads, Tensor) else list(grads)
            if len(grads) != len(params):
                raise ValueError(
                    f"step() got {len(grads)} gradients for {len(params)} parameters; give one "
                    f"per parameter in the optimizer's order (e.g. build both from "
                    f"net.trainable_params())"
                )
        updates = []  # every gradient is checked before any parameter changes
        i = 0
        for group in self.param_groups:
            maximize = group.get("maximize")
            for p in group["params"]:
                g, i = grads[i], i + 1
                if g is None:
                    continue
                g = g._data if isinstance(g, Tensor) else np.asarray(g)
                data = p._data
                if g.dtype is not data.dtype:
                    g = g.astype(data.dtype)
                if g.shape != data.shape:
                    name = getattr(p, "name", None)
                    raise ValueError(
                        f"gradient {i - 1} has shape {g.shape} but parameter {i - 1}"
                        f"{f' ({name})' if name else ''} has shape {data.shape}; give the "
                        f"gradients in the optimizer's parameter order (e.g. both from "
                        f"net.trainable_params())"
                    )
                if maximize:  # (PyTorch's maximize: ascend, g negated first)
                    g = np.negative(g)
                updates.append((p, g, group))
        states = self.state
        with no_grad():
            for p, g, group in updates:
                self._update(p, g, group, states.setdefault(p, {}))
        return loss

    @overload
    def __call__(self, grads: Callable[[], Loss]) -> Loss: ...
    @overload
    def __call__(self, grads: Iterable[Any] | Tensor) -> None: ...
    def __call__(self, grads: Any) -> Any:
        """MindSpore style: `optimizer(grads)` is `step(grads)`."""
        return self.step(grads)

    def state_dict(self) -> dict:
        """PyTorch's layout: {"state": {param index: {name: value}}, "param_groups":
        [hyperparameters with "params" as indices]}; arrays are copies."""
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
                if self._state_like_params and isinstance(v, np.ndarray) and v.shape != p.shape:
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

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        """Update `p` in place from its gradient `g` (an array of p's dtype and shape; never
        modified: it may be the user's .grad). Runs under no_grad."""
        raise NotImplementedError

    @staticmethod
    def _descend(p: Tensor, delta: np.ndarray) -> None:
        """p -= delta, written straight into p's memory with the version bump every in-place op
        makes (a graph that saved p's old value then refuses to run backward). An update needs
        none of p.sub_'s shared path (recording, broadcasting, casting: delta has p's shape and
        dtype), which cost more than the subtraction on small layers (measured: the optimizer
        step of a 6-parameter MLP 1.4x faster). Inside vmap, or on read-only memory, p.sub_ runs
        (and says what is wrong)."""
        data = p._data
        if not modes.vmap_levels:
            try:
                np.subtract(data, delta, out=data)
            except ValueError:  # (read-only memory: p.sub_ raises the project's error)
                pass
            else:
                Optimizer._changed(p)
                return
        p.sub_(delta)

    def _descend_by(self, p: Tensor, d: np.ndarray, scale: float) -> None:
        """p -= scale * d: in one pass through BLAS axpy where SciPy is installed (tapegrad/_blas.py
        says why), else `scale * d` into scratch slot 0 (d may be there already) and _descend."""
        if not modes.vmap_levels and axpy(-scale, d, p._data):
            Optimizer._changed(p)
            return
        Optimizer._descend(p, np.multiply(d, scale, out=self._scratch(d)))

    @staticmethod
    def _changed(p: Tensor) -> None:
        """The version bump every in-place op makes (as tensor/writing.py's inplace)."""
        p._version_counter()[0] += 1
        p._inplace_op = "sub_"

    def _add_weight_decay(self, p: Tensor, g: np.ndarray, weight_decay: float) -> np.ndarray:
        """g + weight_decay * p (L2 regularisation through the gradient) in scratch slot 1; the
        caller's g is left alone."""
        if not weight_decay:
            return g
        out = np.multiply(p.numpy(), weight_decay, out=self._scratch(g, slot=1))
        return np.add(out, g, out=out)

    def _decay(self, p: Tensor, g: np.ndarray, group: dict, decoupled: bool) -> np.ndarray:
        """Weight decay as PyTorch's Adam family: decoupled (AdamW's p *= 1 - lr*wd, g unchanged)
        or L2 (g + wd*p, in scratch slot 1). Returns the gradient to use."""
        wd = group["weight_decay"]
        if wd and decoupled:
            p.mul_(1 - group["lr"] * wd)
            return g
        return self._add_weight_decay(p, g, wd)

    def _scratch(self, like: np.ndarray, slot: int = 0) -> np.ndarray:
        """A work array shaped like `like`, shared by all parameters and steps: updates write their
        temporaries here (NumPy `out=`) instead of allocating. Different slots never overlap."""
        view = self._work.get((like.shape, like.dtype, slot))  # (the view, made once per shape)
        if view is None:
            key = (like.dtype, slot)
            flat = self._work.get(key)
            if flat is None or flat.size < like.size:
                flat = self._work[key] = np.empty(like.size, like.dtype)
            view = self._work[like.shape, like.dtype, slot] = flat[: like.size].reshape(like.shape)
        return view

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.defaults.items())
        return f"{type(self).__name__}({settings}, {len(self.params)} parameters)"


__all__ = ["Optimizer", "hyperparameter"]
