"""Scaled dot-product attention as one primitive: out = softmax(q k^T * scale + mask) v, the hot
spot of every transformer.

Its rules are the closed form. With W the attention weights (after dropout's keep mask K, if any:
Wk = W * K) and dS the gradient reaching the scores,
    dL/dv = Wk^T g,    dW = (g v^T) * K,    dS = W * (dW - rowsum(dW * W)),
    dL/dq = scale * dS k,    dL/dk = scale * dS^T q,    dL/dbias = dS.
Masks: `allowed` (a bool mask, a constant) keeps the scores where it is True (-inf elsewhere),
`bias` (a float mask: an input, so it has a gradient; NO_MASK when there is none) is added,
`causal` keeps key j <= query i (the top-left triangle, as PyTorch), `keep` is dropout's mask
(None: no dropout). A query row left with no key gets zero weights, as PyTorch's (not the NaN of
0/0). The rules are written in primitives and operators, so they record under create_graph=True
and every order of derivative works.

Conventions as in elementwise.py; q (..., L, E), k (..., S, E), v (..., S, Ev), batch axes
broadcast and summed back by the engine.
Layer L1: numpy, registry, linalg (T, product), the elementwise and reduction families, batching
(its rule for vmap) and batched_array.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, NamedTuple

import numpy as np

from .batched_array import BatchedArray
from .batching import example_ndim, padded, reads_batched_params
from .elementwise import exp, where
from .linalg import T, product
from .reduction import sum
from .registry import primitive, value


NO_MASK = np.zeros(())  # the float mask's input when there is none: a constant, never added


def masked(scores, allowed, causal):
    """The scores with -inf where `allowed` is False and, if causal, above the diagonal."""
    if causal:
        rows, cols = scores.shape[-2:]
        scores = where(np.tril(np.ones((rows, cols), bool)), scores, -np.inf)
    if allowed is not None:
        scores = where(allowed, scores, -np.inf)
    return scores


def softmax(scores):
    """The softmax over the keys (the last axis); a row with every key masked gets zeros."""
    s = value(scores)
    if s.shape[-1] == 0:  # no keys at all: nothing to weigh
        return scores
    top = np.max(s, axis=-1, keepdims=True)
    e = exp(scores - np.where(np.isfinite(top), top, 0))  # (a constant shift: exact, stable)
    total = sum(e, axis=-1, keepdims=True)
    empty = value(total) == 0  # (rows whose keys are all masked: e is 0 there)
    return e / (where(empty, 1.0, total) if empty.any() else total)


def attention_weights(q, k, bias, scale, allowed, causal):
    """W: the softmax of q k^T * scale plus the float mask, masked."""
    if all(a.__class__ is np.ndarray for a in (q, k)) and (bias is None or _array(bias)):
        return _weights_on_arrays(q, k, bias, scale, allowed, causal)
    scores = (q @ T(k)) * scale
    if bias is not None and bias is not NO_MASK:  # (the Tensor layer passes NO_MASK, not None:
        scores = scores + bias  # a saved None would read as "not saved")
    return softmax(masked(scores, allowed, causal))


def _weights_on_arrays(q, k, bias, scale, allowed, causal):
    """attention_weights' values on arrays, every pass after the product written into the
    scores in place (the same operations in the same order: the same values, two thirds of the
    memory traffic)."""
    scores = product(q, k.swapaxes(-1, -2))
    scores *= scale
    if bias is not None and bias is not NO_MASK:
        scores = scores + bias  # (a float mask may broadcast the scores to more batch axes)
    if causal:
        rows, cols = scores.shape[-2:]
        np.copyto(scores, -np.inf, where=_above_diagonal(rows, cols))
    if allowed is not None:
        if np.broadcast_shapes(allowed.shape, scores.shape) != scores.shape:
            scores = np.broadcast_to(scores, np.broadcast_shapes(allowed.shape, scores.shape))
            scores = scores.copy()
        np.copyto(scores, -np.inf, where=np.logical_not(allowed))
    if scores.shape[-1] == 0:  # no keys at all: nothing to weigh
        return scores
    top = np.max(scores, axis=-1, keepdims=True)
    scores -= np.where(np.isfinite(top), top, 0)  # (a constant shift: exact, stable)
    np.exp(scores, out=scores)
    total = np.add.reduce(scores, axis=-1, keepdims=True)
    total[total == 0] = 1  # (rows whose keys are all masked: zero weights, as PyTorch)
    scores /= total
    return scores


def _array(a):
    return a.__class__ is np.ndarray


@functools.lru_cache(maxsize=16)
def _above_diagonal(rows, cols):
    """The causal mask's dropped entries (key j > query i), made once per shape (read-only)."""
    mask = np.triu(np.ones((rows, cols), bool), 1)
    mask.flags.writeable = False
    return mask


class AttentionGradients(NamedTuple):
    dscores: Any  # dL/d(scores), the gradient reaching q k^T * scale + mask
    weights: Any  # the weights v was multiplied by (after dropout)


