"""tg.utils.data, as torch.utils.data: datasets (dataset.py), samplers (sampler.py), collation
(collate.py) and the DataLoader (dataloader.py), importable from here or from their modules
(`from tapegrad.utils.data.dataloader import DataLoader`).

Layer L5: re-exports only.
"""

from __future__ import annotations

from . import collate, dataloader, dataset, sampler
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "collate",
    "dataloader",
    "dataset",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
    "sampler",
]
