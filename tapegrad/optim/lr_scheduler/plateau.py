"""ReduceLROnPlateau, PyTorch's: lower the learning rate when a watched metric stops improving
(step(metric) once per epoch, e.g. with the validation loss).

Layer L5: imports the base class and optim/optimizer.py.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, SupportsFloat

from ..optimizer import Optimizer
from .base import LRScheduler, check_optimizer


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by `factor` (never below min_lr) after more than `patience` epochs without
    improvement of the metric (by more than threshold, relative or absolute; mode 'min' for a
    loss, 'max' for an accuracy), then wait `cooldown` epochs before counting again.

    >>> sched = tg.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=5)
    >>> sched.step(validation_loss)
    """

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float | list[float] = 0,
        eps: float = 1e-8,
    ) -> None:
        if factor >= 1.0:
            raise ValueError(f"Factor should be < 1.0, got {factor}")
        self.factor = factor
        self.optimizer = check_optimizer(optimizer, "ReduceLROnPlateau(tg.optim.SGD(params))")
        groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != groups:
                raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
            self.default_min_lr: float | None = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * groups
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        self._set_mode(mode, threshold, threshold_mode)
        self._reset()

    def _set_mode(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown! (use 'min' or 'max')")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown! (use 'rel' or 'abs')")
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is waiting after a reduction (bad epochs are not counted)."""
        return self.cooldown_counter > 0

    def is_better(self, a: float, best: float) -> bool:
        """Whether metric value `a` improves on `best` by more than the threshold."""
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics: SupportsFloat, epoch: Any = None) -> None:  # type: ignore[override]
        """Record this epoch's metric (a number or a one-element tensor); reduce the lr if it has
        not improved for more than `patience` epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(
                "passing an epoch to scheduler.step() is deprecated (as in PyTorch)",
                UserWarning,
                stacklevel=2,
            )
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # (bad epochs in the cooldown do not count)
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from "
                    f"when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    f"to a new param group being added to the optimizer. Please modify the "
                    f"`min_lrs` field to match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, low in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, low)
            if old - new > self.eps:  # (a change smaller than eps is ignored)
                group["lr"] = new

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what state_dict() returned."""
        super().load_state_dict(state_dict)
        self._set_mode(self.mode, self.threshold, self.threshold_mode)


__all__ = ["ReduceLROnPlateau"]
