"""Learning-rate schedules with PyTorch's semantics: StepLR, MultiStepLR, ExponentialLR,
CosineAnnealingLR, LambdaLR.

Layer L5: imports optim/optimizer.py and _utils. A scheduler rewrites `group["lr"]` of its
optimizer's parameter groups: the constructor records `initial_lr` and takes the initial step
(epoch 0), each `step()` moves to the next epoch. As PyTorch, `step()` is chainable (each rule
scales the current lr) and `step(epoch)` uses the closed form.
"""

from __future__ import annotations

import bisect
import math
import types
import warnings
from typing import Callable, Iterable

from .._utils import int_arg
from .optimizer import Optimizer, hyperparameter


class LRScheduler:
    """Base class: `step()`, `get_last_lr()`, `last_epoch`, `base_lrs`, `state_dict()`.

    A subclass defines `get_lr()` (the next lrs from the current ones: the chainable rule) and, when
    it has one, `_closed_form_lr()` (the lrs at `last_epoch` from `base_lrs`).

    >>> sched = tg.optim.lr_scheduler.StepLR(opt, step_size=10)
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{type(optimizer).__name__} is not an Optimizer; pass the optimizer whose "
                f"learning rate to schedule, e.g. StepLR(tg.optim.SGD(params, lr=0.1), 30)"
            )
        if not isinstance(last_epoch, int) or isinstance(last_epoch, bool) or last_epoch < -1:
            raise ValueError(
                f"last_epoch must be an int >= -1 (-1 starts a new schedule), got {last_epoch!r}"
            )
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming a "
                        f"schedule with last_epoch >= 0: load the optimizer's saved state_dict "
                        f"first, or start a new schedule with last_epoch=-1"
                    )
        self.base_lrs: list[float] = [group["initial_lr"] for group in groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True  # the constructor's step keeps the optimizer's lr (some rules)
        self.step()
        self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for `last_epoch` (called by step() after it advanced the epoch)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates the last step() set, one per parameter group.

        >>> sched.get_last_lr()
        [0.1]
        """
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Move to the next epoch and set each group's lr; call it after `optimizer.step()`.

        >>> opt.step(); sched.step()
        """
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            warnings.warn(
                "passing an epoch to scheduler.step() is deprecated (as in PyTorch): call step() "
                "once per epoch; the lr is now set from the closed form at that epoch",
                UserWarning,
                stacklevel=2,
            )
            self.last_epoch = int(epoch)
            closed = getattr(self, "_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _current_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Everything but the optimizer (PyTorch's layout), e.g. for tg.save.

        >>> sched.state_dict()["last_epoch"]
        0
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what state_dict() returned (load the optimizer's state too)."""
        if not isinstance(state_dict, dict) or "last_epoch" not in state_dict:
            raise ValueError(
                "load_state_dict expects the dict made by the scheduler's state_dict() "
                f"(with 'last_epoch' and 'base_lrs'), got {type(state_dict).__name__}"
            )
        self.__dict__.update(state_dict)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, lr={self._last_lr})"


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


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(epoch); one function for all groups or a list, one per group.

    >>> sched = tg.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: 0.95**epoch)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list,
        last_epoch: int = -1,
    ) -> None:
        groups = getattr(optimizer, "param_groups", [])
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(groups):
                raise ValueError(f"Expected {len(groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(groups)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"lr_lambda must be a function of the epoch (or a list of them, one per "
                    f"parameter group), got {type(fn).__name__}"
                )
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """base_lr * lr_lambda(last_epoch) for each group."""
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]

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


__all__ = [
    "CosineAnnealingLR",
    "ExponentialLR",
    "LRScheduler",
    "LambdaLR",
    "MultiStepLR",
    "StepLR",
]
