"""F.embedding_bag: the sum, mean or max of the embedding rows of each bag of indices, as PyTorch
(bags from offsets or the rows of a 2-D input, include_last_offset, per_sample_weights in 'sum'
mode, padding_idx entries left out, empty bags zero).

sum and mean are the looked-up rows, scaled per entry, added into their bag (index_add); max is a
gather of each bag's first maximum, found in NumPy. The lookup and its options (max_norm,
scale_grad_by_freq) are F.embedding's. Layer L5: imports tensor.py and functional_sparse.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from .functional_sparse import _renorm_rows, embedding, embedding_indices, padding_index

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _bags(idx: np.ndarray, offsets: Any, include_last_offset: bool) -> tuple[int, np.ndarray]:
    """(number of bags, the bag of each entry of idx flattened), after PyTorch's checks."""
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "embedding_bag: if input is 2D, then offsets has to be None, as input is treated "
                "as a mini-batch of fixed length sequences (one bag a row)"
            )
        return idx.shape[0], np.repeat(np.arange(idx.shape[0]), idx.shape[1])
    if idx.ndim != 1:
        raise ValueError(f"embedding_bag: input has to be 1D or 2D, but got shape {idx.shape}")
    if offsets is None:
        raise ValueError(
            "embedding_bag: offsets has to be a 1D Tensor (where each bag starts) but got None"
        )
    starts = offsets.numpy() if isinstance(offsets, Tensor) else np.asarray(offsets)
    if starts.ndim != 1 or starts.dtype.kind not in "iu":
        raise ValueError(
            f"embedding_bag: offsets has to be a 1D tensor of integers, got dtype {starts.dtype} "
            f"and shape {starts.shape}"
        )
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            f"embedding_bag: offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
            f"has to start from position 0. However, got {starts[0]}"
        )
    if starts.size and starts[-1] > idx.size:
        raise RuntimeError(
            f"embedding_bag: offsets[-1] can not be greater than input's length {idx.size} but "
            f"got offsets[-1] of {starts[-1]}"
        )
    if np.any(np.diff(starts) < 0):
        raise ValueError(f"embedding_bag: offsets must be non-decreasing, got {starts.tolist()}")
    count = max(starts.size - 1, 0) if include_last_offset else starts.size
    # (with include_last_offset, entries past the last offset join the last bag, as PyTorch's CPU
    # kernel does; the documented use has the last offset at the end of input)
    return count, np.searchsorted(starts[:count], np.arange(idx.size), side="right") - 1


