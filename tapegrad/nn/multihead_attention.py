"""MultiheadAttention as PyTorch defines it: parameters in_proj_weight / in_proj_bias (or
q_proj_weight, k_proj_weight, v_proj_weight when kdim or vdim differ from embed_dim), out_proj,
bias_k / bias_v (add_bias_kv) and add_zero_attn, their init; forward runs
F.multi_head_attention_forward (functional_multihead.py: the masks, need_weights /
average_attn_weights, unbatched inputs) on sequence-first inputs (batch_first ones transposed).

Layer L5: imports tensor.py, dtypes and the nn package's module, parameter, init, layers (Linear)
and functional_multihead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import init as _init
from .functional_multihead import multi_head_attention_forward
from .layers import Linear
from .module import Module
from .parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's out_proj: a Linear (PyTorch's class name, so reprs match)."""


class MultiheadAttention(Module):
    """Attention with num_heads heads over embed_dim features: each head attends with its
    embed_dim / num_heads slice of the projected query, key and value; out_proj joins them.
    Returns (attn_output, attn_weights or None).

    >>> mha = tg.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> out, w = mha(tg.randn(3, 5, 8), tg.randn(3, 6, 8), tg.randn(3, 6, 8)); out.shape, w.shape
    ((3, 5, 8), (3, 5, 6))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.head_dim = embed_dim // num_heads
        self.add_zero_attn = bool(add_zero_attn)
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * e, e), dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(np.empty((e, e), dtype))
            self.k_proj_weight = Parameter(np.empty((e, self.kdim), dtype))
            self.v_proj_weight = Parameter(np.empty((e, self.vdim), dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(np.empty((3 * e,), dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(e, e, bias=bias, dtype=dtype)
        self.bias_k: Parameter | None = None  # (add_bias_kv: a key and a value appended to
        self.bias_v: Parameter | None = None  # every sequence, learned)
        if add_bias_kv:
            self.bias_k = Parameter(np.empty((1, 1, e), dtype))
            self.bias_v = Parameter(np.empty((1, 1, e), dtype))
        self._reset_parameters()
        self.to(device=device)

    def _reset_parameters(self) -> None:
        """PyTorch's init: xavier_uniform projections, zero in_proj_bias and out_proj.bias,
        xavier_normal bias_k and bias_v."""
        if self._qkv_same_embed_dim:
            _init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                _init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            _init.constant_(self.in_proj_bias, 0.0)
            _init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            _init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            _init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """(attn_output, attn_weights): weights averaged over the heads unless
        average_attn_weights=False, None unless need_weights."""
        for label, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(
                    f"MultiheadAttention: {label} must be a tapegrad Tensor, got {type(t).__name__}"
                )
        flip = self.batch_first and query.ndim == 3
        if flip:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight if separate else None,
            k_proj_weight=self.k_proj_weight if separate else None,
            v_proj_weight=self.v_proj_weight if separate else None,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        return (out.transpose(0, 1) if flip else out), weights
