"""Cyclical schedules, PyTorch's: CosineAnnealingLR, CosineAnnealingWarmRestarts (SGDR) and
OneCycleLR (warm up to max_lr, then anneal far below the start; momentum cycles the other way).

Layer L5: imports the base class, optim/optimizer.py (hyperparameter) and _utils.
"""

from __future__ import annotations

import math
from typing import Any

from ..._utils import int_arg
from ..optimizer import Optimizer, hyperparameter
from .base import LRScheduler, check_optimizer, per_group


class CosineAnnealingLR(LRScheduler):
    """Cosine from base_lr down to eta_min over T_max epochs (then back up, periodically):
    lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2.

    >>> sched = tg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = int_arg("T_max", T_max, low=1)
        self.eta_min = hyperparameter("eta_min", eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The next lrs by PyTorch's recursive form (which follows lr changes made from outside)."""
        epoch, T, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if (epoch - 1 - T) % (2 * T) == 0:  # at the bottom: the recursive ratio would be 0/0
            rise = (1 - math.cos(math.pi / T)) / 2
            lrs = self._current_lrs()
            return [lr + (base - low) * rise for lr, base in zip(lrs, self.base_lrs)]
        ratio = (1 + math.cos(math.pi * epoch / T)) / (1 + math.cos(math.pi * (epoch - 1) / T))
        return [ratio * (lr - low) + low for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        wave = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (base - self.eta_min) * wave for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine from base_lr down to eta_min over T_i epochs, then a restart at base_lr, each period
    T_mult times longer than the last (T_0 first): lr = eta_min + (base_lr - eta_min) *
    (1 + cos(pi * T_cur / T_i)) / 2, with T_cur the epochs since the last restart. step() may
    be given a fractional epoch (a step per batch: `sched.step(epoch + i / iters)`).

    >>> sched = tg.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=2)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if isinstance(eta_min, bool) or not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The cosine at T_cur of the current period, from each group's base_lr."""
        wave = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * wave for base in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """The next epoch (restarting when a period is over), or the (fractional) epoch given."""
        self._step_count += 1
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:  # (the restart that epoch falls after: T_0 * (1 + m + ... + m**(n-1)) <= epoch)
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult**n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


class OneCycleLR(LRScheduler):
    """The 1cycle policy, stepped once per batch: the lr rises from max_lr / div_factor to max_lr
    over pct_start of total_steps, then anneals to initial_lr / final_div_factor (three_phase:
    back to the start first, then down); with cycle_momentum the momentum (or Adam's beta1) moves
    the opposite way between max_momentum and base_momentum. Annealing is 'cos' or 'linear'.

    >>> sched = tg.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=1000)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        check_optimizer(optimizer, "OneCycleLR(tg.optim.SGD(params, lr=0.1), 0.1, 1000)")
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        if (
            isinstance(pct_start, bool)
            or not isinstance(pct_start, float)
            or not (0 <= pct_start <= 1)
        ):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.anneal_strategy = anneal_strategy
        up = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        # each phase: (its last step, the group keys it anneals the lr and the momentum between)
        self.phases: list[tuple[float, str, str, str, str]] = (
            [
                (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (2 * up, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
            if three_phase
            else [
                (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        )
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, per_group("max_lr", optimizer, max_lr)):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            highs = per_group("max_momentum", optimizer, max_momentum)
            lows = per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(highs, lows, optimizer.param_groups):
                    self._set_momentum(group, high)
                    group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start: float, end: float, fraction: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * fraction) + 1)
        return (end - start) * fraction + start

    def get_lr(self) -> list[float]:
        """The lr of this step's phase, annealed from its start to its end value (and the momentum
        set the same way, as a side effect)."""
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr_from, lr_to, m_from, m_to) in enumerate(self.phases):
                if step <= end or i == len(self.phases) - 1:
                    fraction = (step - start) / (end - start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], fraction))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[m_from], group[m_to], fraction)
                        self._set_momentum(group, momentum)
                    break
                start = end
        return lrs


def _total_steps(total_steps: Any, epochs: Any, steps_per_epoch: Any) -> int:
    """OneCycleLR's length: total_steps, or epochs * steps_per_epoch."""
    if total_steps is not None:
        if isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    for label, value in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"Expected positive integer {label}, but got {value}")
    return epochs * steps_per_epoch


__all__ = ["CosineAnnealingLR", "CosineAnnealingWarmRestarts", "OneCycleLR"]
