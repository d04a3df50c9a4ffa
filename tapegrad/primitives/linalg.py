"""Matrix multiplication (NumPy's rules for 1-D operands and batch broadcasting), and the dense
layer's x @ W^T + b as one op (as PyTorch's addmm: one node per layer instead of three).

Conventions as in registry.py. 1-D operands are promoted to matrices for the rule and the extra
axis is dropped again; batch axes are summed back by the engine.
Layer L1: numpy, registry and the shape family.
"""

from __future__ import annotations

import numpy as np

from .registry import primitive
from .shape import reshape


def _as_matrices(g, x, y):
    """x, y and g with 1-D operands made 2-D, as matmul sees them."""
    x2 = reshape(x, shape=(1,) + x.shape) if x.ndim == 1 else x
    y2 = reshape(y, shape=y.shape + (1,)) if y.ndim == 1 else y
    gshape = g.shape
    if x.ndim == 1:
        gshape = gshape[:-1] + (1,) + gshape[-1:] if y.ndim > 1 else gshape + (1,)
    if y.ndim == 1:
        gshape = gshape + (1,)
    g2 = reshape(g, shape=gshape) if gshape != g.shape else g
    return g2, x2, y2


# With ta / tb, matmul multiplies by the transpose of x / y (the last two axes) without a separate
# transpose op: the rules below use them, so a recorded backward has no transpose nodes. For
# out = X @ Y with X = x^T if ta else x, and Y = y^T if tb else y: dX = g @ Y^T, dY = X^T @ g.


def _grad_x(g, out, x, y, *, ta=False, tb=False):
    if x.ndim == 1 or y.ndim == 1:  # (ta / tb are only ever set for matrices)
        g2, _, y2 = _as_matrices(g, x, y)
        gx = matmul(g2, y2, tb=True)
        return reshape(gx, shape=gx.shape[:-2] + gx.shape[-1:]) if x.ndim == 1 else gx
    return matmul(y, g, ta=tb, tb=True) if ta else matmul(g, y, tb=not tb)


def _grad_y(g, out, x, y, *, ta=False, tb=False):
    if x.ndim == 1 or y.ndim == 1:
        g2, x2, _ = _as_matrices(g, x, y)
        gy = matmul(x2, g2, ta=True)
        return reshape(gy, shape=gy.shape[:-1]) if y.ndim == 1 else gy
    return matmul(g, x, ta=True, tb=ta) if tb else matmul(x, g, ta=not ta)


@primitive("matmul", "x @ y", "g @ y^T", "x^T @ g")
def matmul(x, y, *, ta=False, tb=False):
    if ta:  # (the method: np.swapaxes's wrapper costs more than it does)
        x = np.asarray(x).swapaxes(-1, -2)
    if tb:
        y = np.asarray(y).swapaxes(-1, -2)
    return np.matmul(x, y)  # (0-d operands: NumPy refuses, and Tensor.matmul explains why)


matmul.defvjp(_grad_x, _grad_y)


def _linear_grad_w(g, out, x, w, b):
    if x.ndim != 2:  # every batch axis (or none) into one
        g = reshape(g, shape=(-1, w.shape[0]))
        x = reshape(x, shape=(-1, w.shape[1]))
    return matmul(g, x, ta=True)


@primitive(
    "linear",
    "x @ W^T + b",
    "g @ W",
    "g^T @ x   (summed over every batch axis)",
    "g   (summed over the batch axes by the engine)",
)
def linear(x, w, b):
    return np.matmul(x, w.T) + b


linear.defvjp(lambda g, out, x, w, b: matmul(g, w), _linear_grad_w, lambda g, out, x, w, b: g)
