"""Reductions: sum, mean, max, min (ties share the gradient), prod and logsumexp.

Conventions as in registry.py. A reduction's rule brings g back to the input's rank (`_keep`), then
expands it to the input's shape.
Layer L1: numpy, registry, grad mode and the elementwise and shape families.
"""

from __future__ import annotations

import math

import numpy as np

from ..tape.grad_mode import state
from .elementwise import div, exp, mul, sub, where
from .registry import primitive, value
from .shape import expand, reshape, transpose


def _kept_shape(shape, axis):
    """The reduction's output shape had it kept its reduced axes (size 1)."""
    return tuple(1 if axis is None or i in axis else n for i, n in enumerate(shape))


def _keep(g, shape, axis, keepdims):
    """g (a Tensor) reshaped as if the reduction had kept its reduced axes (size 1)."""
    if keepdims or axis is None and g.ndim == len(shape):
        return g
    return reshape(g, shape=_kept_shape(shape, axis))


def _expand_back(g, x, axis, keepdims):
    if not keepdims and (axis is None or axis == tuple(range(len(axis)))):
        return expand(g, shape=x.shape)  # only leading axes went: g broadcasts back as it is
    return expand(_keep(g, x.shape, axis, keepdims), shape=x.shape)


@primitive("sum", "sum(x, axis)", "g expanded to x.shape", saves=False)
def sum(x, *, axis=None, keepdims=False):
    return np.add.reduce(x, axis=axis, keepdims=keepdims)  # (np.sum is this plus a Python wrapper)


sum.defvjp(lambda g, out, x, *, axis=None, keepdims=False: _expand_back(g, x, axis, keepdims))


def _count(shape, axis):
    """How many elements a mean over `axis` averages."""
    return math.prod(shape) if axis is None else math.prod([shape[a] for a in axis])


@primitive(
    "mean",
    "mean(x, axis)",
    "g / n expanded to x.shape   (n: how many elements are averaged)",
    saves=False,
)
def mean(x, *, axis=None, keepdims=False):
    # (NumPy's mean, without its wrapper; an empty mean is 0/0 = nan, with NumPy's warning)
    return np.true_divide(np.add.reduce(x, axis=axis, keepdims=keepdims), _count(np.shape(x), axis))


mean.defvjp(
    lambda g, out, x, *, axis=None, keepdims=False: _expand_back(
        g / _count(x.shape, axis), x, axis, keepdims
    )
)


def _extreme_grad(g, out, x, *, axis=None, keepdims=False):
    """Ties share equally: each position equal to the extreme gets g / (number of ties)."""
    hit = value(x) == np.reshape(value(out), _kept_shape(x.shape, axis))  # NumPy: a constant mask
    share = hit / np.sum(hit, axis=axis, keepdims=True)
    return mul(_keep(g, x.shape, axis, keepdims), np.asarray(share, dtype=g.dtype))


@primitive("max", "max(x, axis)", "g / (number of ties) at the maxima, 0 elsewhere", needs_out=True)
def max(x, *, axis=None, keepdims=False):
    return np.max(x, axis=axis, keepdims=keepdims)


max.defvjp(_extreme_grad)


@primitive("min", "min(x, axis)", "g / (number of ties) at the minima, 0 elsewhere", needs_out=True)
def min(x, *, axis=None, keepdims=False):
    return np.min(x, axis=axis, keepdims=keepdims)


min.defvjp(_extreme_grad)


def _prod_grad(g, out, x, *, axis=None, keepdims=False):
    g = _keep(g, x.shape, axis, keepdims)
    if np.all(value(x) != 0):
        return div(mul(g, _keep(out, x.shape, axis, keepdims)), x)
    # With zeros, out / x is 0/0: use the product of the other elements instead. Computed in NumPy
    # for a plain backward; recorded (so differentiable again) under create_graph.
    if not state.enabled:
        return mul(g, np.asarray(_product_of_others(value(x), axis), dtype=g.dtype))
    return mul(g, _product_of_others_recorded(x, axis))


def _product_of_others_recorded(x, axis):
    """prod over j != i of x_j, with tapegrad ops: each row of an n x n copy gets 1 on its diagonal."""
    axes = tuple(range(x.ndim)) if axis is None else axis
    perm = tuple(i for i in range(x.ndim) if i not in axes) + axes
    xt = transpose(x, axes=perm)
    lead, reduced = xt.shape[: x.ndim - len(axes)], xt.shape[x.ndim - len(axes) :]
    n = int(np.prod(reduced))
    rows = expand(reshape(xt, shape=lead + (1, n)), shape=lead + (n, n))
    others = prod(where(1.0, rows, cond=np.eye(n, dtype=bool)), axis=(len(lead) + 1,))
    return transpose(reshape(others, shape=lead + reduced), axes=tuple(np.argsort(perm)))


def _product_of_others(a, axis):
    axes = tuple(range(a.ndim)) if axis is None else axis
    moved = np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    flat = moved.reshape(moved.shape[: a.ndim - len(axes)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=a.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return np.moveaxis(
        (left * right).reshape(moved.shape), tuple(range(a.ndim - len(axes), a.ndim)), axes
    )


@primitive("prod", "prod(x, axis)", "g * (product of the other elements)", needs_out=True)
def prod(x, *, axis=None, keepdims=False):
    return np.prod(x, axis=axis, keepdims=keepdims)


prod.defvjp(_prod_grad)


@primitive(
    "logsumexp", "log(sum(exp(x), axis))", "g * softmax(x)   (= g * exp(x - out))", needs_out=True
)
def logsumexp(x, *, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)  # all -inf (or inf) rows: shift by 0 instead of nan
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _logsumexp_grad(g, out, x, *, axis=None, keepdims=False):
    # softmax(x) as exp(x - m) / sum(exp(x - m)) with m = max(x) a constant: exact for any m, and
    # precise (exp(x - out) would carry out's rounding error, about |x| * eps, into every entry)
    m = np.max(value(x), axis=axis, keepdims=True)
    e = exp(sub(x, np.where(np.isfinite(m), m, 0)))
    return mul(_keep(g, x.shape, axis, keepdims), div(e, sum(e, axis=axis, keepdims=True)))


logsumexp.defvjp(_logsumexp_grad)
