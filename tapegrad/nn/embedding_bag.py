"""EmbeddingBag: the sum, mean or max of the embeddings of each bag of indices, without building
the (entries, dim) lookup first as a separate layer would (PyTorch's signature, init and repr).

Layer L5: imports tensor.py, dtypes and the nn package's module, parameter, init,
functional_sparse (the index checks) and functional_embedding_bag (the math).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd import no_grad
from ..tensor import Tensor
from . import init as _init
from .functional_embedding_bag import embedding_bag
from .functional_sparse import padding_index
from .module import Module
from .parameter import Parameter


class EmbeddingBag(Module):
    """For each bag of indices (the rows of a 2-D input, or a 1-D input cut at `offsets`), the
    sum, mean or max of their rows of weight (num_embeddings, embedding_dim), initialised N(0, 1)
    with the padding_idx row zero; padding_idx entries are left out of their bag.

    >>> bag = tg.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag(tg.tensor([1, 2, 4, 5]), tg.tensor([0, 2])).shape
    (2, 3)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Any = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        for name, n in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                raise TypeError(f"EmbeddingBag: {name} must be a non-negative int, got {n!r}")
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode has to be one of sum, mean or max, got {mode!r}")
        if sparse:
            raise ValueError(
                "EmbeddingBag: sparse gradients are not supported in tapegrad; use sparse=False "
                "(the gradient is then a dense tensor with the same values)"
            )
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        self.padding_idx = padding_index(padding_idx, self.num_embeddings, "EmbeddingBag")
        shape = (self.num_embeddings, self.embedding_dim)
        if _weight is None:
            dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
            self.weight = Parameter(np.empty(shape, dtype))
            self.reset_parameters()
        else:
            values = _weight.numpy() if isinstance(_weight, Tensor) else np.asarray(_weight)
            if values.shape != shape:
                raise ValueError(
                    f"EmbeddingBag: _weight has shape {values.shape}, expected {shape} "
                    f"(num_embeddings, embedding_dim)"
                )
            self.weight = Parameter(values)
        self.to(device=device)

    def reset_parameters(self) -> None:
        """Weight N(0, 1), then the padding_idx row zero (PyTorch's init)."""
        _init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(
        self, input: Any, offsets: Any = None, per_sample_weights: Tensor | None = None
    ) -> Tensor:
        """One row per bag: (bags, embedding_dim)."""
        return embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Any,
        freeze: bool = True,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
    ) -> "EmbeddingBag":
        """An EmbeddingBag whose weight is (a copy of) `embeddings` (2-D); frozen unless
        freeze=False.

        >>> tg.nn.EmbeddingBag.from_pretrained(tg.eye(3), mode="sum")(tg.tensor([[0, 2]]))
        tensor([[1., 0., 1.]])
        """
        shape = np.shape(embeddings.numpy() if isinstance(embeddings, Tensor) else embeddings)
        if len(shape) != 2:
            raise ValueError(
                f"EmbeddingBag.from_pretrained: embeddings are expected to be 2-dimensional "
                f"(num_embeddings, embedding_dim), got shape {shape}"
            )
        bag = cls(
            shape[0],
            shape[1],
            max_norm,
            norm_type,
            scale_grad_by_freq,
            mode,
            sparse,
            _weight=embeddings,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag

    def extra_repr(self) -> str:
        parts = [f"{self.num_embeddings}, {self.embedding_dim}"]
        if self.max_norm is not None:
            parts.append(f"max_norm={self.max_norm}")
        if self.norm_type != 2:
            parts.append(f"norm_type={self.norm_type}")
        if self.scale_grad_by_freq:
            parts.append(f"scale_grad_by_freq={self.scale_grad_by_freq}")
        parts.append(f"mode={self.mode!r}")
        if self.padding_idx is not None:
            parts.append(f"padding_idx={self.padding_idx}")
        return ", ".join(parts)
