"""The DataLoader, as torch.utils.data.dataloader's: a dataset read in the order of a sampler and
collated into batches, with PyTorch's arguments and their mutual exclusions.

Loading runs in this process: `num_workers`, `pin_memory`, `prefetch_factor`,
`persistent_workers` are accepted (and checked as PyTorch checks them) and change nothing; the
batches and their order are those of PyTorch's in-order loading.

Layer L5: imports the Tensor class, random, and this package's datasets, samplers and collation.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable, Iterator, Sized, cast

import numpy as np

from ...random import Generator, numpy_generator
from .collate import default_collate, default_convert
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


def get_worker_info() -> None:
    """None: the loading runs in the main process (PyTorch returns None there too).

    >>> tg.utils.data.get_worker_info() is None
    True
    """
    return None


class DataLoader:
    """Iterate over a dataset in batches: `for x, y in DataLoader(ds, batch_size=64, shuffle=True)`.

    The order comes from `sampler` (any iterable of indices, e.g. a list, or a Sampler), else from
    shuffle (a RandomSampler drawing a new order every pass from `generator`, or from the default
    generator: tg.manual_seed), else it is sequential; `batch_sampler` yields whole batches of
    indices instead. `batch_size=None` yields single samples without batching. An IterableDataset
    is read in its own order and batched as it streams.

    >>> loader = tg.utils.data.DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable[list] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[Any], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        streamed = isinstance(dataset, IterableDataset)
        if not streamed and not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(
                f"DataLoader needs a dataset with __getitem__ and __len__ (e.g. a TensorDataset, "
                f"a Dataset subclass or a list) or an IterableDataset, got {type(dataset).__name__}"
            )
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"collate_fn must be a function, got {type(collate_fn).__name__}")
        if generator is not None and not isinstance(generator, (Generator, np.random.Generator)):
            raise TypeError(
                f"generator must be a tg.Generator (e.g. tg.Generator().manual_seed(0)), got "
                f"{type(generator).__name__}"
            )
        if streamed:
            for label, value in (("shuffle", shuffle), ("sampler", sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {label} option, "
                        f"but got {label}={value}"
                    )
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None and not streamed:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else (SequentialSampler(dataset))
            )
        if batch_size is not None and batch_sampler is None and not streamed:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)  # type: ignore[arg-type]
        elif streamed and batch_size is not None:
            BatchSampler([], batch_size, drop_last)  # (the same checks of batch_size, drop_last)
        if pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used (tapegrad computes on the CPU)",
                stacklevel=2,
            )
        self.dataset: Any = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        batching = batch_sampler is not None or (streamed and batch_size is not None)
        default = default_collate if batching else default_convert
        self.collate_fn = collate_fn if collate_fn is not None else default

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(cast(Sized, self.dataset))  # (a stream without __len__: TypeError, as PyTorch)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        return len(self.sampler)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        # PyTorch's iterator draws its workers' base seed (one int64 random_() from the loader's
        # generator, else the default one) when it is made; tapegrad runs no workers but draws
        # it too, so the numbers drawn after a pass stay PyTorch's.
        if not isinstance(self.generator, np.random.Generator):
            numpy_generator(self.generator, "DataLoader").full_range((), dtype=np.int64)
        return self._batches()

    def _batches(self) -> Iterator[Any]:
        if isinstance(self.dataset, IterableDataset):
            yield from self._stream()
        elif self.batch_sampler is None:  # one sample at a time, no batching
            for index in self.sampler:  # type: ignore[union-attr]
                yield self.collate_fn(self.dataset[index])
        else:
            for indices in self.batch_sampler:
                yield self._fetch(indices)

    def _stream(self) -> Iterator[Any]:
        """An IterableDataset's items, in batches of batch_size (or one by one)."""
        if self.batch_size is None:
            for item in self.dataset:
                yield self.collate_fn(item)
            return
        batch: list = []
        for item in self.dataset:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _fetch(self, indices: Any) -> Any:
        # A TensorDataset (possibly behind Subsets) with the default collate: one indexing per
        # tensor gives the same batch as stacking the samples one by one, without the loop.
        dataset = self.dataset
        if self.collate_fn is default_collate:
            rows = np.asarray(indices, dtype=np.int64)
            while type(dataset) is Subset:
                rows = np.asarray(dataset.indices)[rows]
                dataset = dataset.dataset
            if type(dataset) is TensorDataset:
                return [t[rows] for t in dataset.tensors]
            dataset = self.dataset
        return self.collate_fn([dataset[i] for i in indices])


def _check_workers(
    num_workers: Any, timeout: Any, prefetch_factor: Any, persistent_workers: bool
) -> None:
    """The worker options, checked as PyTorch checks them (though loading runs in this process)."""
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            "multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing. Let "
            "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


__all__ = ["DataLoader", "get_worker_info"]
