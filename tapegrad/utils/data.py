"""tg.utils.data: Dataset, TensorDataset, Subset, DataLoader, random_split, default_collate.

Layer L5: imports tensor, math (stack), creation (the random generator) and _utils. PyTorch's
semantics, in the main process: a loader draws its shuffle order from tapegrad's generator each time
it is iterated, so `tg.manual_seed(n)` makes the batches reproducible.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .._utils import int_arg
from ..creation import generator as default_generator
from ..math import stack
from ..tensor import Tensor


class Dataset:
    """A map-style dataset: subclass it and define `__getitem__(index)` and `__len__()`.

    >>> class Squares(tg.utils.data.Dataset):
    ...     def __len__(self): return 10
    ...     def __getitem__(self, i): return tg.tensor(float(i)), tg.tensor(float(i * i))
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(self, index)")


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


def random_split(
    dataset: Any, lengths: Sequence[int | float], generator: np.random.Generator | None = None
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
    order = (generator or default_generator()).permutation(n).tolist()
    ends = itertools.accumulate(sizes)
    return [Subset(dataset, order[end - size : end]) for end, size in zip(ends, sizes)]


def default_collate(batch: list) -> Any:
    """Combine samples into a batch as PyTorch does: tensors, NumPy arrays and numbers are stacked
    into one tensor (Python floats as float64, ints as int64), dicts, tuples and lists are collated
    field by field (a tuple of fields becomes a list), strings stay a list.

    >>> default_collate([(tg.ones(2), 0), (tg.zeros(2), 1)])
    [Tensor([[1., 1.], [0., 0.]]), Tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        if any(t.requires_grad for t in batch):  # on the tape, as torch.stack would be
            return stack(batch)
        return Tensor(_np_stack([t.numpy() for t in batch]))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, (np.ndarray, np.generic)):
        if elem.dtype.kind in "SaUO":
            raise TypeError(
                f"default_collate: cannot batch NumPy arrays of dtype {elem.dtype} (strings or "
                f"objects); convert them, or pass a collate_fn"
            )
        return Tensor(_np_stack([np.asarray(b) for b in batch]))
    if isinstance(elem, float):
        return Tensor(np.array(batch, dtype=np.float64))
    if isinstance(elem, int):  # bools too: they stay bool, as torch.tensor([True, ...])
        arr = np.array(batch)
        return Tensor(arr.astype(np.int64) if arr.dtype.kind in "iu" else arr)
    if isinstance(elem, Mapping):
        fields = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(fields)  # type: ignore[call-arg]
        except TypeError:  # a mapping type that cannot be built from a dict
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem).__name__}; pass a collate_fn for other samples"
    )


def default_convert(data: Any) -> Any:
    """What a loader without batching (batch_size=None) does to a sample: NumPy arrays and scalars
    become tensors, containers are converted element by element, the rest is left alone.

    >>> default_convert({"x": np.ones(2)})
    {'x': Tensor([1., 1.], dtype=float64)}
    """
    if isinstance(data, (np.ndarray, np.generic)) and data.dtype.kind not in "SaUO":
        return Tensor(np.asarray(data))
    if isinstance(data, Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)  # type: ignore[call-arg]
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):
        return type(data)(default_convert(d) for d in data)
    return data


class DataLoader:
    """Iterate over a dataset in batches: `for x, y in DataLoader(ds, batch_size=64, shuffle=True)`.

    Each pass is a fresh iteration (restartable); with shuffle=True every pass draws a new order
    from tapegrad's generator (`tg.manual_seed`), or from `generator` when given. batch_size=None
    yields single samples without batching. Loading runs in this process; `num_workers` and
    `pin_memory` are accepted for PyTorch scripts and change nothing.

    >>> loader = tg.utils.data.DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        collate_fn: Callable[[list], Any] | None = None,
        *,
        generator: np.random.Generator | None = None,
        num_workers: int = 0,
        pin_memory: bool = False,
    ) -> None:
        if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(
                f"DataLoader needs a dataset with __getitem__ and __len__ (e.g. a TensorDataset, "
                f"a Dataset subclass or a list), got {type(dataset).__name__}"
            )
        if batch_size is not None:
            batch_size = int_arg("batch_size", batch_size, low=1)
        elif drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"collate_fn must be a function, got {type(collate_fn).__name__}")
        if generator is not None and not isinstance(generator, np.random.Generator):
            raise TypeError(
                f"generator must be a numpy.random.Generator (e.g. np.random.default_rng(0)), "
                f"got {type(generator).__name__}"
            )
        int_arg("num_workers", num_workers, low=0)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.generator = generator
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        default = default_collate if batch_size is not None else default_convert
        self.collate_fn = collate_fn if collate_fn is not None else default

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self) -> Iterator[Any]:
        n = len(self.dataset)
        order = (self.generator or default_generator()).permutation(n) if self.shuffle else None
        if self.batch_size is None:
            for i in order if order is not None else range(n):
                yield self.collate_fn(self.dataset[int(i)])
            return
        for start in range(0, len(self) * self.batch_size, self.batch_size):
            stop = min(start + self.batch_size, n)
            indices = order[start:stop] if order is not None else np.arange(start, stop)
            yield self._fetch(indices)

    def _fetch(self, indices: np.ndarray) -> Any:
        # A TensorDataset (possibly behind Subsets) with the default collate: one indexing per
        # tensor gives the same batch as stacking the samples one by one, without the loop.
        dataset = self.dataset
        if self.collate_fn is default_collate:
            while type(dataset) is Subset:
                indices = np.asarray(dataset.indices)[indices]
                dataset = dataset.dataset
            if type(dataset) is TensorDataset:
                return [t[indices] for t in dataset.tensors]
            dataset = self.dataset
        return self.collate_fn([dataset[int(i)] for i in indices])


def _np_stack(arrays: list) -> np.ndarray:
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise RuntimeError(
            f"default_collate: samples of different shapes {sorted(shapes)} cannot be stacked into "
            f"one batch; pad or resize them, or pass a collate_fn"
        )
    return np.stack(arrays)


__all__ = [
    "DataLoader",
    "Dataset",
    "Subset",
    "TensorDataset",
    "default_collate",
    "default_convert",
    "random_split",
]
