"""Laplace(loc, scale), as torch.distributions.Laplace: rsample inverts the CDF at torch's uniform
draws on (eps - 1, 1).

Layer L5 (the distributions package).
"""

from __future__ import annotations

from numbers import Number
from typing import Any

import numpy as np

from .. import math as _m
from ..creation import empty
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all


class Laplace(Distribution):
    """The Laplace (double exponential) distribution with location loc and scale.

    >>> Laplace(tg.tensor([0.0]), tg.tensor([1.0])).log_prob(tg.tensor([0.0]))
    tensor([-0.6931])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape: tuple = ()
        else:
            batch_shape = tuple(self.loc.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Laplace":
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc.dtype).eps)
        u = empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * _m.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -_m.log(2 * self.scale) - _m.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * _m.expm1(-d.abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _m.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + _m.log(2 * self.scale)


__all__ = ["Laplace"]
