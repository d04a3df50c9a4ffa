"""Embedding: a lookup table of learnable vectors, one row per index (PyTorch's signature, init,
padding_idx and from_pretrained), and the table setup it shares with EmbeddingBag.

Layer L5: imports tensor.py, dtypes and the nn package's module, parameter, init and
functional_sparse (where the lookup lives).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..autograd import no_grad
from ..tensor import Tensor
from . import init as _init
from .functional_sparse import embedding, embedding_indices, padding_index
from .module import Module
from .parameter import Parameter


class EmbeddingTable(Module):
    """What Embedding and EmbeddingBag share: the argument checks, the (num_embeddings,
    embedding_dim) weight (given as _weight, or N(0, 1) with the padding_idx row zero), the
    max_norm settings and the shape check of from_pretrained.

    >>> tg.nn.Embedding(4, 2).weight.shape
    (4, 2)
    """

    def _build_table(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None,
        max_norm: float | None,
        norm_type: float,
        scale_grad_by_freq: bool,
        sparse: bool,
        _weight: Any,
        requires_grad: bool,
        device: Any,
        dtype: Any,
    ) -> None:
        who = type(self).__name__
        for name, n in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                raise TypeError(f"{who}: {name} must be a non-negative int, got {n!r}")
        if sparse:
            raise ValueError(
                f"{who}: sparse gradients are not supported in tapegrad; use sparse=False (the "
                f"gradient is then a dense tensor with the same values)"
            )
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.padding_idx = padding_index(padding_idx, self.num_embeddings, who)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        shape = (self.num_embeddings, self.embedding_dim)
        if _weight is None:
            dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
            self.weight = Parameter(np.empty(shape, dtype), requires_grad=requires_grad)
            self.reset_parameters()
        else:
            values = _weight.numpy() if isinstance(_weight, Tensor) else np.asarray(_weight)
            if values.shape != shape:
                raise ValueError(
                    f"{who}: _weight has shape {values.shape}, expected {shape} "
                    f"(num_embeddings, embedding_dim)"
                )
            self.weight = Parameter(values, requires_grad=requires_grad)
        self.to(device=device)

    def reset_parameters(self) -> None:
        """Weight N(0, 1), then the padding_idx row zero (PyTorch's init)."""
        _init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    @classmethod
    def _pretrained_shape(cls, embeddings: Any) -> tuple[int, int]:
        """from_pretrained's (num_embeddings, embedding_dim), after checking embeddings is 2-D."""
        shape = np.shape(embeddings.numpy() if isinstance(embeddings, Tensor) else embeddings)
        if len(shape) != 2:
            raise ValueError(
                f"{cls.__name__}.from_pretrained: embeddings are expected to be 2-dimensional "
                f"(num_embeddings, embedding_dim), got shape {shape}"
            )
        return shape[0], shape[1]

    def _norm_repr(self) -> list[str]:
        """extra_repr's max_norm, norm_type and scale_grad_by_freq parts (where not default)."""
        parts = [] if self.max_norm is None else [f"max_norm={self.max_norm}"]
        if self.norm_type != 2:
            parts.append(f"norm_type={self.norm_type}")
        if self.scale_grad_by_freq:
            parts.append("scale_grad_by_freq=True")
        return parts


class Embedding(EmbeddingTable):
    """weight[indices]: weight has shape (num_embeddings, embedding_dim), initialised N(0, 1) with
    the padding_idx row zero; that row gets no gradient (a padding token stays zero). Integer
    indices of any shape give input.shape + (embedding_dim,).

    >>> emb = tg.nn.Embedding(10, 3, padding_idx=0); emb(tg.tensor([[0, 4]])).shape
    (1, 2, 3)
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Any = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self._build_table(
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight,
            not _freeze,
            device,
            dtype,
        )

    def forward(self, input: Any) -> Tensor:
        embedding_indices(input, self.num_embeddings, "Embedding")  # (errors name the layer)
        return embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Any,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> "Embedding":
        """An Embedding whose weight is (a copy of) `embeddings` (2-D); frozen unless freeze=False.
        The padding_idx row is kept as given (not zeroed), as in PyTorch.

        >>> tg.nn.Embedding.from_pretrained(tg.eye(3))(tg.tensor([2]))
        tensor([[0., 0., 1.]])
        """
        num_embeddings, embedding_dim = cls._pretrained_shape(embeddings)
        return cls(
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight=embeddings,
            _freeze=freeze,
        )

    def extra_repr(self) -> str:
        parts = [f"{self.num_embeddings}, {self.embedding_dim}"]
        if self.padding_idx is not None:
            parts.append(f"padding_idx={self.padding_idx}")
        return ", ".join(parts + self._norm_repr())
