"""Batch norm's backward in its closed form: the kernels affine_normalize's rules run on arrays
(the table's texts stay the textbook's; on Tensors, a backward with create_graph, they run as
written there, so every order of derivative follows).

With xhat = (x - mean) * inv_std over N values per channel, sg = sum(g) and sgx = sum(g * xhat)
per channel:
    dL/db = sg,    dL/dw = sgx,    dL/dx = (w * inv_std / N) * (N * g - sg - xhat * sgx),
the last computed as g * a + (x - mean) * c + d with per-channel a, c, d, a few samples at a
time: one new array (dL/dx) where the textbook's ops make about a dozen.
Layer L1: numpy and the normalization family.
"""

from __future__ import annotations

import math
import weakref
from typing import Any, NamedTuple

import numpy as np

from .normalization import (
    affine_normalize,
    avg,
    centered_dot,
    channel_rows,
    channel_sums,
    inverse_std,
    moments,
    normalize,
    over_channels,
    sample_chunks,
)


class ChannelSums(NamedTuple):
    g: Any  # sum(g) per channel, kept as size-1 axes
    g_xhat: Any  # sum(g * xhat) per channel


# Speed: the rules of x, w and b all need both sums, and run one after another for one node.
# The sums are computed once for them: reused only for the very same g and `out` (a node's
# output, new at every forward: inputs changed in place since then cannot reach a stale
# result), by each rule once (the node's backward run again, after g was changed in place,
# computes them again), and forgotten when g is (a finalizer on it). Only small sums are kept.
_last: list = [None]


def _forget(entry):
    if _last[0] is entry:
        _last[0] = None


def channel_sums_of(g, out, x, axes, eps, stats, rule) -> ChannelSums:
    """sg and sgx for one affine_normalize node on arrays, for the rule of input `rule`."""
    last = _last[0]
    if last is not None and last[0]() is g and last[1]() is out and last[2] == (axes, eps):
        if rule not in last[4]:
            last[4].add(rule)
            return last[3]
    sg_xhat = centered_dot(x, stats[0], axes, g) * inverse_std(x, axes, eps, stats)
    sums = ChannelSums(channel_sums(g, axes), sg_xhat)
    try:
        entry = (weakref.ref(g), weakref.ref(out), (axes, eps), sums, {rule})
    except TypeError:  # (an array that takes no weak reference: not remembered)
        return sums
    _last[0] = entry
    weakref.finalize(g, _forget, entry)
    return sums


def _on_arrays(*values) -> bool:
    return all(v.__class__ is np.ndarray for v in values)


def _stats(x, axes, stats):
    return moments(x, axes) if stats is None else stats


def affine_normalize_grad_x(g, out, x, w, axes, eps, stats):
    """dL/dx of affine_normalize: the closed form above on arrays, else the table's text."""
    if not _on_arrays(g, out, x, w):
        xhat = normalize(x, axes=axes, eps=eps)
        return w * (g - avg(g, axes) - xhat * avg(g * xhat, axes)) * inverse_std(x, axes, eps)
    stats = _stats(x, axes, stats)
    sums = channel_sums_of(g, out, x, axes, eps, stats, "x")
    n = math.prod([x.shape[a] for a in axes])
    inv = inverse_std(x, axes, eps, stats)
    a = w * inv
    c = -a * inv * sums.g_xhat / n  # (xhat * sgx = (x - mean) * inv * sgx)
    d = -a * sums.g / n
    dtype = np.result_type(x, g, w)
    if not (over_channels(axes, x.ndim) and x.size):
        dx = np.multiply(np.subtract(x, stats[0], dtype=dtype), c)
        dx += d
        dx += g * a
        return dx
    dx = np.empty(np.broadcast_shapes(x.shape, g.shape), dtype)
    scratch = np.empty_like(dx[sample_chunks(x)[0]])
    mean, a, c, d = (channel_rows(v, dx) for v in (stats[0], a, c, d))  # (for speed: see there)
    for s in sample_chunks(x):
        t = np.subtract(x[s], mean, out=scratch[: s.stop - s.start])
        np.multiply(t, c, out=t)
        np.add(t, d, out=t)
        np.add(np.multiply(g[s], a, out=dx[s]), t, out=dx[s])
    return dx


def affine_normalize_grad_w(g, out, x, axes, eps, stats):
    """dL/dw of affine_normalize: sum(g * xhat) per channel on arrays, else the table's text."""
    if not _on_arrays(g, out, x):
        return g * normalize(x, axes=axes, eps=eps)
    return channel_sums_of(g, out, x, axes, eps, _stats(x, axes, stats), "w").g_xhat.copy()


def affine_normalize_grad_b(g, out, x, axes, eps, stats):
    """dL/db of affine_normalize: sum(g) per channel on arrays (g itself on Tensors)."""
    if not _on_arrays(g, out, x):
        return g
    return channel_sums_of(g, out, x, axes, eps, _stats(x, axes, stats), "b").g.copy()


affine_normalize.override(
    "the closed form, its per-channel sums computed once per node, on the forward's moments",
    x="affine_normalize_grad_x(g, out, x, w, axes, eps, stats)",
    w="affine_normalize_grad_w(g, out, x, axes, eps, stats)",
    b="affine_normalize_grad_b(g, out, x, axes, eps, stats)",
)
