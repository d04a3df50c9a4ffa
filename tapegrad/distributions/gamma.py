"""Gamma(concentration, rate), as torch.distributions.Gamma. Its samples are not torch's (torch's
gamma sampler is not reproduced): NumPy's gamma sampler seeded by tapegrad's generator
(`tg.manual_seed` makes them repeatable), rsample differentiable through the implicit gradient
torch uses (_gamma_sampling.py).

Layer L5 (the distributions package).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import numpy as np

from .. import math as _m
from ..special import gammainc
from ..tensor import Tensor
from . import constraints
from ._gamma_sampling import standard_gamma
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Gamma(ExponentialFamily):
    """The gamma distribution with shape `concentration` and inverse scale `rate`.

    >>> Gamma(tg.tensor([1.0]), tg.tensor([2.0])).log_prob(tg.tensor([1.0]))
    tensor([-1.3069])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.concentration.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterized sample (NumPy's sampler on tapegrad's seed: not torch's numbers)."""
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        tiny = float(np.finfo(value.dtype).tiny)
        return value.clamp(min=tiny)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return _m.xlogy(c, r) + _m.xlogy(c - 1, value) - r * value - _m.lgamma(c)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - _m.log(self.rate) + _m.lgamma(c) + (1.0 - c) * _m.digamma(c)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)


__all__ = ["Gamma"]
