"""Reductions: sum, mean, max and min (ties share the gradient), prod, logsumexp; cumsum, cumprod.

Conventions as in elementwise.py. A reduction's gradient g has the reduced shape: `expand_to`
copies it back along the reduced axes (the textbook's rules). The kernels fused.py runs instead
take keepdims from the op (`keep` puts the reduced axes back, `expand_back` broadcasts) and guard
the edges (zeros in prod, an infinite g off the max).
Layer L1: numpy, the L0 state, registry, batching and the elementwise and shape families.
"""

from __future__ import annotations

import math

import numpy as np

from .batching import along_axis, reduction
from .elementwise import div, exp, mul, sub, where
from .registry import primitive, value
from .shape import expand, getitem, inverse, reshape, transpose


def kept_shape(shape, axis):
    """The reduction's output shape had it kept its reduced axes (size 1)."""
    return tuple(1 if axis is None or i in axis else n for i, n in enumerate(shape))


def keep(g, shape, axis, keepdims):
    """g reshaped as if the reduction had kept its reduced axes (size 1)."""
    if keepdims or axis is None and g.ndim == len(shape):
        return g
    return reshape(g, shape=kept_shape(shape, axis))


def expand_back(g, shape, axis, keepdims):
    """g (a reduction's gradient) broadcast back to the input's shape."""
    if not keepdims and (axis is None or axis == tuple(range(len(axis)))):
        return expand(g, shape=shape)  # only leading axes went: g broadcasts back as it is
    return expand(keep(g, shape, axis, keepdims), shape=shape)


def expand_to(g, shape, axis):
    """g, a reduction's gradient, copied back along the reduced axes to `shape` (whether or not
    the reduction kept them: g has as many axes as the input exactly when it did)."""
    return expand_back(g, shape, axis, g.ndim == len(shape))


def count(shape, axis):
    """How many elements a reduction over `axis` takes together."""
    return math.prod(shape) if axis is None else math.prod([shape[a] for a in axis])


@primitive("sum", "sum(x, axis)", batch=reduction, x="expand_to(g, x.shape, axis)")
def sum(x, *, axis=None, keepdims=False):
    return np.add.reduce(x, axis=axis, keepdims=keepdims)  # (np.sum is this plus a wrapper)


@primitive(
    "mean",
    "mean(x, axis)",
    batch=reduction,
    x="expand_to(g, x.shape, axis) / count(x.shape, axis)",
)
def mean(x, *, axis=None, keepdims=False):
    # (NumPy's mean without its wrapper; an empty mean is 0/0 = nan, with NumPy's warning)
    shape = x.shape if x.__class__ is np.ndarray else np.shape(x)  # (np.shape: a Python call)
    return np.true_divide(np.add.reduce(x, axis=axis, keepdims=keepdims), count(shape, axis))


def tie_shares(x, out, axis):
    """1/k at each of the k positions equal to the extreme, 0 elsewhere (a constant); where the
    extreme is NaN, the k NaNs share (as PyTorch's max())."""
    x, extreme = value(x), np.reshape(value(out), kept_shape(x.shape, axis))
    hit = np.equal(x, extreme)
    # (inside vmap the values are per example, so no one answer to "any NaN?": NaNs looked for)
    if extreme.dtype.kind in "fc" and (
        extreme.__class__ is not np.ndarray or np.isnan(extreme).any()
    ):
        hit = hit | (np.isnan(x) & np.isnan(extreme))
    return (hit / np.sum(hit, axis=axis, keepdims=True)).astype(x.dtype)


def spread(g, shares):
    """g * shares, and exactly 0 where a share is 0 (g * 0 is NaN for an infinite g; PyTorch's
    max() gives 0 there too)."""
    return where(value(shares) > 0, g * shares, 0)


@primitive(
    "max",
    "max(x, axis)",
    batch=reduction,
    x="expand_to(g, x.shape, axis) * tie_shares(x, out, axis)",
)
def max(x, *, axis=None, keepdims=False):
    return np.max(x, axis=axis, keepdims=keepdims)


@primitive(
    "min",
    "min(x, axis)",
    batch=reduction,
    x="expand_to(g, x.shape, axis) * tie_shares(x, out, axis)",
)
def min(x, *, axis=None, keepdims=False):
    return np.min(x, axis=axis, keepdims=keepdims)


@primitive("prod", "prod(x, axis)", batch=reduction, x="expand_to(g * out, x.shape, axis) / x")
def prod(x, *, axis=None, keepdims=False):
    return np.prod(x, axis=axis, keepdims=keepdims)


def others(x, out, axis):
    """The product of the other elements of each position's group: out / x without zeros."""
    x_data = value(x)
    if np.all(x_data != 0):
        return div(keep(out, x.shape, axis, False), x)
    if x is x_data:  # a plain backward (arrays): in NumPy
        return np.asarray(_product_of_others(x_data, axis), dtype=x_data.dtype)
    return _product_of_others_recorded(x, axis)  # recorded, so differentiable again


