"""The scheduler base class, PyTorch's LRScheduler: what every schedule shares.

A scheduler rewrites `group["lr"]` of its optimizer's parameter groups: the constructor records
`initial_lr` and takes the initial step (epoch 0), each `step()` moves to the next epoch. As in
PyTorch, `step()` is chainable (each rule scales the current lr, so two schedulers on one optimizer
compose) and `step(epoch)` uses the closed form where a schedule has one.

Layer L5: imports optim/optimizer.py.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..optimizer import Optimizer


def check_optimizer(optimizer: Any, example: str) -> Optimizer:
    """The optimizer a scheduler drives, else PyTorch's TypeError (with an example)."""
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"{type(optimizer).__name__} is not an Optimizer; pass the optimizer whose "
            f"learning rate to schedule, e.g. {example}"
        )
    return optimizer


def per_group(name: str, optimizer: Optimizer, value: Any) -> list:
    """One value per parameter group: a list of them, or one value for all (PyTorch's rule)."""
    groups = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != groups:
            raise ValueError(f"expected {groups} values for {name}, got {len(value)}")
        return list(value)
    return [value] * groups


class LRScheduler:
    """Base class: `step()`, `get_last_lr()`, `last_epoch`, `base_lrs`, `state_dict()`.

    A subclass defines `get_lr()` (the next lrs from the current ones: the chainable rule) and, when
    it has one, `_closed_form_lr()` (the lrs at `last_epoch` from `base_lrs`).

    >>> sched = tg.optim.lr_scheduler.StepLR(opt, step_size=10)
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        check_optimizer(optimizer, "StepLR(tg.optim.SGD(params, lr=0.1), 30)")
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
        self._initial_step()

    def _initial_step(self) -> None:
        """The constructor's step, to epoch 0 (some rules keep the optimizer's lr there)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
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
        if epoch is not None:
            warnings.warn(
                "passing an epoch to scheduler.step() is deprecated (as in PyTorch): call step() "
                "once per epoch; the lr is now set from the closed form at that epoch",
                UserWarning,
                stacklevel=2,
            )
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """Go to the next epoch (by the chainable rule) or to `epoch` (by the closed form)."""
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = int(epoch)
            closed = getattr(self, "_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current_lrs()

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
                f"(with 'last_epoch'), got {type(state_dict).__name__}"
            )
        self.__dict__.update(state_dict)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, lr={self._last_lr})"


class _LRScheduler(LRScheduler):
    """PyTorch's older name of LRScheduler, a subclass of it that programs still subclass for
    their own schedules (a `get_lr()` from `last_epoch` and `base_lrs`).

    >>> class Halving(tg.optim.lr_scheduler._LRScheduler):
    ...     def get_lr(self):
    ...         return [lr * 0.5**self.last_epoch for lr in self.base_lrs]
    """


__all__ = ["LRScheduler", "check_optimizer", "per_group"]
