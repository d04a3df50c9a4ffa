"""Distances and similarities as functions (PyTorch's F. spellings): cosine_similarity,
pairwise_distance and pdist.

Layer L5: tapegrad ops only (Tensor.norm, whose gradient at a zero vector is 0, as PyTorch's
norms), each result marked (`mark`) for the teaching tools (rules: primitives/composite_margins.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..combining import broadcast_tensors
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import tensor_argument


def _tensors(x1: Any, x2: Any, fn: str) -> tuple[Tensor, Tensor]:
    for name, x in (("x1", x1), ("x2", x2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"{fn}: {name} must be a tapegrad Tensor, got {type(x).__name__}")
    try:
        np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise ValueError(
            f"{fn}: the shapes of x1 {x1.shape} and x2 {x2.shape} do not broadcast together"
        ) from None
    return x1, x2


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 / ||x1|| * x2 / ||x2||) along dim, each norm clamped below at eps (as PyTorch 2: the
    clamp changes the value only, the norm's gradient is the unclamped one, as there).

    >>> F.cosine_similarity(tg.tensor([[1.0, 0.0]]), tg.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    a, b = broadcast_tensors(*_tensors(x1, x2, "cosine_similarity"))
    if not -max(a.ndim, 1) <= dim < max(a.ndim, 1):
        raise IndexError(
            f"cosine_similarity: Dimension out of range (expected to be in range of "
            f"[{-max(a.ndim, 1)}, {max(a.ndim, 1) - 1}], but got {dim})"
        )

    def unit(x: Tensor) -> Tensor:
        norm = x.norm(2, dim, keepdim=True)
        values = norm.numpy()
        return x / (norm + (np.maximum(values, eps) - values))  # (a constant shift: the clamp)

    out = (unit(a) * unit(b)).sum(dim)
    return mark(out, "cosine_similarity", ("x1", "x2"), (x1, x2), {"dim": dim, "eps": eps})


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """||x1 - x2 + eps||_p along the last axis (PyTorch adds eps to each difference).

    >>> F.pairwise_distance(tg.tensor([[3.0, 4.0]]), tg.tensor([[0.0, 0.0]]), eps=0.0)
    tensor([5.])
    """
    a, b = _tensors(x1, x2, "pairwise_distance")
    diff = a - b + eps
    out = diff.norm(p, -1, keepdim=keepdim) if diff.ndim else diff.abs()
    params = {"p": p, "eps": eps, "keepdim": keepdim}
    return mark(out, "pairwise_distance", ("x1", "x2"), (x1, x2), params)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between each pair of rows i < j of an (N, M) input, in the order of
    the upper triangle: N (N - 1) / 2 values.

    >>> F.pdist(tg.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
    tensor([ 5., 10.,  5.])
    """
    tensor_argument(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = np.triu_indices(input.shape[0], 1)
    out = (input[first] - input[second]).norm(p, 1)
    return mark(out, "pdist", ("x",), (input,), {"p": p})
