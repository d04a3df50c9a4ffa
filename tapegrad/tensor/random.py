"""Random: the in-place methods that fill a tensor with random numbers (PyTorch's normal_,
uniform_, exponential_, cauchy_, log_normal_, geometric_, bernoulli_, random_), and the samplers
that take the tensor as their probabilities (multinomial, bernoulli), drawn from `generator=` (a
tg.Generator) or else the default generator.

Layer L3: numpy, the storage base and writing.py's shared in-place path. The generators live above
this layer (they make tensors: tapegrad/random.py, sampling.py), so they are looked up when a
method is called, as the conversion room reaches tapegrad.interop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .base import TensorBase
from .writing import inplace

if TYPE_CHECKING:
    from ..random import Generator
    from .tensor import Tensor


def _stream(generator: Any, who: str) -> Any:
    """The samplers (torch_draws.Draws) behind `generator` (None: the default generator's)."""
    from .. import random  # (L4: read on use)

    return random.numpy_generator(generator, who)


def _floating(t: TensorBase, who: str) -> None:
    if t._data.dtype.kind != "f":
        raise TypeError(
            f"{who} fills a floating-point tensor with real numbers, got dtype {t._data.dtype}; "
            f"convert it first (.float())"
        )


class RandomMixin(TensorBase):
    """The random in-place methods of Tensor."""

    __slots__ = ()

    def normal_(
        self, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None
    ) -> Tensor:
        """In place: samples of N(mean, std^2), from `generator` (else the default generator).

        >>> x = tg.zeros(3); x.normal_(0.0, 0.01).shape
        (3,)
        """
        _floating(self, "normal_")
        if not std >= 0.0:
            raise ValueError(f"normal_ expects std >= 0.0, but found std {std}")
        kind = self._data.dtype
        values = _stream(generator, "normal_").normal(mean, std, self._data.shape, dtype=kind)
        return inplace(self, "normal_", None, values)

    def uniform_(
        self, from_: float = 0.0, to: float = 1.0, *, generator: Generator | None = None
    ) -> Tensor:
        """In place: samples of the uniform distribution on [from_, to), from `generator` (else
        the default generator). (PyTorch calls the first argument `from`, a Python keyword.)

        >>> x = tg.zeros(3); bool(((x.uniform_(-1.0, 1.0) >= -1) & (x < 1)).all())
        True
        """
        _floating(self, "uniform_")
        if from_ > to:
            raise ValueError(
                f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}"
            )
        kind = self._data.dtype
        values = _stream(generator, "uniform_").uniform(from_, to, self._data.shape, dtype=kind)
        return inplace(self, "uniform_", None, values)

    def exponential_(self, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
        """In place: samples of the exponential distribution of rate lambd (mean 1 / lambd).

        >>> x = tg.zeros(3); bool((x.exponential_(2.0) >= 0).all())
        True
        """
        _floating(self, "exponential_")
        if not lambd > 0:
            raise ValueError(f"exponential_ expects lambd > 0.0, but found lambd={lambd}")
        values = _stream(generator, "exponential_").exponential_rate(lambd, self._data.shape)
        return inplace(self, "exponential_", None, values.astype(self._data.dtype))

    def cauchy_(
        self, median: float = 0.0, sigma: float = 1.0, *, generator: Generator | None = None
    ) -> Tensor:
        """In place: samples of the Cauchy distribution with this median and scale sigma.

        >>> x = tg.zeros(3); x.cauchy_().shape
        (3,)
        """
        _floating(self, "cauchy_")
        if not sigma > 0:
            raise ValueError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
        draws = _stream(generator, "cauchy_").cauchy(median, sigma, self._data.shape)
        return inplace(self, "cauchy_", None, draws.astype(self._data.dtype))

    def log_normal_(
        self, mean: float = 1.0, std: float = 2.0, *, generator: Generator | None = None
    ) -> Tensor:
        """In place: exp of samples of N(mean, std^2).

        >>> x = tg.zeros(3); bool((x.log_normal_() > 0).all())
        True
        """
        _floating(self, "log_normal_")
        if not std > 0:
            raise ValueError(f"log_normal_ expects std > 0.0, but found std={std}")
        values = _stream(generator, "log_normal_").lognormal(mean, std, self._data.shape)
        return inplace(self, "log_normal_", None, values.astype(self._data.dtype))

    def geometric_(self, p: float, *, generator: Generator | None = None) -> Tensor:
        """In place: the number of trials up to the first success, success probability p (1, 2,
        ...; integer tensors too).

        >>> x = tg.zeros(3); bool((x.geometric_(0.5) >= 1).all())
        True
        """
        if not 0 < p < 1:
            raise ValueError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        values = _stream(generator, "geometric_").geometric(p, self._data.shape)
        return inplace(self, "geometric_", None, values.astype(self._data.dtype))

    def bernoulli_(self, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
        """In place: 1 with probability p (a number, or a tensor of probabilities that broadcasts
        to self), else 0.

        >>> x = tg.zeros(3); x.bernoulli_(tg.tensor([0.0, 1.0, 1.0]))
        tensor([0., 1., 1.])
        """
        prob = np.asarray(p._data if isinstance(p, TensorBase) else float(p))
        if np.any((prob < 0) | (prob > 1)) or np.isnan(prob).any():
            raise ValueError("bernoulli_ expects p to be in [0, 1]")
        if prob.dtype.kind != "f":
            prob = prob.astype(np.float64)
        draws = _stream(generator, "bernoulli_").bernoulli(prob, self._data.shape)
        return inplace(self, "bernoulli_", None, draws.astype(self._data.dtype))

    def random_(
        self, from_: int = 0, to: int | None = None, *, generator: Generator | None = None
    ) -> Tensor:
        """In place: whole numbers drawn uniformly from [from_, to); random_(n) is [0, n); with
        no bound, up to the dtype's largest exactly representable integer (2**24 for float32,
        2**53 for float64, the integer dtype's maximum), as PyTorch.

        >>> x = tg.zeros(4); bool(((x.random_(3, 7) >= 3) & (x < 7)).all())
        True
        """
        low, high = (0, from_) if to is None and from_ != 0 else (from_, to)
        if high is None and low == 0:  # PyTorch's random_(): the dtype's whole range
            draws = _stream(generator, "random_")
            values = draws.full_range(self._data.shape, dtype=self._data.dtype)
            return inplace(self, "random_", None, values)
        if high is None:
            dtype = self._data.dtype
            high = 2 ** (np.finfo(dtype).nmant + 1) + 1 if dtype.kind == "f" else None
            if dtype == np.bool_:
                high = 2
            elif high is None:
                high = int(np.iinfo(dtype).max)
        if not low < high:
            raise ValueError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        values = _stream(generator, "random_").integers(low, high, self._data.shape)
        return inplace(self, "random_", None, values.astype(self._data.dtype))

    def multinomial(
        self, num_samples: int, replacement: bool = False, *, generator: Generator | None = None
    ) -> Tensor:
        """Indices drawn from the categories of each row (self: their weights), as tg.multinomial.

        >>> tg.tensor([0.0, 1.0]).multinomial(2, replacement=True)
        tensor([1, 1])
        """
        from .. import sampling  # (L4: read on use)

        return sampling.multinomial(
            cast("Tensor", self), num_samples, replacement, generator=generator
        )

    def bernoulli(self, p: float | None = None, *, generator: Generator | None = None) -> Tensor:
        """0 or 1 at each position, 1 with probability self (or p everywhere), as tg.bernoulli.

        >>> tg.tensor([0.0, 1.0]).bernoulli()
        tensor([0., 1.])
        """
        from .. import sampling  # (as multinomial)

        return sampling.bernoulli(cast("Tensor", self), p, generator=generator)