def _product_of_others_recorded(x, axis):
    """prod over j != i of x_j, with tapegrad ops: row i of an n x n copy gets 1 on its diagonal."""
    axes = tuple(range(x.ndim)) if axis is None else axis
    perm = tuple(i for i in range(x.ndim) if i not in axes) + axes
    xt = transpose(x, axes=perm)
    lead, reduced = xt.shape[: x.ndim - len(axes)], xt.shape[x.ndim - len(axes) :]
    n = int(np.prod(reduced))
    rows = expand(reshape(xt, shape=lead + (1, n)), shape=lead + (n, n))
    picked = prod(where(np.eye(n, dtype=bool), 1.0, rows), axis=(len(lead) + 1,), keepdims=False)
    return transpose(reshape(picked, shape=lead + reduced), axes=tuple(np.argsort(perm)))


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


@primitive(
    "logsumexp",
    "log(sum(exp(x), axis))",
    batch=reduction,
    x="expand_to(g, x.shape, axis) * softmax(x, axis)",
)
def logsumexp(x, *, axis=None, keepdims=False):
    if x.size == 0:  # an empty sum: log(0) = -inf (as PyTorch), without NumPy's max-of-empty error
        with np.errstate(divide="ignore"):
            return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)  # all -inf (or inf) rows: shift by 0 instead of nan
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(x, axis):
    """exp(x - m) / sum(exp(x - m)) with m = max(x) a constant: exact for any m, and precise (exp(x
    - out) would carry out's rounding error, about |x| * eps, into every entry)."""
    x_data = value(x)
    if x_data.size == 0:
        return exp(x)
    m = np.max(x_data, axis=axis, keepdims=True)
    e = exp(sub(x, np.where(np.isfinite(m), m, 0)))
    return div(e, sum(e, axis=axis, keepdims=True))


@primitive("cumsum", "cumsum(x, axis)", batch=along_axis, x="reversed_cumsum(g, axis)")
def cumsum(x, *, axis):
    # (each x_i reaches out_j for every j >= i: its gradient is the sum of g from the end back)
    return np.cumsum(x, axis=axis) if x.ndim else x.copy()


def flip(g, axis):
    """g reversed along `axis` (a view)."""
    return getitem(g, index=(slice(None),) * axis + (slice(None, None, -1),)) if g.ndim else g


@primitive("cumprod", "cumprod(x, axis)", batch=along_axis, x="reversed_cumsum(g * out, axis) / x")
def cumprod(x, *, axis):
    return np.cumprod(x, axis=axis) if x.ndim else x.copy()


def reversed_cumsum(a, axis):
    """sum over j >= i of a_j, along axis (what each x_i reaches in a running op)."""
    return flip(cumsum(flip(a, axis), axis=axis), axis)


def cumprod_grad(g, x, out, axis):
    """dL/dx_i = sum over j >= i of g_j * (out_j without its factor x_i): reversed_cumsum(g * out)
    / x where x has no zeros; with zeros (as PyTorch), NumPy's O(n) split at each line's first
    zero, or under create_graph an n x n form whose derivative is the second derivative too."""
    x_data = value(x)
    if x_data.ndim == 0:
        return g
    if np.all(x_data != 0):
        return div(reversed_cumsum(mul(g, out), axis), x)
    if x is x_data:  # a plain backward (arrays): in NumPy
        return _cumprod_grad_with_zeros(g, x_data, out, axis)
    return _cumprod_grad_recorded(g, x, axis)


def _cumprod_grad_with_zeros(g, x, out, axis):
    """Before a line's first zero z: reversed_cumsum(g * out) / x (out is 0 from z on); at z: the
    products with x_z left out, cumprod(x with x_z = 1); after z: 0 (x_z stays a factor)."""
    zeros_so_far = np.cumsum(x == 0, axis=axis)
    before, first = zeros_so_far == 0, (zeros_so_far == 1) & (x == 0)
    grad = np.where(before, reversed_cumsum(g * out, axis) / np.where(before, x, 1), 0)
    without_first = np.cumprod(np.where(first, 1, x), axis=axis)
    return np.where(first, reversed_cumsum(g * without_first, axis), grad).astype(x.dtype)


def _cumprod_grad_recorded(g, x, axis):
    """The same with tapegrad ops: row i of an n x n copy of each line has x_i replaced by 1, so
    its cumprod at j >= i is out_j without x_i (exact as a function of x: differentiable again)."""
    nd, n = x.ndim, x.shape[axis]
    perm = tuple(i for i in range(nd) if i != axis) + (axis,)
    xt, gt = transpose(x, axes=perm), transpose(g, axes=perm)
    lead = xt.shape[:-1]
    rows = expand(reshape(xt, shape=lead + (1, n)), shape=lead + (n, n))
    others = cumprod(where(np.eye(n, dtype=bool), 1.0, rows), axis=nd)
    terms = where(
        np.triu(np.ones((n, n), dtype=bool)), mul(others, reshape(gt, shape=lead + (1, n))), 0.0
    )
    return transpose(sum(terms, axis=(nd,), keepdims=False), axes=inverse(perm))
