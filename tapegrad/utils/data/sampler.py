"""Samplers, as torch.utils.data.sampler: what order a DataLoader reads a dataset in.
Sampler (the base), SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler
and BatchSampler (indices grouped into batches).

A random sampler given no generator draws a fresh seed from the default generator at each pass
(so `tg.manual_seed` makes every epoch's order reproducible, and each epoch differs), as PyTorch.

Layer L5: imports random and sampling (multinomial).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence, Sized

import numpy as np

from ...mt19937 import MT19937
from ...random import Generator, numpy_generator
from ...torch_draws import Draws
from ...sampling import multinomial
from ...tensor import Tensor


class Sampler:
    """Base class: a subclass yields dataset indices from `__iter__` (and may define `__len__`).

    >>> class Backwards(tg.utils.data.Sampler):
    ...     def __init__(self, n): self.n = n
    ...     def __iter__(self): return iter(range(self.n - 1, -1, -1))
    """

    def __init__(self, data_source: Sized | None = None) -> None:
        return None

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__(self)")


def _stream(generator: Any, who: str) -> Any:
    """This pass's random stream, as PyTorch's RandomSampler makes it: the generator's own, or a
    new generator seeded with one int64 `random_()` draw from the default generator. (A NumPy
    Generator, which tapegrad also takes, draws NumPy's numbers.)"""
    if isinstance(generator, np.random.Generator):
        return generator
    if generator is not None:
        return numpy_generator(generator, who)
    seed = int(numpy_generator(None, who).full_range((), dtype=np.int64))
    return Draws(MT19937(seed))


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1.

    >>> list(tg.utils.data.SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random indices into data_source: a permutation (several, then part of one, when num_samples
    exceeds the dataset), or num_samples independent draws with `replacement=True`.

    >>> sampler = tg.utils.data.RandomSampler(ds, replacement=True, num_samples=1000)
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        count = self.num_samples
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={count}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices a pass yields (the dataset's length unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, count = len(self.data_source), self.num_samples
        rng = _stream(self.generator, "RandomSampler")
        if self.replacement:  # (in chunks: minGPT asks for 10**10 samples and reads a few)
            for start in range(0, count, 1024):
                yield from rng.integers(0, n, size=min(1024, count - start)).tolist()
            return
        for _ in range(count // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n)[: count % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each pass.

    >>> sampler = tg.utils.data.SubsetRandomSampler(range(80))
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        # (PyTorch's: randperm from the generator itself, the default one when None)
        rng = self.generator
        draws = rng if isinstance(rng, np.random.Generator) else numpy_generator(rng, "Subset")
        order = draws.permutation(len(self.indices))
        for i in order.tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to `weights` (one per sample).

    >>> sampler = tg.utils.data.WeightedRandomSampler([0.1, 0.9], num_samples=10)
    """

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        values = weights.numpy() if isinstance(weights, Tensor) else np.asarray(weights)
        self.weights = Tensor(values.astype(np.float64))
        if self.weights.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape "
                f"{tuple(self.weights.shape)}"
            )
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Another sampler's indices in lists of batch_size (the last one shorter unless drop_last).

    >>> list(tg.utils.data.BatchSampler(range(5), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]
