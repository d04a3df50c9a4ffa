"""Schedules made of schedules, PyTorch's: SequentialLR (one after another, switching at
milestones: warm-up then decay) and ChainedScheduler (all at once, each scaling the lr in turn).

Layer L5: imports the base class and optim/optimizer.py.
"""

from __future__ import annotations

import bisect
from typing import Any, Sequence

from ..optimizer import Optimizer
from .base import LRScheduler
from .plateau import ReduceLROnPlateau


def _check_parts(owner: str, schedulers: Sequence[Any], optimizer: Optimizer) -> None:
    """Every scheduler steps the same optimizer and takes no argument to step() (PyTorch's)."""
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                f"additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if scheduler.optimizer is not optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(scheduler).__name__} at index {i} with another optimizer."
            )


def _undo_initial_steps(schedulers: Sequence[Any]) -> None:
    """Take back the step each scheduler took when it was made (nested ones too)."""
    for scheduler in schedulers:
        if hasattr(scheduler, "_schedulers"):
            _undo_initial_steps(scheduler._schedulers)
        else:
            scheduler.last_epoch -= 1


def _states(schedulers: Sequence[Any], own: dict) -> dict:
    state = {k: v for k, v in own.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in schedulers]
    return state


class SequentialLR(LRScheduler):
    """The schedulers one after the other: scheduler i runs from milestone i-1 (restarted at its
    epoch 0 there) until milestone i.

    >>> warm = tg.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
    >>> decay = tg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> sched = tg.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[5])
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        _check_parts("SequentialLR", schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"Sequential Schedulers expects number of schedulers provided to be one more than "
                f"the number of milestone points, but got number of schedulers {len(schedulers)} "
                f"and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # back to the start: the parts' steps are undone
            group["lr"] = group["initial_lr"]
        _undo_initial_steps(self._schedulers)
        first = self._schedulers[bisect.bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self, epoch: int | None = None) -> None:
        """The next epoch, by the scheduler whose turn it is (restarted at its milestone)."""
        if epoch is not None:
            raise TypeError("SequentialLR.step() takes no epoch")
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        """Its own state and each scheduler's (PyTorch's layout)."""
        return _states(self._schedulers, self.__dict__)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what state_dict() returned, the schedulers' states too."""
        state = dict(state_dict)
        parts = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, parts):
            scheduler.load_state_dict(saved)


class ChainedScheduler(LRScheduler):
    """All the schedulers at every step, one after the other (each scales the lr the previous
    one set): e.g. a constant warm-up factor on top of an exponential decay.

    >>> sched = tg.optim.lr_scheduler.ChainedScheduler([warm, decay])
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                "ChainedScheduler expects at least one scheduler to be chained, but got no "
                "scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check_parts("ChainedScheduler", schedulers, optimizer)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def step(self, epoch: int | None = None) -> None:
        """Every scheduler's step, in order."""
        if epoch is not None:
            raise TypeError("ChainedScheduler.step() takes no epoch")
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def state_dict(self) -> dict:
        """Its own state and each scheduler's (PyTorch's layout)."""
        return _states(self._schedulers, self.__dict__)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what state_dict() returned, the schedulers' states too."""
        state = dict(state_dict)
        parts = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, parts):
            scheduler.load_state_dict(saved)


__all__ = ["ChainedScheduler", "SequentialLR"]
