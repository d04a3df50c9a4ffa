"""Lookups by integer index as functions: embedding (rows of a weight matrix) and one_hot, plus the
index checks the Embedding layer shares (so an error names the layer and the shapes).

Layer L5: tapegrad ops only (indexing, tg.where, detach); the indices themselves are constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import no_grad
from ..math import where
from ..tape.composite import mark
from ..tensor import Tensor


def embedding_indices(input: Any, num_embeddings: int, who: str = "embedding") -> np.ndarray:
    """The indices as an integer array, after checking their dtype and 0 <= i < num_embeddings."""
    if isinstance(input, Tensor):
        idx = input.numpy()
    elif isinstance(input, (np.ndarray, list, tuple, int, np.integer)):
        idx = np.asarray(input)
        if idx.size == 0:
            idx = idx.astype(np.int64)  # ([] is float64 to NumPy)
    else:
        raise TypeError(
            f"{who} takes integer indices (a tapegrad Tensor of int64), got {type(input).__name__}"
        )
    if idx.dtype.kind not in "iu":
        raise TypeError(
            f"{who}: indices must be integers (int64 or int32), got a tensor of dtype {idx.dtype} "
            f"and shape {idx.shape}; convert them first: indices.long()"
        )
    if idx.size and (idx.min() < 0 or idx.max() >= num_embeddings):
        bad = idx[(idx < 0) | (idx >= num_embeddings)].flat[0]
        raise IndexError(
            f"{who}: index {bad} is out of range for {num_embeddings} embeddings (valid indices "
            f"are 0..{num_embeddings - 1}) in indices of shape {idx.shape}; grow num_embeddings "
            f"or fix the indices"
        )
    return idx


def padding_index(
    padding_idx: int | None, num_embeddings: int, who: str = "embedding"
) -> int | None:
    """padding_idx made non-negative (-1 is the last row), after checking it is a row."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(
            f"{who}: padding_idx must be within num_embeddings: -{num_embeddings} <= padding_idx "
            f"< {num_embeddings}, got {padding_idx}"
        )
    return int(padding_idx) % num_embeddings


def embedding(
    input: Any,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """weight[input]: one row of weight (num_embeddings, embedding_dim) per index, so the result has
    shape input.shape + (embedding_dim,). Options as PyTorch's: the padding_idx row gets no
    gradient; max_norm rescales (in place) the looked-up rows whose norm exceeds it;
    scale_grad_by_freq divides each row's gradient by how often it appears in input.

    >>> F.embedding(tg.tensor([[0, 2]]), tg.tensor([[1.0], [2.0], [3.0]]))
    tensor([[[1.],
             [3.]]])
    """
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise ValueError(
            f"embedding: weight must be a 2-D tensor (num_embeddings, embedding_dim), got "
            f"{getattr(weight, 'shape', type(weight).__name__)}"
        )
    if sparse:
        raise ValueError(
            "embedding: sparse gradients are not supported in tapegrad; use sparse=False (the "
            "gradient is then a dense tensor with the same values)"
        )
    num = weight.shape[0]
    idx = embedding_indices(input, num)
    padding_idx = padding_index(padding_idx, num)
    if max_norm is not None:
        _renorm_rows(weight, np.unique(idx), max_norm, norm_type)
    out = weight[idx]
    if padding_idx is not None:
        pad = idx == padding_idx
        if pad.any():  # same values, but no gradient reaches the padding row
            out = where(pad[..., None], out.detach(), out)
    if scale_grad_by_freq:
        counts = np.bincount(idx.ravel(), minlength=num)
        inverse = (1.0 / counts[idx])[..., None].astype(weight.dtype)
        # the values of `out` exactly, with the gradient of each lookup divided by its count
        out = out.detach() + (out - out.detach()) * inverse
    params = {"padding_idx": padding_idx, "scale_grad_by_freq": scale_grad_by_freq}
    return mark(out, "embedding", ("idx", "w"), (idx, weight), params)


def _renorm_rows(weight: Tensor, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Scale the given rows of weight in place (off the tape) down to norm max_norm if larger."""
    values = weight.numpy()[rows]
    norms = np.linalg.norm(values, ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = (max_norm / (norms[big] + 1e-7))[:, None]  # PyTorch's epsilon
        with no_grad():
            weight[rows[big]] = (values[big] * scale).astype(weight.dtype)


def one_hot(tensor: Any, num_classes: int = -1) -> Tensor:
    """Integer class indices of shape (*) -> an int64 tensor of shape (*, num_classes) with a 1 at
    each index; num_classes=-1 means max + 1.

    >>> F.one_hot(tg.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    t = tensor.numpy() if isinstance(tensor, Tensor) else np.asarray(tensor)
    if t.dtype.kind not in "iu":
        raise TypeError(
            f"one_hot is only applicable to integer class indices, got dtype {t.dtype}; convert "
            f"them first: labels.long()"
        )
    if num_classes == -1:
        if t.size == 0:
            raise ValueError(
                "one_hot: can not infer the number of classes from an empty tensor; pass "
                "num_classes"
            )
        num_classes = int(t.max()) + 1
    if t.size and t.min() < 0:
        raise ValueError(f"one_hot: class values must be non-negative, got {t.min()}")
    if t.size and t.max() >= num_classes:
        raise ValueError(
            f"one_hot: class values must be smaller than num_classes={num_classes}, got {t.max()}"
        )
    return Tensor((t[..., None] == np.arange(num_classes)).astype(np.int64))
