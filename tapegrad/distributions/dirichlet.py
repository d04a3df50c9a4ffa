"""Dirichlet(concentration), as torch.distributions.Dirichlet. Samples are normalized gamma draws
(NumPy's sampler on tapegrad's seed: not torch's numbers); rsample's gradient flows through the
gamma draws' implicit gradients and the normalization.

Layer L5 (the distributions package).
"""

from __future__ import annotations

from typing import Any

from .. import math as _m
from ..creation import eye
from ..tensor import Tensor
from . import constraints
from ._gamma_sampling import standard_gamma
from .exp_family import ExponentialFamily


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex, with the given concentration vector.

    >>> Dirichlet(tg.tensor([1.0, 1.0])).log_prob(tg.tensor([0.5, 0.5]))
    tensor(0.)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Dirichlet":
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterized sample: gammas over their sum (not torch's numbers)."""
        shape = self._extended_shape(sample_shape)
        gammas = standard_gamma(self.concentration.expand(shape))
        return gammas / gammas.sum(-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return _m.xlogy(c - 1.0, value).sum(-1) + _m.lgamma(c.sum(-1)) - _m.lgamma(c).sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(-1, keepdim=True)
        corner = eye(mode.shape[-1], dtype=mode.dtype)[mode.argmax(dim=-1)]
        return _m.where(mask, corner, mode)

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (
            _m.lgamma(c).sum(-1)
            - _m.lgamma(a0)
            - (k - a0) * _m.digamma(a0)
            - ((c - 1.0) * _m.digamma(c)).sum(-1)
        )


__all__ = ["Dirichlet"]
