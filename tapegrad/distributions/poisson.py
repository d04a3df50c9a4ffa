"""Poisson(rate), as torch.distributions.Poisson. Its samples are NumPy's Poisson draws on
tapegrad's seed (torch.poisson's stream is not reproduced).

Layer L5 (the distributions package).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

from .. import math as _m
from .._state import no_grad
from ..tensor import Tensor
from . import constraints
from ._gamma_sampling import poisson
from .exp_family import ExponentialFamily
from .utils import broadcast_all


class Poisson(ExponentialFamily):
    """The Poisson distribution with the given rate.

    >>> Poisson(tg.tensor([2.0])).log_prob(tg.tensor([0.0]))
    tensor([-2.])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape: tuple = () if isinstance(rate, Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Poisson":
        return self._expanded(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples (NumPy's Poisson sampler on tapegrad's seed: not torch's numbers)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return _m.xlogy(value, rate) - rate - _m.lgamma(value + 1)


__all__ = ["Poisson"]
