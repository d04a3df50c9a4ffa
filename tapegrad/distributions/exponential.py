"""Exponential(rate), as torch.distributions.Exponential: rsample is exponential_() / rate with
torch's draws.

Layer L5 (the distributions package).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from .. import math as _m
from ..creation import empty, zeros_like
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Exponential(ExponentialFamily):
    """The exponential distribution with the given rate (mean 1 / rate).

    >>> Exponential(tg.tensor([2.0])).log_prob(tg.tensor([1.0]))
    tensor([-1.3069])
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape: tuple = () if isinstance(rate, Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Exponential":
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _m.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        return -_m.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - _m.log(self.rate)


__all__ = ["Exponential"]
