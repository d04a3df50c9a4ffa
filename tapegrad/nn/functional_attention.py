"""F.scaled_dot_product_attention, PyTorch's signature and checks over the one `attention`
primitive (primitives/attention.py holds the math and its closed-form rules).

Layer L5: imports the Tensor class, the primitives, random (dropout draws from the default
generator, as PyTorch's) and dtypes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import primitives as P
from ..tensor import Tensor, apply
from .functional_dropout import kept, kept_scale


def _checked_inputs(query: Any, key: Any, value: Any) -> tuple[Tensor, Tensor, Tensor]:
    """query, key and value as PyTorch checks them: tensors of one floating dtype, 2-D or more,
    with matching feature and sequence sizes."""
    for label, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention: {label} must be a Tensor, got {type(t).__name__}"
            )
    q, k, v = query, key, value
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be at least 2 dimensional, but got query.dim: "
            f"{q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead."
        )
    if not q.dtype == k.dtype == v.dtype:
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{q.dtype} key.dtype: {k.dtype} and value.dtype: {v.dtype} instead."
        )
    if q.dtype.kind != "f":
        raise RuntimeError(
            f"scaled_dot_product_attention computes with floating-point tensors, got {q.dtype}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query and key must have the same feature size (last "
            f"dimension), got {q.shape[-1]} and {k.shape[-1]}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: key and value must have the same sequence length "
            f"(dimension -2), got {k.shape[-2]} and {v.shape[-2]}"
        )
    return q, k, v


def _grouped(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """enable_gqa: each key/value head shared by a group of query heads (dimension -3)."""
    if min(q.ndim, k.ndim, v.ndim) < 3 or k.shape[-3] != v.shape[-3] or (q.shape[-3] % k.shape[-3]):
        raise RuntimeError(
            "Number of heads in key and value must divide the number of heads in query "
            f"(dimension -3), got query {q.shape}, key {k.shape}, value {v.shape}"
        )
    repeat = q.shape[-3] // k.shape[-3]

    def spread(t: Tensor) -> Tensor:
        lead, heads, rest = t.shape[:-3], t.shape[-3], t.shape[-2:]
        wide = t.reshape(*lead, heads, 1, *rest).expand(*lead, heads, repeat, *rest)
        return wide.reshape(*lead, heads * repeat, *rest)

    return spread(k), spread(v)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value, over the last two dimensions (batch ones
    broadcast): query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). scale
    defaults to 1/sqrt(E); attn_mask is bool (True: may attend) or float (added to the scores);
    is_causal lets query i attend to keys 0..i; dropout_p drops weights (from the default
    generator, tg.manual_seed). One node on the tape, with its closed-form backward.

    >>> q = k = v = tg.randn(2, 4, 8, 16)
    >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
    (2, 4, 8, 16)
    """
    q, k, v = _checked_inputs(query, key, value)
    if enable_gqa and q.shape[-3:-2] != k.shape[-3:-2]:
        k, v = _grouped(q, k, v)
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    scores_shape = (*batch, q.shape[-2], k.shape[-2])
    # a float mask is an input (it has a gradient), a bool one a constant; NO_MASK: no float mask
    bias: Any = P.attention.NO_MASK
    allowed = None
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True (a causal mask is made from is_causal; give one or the other)"
            )
        mask = _checked_mask(attn_mask, q, scores_shape)
        if mask.dtype == np.bool_:
            allowed = mask.numpy()
        else:
            bias = mask
    if isinstance(dropout_p, bool) or not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    keep = None
    if dropout_p > 0:
        if dropout_p < 1:  # (PyTorch's math path: dropout of the attention weights)
            keep = kept_scale(kept(scores_shape, dropout_p), dropout_p, q.dtype)
        else:
            keep = np.zeros(scores_shape, q.dtype)
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    return apply(
        P.attention.scaled_dot_product_attention,
        q,
        k,
        v,
        bias,
        scale=factor,
        allowed=allowed,
        causal=bool(is_causal),
        keep=keep,
    )


def _checked_mask(mask: Any, q: Tensor, scores_shape: tuple) -> Tensor:
    """The mask as PyTorch takes it: bool, float32 or the query's dtype (cast to it), broadcasting
    to the scores' shape without enlarging it."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"attn_mask must be a Tensor (or None), got {type(mask).__name__}")
    if mask.dtype != np.bool_ and mask.dtype not in (np.dtype(np.float32), q.dtype):
        raise RuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {mask.dtype} and query.dtype: {q.dtype} instead."
        )
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == scores_shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"scaled_dot_product_attention: attn_mask of shape {mask.shape} does not broadcast "
            f"to the attention scores' shape {scores_shape}"
        )
    return mask if mask.dtype in (np.bool_, q.dtype) else mask.to(q.dtype)


__all__ = ["scaled_dot_product_attention"]
