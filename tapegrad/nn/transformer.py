"""TransformerEncoderLayer and TransformerEncoder as PyTorch defines them: self-attention and a
feed-forward block, each with dropout, a residual connection and a LayerNorm (after it, or before
with norm_first=True); PyTorch's submodule names (self_attn, linear1, linear2, norm1, norm2,
dropout, dropout1, dropout2; layers.0. ...), so state_dicts move between the two.

Layer L5: imports tensor.py and the nn package's module, layers, normalization, activation's
functions and multihead_attention.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from ..tensor import Tensor
from .functional import gelu, relu
from .layers import Dropout, Linear
from .module import Module, ModuleList
from .multihead_attention import MultiheadAttention
from .normalization import LayerNorm

_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {"relu": relu, "gelu": gelu}


def activation_function(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """The feed-forward block's activation: 'relu', 'gelu' or the callable given.

    >>> activation_function("gelu").__name__
    'gelu'
    """
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")
        return _ACTIVATIONS[activation]
    return activation


class TransformerEncoderLayer(Module):
    """One encoder block: x + dropout1(self_attn(x)), then x + dropout2(linear2(dropout(
    activation(linear1(x))))), each followed (or, with norm_first, preceded) by a LayerNorm.

    >>> layer = tg.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    >>> layer(tg.randn(3, 5, 8)).shape
    (3, 5, 8)
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = activation_function(activation)

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """The block applied to src ((L, N, E), (N, L, E) if batch_first, or (L, E))."""
        x = src
        if self.norm_first:
            x = x + self._attention(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._feed_forward(self.norm2(x))
        x = self.norm1(x + self._attention(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._feed_forward(x))

    def _attention(
        self, x: Tensor, mask: Tensor | None, padding: Tensor | None, is_causal: bool
    ) -> Tensor:
        out, _ = self.self_attn(
            x,
            x,
            x,
            attn_mask=mask,
            key_padding_mask=padding,
            need_weights=False,
            is_causal=is_causal,
        )
        return self.dropout1(out)

    def _feed_forward(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer applied in turn (each its own parameters), then norm.

    >>> layer = tg.nn.TransformerEncoderLayer(8, 2, 16)
    >>> tg.nn.TransformerEncoder(layer, 2)(tg.randn(5, 3, 8)).shape
    (5, 3, 8)
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        if not isinstance(encoder_layer, Module):
            raise TypeError(
                f"TransformerEncoder: encoder_layer must be a Module, got "
                f"{type(encoder_layer).__name__}"
            )
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        # (nested tensors are a PyTorch speed path: the results are the same without)
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """src through every layer (with the same masks), then norm if given."""
        out = src
        for layer in self.layers:
            out = layer(out, mask, src_key_padding_mask, bool(is_causal))
        return out if self.norm is None else self.norm(out)
