"""EmbeddingBag: the sum, mean or max of the embeddings of each bag of indices, without building
the (entries, dim) lookup first as a separate layer would (PyTorch's signature, init and repr).

Layer L5: imports tensor.py and the nn package's sparse (the table setup it shares with
Embedding) and functional_embedding_bag (the math).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_embedding_bag import embedding_bag
from .sparse import EmbeddingTable


class EmbeddingBag(EmbeddingTable):
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
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode has to be one of sum, mean or max, got {mode!r}")
        self.mode, self.include_last_offset = mode, include_last_offset
        self._build_table(
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight,
            True,
            device,
            dtype,
        )

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
        num_embeddings, embedding_dim = cls._pretrained_shape(embeddings)
        bag = cls(
            num_embeddings,
            embedding_dim,
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
        parts = [f"{self.num_embeddings}, {self.embedding_dim}", *self._norm_repr()]
        parts.append(f"mode={self.mode!r}")
        if self.padding_idx is not None:
            parts.append(f"padding_idx={self.padding_idx}")
        return ", ".join(parts)
