"""Random: the in-place methods that fill a tensor with random numbers (PyTorch's normal_ and
uniform_), and the samplers that take the tensor as their probabilities (multinomial,
bernoulli), drawn from `generator=` (a tg.Generator) or else the default generator.

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


def _stream(generator: Any, who: str) -> np.random.Generator:
    """The NumPy generator behind `generator` (None: the default generator's)."""
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
        values = _stream(generator, "normal_").normal(mean, std, self._data.shape)
        return inplace(self, "normal_", None, values.astype(self._data.dtype))

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
        values = _stream(generator, "uniform_").uniform(from_, to, self._data.shape)
        return inplace(self, "uniform_", None, values.astype(self._data.dtype))

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
