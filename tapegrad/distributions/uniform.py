"""Uniform(low, high), as torch.distributions.Uniform: rsample is low + rand * (high - low) with
torch's uniform draws.

Layer L5 (the distributions package).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from .. import math as _m
from ..sampling import rand
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Uniform(Distribution):
    """The uniform distribution on the half-open interval [low, high).

    >>> Uniform(tg.tensor([0.0]), tg.tensor([4.0])).log_prob(tg.tensor([1.0]))
    tensor([-1.3863])
    """

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, Number) and isinstance(high, Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.low.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Uniform":
        return self._expanded(Uniform, batch_shape, _instance, ("low", "high"))

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return float("nan") * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return _m.log(lb * ub) - _m.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return _m.log(self.high - self.low)


__all__ = ["Uniform"]
