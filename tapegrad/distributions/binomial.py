"""Binomial(total_count, probs= | logits=), as torch.distributions.Binomial. Its samples are
NumPy's binomial draws on tapegrad's seed (torch.binomial's stream is not reproduced).

Layer L5 (the distributions package).
"""

from __future__ import annotations

from typing import Any

from .. import math as _m
from .._state import no_grad
from ..creation import arange
from ..tensor import Tensor
from . import constraints
from ._gamma_sampling import binomial
from .distribution import Distribution
from .utils import BinaryOdds, broadcast_all


def _clamp_by_zero(x: Tensor) -> Tensor:
    """clamp(x, min=0) whose gradient at 0 is 0.5 (torch's)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryOdds, Distribution):
    """The number of successes in total_count trials of probability probs (or sigmoid(logits)).

    >>> Binomial(2, probs=tg.tensor([0.5])).log_prob(tg.tensor([1.0]))
    tensor([-0.6931])
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(tuple(self._param.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = tuple(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> tuple:
        """The shape of the parameter."""
        return tuple(self._param.shape)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples (NumPy's binomial sampler on tapegrad's seed: not torch's numbers)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_factorial_n = _m.lgamma(n + 1)
        log_factorial_k = _m.lgamma(value + 1)
        log_factorial_nmk = _m.lgamma(n - value + 1)
        normalize_term = (
            n * _clamp_by_zero(logits) + n * _m.log1p(_m.exp(-_m.abs(logits))) - log_factorial_n
        )
        return value * logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self) -> Tensor:
        total_count = int(self.total_count.max())
        if not float(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(_m.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = int(self.total_count.max())
        if not float(self.total_count.min()) == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = arange(1 + total_count, dtype=self._param.dtype)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values


__all__ = ["Binomial"]
