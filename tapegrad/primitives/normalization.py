"""The normalization primitive (batch norm's and layer norm's core) and the statistics around it.

Conventions as in elementwise.py; normalize's rule is in ops that record, so every order of
derivative follows. Layer L1: numpy, registry, batching, the elementwise and reduction families.
"""

from __future__ import annotations

import math

import numpy as np

from .batching import normalization
from .elementwise import sqrt
from .reduction import mean
from .registry import primitive


def moments(x, axes):
    """x's mean and (biased) variance over `axes`, each kept as size-1 axes (arrays)."""
    n = math.prod([x.shape[a] for a in axes])
    mean = np.add.reduce(x, axis=axes, keepdims=True) / n
    centered = x - mean
    squares = np.multiply(centered, centered, out=centered)
    return mean, np.add.reduce(squares, axis=axes, keepdims=True) / n


def inverse_std(x, axes, eps, stats=None):
    """1 / sqrt(var(x) + eps) over `axes` (kept as size 1): on arrays from the forward's `stats`
    when it had them; on Tensors in ops that record (create_graph: higher orders see x in it)."""
    if stats is not None and x.__class__ is np.ndarray:
        return 1 / np.sqrt(stats[1] + eps)
    return 1 / sqrt(var(x, axes) + eps)


def avg(v, axes):
    """v's mean over `axes`, kept as size-1 axes (so it broadcasts back against v)."""
    return mean(v, axis=axes, keepdims=True)


def var(x, axes):
    """x's (biased) variance over `axes`, kept as size-1 axes."""
    centered = x - avg(x, axes)
    return avg(centered * centered, axes)


@primitive(
    "normalize",
    "(x - avg(x, axes)) / sqrt(var(x, axes) + eps)",
    batch=normalization,
    x="(g - avg(g, axes) - out * avg(g * out, axes)) / sqrt(var(x, axes) + eps)",
)
def normalize(x, *, axes, eps, stats=None):
    # (one primitive rather than the composite's six ops: its backward makes a third of the
    # passes over x, and batch and layer norm are in most models. `stats`, x's `moments`, come
    # from callers that need them too (batch norm's running statistics): neither the forward nor
    # a plain backward computes them again)
    mean, var = moments(x, axes) if stats is None else stats
    centered = x - mean
    return np.multiply(centered, 1 / np.sqrt(var + eps), out=centered)
