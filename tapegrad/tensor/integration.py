"""Numerical integration along an axis by the trapezoidal rule: trapezoid (trapz) and
cumulative_trapezoid, with sample spacing dx (a number) or sample points x, as PyTorch.

Layer L3: numpy, coerce.py and the dtypes. Compositions of recorded ops (sums,
slices, products): the gradient comes with them, to y and to x.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import dtypes
from .coerce import TensorLike, as_tensor, one_dim

if TYPE_CHECKING:
    from .tensor import Tensor


def _pieces(y: Any, x: Any, dx: Any, dim: int, name: str) -> tuple[Tensor, Tensor | float, int]:
    """(the sum of each neighbouring pair of y along dim, the spacing: x's differences or dx, the
    axis), with y in a floating dtype (integers: the default, as PyTorch)."""
    values = as_tensor(y)
    if values._data.dtype.kind != "f":
        values = values.astype(dtypes.get_default_dtype())
    if values.ndim == 0:
        raise ValueError(f"{name}: y must have at least one dimension, got a 0-d tensor")
    axis = one_dim(dim, values.ndim, name)
    n = values.shape[axis]
    pairs = values.narrow(axis, min(n, 1), max(n - 1, 0)) + values.narrow(axis, 0, max(n - 1, 0))
    if x is None:
        step = 1.0 if dx is None else dx
        if isinstance(step, bool) or not isinstance(step, int | float | np.integer | np.floating):
            raise TypeError(f"{name}: dx must be a number, got {step!r}")
        return pairs, float(step), axis
    if dx is not None:
        raise TypeError(f"{name}: pass the sample points x or their spacing dx, not both")
    points = as_tensor(x)
    if points.ndim == 1:
        if points.shape[0] != n:
            raise ValueError(
                f"{name}: There must be one `x` value for each sample point, got {points.shape[0]} "
                f"x values for {n} samples along dim {dim}"
            )
        shape = [1] * values.ndim
        shape[axis] = n
        points = points.reshape(tuple(shape))
    elif points.ndim != values.ndim:
        raise ValueError(
            f"{name}: x must be 1-D or have y's number of dimensions, got shapes "
            f"{list(points.shape)} and {list(values.shape)}"
        )
    m = points.shape[axis]
    spacing = points.narrow(axis, min(m, 1), max(m - 1, 0)) - points.narrow(axis, 0, max(m - 1, 0))
    return pairs, spacing, axis


def trapezoid(
    y: TensorLike, x: TensorLike | None = None, *, dx: float | None = None, dim: int = -1
) -> Tensor:
    """The integral of y along dim by the trapezoidal rule: samples dx apart (1 by default), or
    at the points x (1-D, or y's dimensions).

    >>> tg.trapezoid(tg.tensor([1.0, 2.0, 4.0])), tg.trapezoid(tg.tensor([1.0, 2.0, 4.0]), dx=2)
    (tensor(4.5000), tensor(9.))
    """
    pairs, spacing, axis = _pieces(y, x, dx, dim, "trapezoid")
    if isinstance(spacing, float):
        return cast("Tensor", pairs.sum(axis) * (spacing / 2))
    return (pairs * spacing).sum(axis) / 2


def cumulative_trapezoid(
    y: TensorLike, x: TensorLike | None = None, *, dx: float | None = None, dim: int = -1
) -> Tensor:
    """The running integral of y along dim by the trapezoidal rule (one value fewer than y).

    >>> tg.cumulative_trapezoid(tg.tensor([1.0, 2.0, 4.0]))
    tensor([1.5000, 4.5000])
    """
    pairs, spacing, axis = _pieces(y, x, dx, dim, "cumulative_trapezoid")
    if isinstance(spacing, float):
        return cast("Tensor", (pairs * (spacing / 2)).cumsum(axis))
    return (pairs * spacing / 2).cumsum(axis)
