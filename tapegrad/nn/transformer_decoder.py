"""TransformerDecoderLayer, TransformerDecoder and the whole Transformer as PyTorch defines them:
masked self-attention, attention over the encoder's memory and a feed-forward block, each with
dropout, a residual connection and a LayerNorm (after it, or before with norm_first=True).
PyTorch's submodule names (self_attn, multihead_attn, linear1, linear2, norm1..3, dropout,
dropout1..3; encoder./decoder.layers.0. ...), so state_dicts move between the two.

Layer L5: imports tensor.py, dtypes and the nn package's module, normalization, init and
transformer (the encoder, and the layer and stack setup both share).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import init as _init
from .functional import relu
from .module import Module
from .normalization import LayerNorm
from .transformer import (
    LayerStack,
    TransformerEncoder,
    TransformerEncoderLayer,
    TransformerLayer,
)


class TransformerDecoderLayer(TransformerLayer):
    """One decoder block: x + dropout1(self_attn(x)), x + dropout2(multihead_attn(x, memory)),
    x + dropout3(feed-forward(x)), each followed (or, with norm_first, preceded) by a LayerNorm.

    >>> layer = tg.nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)
    >>> layer(tg.randn(3, 4, 8), tg.randn(3, 6, 8)).shape
    (3, 4, 8)
    """

    _cross_attention = True

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """The block applied to tgt ((T, N, E), (N, T, E) if batch_first, or (T, E)), attending
        to memory (the encoder's output, laid out alike)."""
        x = tgt
        self_masks = (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        memory_masks = (memory_mask, memory_key_padding_mask, memory_is_causal)
        if self.norm_first:
            x = x + self._attend(self.self_attn, self.norm1(x), None, *self_masks, self.dropout1)
            x = x + self._attend(
                self.multihead_attn, self.norm2(x), memory, *memory_masks, self.dropout2
            )
            return x + self._feed_forward(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._attend(self.self_attn, x, None, *self_masks, self.dropout1))
        x = self.norm2(
            x + self._attend(self.multihead_attn, x, memory, *memory_masks, self.dropout2)
        )
        return self.norm3(x + self._feed_forward(x, self.dropout3))


class TransformerDecoder(LayerStack):
    """num_layers copies of decoder_layer applied in turn (each its own parameters), then norm.

    >>> layer = tg.nn.TransformerDecoderLayer(8, 2, 16)
    >>> tg.nn.TransformerDecoder(layer, 2)(tg.randn(4, 3, 8), tg.randn(6, 3, 8)).shape
    (4, 3, 8)
    """

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__(decoder_layer, num_layers, norm, "decoder_layer")

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """tgt through every layer (each attending to memory, with the same masks), then norm."""
        out = tgt
        for layer in self.layers:
            out = layer(
                out,
                memory,
                tgt_mask,
                memory_mask,
                tgt_key_padding_mask,
                memory_key_padding_mask,
                bool(tgt_is_causal),  # (a hint only: the masks decide)
                memory_is_causal,
            )
        return self._final_norm(out)


class Transformer(Module):
    """The encoder-decoder Transformer: memory = encoder(src), out = decoder(tgt, memory), each a
    stack of layers with a final LayerNorm; every weight matrix starts Xavier-uniform, as PyTorch.

    >>> model = tg.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
    >>> model(tg.randn(3, 5, 8), tg.randn(3, 4, 8)).shape
    (3, 4, 8)
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = relu,
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        shared = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        settings = {"batch_first": batch_first, "norm_first": norm_first, "bias": bias, **kw}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(*shared, **settings)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(*shared, **settings)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        for p in self.parameters():
            if p.ndim > 1:
                _init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """decoder(tgt, encoder(src)) with the masks of each attention."""
        for name, t in (("src", src), ("tgt", tgt)):
            if not isinstance(t, Tensor):
                raise TypeError(f"Transformer: {name} must be a tapegrad Tensor, got {type(t)}")
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise RuntimeError(
                f"the batch number of src and tgt must be equal (src {src.shape}, tgt "
                f"{tgt.shape}, batch_first={self.batch_first})"
            )
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                f"the feature number of src and tgt must be equal to d_model={self.d_model} "
                f"(src {src.shape}, tgt {tgt.shape})"
            )
        memory = self.encoder(src, src_mask, src_key_padding_mask, src_is_causal)
        return self.decoder(
            tgt,
            memory,
            tgt_mask,
            memory_mask,
            tgt_key_padding_mask,
            memory_key_padding_mask,
            tgt_is_causal,
            memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """(sz, sz) float mask: -inf above the diagonal (a position may not attend to later ones),
        0 elsewhere.

        >>> tg.nn.Transformer.generate_square_subsequent_mask(2)
        tensor([[0., -inf],
                [0., 0.]])
        """
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        mask = np.triu(np.full((sz, sz), -np.inf, dtype), 1)
        return Tensor(mask).to(device=device)
