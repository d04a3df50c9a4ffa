"""OneHotCategorical, as torch.distributions.OneHotCategorical: a Categorical whose samples are
one-hot vectors.

Layer L5 (the distributions package).
"""

from __future__ import annotations

from typing import Any

from ..creation import eye
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution


def _one_hot(indices: Tensor, num_classes: int, like: Tensor) -> Tensor:
    """One-hot rows of `like`'s dtype for integer indices."""
    return eye(num_classes, dtype=like.dtype)[indices]


class OneHotCategorical(Distribution):
    """A categorical distribution over one-hot vectors of length K.

    >>> OneHotCategorical(probs=tg.tensor([0.25, 0.75])).log_prob(tg.tensor([0.0, 1.0]))
    tensor(-0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "OneHotCategorical":
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = tuple(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        """The probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The normalized log-probabilities."""
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return _one_hot(probs.argmax(dim=-1), probs.shape[-1], probs)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> tuple:
        """The shape of the parameter."""
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        probs = self._categorical.probs
        num_events = self._categorical._num_events
        indices = self._categorical.sample(sample_shape)
        return _one_hot(indices, num_events, probs)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = eye(n, dtype=self._param.dtype)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values


__all__ = ["OneHotCategorical"]
