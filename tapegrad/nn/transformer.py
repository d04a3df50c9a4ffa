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


class TransformerLayer(Module):
    """What the encoder and decoder layers share: PyTorch's submodules of a block (self_attn, the
    decoder's multihead_attn over memory, linear1/dropout/linear2, one norm and one dropout per
    residual branch) built in PyTorch's order, and the attention and feed-forward paths.

    >>> tg.nn.TransformerEncoderLayer(8, 2, 16).norm2.normalized_shape
    (8,)
    """

    _cross_attention = False  # the decoder's: a second attention, over the encoder's memory

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
        attention = {"dropout": dropout, "bias": bias, "batch_first": batch_first, **kw}
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        if self._cross_attention:
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        if self._cross_attention:
            self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if self._cross_attention:
            self.dropout3 = Dropout(dropout)
        self.activation = activation_function(activation)

    @staticmethod
    def _attend(
        attention: MultiheadAttention,
        x: Tensor,
        memory: Tensor | None,
        mask: Tensor | None,
        padding: Tensor | None,
        is_causal: bool,
        dropout: Dropout,
    ) -> Tensor:
        """Attention of x over memory (over itself if None), then dropout."""
        source = x if memory is None else memory
        out, _ = attention(
            x,
            source,
            source,
            attn_mask=mask,
            key_padding_mask=padding,
            need_weights=False,
            is_causal=is_causal,
        )
        return dropout(out)

    def _feed_forward(self, x: Tensor, dropout: Dropout) -> Tensor:
        return dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(TransformerLayer):
    """One encoder block: x + dropout1(self_attn(x)), then x + dropout2(linear2(dropout(
    activation(linear1(x))))), each followed (or, with norm_first, preceded) by a LayerNorm.

    >>> layer = tg.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    >>> layer(tg.randn(3, 5, 8)).shape
    (3, 5, 8)
    """

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """The block applied to src ((L, N, E), (N, L, E) if batch_first, or (L, E))."""
        x = src
        masks = (src_mask, src_key_padding_mask, is_causal)
        if self.norm_first:
            x = x + self._attend(self.self_attn, self.norm1(x), None, *masks, self.dropout1)
            return x + self._feed_forward(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._attend(self.self_attn, x, None, *masks, self.dropout1))
        return self.norm2(x + self._feed_forward(x, self.dropout2))


class LayerStack(Module):
    """What the encoder and decoder stacks share: num_layers independent copies of one layer
    (deep copies, each its own parameters), PyTorch's layers/num_layers/norm, the final norm.

    >>> layer = tg.nn.TransformerEncoderLayer(8, 2, 16)
    >>> len(tg.nn.TransformerEncoder(layer, 3).layers)
    3
    """

    def __init__(self, layer: Module, num_layers: int, norm: Module | None, role: str) -> None:
        super().__init__()
        if not isinstance(layer, Module):
            raise TypeError(
                f"{type(self).__name__}: {role} must be a Module, got {type(layer).__name__}"
            )
        self.layers = ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def _final_norm(self, out: Tensor) -> Tensor:
        return out if self.norm is None else self.norm(out)


class TransformerEncoder(LayerStack):
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
        super().__init__(encoder_layer, num_layers, norm, "encoder_layer")
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
        return self._final_norm(out)
