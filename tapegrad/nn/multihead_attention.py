"""MultiheadAttention as PyTorch defines it: parameters in_proj_weight / in_proj_bias (or
q_proj_weight, k_proj_weight, v_proj_weight when kdim or vdim differ from embed_dim) and out_proj,
their init, forward's masks (attn_mask, key_padding_mask: bool True = not allowed, or floats
added), need_weights / average_attn_weights, batch_first and unbatched inputs.

Layer L5: the attention is tapegrad ops (linear, matmul, softmax, dropout), so its gradients come
from the tape; imports tensor.py, math, dtypes and the nn package's module, parameter, init,
layers (Linear) and functional.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..math import where
from ..tensor import Tensor
from . import init as _init
from .functional import dropout, linear
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
        if add_bias_kv or add_zero_attn:
            raise ValueError(
                "MultiheadAttention: add_bias_kv and add_zero_attn are not supported in tapegrad"
            )
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.head_dim = embed_dim // num_heads
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
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
        self._reset_parameters()
        self.to(device=device)

    def _reset_parameters(self) -> None:
        """PyTorch's init: xavier_uniform projections, zero in_proj_bias and out_proj.bias."""
        if self._qkv_same_embed_dim:
            _init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                _init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            _init.constant_(self.in_proj_bias, 0.0)
            _init.constant_(self.out_proj.bias, 0.0)

    def _projections(self) -> tuple[list, list]:
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = [w[:e], w[e : 2 * e], w[2 * e :]]
        else:
            weights = [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight]
        b = self.in_proj_bias
        biases = [None] * 3 if b is None else [b[:e], b[e : 2 * e], b[2 * e :]]
        return weights, biases

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
        if query.ndim not in (2, 3) or not query.ndim == key.ndim == value.ndim:
            raise RuntimeError(
                f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
                f"query tensor (key {key.ndim}-D, value {value.ndim}-D: all three alike)"
            )
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask."
            )
        unbatched = query.ndim == 2
        q, k, v = (
            t.unsqueeze(0) if unbatched else t if self.batch_first else t.transpose(0, 1)
            for t in (query, key, value)
        )
        if unbatched and key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
        n, length, source = q.shape[0], q.shape[1], k.shape[1]
        if q.shape[-1] != self.embed_dim:
            raise RuntimeError(
                f"was expecting embedding dimension of {self.embed_dim}, but got {q.shape[-1]}"
            )
        if k.shape[:2] != v.shape[:2]:
            raise RuntimeError(
                f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}"
            )
        weights, biases = self._projections()
        h, d = self.num_heads, self.head_dim

        def heads(t: Tensor, w: Tensor, b: Tensor | None) -> Tensor:  # (N, H, L, D)
            return linear(t, w, b).reshape(n, t.shape[1], h, d).transpose(1, 2)

        qh, kh, vh = (heads(t, w, b) for t, w, b in zip((q, k, v), weights, biases))
        scores = (qh @ kh.transpose(-1, -2)) * (1.0 / math.sqrt(d))
        mask = _additive_mask(attn_mask, key_padding_mask, (n, h, length, source), q.dtype)
        if mask is not None:
            scores = scores + mask
        attention = scores.softmax(-1)
        if self.dropout > 0.0 and self.training:
            attention = dropout(attention, self.dropout, True)
        out = (attention @ vh).transpose(1, 2).reshape(n, length, self.embed_dim)
        out = self.out_proj(out)
        if unbatched:
            out = out.squeeze(0)
        elif not self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        shown = attention.mean(1) if average_attn_weights else attention
        return out, shown.squeeze(0) if unbatched else shown


def _additive_mask(
    attn_mask: Tensor | None, key_padding_mask: Tensor | None, shape: tuple, dtype: Any
) -> Tensor | None:
    """attn_mask ((L, S) or (N * H, L, S)) and key_padding_mask ((N, S)) as one float mask
    broadcast to (N, H, L, S): bool True becomes -inf (not allowed), floats are added."""
    n, h, length, source = shape
    total: Tensor | None = None
    for mask, name in ((attn_mask, "attn_mask"), (key_padding_mask, "key_padding_mask")):
        if mask is None:
            continue
        if not isinstance(mask, Tensor):
            raise TypeError(f"MultiheadAttention: {name} must be a Tensor, got {type(mask)}")
        if mask.dtype == np.bool_:
            mask = where(mask, -np.inf, 0.0).astype(dtype)
        elif mask.dtype.kind != "f":
            raise TypeError(f"only bool and floating types of {name} are supported")
        if name == "key_padding_mask":
            if tuple(mask.shape) != (n, source):
                raise RuntimeError(
                    f"expecting key_padding_mask shape of {(n, source)}, but got {mask.shape}"
                )
            mask = mask.reshape(n, 1, 1, source)
        elif tuple(mask.shape) == (length, source):
            mask = mask.reshape(1, 1, length, source)
        elif tuple(mask.shape) == (n * h, length, source):
            mask = mask.reshape(n, h, length, source)
        else:
            raise RuntimeError(
                f"The shape of the attn_mask is {mask.shape}, but should be {(length, source)} "
                f"or {(n * h, length, source)}."
            )
        total = mask if total is None else total + mask
    return total
