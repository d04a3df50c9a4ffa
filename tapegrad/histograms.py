"""tg.histogram, as torch.histogram: counts (or summed weights) of a tensor's values in bins,
returned with the bins' edges as the named tuple `(hist, bin_edges)`. Off the tape: counting has
no gradient.

Layer L4: imports the Tensor class and creation (the edges are linspace's).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .creation import linspace
from .tensor import Tensor


class HistogramResult(NamedTuple):
    """torch.return_types.histogram: `hist` (a count per bin) and `bin_edges` (one more)."""

    hist: Tensor
    bin_edges: Tensor


HistogramResult.__name__ = "histogram"  # (its repr reads as PyTorch's: histogram(hist=...))


def _edges(
    input: Tensor, values: np.ndarray, bins: "int | Tensor", range: tuple | None
) -> np.ndarray:
    """The bins' edges: `bins` itself when it is a tensor, else `bins` equal bins over `range`
    (by default the values' span; a span of one value widened by 0.5 on each side)."""
    if isinstance(bins, Tensor):
        if range is not None:
            raise TypeError("histogram: range= goes with a number of bins, not with bin edges")
        if bins.ndim != 1:
            raise RuntimeError(
                f"histogram: the bins tensor (the edges) should have one dimension, got {bins.ndim}"
            )
        if bins.dtype != input.dtype:
            raise RuntimeError(
                f"histogram: input and bins should have the same dtype, got {input.dtype} and "
                f"{bins.dtype}"
            )
        return bins.numpy()
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(
            f"histogram: bins must be an int (how many) or a 1-D tensor of edges, got "
            f"{type(bins).__name__} {bins!r}"
        )
    if bins <= 0:
        raise RuntimeError(f"histogram(): bins must be > 0, but got {bins} for dimension 0")
    if range is not None:
        low, high = (float(r) for r in range)
        if low > high:
            raise RuntimeError(
                f"histogram: min should not exceed max, but got min {low} max {high}"
            )
    elif values.size:
        low, high = float(values.min()), float(values.max())
    else:
        low, high = 0.0, 1.0
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"histogram: the range [{low}, {high}] is not finite")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, int(bins) + 1, dtype=input.dtype).numpy()


def histogram(
    input: Tensor,
    bins: "int | Tensor" = 100,
    *,
    range: tuple[float, float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> HistogramResult:
    """Count the values falling in each bin: `bins` equal bins over `range` (default: the values'
    span), or the bins between the edges in a tensor. Bins hold [left, right), the last one also
    its right edge; `weight` adds a weight per value instead of 1; `density=True` divides by the
    total and the bin widths, so the histogram integrates to 1.

    >>> tg.histogram(tg.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0)).hist
    tensor([0., 2., 1., 0.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"histogram(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype.kind != "f":
        raise NotImplementedError(
            f"histogram counts floating-point values; got {input.dtype} (convert with "
            f".to(tg.float32))"
        )
    values = input.numpy().ravel()
    edges = _edges(input, values, bins, range)
    counts = np.ones_like(values)
    if weight is not None:
        if not isinstance(weight, Tensor) or weight.shape != input.shape:
            raise RuntimeError(
                f"histogram: weight should have the input's shape {input.shape}, got "
                f"{getattr(weight, 'shape', type(weight).__name__)}"
            )
        if weight.dtype != input.dtype:
            raise RuntimeError(
                f"histogram: input and weight should have the same dtype, got {input.dtype} and "
                f"{weight.dtype}"
            )
        counts = weight.numpy().ravel()
    n = len(edges) - 1
    inside = (values >= edges[0]) & (values <= edges[-1])  # (NaN is never inside)
    where = np.searchsorted(edges, values[inside], side="right") - 1
    where = np.minimum(where, n - 1)  # (a value on the last edge belongs to the last bin)
    hist = np.bincount(where, weights=counts[inside], minlength=max(n, 0)).astype(input.dtype)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = (hist / (hist.sum() * np.diff(edges))).astype(input.dtype)
    return HistogramResult(Tensor(hist), Tensor(edges.copy()))


__all__ = ["HistogramResult", "histogram"]
