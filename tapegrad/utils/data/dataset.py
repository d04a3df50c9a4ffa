"""Datasets, as torch.utils.data.dataset: Dataset, IterableDataset, TensorDataset, Subset,
ConcatDataset and random_split.

Layer L5: imports the Tensor class, random (random_split's default generator) and _utils.
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Any, Iterable, Iterator, Sequence

from ..._utils import int_arg
from ...random import Generator, numpy_generator
from ...tensor import Tensor


class Dataset:
    """A map-style dataset: subclass it and define `__getitem__(index)` and `__len__()`;
    `a + b` chains two datasets (a ConcatDataset).

    >>> class Squares(tg.utils.data.Dataset):
    ...     def __len__(self): return 10
    ...     def __getitem__(self, i): return tg.tensor(float(i)), tg.tensor(float(i * i))
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(self, index)")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: subclass it and define `__iter__()` (a DataLoader batches what
    it yields, in order; it takes no sampler and no shuffle).

    >>> class Count(tg.utils.data.IterableDataset):
    ...     def __iter__(self): return iter(range(5))
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__(self)")


class TensorDataset(Dataset):
    """Samples are the rows of tensors sharing their first dimension: `ds[i] == (x[i], y[i])`.

    >>> ds = tg.utils.data.TensorDataset(tg.randn(100, 3), tg.randn(100, 1)); len(ds)
    100
    """

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor, e.g. TensorDataset(x, y)")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"TensorDataset takes tensors, but argument {i} is a {type(t).__name__}; "
                    f"wrap it with tg.tensor(...)"
                )
            if t.ndim == 0:
                raise ValueError(
                    f"TensorDataset: tensor {i} is 0-d; every tensor needs a first dimension "
                    f"indexing the samples"
                )
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) > 1:
            raise ValueError(
                f"Size mismatch between tensors: TensorDataset needs the same first dimension "
                f"(number of samples) in every tensor, got {sizes}"
            )
        self.tensors = tuple(tensors)

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order (what random_split returns).

    >>> first_ten = tg.utils.data.Subset(ds, range(10))
    """

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other: index len(a) is b's first sample.

    >>> both = tg.utils.data.ConcatDataset([train, extra]); len(both) == len(train) + len(extra)
    True
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError(
                    "ConcatDataset does not support IterableDataset (it indexes its datasets)"
                )
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError(
                    f"ConcatDataset: absolute value of index should not exceed dataset length "
                    f"({index} for {len(self)} samples)"
                )
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {index} out of range for {len(self)} samples")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def random_split(
    dataset: Any, lengths: Sequence[int | float], generator: Generator | None = None
) -> list[Subset]:
    """Split into non-overlapping random subsets of the given lengths, or fractions summing to 1
    (the remainder of the rounding goes one by one to the first subsets, as PyTorch).

    >>> train, test = tg.utils.data.random_split(ds, [0.8, 0.2])
    """
    n = len(dataset)
    lengths = list(lengths)
    if not lengths:
        raise ValueError("random_split needs at least one length, e.g. [0.8, 0.2] or [80, 20]")
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:  # fractions
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1: {frac}")
        sizes = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    else:
        sizes = [int_arg("a length", length) for length in lengths]
    if sum(sizes) != n:
        raise ValueError(
            f"Sum of input lengths does not equal the length of the input dataset: the lengths "
            f"{lengths} add up to {sum(sizes)}, the dataset has {n} samples (give sizes adding "
            f"up to {n}, or fractions adding up to 1)"
        )
    order = numpy_generator(generator, "random_split").permutation(n).tolist()
    ends = itertools.accumulate(sizes)
    return [Subset(dataset, order[end - size : end]) for end, size in zip(ends, sizes)]


__all__ = [
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]
