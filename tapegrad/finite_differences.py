"""tg.gradient, as torch.gradient: a function's derivative estimated from its samples by central
differences inside and one-sided differences at the edges (first or second order), along each
dimension asked for; the samples equally spaced (a number per dimension) or at coordinates (a
1-D tensor per dimension).

Layer L4: compositions of recorded ops (narrow, arithmetic, cat), so the estimate is
differentiable with respect to the samples (and to the coordinates).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import dtypes
from .math import concatenate
from .tensor import Tensor
from .tensor.coerce import as_tensor

__all__ = ["gradient"]

_SIGNATURES = """ * (Tensor input, *, tuple of ints dim, int edge_order = 1)
 * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)
 * (Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)
 * (Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)
 * (Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)
 * (Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)
 * (Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)"""


def _is_number(x: Any) -> bool:
    """A Python or NumPy number (bools too: PyTorch's Scalar takes them)."""
    return isinstance(x, bool | int | float | np.integer | np.floating)


def _refuse(what: str) -> TypeError:
    return TypeError(
        f"gradient() received an invalid combination of arguments - got {what}, but expected "
        f"one of:\n{_SIGNATURES}\n"
    )


def _dims(dim: Any, ndim: int) -> list[int] | None:
    """`dim` as a list of non-negative axes in the order given (None: not given)."""
    if dim is None:
        return None
    given = [dim] if isinstance(dim, int | np.integer) else dim
    if isinstance(dim, bool) or not isinstance(given, list | tuple):
        raise _refuse(f"(Tensor, dim={type(dim).__name__})")
    axes = []
    for d in given:
        if isinstance(d, bool) or not isinstance(d, int | np.integer):
            raise _refuse(f"(Tensor, dim={type(dim).__name__} of {type(d).__name__})")
        low, high = -max(ndim, 1), max(ndim, 1) - 1
        if not low <= d <= high:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{low}, {high}], but got {d})"
            )
        axis = int(d) % max(ndim, 1)
        if axis in axes:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
        axes.append(axis)
    return axes


def _spacings(spacing: Any) -> tuple[list[Any] | float, bool]:
    """(one spacing per dimension given, or a single number; whether they are coordinates)."""
    if spacing is None:
        spacing = 1
    if isinstance(spacing, Tensor) and spacing.ndim == 0:
        spacing = spacing.item()
    if _is_number(spacing):
        return spacing, False
    if not isinstance(spacing, list | tuple):
        raise _refuse(f"(Tensor, spacing={type(spacing).__name__})")
    if any(isinstance(s, Tensor) for s in spacing):  # (coordinates, 0-d tensors refused later)
        for i, s in enumerate(spacing):
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"expected Tensor as element {i} in argument 1, but got {type(s).__name__}"
                )
        return list(spacing), True
    for s in spacing:
        if not _is_number(s):
            raise _refuse(f"(Tensor, spacing={type(spacing).__name__} of {type(s).__name__})")
    return list(spacing), False


def _uniform(f: Tensor, axis: int, h: float, edge_order: int) -> Tensor:
    """Differences of samples h apart along axis (PyTorch's gradient_helper_float)."""
    n = f.shape[axis]

    def part(start: int, stop: int) -> Tensor:
        return f.narrow(axis, start, stop - start)

    center = (part(2, n) - part(0, n - 2)) / h
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / h
        last = (part(n - 1, n) - part(n - 2, n - 1)) / h
    else:
        first = (-1.5 * part(0, 1) + 2 * part(1, 2) - 0.5 * part(2, 3)) / h
        last = (0.5 * part(n - 3, n - 2) - 2 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / h
    return _joined(first, center / 2, last, axis)


def _coordinates(f: Tensor, axis: int, x: Tensor, edge_order: int) -> Tensor:
    """Differences of samples at the coordinates x along axis (PyTorch's gradient_helper)."""
    n = f.shape[axis]
    if x.ndim != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got an "
            f"element with {x.ndim} dimensions!"
        )
    if x.shape[0] != n:
        raise RuntimeError(  # (PyTorch broadcasts such coordinates into a wrong-sized result)
            f"torch.gradient: the coordinates for dim {axis} have {x.shape[0]} values but the "
            f"input has {n} samples along it; pass one coordinate per sample"
        )
    shape = [1] * f.ndim
    shape[axis] = -1

    def part(start: int, stop: int) -> Tensor:
        return f.narrow(axis, start, stop - start)

    dx = x[1:] - x[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * part(0, n - 2) + b * part(1, n - 1) + c * part(2, n)
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / dx[0]
        last = (part(n - 1, n) - part(n - 2, n - 1)) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
        b = (h0 + h1) / (h0 * h1)
        c = -h0 / (h1 * (h0 + h1))
        first = a * part(0, 1) + b * part(1, 2) + c * part(2, 3)
        h1, h2 = dx[-2], dx[-1]
        a = h2 / (h1 * (h2 + h1))
        b = -(h2 + h1) / (h2 * h1)
        c = (2 * h2 + h1) / (h2 * (h2 + h1))
        last = a * part(n - 3, n - 2) + b * part(n - 2, n - 1) + c * part(n - 1, n)
    return _joined(first, center, last, axis)


def _joined(first: Tensor, center: Tensor, last: Tensor, axis: int) -> Tensor:
    """first, center and last along axis, in their common dtype (as PyTorch's cat promotes)."""
    dtype = np.result_type(first.dtype, center.dtype, last.dtype)
    return concatenate([t.to(dtype) for t in (first, center, last)], dim=axis)


def gradient(
    input: Tensor,
    *,
    spacing: float | Sequence[float] | Sequence[Tensor] | None = 1,
    dim: int | Sequence[int] | None = None,
    edge_order: int = 1,
) -> tuple[Tensor, ...]:
    """The derivative of sampled values along each dimension in `dim` (all by default), by
    central differences inside and one-sided ones of order `edge_order` (1 or 2) at the edges;
    `spacing` is the samples' step (a number, or one per dimension) or their coordinates (a 1-D
    tensor per dimension).

    >>> tg.gradient(tg.tensor([1.0, 2.0, 4.0, 8.0]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    f = as_tensor(input)
    if f.dtype == dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    axes = _dims(dim, f.ndim)
    given, coordinates = _spacings(spacing)
    steps = given if isinstance(given, list) else [given] * (f.ndim if axes is None else len(axes))
    if not isinstance(given, list):  # (a number: the same step along every dimension)
        pass
    elif axes is None and len(steps) != f.ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {f.ndim}', since dim argument was not given, but got a list "
            f"of length {len(steps)}"
        )
    elif axes is not None and len(steps) != len(axes):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
            f"arguments to have the same length, but got a spacing argument of length "
            f"{len(steps)} and a dim argument of length {len(axes)}."
        )
    if isinstance(edge_order, bool) or not isinstance(edge_order, int | np.integer):
        raise _refuse(f"(Tensor, edge_order={type(edge_order).__name__})")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    axes = list(range(f.ndim)) if axes is None else axes
    if any(f.shape[a] < edge_order + 1 for a in axes):
        raise RuntimeError(
            "torch.gradient expected each dimension size to be at least edge_order+1"
        )
    if not dtypes.is_floating(f.dtype):
        f = f.to(dtypes.get_default_dtype())
    if coordinates:
        return tuple(_coordinates(f, a, as_tensor(x), edge_order) for a, x in zip(axes, steps))
    return tuple(_uniform(f, a, float(h), edge_order) for a, h in zip(axes, steps))
