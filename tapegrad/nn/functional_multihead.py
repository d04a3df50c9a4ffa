"""F.multi_head_attention_forward: PyTorch's multi-head attention as a function of its weights
(nn.MultiheadAttention calls it). Sequence-first inputs (L, N, E), or unbatched (L, E); packed or
separate input projections; bias_k / bias_v appended to the keys and values, add_zero_attn,
static_k / static_v; attn_mask (2-D, or 3-D per batch and head) and key_padding_mask, bool (True:
not allowed) or float (added); the weights averaged over heads or per head.

Layer L5: tapegrad ops only (linear, cat, pad, matmul, softmax, dropout, scaled dot-product
attention), so the gradients, to any order, come from the tape. PyTorch's checks keep its
exception types (AssertionError for most of them, as its function raises).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..creation import zeros
from ..math import cat, where
from ..tensor import Tensor
from .functional_attention import scaled_dot_product_attention
from .functional_dropout import dropout
from .functional_linear import linear

__all__ = ["multi_head_attention_forward"]


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """(attn_output (L, N, E), attn_weights (N, L, S) averaged over heads, (N, H, L, S) if not
    average_attn_weights, None unless need_weights): softmax(q k^T / sqrt(E / H) + mask) v per
    head, each head its E / H slice of the projections, then out_proj.

    >>> x, w = tg.randn(5, 2, 4), tg.randn(12, 4)
    >>> out, weights = F.multi_head_attention_forward(
    ...     x, x, x, 4, 2, w, None, None, None, False, 0.0, tg.randn(4, 4), None)
    >>> out.shape, weights.shape
    ((5, 2, 4), (2, 5, 5))
    """
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, query)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # (the causal hint alone: scaled_dot_product_attention masks)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, query)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    q, k, v = _in_projections(
        query,
        key,
        value,
        in_proj_weight,
        in_proj_bias,
        (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None,
    )
    attn_mask = _mask_per_head(attn_mask, tgt_len, key.shape[0], bsz * num_heads)
    if bias_k is not None or bias_v is not None:
        if bias_k is None or bias_v is None:
            given, missing = ("bias_k", "bias_v") if bias_v is None else ("bias_v", "bias_k")
            raise AssertionError(f"{given} is set but {missing} is None")
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key or value.")
        k = cat([k, bias_k.reshape(1, 1, embed_dim).expand(1, bsz, embed_dim)])
        v = cat([v, bias_v.reshape(1, 1, embed_dim).expand(1, bsz, embed_dim)])
        attn_mask, key_padding_mask = _one_more_key(attn_mask), _one_more_key(key_padding_mask)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _per_head(k, static_k, bsz * num_heads, head_dim, "static_k")
    v = _per_head(v, static_v, bsz * num_heads, head_dim, "static_v")
    if add_zero_attn:
        zero = zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k, v = cat([k, zero], dim=1), cat([v, zero], dim=1)
        attn_mask, key_padding_mask = _one_more_key(attn_mask), _one_more_key(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        padding = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        padding = padding.reshape(bsz * num_heads, 1, src_len)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    p = dropout_p if training else 0.0
    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        weights = (scores if attn_mask is None else scores + attn_mask).softmax(-1)
        if p > 0.0:
            weights = dropout(weights, p=p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            return out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = (
            attn_mask.unsqueeze(0)
            if attn_mask.shape[0] == 1
            else attn_mask.reshape(bsz, num_heads, -1, src_len)
        )
    q, k, v = (t.reshape(bsz, num_heads, -1, head_dim) for t in (q, k, v))
    out = scaled_dot_product_attention(q, k, v, attn_mask, p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None


def _shape_check(
    query: Any, key: Any, value: Any, key_padding_mask: Any, attn_mask: Any, num_heads: int
) -> bool:
    """Whether the inputs are batched (3-D) or one sequence (2-D); PyTorch's AssertionErrors for
    shapes that are neither."""
    for label, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"multi_head_attention_forward: {label} must be a tapegrad Tensor, got "
                f"{type(t).__name__}"
            )
    if query.ndim not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
            f"query tensor"
        )
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.ndim}-D tensor instead"
            )
        if not batched and attn_mask.ndim == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}"
                )
    return batched


def _canonical_mask(mask: Any, name: str, other: Any, query: Tensor) -> Tensor | None:
    """A mask as a float tensor of query's dtype to add to the scores: bool True -> -inf."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a Tensor or None, got {type(mask).__name__}")
    kind = mask.dtype.kind
    if kind not in "bf":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and isinstance(other, Tensor) and other.dtype != mask.dtype:
        warnings.warn(
            f"Support for mismatched {name} and attn_mask is deprecated. Use same type for both "
            f"instead.",
            UserWarning,
            stacklevel=4,
        )
    if kind == "b":
        return where(mask, -np.inf, 0.0).astype(query.dtype)
    return mask


def _in_projections(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    separate: tuple | None,
) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v: query, key and value through their thirds of the packed projection, or through
    the three separate ones (in_proj_bias's thirds as their biases)."""
    biases: list = [None] * 3 if in_proj_bias is None else list(in_proj_bias.chunk(3))
    if separate is None:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        weights = list(in_proj_weight.chunk(3))
    else:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        for name, w in zip(("q", "k", "v"), separate):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        weights = list(separate)
    q, k, v = (linear(t, w, b) for t, w, b in zip((query, key, value), weights, biases))
    return q, k, v


def _mask_per_head(mask: Tensor | None, tgt_len: int, src_len: int, heads: int) -> Tensor | None:
    """attn_mask as (1, L, S) (one for all) or (N * H, L, S) (one per batch entry and head)."""
    if mask is None:
        return None
    if mask.ndim == 2:
        if tuple(mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {tuple(mask.shape)}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return mask.unsqueeze(0)
    if mask.ndim == 3:
        if tuple(mask.shape) != (heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {tuple(mask.shape)}, but should be "
                f"{(heads, tgt_len, src_len)}."
            )
        return mask
    raise RuntimeError(f"attn_mask's dimension {mask.ndim} is not supported")


def _one_more_key(mask: Tensor | None) -> Tensor | None:
    """A mask widened by one allowed key (a zero column), for an appended bias or zero key."""
    if mask is None:
        return None
    return cat([mask, zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype)], dim=-1)


def _per_head(t: Tensor, static: Tensor | None, heads: int, head_dim: int, name: str) -> Tensor:
    """(S, N, E) keys or values as (N * H, S, E / H), or the given static ones (checked)."""
    if static is None:
        return t.reshape(t.shape[0], heads, head_dim).transpose(0, 1)
    if static.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
