"""Distribution: the base of every distribution, as torch.distributions.Distribution (shapes,
sample/rsample, the statistics, expand, argument and sample validation with torch's
ValueErrors).

Layer L5 (the distributions package): imports the Tensor layer.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._state import no_grad
from ..tensor import Tensor
from . import constraints
from .utils import lazy_property

_size = tuple


class Distribution:
    """The base class of distributions: batch_shape, event_shape, sample, log_prob...

    >>> Distribution.set_default_validate_args(True)
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument and sample validation on or off by default (on, as torch's).

        >>> Distribution.set_default_validate_args(True)
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: tuple = (),
        event_shape: tuple = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param), lazy_property
                ):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {repr(self)} "
                        f"to satisfy the constraint {repr(constraint)}, "
                        f"but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape: tuple, _instance: Any = None) -> "Distribution":
        """A new distribution with its batch dimensions expanded to batch_shape."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> tuple:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> tuple:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """The constraint each parameter satisfies (name -> Constraint)."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The Constraint of this distribution's support."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation."""
        return self.variance.sqrt()

    def sample(self, sample_shape: tuple = ()) -> Tensor:
        """A sample of shape sample_shape + batch_shape + event_shape (no gradient)."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: tuple = ()) -> Tensor:
        """A reparameterized sample (gradients reach the parameters)."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """n samples (deprecated: sample((n,)))."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the density (or mass) at value."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at value."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at value."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete support."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, of shape batch_shape."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """exp(entropy)."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Any = ()) -> tuple:
        if isinstance(sample_shape, int):
            raise TypeError(
                f"sample_shape must be a tuple of ints (torch.Size), got the int {sample_shape}: "
                f"write ({sample_shape},)"
            )
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _validate_sample(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != self._event_shape:
            raise ValueError(
                "The right-most size of value must match event_shape: "
                f"{_size_repr(value.shape)} vs {_size_repr(self._event_shape)}."
            )
        actual_shape = tuple(value.shape)
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{_size_repr(actual_shape)} vs {_size_repr(expected_shape)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. Please "
                "initialize the distribution with `validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({repr(support)}) "
                f"of the distribution {repr(self)}, "
                f"but found invalid values:\n{value}"
            )

    def _expanded(self, cls: type, batch_shape: Any, _instance: Any, names: tuple) -> Any:
        """expand's common body: a `cls` over batch_shape whose parameters in `names` (those this
        one holds) are this one's, expanded to batch_shape + the event shape, as torch's do
        (`Normal.expand` is `self._expanded(Normal, batch_shape, _instance, ("loc", "scale"))`)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = tuple(batch_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape + self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: "
            + (
                f"{self.__dict__[p]}"
                if self.__dict__[p].numel() == 1
                else _size_repr(self.__dict__[p].shape)
            )
            for p in param_names
        )
        return self.__class__.__name__ + "(" + args_string + ")"


def _size_repr(shape: Any) -> str:
    """A shape written as torch writes a torch.Size."""
    return f"torch.Size({list(shape)})"


__all__ = ["Distribution"]