# Speed: the rules of q, k, v and the mask all need W and dS, and run one after another for one
# node; computing them once saves 3 of 8 matrix products per backward. The result is reused only
# for the very same g and `out` (a node's output, new at every forward: inputs changed in place
# since then cannot reach a stale result) and forgotten when g is (a finalizer on it).
_last: list = [None]


def attention_backward(g, out, q, k, v, bias, scale, allowed, causal, keep):
    """dS and the kept weights for one attention node (see the module docstring); `out` is read
    only to know the node."""
    arguments = (g, out, q, k, v, allowed, keep)
    params = (scale, causal, id(bias))
    last = _last[0]
    if last is not None and last[1] == params:
        if all(r is None if a is None else r() is a for r, a in zip(last[0], arguments)):
            return last[2]
    w = _kept_weights(out, (q, k, bias, allowed), (scale, causal))
    if w is None:
        w = attention_weights(q, k, bias, scale, allowed, causal)
    dw = g @ T(v)
    if keep is not None:
        dw = dw * keep
    if _array(dw) and _array(w) and dw.shape == w.shape:  # (arrays: the same values, in place)
        dw -= np.add.reduce(dw * w, axis=-1, keepdims=True)
        result = AttentionGradients(np.multiply(dw, w, out=dw), w)
    else:
        result = AttentionGradients(w * (dw - sum(dw * w, axis=-1, keepdims=True)), w)
    if keep is not None:
        result = AttentionGradients(result.dscores, w * keep)
    try:
        refs = tuple(None if a is None else weakref.ref(a) for a in arguments)
    except TypeError:  # (an argument that takes no weak reference: not remembered)
        return result
    entry = (refs, params, result)
    _last[0] = entry
    weakref.finalize(g, _forget, entry)
    return result


def _forget(entry):
    if _last[0] is entry:
        _last[0] = None


@reads_batched_params
def batch_attention(level, prim, inputs, batched, params):
    """vmap: the batch axis is one more batch axis of q, k, v and the float mask (each padded to
    one rank, so that it pairs with batch axes only); a bool mask or a dropout mask that differs
    between examples (a parameter) gets its batch axis the same way."""
    ndim = max(example_ndim(x, b) for x, b in zip(inputs, batched))
    args = [padded(x, b, ndim) for x, b in zip(inputs, batched)]
    for name in ("allowed", "keep"):
        value = params.get(name)
        if isinstance(value, BatchedArray):
            array = value.physical
            if value.batched:
                extra = ndim - (array.ndim - 1)
                array = array.reshape(array.shape[:1] + (1,) * extra + array.shape[1:])
            params = {**params, name: array}
    return prim(*args, **params)


# Speed: a plain backward needs W again. On arrays the forward keeps W beside its output when W
# is at most _KEEP_UP_TO times the output's size (short sequences, where recomputing it is a large
# part of the backward; a long sequence's W is not held), found again by the output's identity and
# the inputs' (inputs changed in place since are refused by the tape before any rule runs), and
# forgotten when the output is.
_KEEP_UP_TO = 4
_kept: dict = {}  # id(out) -> (weak references to out and the inputs, scale and causal, W)


def _keep_weights(out, w, inputs, params):
    if w.size > _KEEP_UP_TO * out.size or not all(_array(a) for a in (out, w)):
        return
    try:
        refs = tuple(a if a is None or a is NO_MASK else weakref.ref(a) for a in (out,) + inputs)
    except TypeError:  # (an argument that takes no weak reference: not kept)
        return
    key = id(out)
    _kept[key] = (refs, params, w)
    weakref.finalize(out, _kept.pop, key, None)


def _kept_weights(out, inputs, params):
    """The W the forward kept for this very output and inputs, else None."""
    entry = _kept.get(id(out))
    if entry is None or entry[1] != params:
        return None
    for ref, a in zip(entry[0], (out,) + inputs):
        if not (ref is a if ref is None or ref is NO_MASK else ref() is a):
            return None
    return entry[2]


_RULE = "attention_backward(g, out, q, k, v, bias, scale, allowed, causal, keep)"


@primitive(
    "scaled_dot_product_attention",
    "(softmax(masked(q @ T(k) * scale + bias, allowed, causal)) * keep) @ v",
    batch=batch_attention,
    q=f"scale * ({_RULE}.dscores @ k)",
    k=f"scale * (T({_RULE}.dscores) @ q)",
    v=f"T({_RULE}.weights) @ g",
    bias=f"{_RULE}.dscores",
)
def scaled_dot_product_attention(
    q, k, v, bias=None, *, scale, allowed=None, causal=False, keep=None
):
    # `keep`: dropout's mask, 0 where a weight is dropped and 1/(1-p) where it is kept (a constant)
    w = attention_weights(q, k, bias, scale, allowed, causal)
    out = product(w if keep is None else w * keep, v)
    _keep_weights(out, w, (q, k, bias, allowed), (scale, causal))
    return out
