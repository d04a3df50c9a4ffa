"""Collation, as torch.utils.data's: default_collate (samples into a batch) and default_convert
(a sample when there is no batching).

Layer L5: imports the Tensor class and math (stack: a batch of tensors on the tape stays on it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...math import stack
from ...tensor import Tensor


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


def _np_stack(arrays: list) -> np.ndarray:
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise RuntimeError(
            f"default_collate: samples of different shapes {sorted(shapes)} cannot be stacked into "
            f"one batch; pad or resize them, or pass a collate_fn"
        )
    return np.stack(arrays)


__all__ = ["default_collate", "default_convert"]
