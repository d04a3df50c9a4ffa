"""Helpers the distributions share, as torch.distributions.utils: broadcast_all, the probs/logits
conversions, clamp_probs, lazy_property, and the standard normal draw the rsample methods make.

Layer L5 (the distributions package): imports the Tensor layer and the free functions.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable

import numpy as np

from .. import math as _m
from ..combining import broadcast_tensors
from ..creation import empty, tensor
from ..dtypes import get_default_dtype
from ..tensor import Tensor

Shape = tuple  # torch.Size's counterpart: tapegrad's shapes are tuples


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


def broadcast_all(*values: Any) -> tuple:
    """Tensors and numbers broadcast to one shape (numbers become tensors of the tensors' dtype).

    >>> broadcast_all(tg.tensor([1.0, 2.0]), 0.5)[1]
    tensor([0.5000, 0.5000])
    """
    if not all(_is_tensor(v) or isinstance(v, Number) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, tapegrad.Tensor or objects "
            "implementing __torch_function__."
        )
    if not all(_is_tensor(v) for v in values):
        first = next((v for v in values if _is_tensor(v)), None)
        dtype = first.dtype if first is not None else get_default_dtype()
        values = tuple(v if _is_tensor(v) else tensor(v, dtype=dtype) for v in values)
    return tuple(broadcast_tensors(*values))


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped into [eps, 1 - eps] (eps of their dtype).

    >>> clamp_probs(tg.tensor([0.0, 1.0], dtype=tg.float64)).tolist()
    [2.220446049250313e-16, 0.9999999999999998]
    """
    eps = float(np.finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits of probabilities: log p (categorical) or log p - log(1 - p) (binary).

    >>> probs_to_logits(tg.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return _m.log(ps_clamped) - _m.log1p(-ps_clamped)
    return _m.log(ps_clamped)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities of logits: sigmoid (binary) or softmax over the last dimension.

    >>> logits_to_probs(tg.tensor([0.0]), is_binary=True)
    tensor([0.5000])
    """
    if is_binary:
        return _m.sigmoid(logits)
    return _m.softmax(logits, dim=-1)


class lazy_property:
    """A property computed on first access and cached on the instance (torch's lazy_property).

    >>> class A:
    ...     @lazy_property
    ...     def x(self):
    ...         return 3
    >>> A().x
    3
    """

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class BinaryOdds:
    """The probs / logits pair of a distribution over successes (Bernoulli, Binomial, Geometric):
    the one given at construction is stored, the other computed from it on first use."""

    @lazy_property
    def logits(self) -> Any:
        """The log-odds of a success, log(p / (1 - p))."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        """The probability of a success."""
        return logits_to_probs(self.logits, is_binary=True)


def _standard_normal(shape: tuple, dtype: Any) -> Tensor:
    """Standard normal draws of the shape, as torch's `torch.empty(shape).normal_()`."""
    return empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """The sum over the rightmost `dim` dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


def _numel(shape: tuple) -> int:
    return int(np.prod(shape)) if len(shape) else 1


__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
]
