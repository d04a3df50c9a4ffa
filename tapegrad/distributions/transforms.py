"""Transforms, as torch.distributions.transforms: invertible maps with their log |det J|, used by
TransformedDistribution. Here: Transform (the base, its inverse `inv`), ExpTransform,
AffineTransform, SigmoidTransform, TanhTransform, ComposeTransform.

Layer L5 (the distributions package).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .. import math as _m
from ..creation import full_like, zeros_like
from ..nn.functional import softplus
from ..tensor import Tensor
from . import constraints


class Transform:
    """An invertible map: `t(x)`, `t.inv(y)`, `t.log_abs_det_jacobian(x, y)`.

    >>> ExpTransform().inv(tg.tensor([1.0]))
    tensor([0.])
    """

    bijective = False
    domain: Any = constraints.real
    codomain: Any = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple = (None, None)
        self._inv: Any = None

    @property
    def event_dim(self) -> int:
        """The event dimensions of the domain (= the codomain's here)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> "Transform":
        """The inverse transform."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self) -> int:
        """The sign of the derivative (monotone elementwise transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> "Transform":
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """log |dy/dx| at x (y = t(x))."""
        raise NotImplementedError

    def forward_shape(self, shape: tuple) -> tuple:
        """The shape of t(x) for x of the shape."""
        return shape

    def inverse_shape(self, shape: tuple) -> tuple:
        """The shape of t.inv(y) for y of the shape."""
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> Any:
        return self._inv.codomain

    @property
    def codomain(self) -> Any:
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> int:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)


class ComposeTransform(Transform):
    """Transforms applied one after another.

    >>> ComposeTransform([AffineTransform(1.0, 2.0), ExpTransform()])(tg.tensor([0.0]))
    tensor([2.7183])
    """

    def __init__(self, parts: list, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    @property
    def domain(self) -> Any:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = max(p.domain.event_dim for p in self.parts)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> Any:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = max(p.codomain.event_dim for p in self.parts)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> int:
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    def _call(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y: Tensor) -> Tensor:
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return zeros_like(x)
        event_dim = self.domain.event_dim
        total: Any = 0.0
        for part in self.parts:
            y = part(x)
            term = part.log_abs_det_jacobian(x, y)
            total = total + _sum_event(term, event_dim - part.domain.event_dim)
            x = y
        return total

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return self.__class__.__name__ + "(\n    " + inner + "\n)"


def _sum_event(value: Tensor, dim: int) -> Tensor:
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


class ExpTransform(Transform):
    """y = exp(x).

    >>> ExpTransform()(tg.tensor([0.0]))
    tensor([1.])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True

    @property
    def sign(self) -> int:
        return 1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class AffineTransform(Transform):
    """y = loc + scale * x (event_dim: how many rightmost dimensions are one event).

    >>> AffineTransform(1.0, 2.0)(tg.tensor([3.0]))
    tensor([7.])
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self) -> Any:
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @property
    def codomain(self) -> Any:
        return self.domain

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = full_like(x, math.log(abs(scale)))
        else:
            result = _m.abs(scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[: -self.event_dim]) + (-1,)).sum(-1)
            shape = shape[: -self.event_dim]
        return result.expand(shape)


def _clipped_sigmoid(x: Tensor) -> Tensor:
    finfo = np.finfo(x.dtype)
    return _m.sigmoid(x).clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))


class SigmoidTransform(Transform):
    """y = sigmoid(x) (clipped into (0, 1) as torch's).

    >>> SigmoidTransform()(tg.tensor([0.0]))
    tensor([0.5000])
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True

    @property
    def sign(self) -> int:
        return 1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = np.finfo(y.dtype)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """y = tanh(x).

    >>> TanhTransform()(tg.tensor([0.0]))
    tensor([0.])
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True

    @property
    def sign(self) -> int:
        return 1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return _m.atanh(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


__all__ = [
    "AffineTransform",
    "ComposeTransform",
    "ExpTransform",
    "SigmoidTransform",
    "TanhTransform",
    "Transform",
]