def embedding_bag(
    input: Any,
    weight: Tensor,
    offsets: Any = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """For each bag of indices, the sum, mean or max of their rows of weight: (bags, dim). Bags are
    the rows of a 2-D input, or slices of a 1-D one starting at `offsets`.

    >>> F.embedding_bag(tg.tensor([0, 1, 2]), tg.eye(3), tg.tensor([0, 2]), mode="sum")
    tensor([[1., 1., 0.],
            [0., 0., 1.]])
    """
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ValueError(
            f"embedding_bag: weight must be a 2-D tensor (num_embeddings, embedding_dim), got "
            f"{getattr(weight, 'shape', type(weight).__name__)}"
        )
    if mode not in _MODES:
        raise ValueError(f"embedding_bag: mode has to be one of sum, mean or max, got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError(
            "embedding_bag: max mode does not support scaling the gradient by the frequency"
        )
    if sparse:
        raise ValueError(
            "embedding_bag: sparse gradients are not supported in tapegrad; use sparse=False (the "
            "gradient is then a dense tensor with the same values)"
        )
    num = weight.shape[0]
    idx = embedding_indices(input, num, "embedding_bag")
    count, bag = _bags(idx, offsets, include_last_offset)
    flat = idx.reshape(-1)
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode={mode!r})"
            )
        if not isinstance(per_sample_weights, Tensor) or per_sample_weights.shape != idx.shape:
            shape = getattr(per_sample_weights, "shape", None)
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({shape}) is not None, then it must have "
                f"the same shape as the input ({idx.shape})"
            )
    padding = padding_index(padding_idx, num, "embedding_bag")
    keep = (bag >= 0) & (flat != padding) if padding is not None else bag >= 0
    if max_norm is not None:
        _renorm_rows(weight, np.unique(flat), max_norm, norm_type)
    rows = embedding(flat[keep], weight, scale_grad_by_freq=scale_grad_by_freq)
    params: dict[str, Any] = {"mode": mode, "bags": count, "bag": np.where(keep, bag, -1)}
    if mode == "max":
        out = _bag_max(rows, bag[keep], count)
        params["source"] = lambda: _max_source(weight, flat, keep, bag, count)
    else:
        scale = _entry_scale(keep, bag, np.bincount(bag[keep], minlength=count), mode)
        contribution = (
            rows if mode == "sum" else rows * Tensor(scale[keep, None].astype(rows.dtype))
        )
        if per_sample_weights is not None:
            chosen = per_sample_weights.reshape(-1)[np.flatnonzero(keep)]
            contribution = contribution * chosen[:, None]
        zeros = Tensor(np.zeros((count, weight.shape[1]), weight.dtype))
        out = zeros.index_add(0, bag[keep], contribution)
        params["scale"] = scale
        params["freq"] = _frequency(flat, keep, num) if scale_grad_by_freq else None
    return mark(
        out, "embedding_bag", ("idx", "w", "psw"), (flat, weight, per_sample_weights), params
    )


def _entry_scale(keep: np.ndarray, bag: np.ndarray, sizes: np.ndarray, mode: str) -> np.ndarray:
    """Each entry's factor in its bag's sum: 1 ('sum') or 1 / the bag's size ('mean'); 0 for an
    entry left out."""
    scale = np.zeros(keep.shape)
    scale[keep] = 1.0 / sizes[bag[keep]] if mode == "mean" else 1.0
    return scale


def _frequency(flat: np.ndarray, keep: np.ndarray, num: int) -> np.ndarray:
    """scale_grad_by_freq's factor per entry: 1 / how often its index is looked up."""
    counts = np.bincount(flat[keep], minlength=num)
    return np.where(keep, 1.0 / np.maximum(counts[flat], 1), 0.0)


def _winners(values: np.ndarray, bag: np.ndarray, count: int) -> np.ndarray:
    """(bags, dim): the row of values holding each bag's first maximum (-1: an empty bag). The
    entries come bag by bag (bag is non-decreasing), so each bag is one reduceat segment."""
    won = np.full((count, values.shape[1]), -1)
    if not len(bag):
        return won
    filled, starts, inverse = np.unique(bag, return_index=True, return_inverse=True)
    best = np.maximum.reduceat(values, starts, axis=0)
    at_best = values == best[inverse]
    rows = np.where(at_best, np.arange(len(bag))[:, None], len(bag))
    won[filled] = np.minimum.reduceat(rows, starts, axis=0)
    return won


def _bag_max(rows: Tensor, bag: np.ndarray, count: int) -> Tensor:
    """Each bag's maximum per column of its rows (zero, with no gradient, for an empty bag)."""
    won = _winners(rows.numpy(), bag, count)
    empty = won < 0
    if empty.all():
        return Tensor(np.zeros(won.shape, rows.dtype))
    picked = rows.gather(0, np.where(empty, 0, won))
    return picked * Tensor((~empty).astype(rows.dtype)) if empty.any() else picked


def _max_source(
    weight: Tensor, flat: np.ndarray, keep: np.ndarray, bag: np.ndarray, count: int
) -> np.ndarray:
    """For each output entry, the flat position in weight it copies (-1: an empty bag)."""
    positions = np.flatnonzero(keep)
    won = _winners(weight.numpy()[flat[keep]], bag[keep], count)
    dim = weight.shape[1]
    source = flat[positions[np.maximum(won, 0)]] * dim + np.arange(dim)
    return np.where(won < 0, -1, source)
