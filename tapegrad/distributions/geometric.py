"""Geometric(probs= | logits=), as torch.distributions.Geometric: the number of failures before
the first success; samples are torch's (its uniform draws, then log(u) / log1p(-p) floored).

Layer L5 (the distributions package).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import numpy as np

from .. import math as _m
from .._state import no_grad
from ..creation import empty, zeros_like
from ..nn.functional import binary_cross_entropy_with_logits
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import BinaryOdds, broadcast_all


class Geometric(BinaryOdds, Distribution):
    """Failures before the first success in Bernoulli(probs) trials.

    >>> Geometric(probs=tg.tensor([0.5])).log_prob(tg.tensor([1.0]))
    tensor([-1.3863])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        batch_shape: tuple = () if isinstance(given, Number) else tuple(given.shape)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {repr(self)} "
                    f"to be positive but found invalid values:\n{value[~valid]}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Geometric":
        return self._expanded(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        tiny = float(np.finfo(self.probs.dtype).tiny)
        with no_grad():
            u = empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = _m.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        bce = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs


__all__ = ["Geometric"]
