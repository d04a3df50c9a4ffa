"""CyclicLR, PyTorch's cyclical learning rate (stepped once per batch): the lr goes up from
base_lr to max_lr over step_size_up steps and back down over step_size_down, the amplitude
scaled per cycle or per iteration ('triangular', 'triangular2', 'exp_range' or a user scale_fn),
the momentum (or Adam's beta1) cycled the opposite way with cycle_momentum.

Layer L5: imports the base class and optim/optimizer.py.
"""

from __future__ import annotations

import math
import types
from typing import Callable

from ..optimizer import Optimizer
from .base import LRScheduler, check_optimizer, per_group

MODES = ("triangular", "triangular2", "exp_range")


class CyclicLR(LRScheduler):
    """PyTorch's CyclicLR: with x the place within the cycle, lr = base_lr + (max_lr - base_lr)
    * s(x) * scale_fn(cycle or iteration), s rising 0 -> 1 over step_size_up steps and falling
    over step_size_down; momentum = max_momentum - (max_momentum - base_momentum) * the same.

    >>> sched = tg.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=200)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.8,
        max_momentum: float | list[float] = 0.9,
        last_epoch: int = -1,
    ) -> None:
        check_optimizer(optimizer, "CyclicLR(tg.optim.SGD(params, lr=0.1), 0.01, 0.1)")
        self.optimizer = optimizer
        base_lrs = per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        if self.total_size <= 0:
            raise ValueError(
                f"step_size_up + step_size_down must be positive (steps in a cycle), got "
                f"{step_size_up} and {step_size_down}"
            )
        self.step_ratio = up / self.total_size
        if mode not in MODES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    self._set_momentum(group, high)
                    group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        """The built-in modes fix scale_mode ('cycle' for the triangles, 'iterations' for
        exp_range), as PyTorch's do; a user scale_fn keeps the scale_mode given."""
        if self._scale_fn_custom is None and self.mode in MODES:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x: float) -> float:
        """The amplitude's factor at cycle (or iteration) x.

        >>> sched.scale_fn(1)
        1.0
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        if self.mode == "exp_range":
            return self.gamma**x
        return 1.0

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def get_lr(self) -> list[float]:
        """The lrs at last_epoch (and the momentums set, as a side effect)."""
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            base + (top - base) * scale_factor * scale
            for base, top in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, low, high in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                self._set_momentum(group, high - (high - low) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict:
        """As the base; a user scale_fn is saved only as a callable object's attributes (a
        function or lambda as None), as PyTorch's."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = (
            None if fn is None or isinstance(fn, types.FunctionType) else dict(vars(fn))
        )
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the schedule; a saved scale_fn object's attributes go back into it."""
        state = dict(state_dict)
        fn = state.pop("_scale_fn_custom", None)
        custom = self._scale_fn_custom
        super().load_state_dict(state)
        self._scale_fn_custom = custom
        if fn is not None and custom is not None:
            vars(custom).update(fn)
        self._init_scale_fn()


__all__ = ["CyclicLR"]
