"""Schedules that scale the learning rate by a factor, PyTorch's: StepLR, MultiStepLR,
ExponentialLR, LambdaLR, MultiplicativeLR, and the warm-up and decay ramps ConstantLR, LinearLR,
PolynomialLR.

Layer L5: imports the base class, optim/optimizer.py (hyperparameter) and _utils.
"""

from __future__ import annotations

import bisect
import types
from typing import Callable, Iterable

from ..._utils import int_arg
from ..optimizer import Optimizer, hyperparameter
from .base import LRScheduler


class StepLR(LRScheduler):
    """Multiply the lr by gamma every step_size epochs: base_lr * gamma ** (epoch // step_size).

    >>> sched = tg.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = int_arg("step_size", step_size, low=1)
        self.gamma = hyperparameter("gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs, times gamma when the epoch is a non-zero multiple of step_size."""
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by gamma at each milestone epoch (a milestone given twice counts twice).

    >>> sched = tg.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 80], gamma=0.1)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        try:
            milestones = list(milestones)
        except TypeError:
            raise TypeError(
                f"milestones must be a list of epoch numbers, e.g. [30, 80]; got {milestones!r}"
            ) from None
        self.milestones = sorted(int_arg("a milestone", m, low=0) for m in milestones)
        self.gamma = hyperparameter("gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs, times gamma ** (how often this epoch is a milestone)."""
        hits = self.milestones.count(self.last_epoch)
        if not hits:
            return self._current_lrs()
        return [lr * self.gamma**hits for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        passed = bisect.bisect_right(self.milestones, self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by gamma every epoch: lr = base_lr * gamma ** epoch.

    >>> sched = tg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = hyperparameter("gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs times gamma (unchanged at the constructor's step)."""
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


def lr_lambdas(optimizer: Optimizer, lr_lambda: Callable[[int], float] | list) -> list:
    """One function of the epoch per parameter group (one for all, or a list), else PyTorch's
    ValueError (a list of the wrong length) or TypeError (not callable)."""
    groups = getattr(optimizer, "param_groups", [])
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != len(groups):
            raise ValueError(f"Expected {len(groups)} lr_lambdas, but got {len(lr_lambda)}")
        functions = list(lr_lambda)
    else:
        functions = [lr_lambda] * len(groups)
    for fn in functions:
        if not callable(fn):
            raise TypeError(
                f"lr_lambda must be a function of the epoch (or a list of them, one per "
                f"parameter group), got {type(fn).__name__}"
            )
    return functions


class _LambdaState(LRScheduler):
    """The state_dict of schedules driven by lr_lambdas: functions are not saved, only callable
    objects' attributes (PyTorch's)."""

    lr_lambdas: list

    def state_dict(self) -> dict:
        """As the base, but functions are not saved, only callable objects' attributes (PyTorch)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else dict(vars(fn)) for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the schedule; saved attributes of callable objects go back into them."""
        state = dict(state_dict)
        saved = state.pop("lr_lambdas", [None] * len(self.lr_lambdas))
        super().load_state_dict(state)
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                vars(fn).update(attributes)


class LambdaLR(_LambdaState):
    """lr = base_lr * lr_lambda(epoch); one function for all groups or a list, one per group.

    >>> sched = tg.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: 0.95**epoch)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list,
        last_epoch: int = -1,
    ) -> None:
        self.lr_lambdas = lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """base_lr * lr_lambda(last_epoch) for each group."""
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState):
    """Multiply the lr by lr_lambda(epoch) every epoch (from epoch 1): lr_t = lr_{t-1} * f(t);
    one function for all groups or a list, one per group.

    >>> sched = tg.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.95)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list,
        last_epoch: int = -1,
    ) -> None:
        self.lr_lambdas = lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs times lr_lambda(last_epoch) (unchanged at the constructor's step)."""
        if self._is_initial:
            return self._current_lrs()
        lrs = self._current_lrs()
        return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, lrs)]


class ConstantLR(LRScheduler):
    """Multiply the lr by `factor` until epoch total_iters, then restore it:
    lr = base_lr * factor for epoch < total_iters, base_lr after (a constant warm-up).

    >>> sched = tg.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if not 0 <= factor <= 1:
            raise ValueError(
                f"Constant multiplicative factor expected to be between 0 and 1, got {factor}"
            )
        self.factor = factor
        self.total_iters = int_arg("total_iters", total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Times factor at epoch 0, divided by it again at total_iters, unchanged otherwise."""
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        reached = self.last_epoch >= self.total_iters
        return [base * (self.factor + reached * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr by a factor moving linearly from start_factor to end_factor over total_iters
    epochs: lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters).

    >>> sched = tg.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=10)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if not 0 < start_factor <= 1:
            raise ValueError(
                f"Starting multiplicative factor expected to be greater than 0 and less or equal "
                f"to 1, got {start_factor}"
            )
        if not 0 <= end_factor <= 1:
            raise ValueError(
                f"Ending multiplicative factor expected to be between 0 and 1, got {end_factor}"
            )
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = int_arg("total_iters", total_iters)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Times start_factor at epoch 0, then each epoch the ratio of consecutive factors."""
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (
            self.total_iters * self.start_factor + (self.last_epoch - 1) * change
        )
        return [lr * ratio for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * done
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr to 0 over total_iters epochs along a polynomial:
    lr = base_lr * (1 - min(epoch, total_iters) / total_iters) ** power.

    >>> sched = tg.optim.lr_scheduler.PolynomialLR(opt, total_iters=10, power=2.0)
    """

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = int_arg("total_iters", total_iters, low=1)
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Each epoch, the ratio of the polynomial at this epoch and the previous one."""
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        now = 1.0 - self.last_epoch / self.total_iters
        before = 1.0 - (self.last_epoch - 1) / self.total_iters
        return [lr * (now / before) ** self.power for lr in self._current_lrs()]

    def _closed_form_lr(self) -> list[float]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left**self.power for base in self.base_lrs]


__all__ = [
    "ConstantLR",
    "ExponentialLR",
    "LambdaLR",
    "LinearLR",
    "MultiStepLR",
    "MultiplicativeLR",
    "PolynomialLR",
    "StepLR",
    "lr_lambdas",
]
