"""tg.histogram and tg.histogramdd, as torch's: counts (or summed weights) of a tensor's values in
bins (histogramdd: of its rows, points in N dimensions, in an N-dimensional grid of bins),
returned with the bins' edges as the named tuple `(hist, bin_edges)`. Off the tape: counting has
no gradient.

Layer L4: imports the Tensor class and creation (the edges are linspace's).
"""

from __future__ import annotations

import builtins
from typing import NamedTuple, Sequence

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


class HistogramddResult(NamedTuple):
    """torch.return_types.histogramdd: `hist` (N-dimensional) and `bin_edges` (a tuple of N
    1-D tensors)."""

    hist: Tensor
    bin_edges: tuple[Tensor, ...]


HistogramddResult.__name__ = "histogramdd"

_DD_SIGNATURES = "\n".join(
    f" * (Tensor input, {kind} bins, tuple of floats range = None, Tensor weight = None, bool "
    "density = False)"
    for kind in ("int", "tuple of ints", "tuple of Tensors")
)


def _is_count(b: object) -> bool:
    return isinstance(b, int | np.integer) and not isinstance(b, bool)


def _dd_edges(input: Tensor, points: np.ndarray, bins: object, range: object) -> list[np.ndarray]:
    """Each dimension's bin edges: the tensors given, or equal bins over the range (default: the
    points' span in that dimension, widened by 0.5 each side when it is one value)."""
    n = points.shape[1]
    if isinstance(bins, Tensor) and bins.ndim == 0:
        bins = bins.item()
    if _is_count(bins):
        bins = [bins] * n
    if not isinstance(bins, list | tuple) or not (
        all(_is_count(b) for b in bins) or all(isinstance(b, Tensor) for b in bins)
    ):
        raise TypeError(
            "histogramdd() received an invalid combination of arguments - got (Tensor, bins="
            f"{type(bins).__name__}), but expected one of:\n{_DD_SIGNATURES}\n"
        )
    if bins and isinstance(bins[0], Tensor):
        if len(bins) != n:
            raise RuntimeError(
                f"torch.histogramdd: expected {n} sequences of bin edges for a {n}-dimensional "
                f"histogram but got {len(bins)}"
            )
        if range is not None:
            raise TypeError("histogramdd: range= goes with numbers of bins, not with bin edges")
        edges = []
        for d, b in enumerate(bins):
            if b.ndim != 1:
                raise RuntimeError(
                    f"torch.histogramdd: bins tensor should have one dimension, but got {b.ndim} "
                    f"dimensions in the bins tensor for dimension {d}"
                )
            if b.dtype != input.dtype:
                raise RuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same "
                    f"dtype, but got input with dtype {input.dtype} and bins for dimension {d} "
                    f"with dtype {b.dtype}"
                )
            if b.shape[0] < 1:
                raise RuntimeError(
                    f"torch.histogramdd: bins tensor should have at least 1 element, but got "
                    f"{b.shape[0]} elements in the bins tensor for dimension {d}"
                )
            if b.shape[0] == 1:
                raise RuntimeError(
                    f"torch.histogram(): bins must be > 0, but got 0 for dimension {d}"
                )
            edges.append(b.numpy())
        return edges
    if len(bins) != n:
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    for d, b in enumerate(bins):
        if b <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {b} for dimension {d}"
            )
    if range is not None:
        spans = [float(r) for r in range]  # type: ignore[attr-defined]
        if len(spans) != 2 * n:
            raise RuntimeError(
                f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                f"elements, but got {len(spans)}"
            )
    elif points.shape[0]:
        spans = [v for d in builtins.range(n) for v in (points[:, d].min(), points[:, d].max())]
    else:
        spans = [0.0, 1.0] * n
    edges = []
    for d, b in enumerate(bins):
        low, high = float(spans[2 * d]), float(spans[2 * d + 1])
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} "
                f"for dimension {d}"
            )
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {d}'s range [{low:g}, {high:g}] is not finite"
            )
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges.append(linspace(low, high, int(b) + 1, dtype=input.dtype).numpy())
    return edges


def histogramdd(
    input: Tensor,
    bins: "int | Sequence[int] | Sequence[Tensor]",
    range: Sequence[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> HistogramddResult:
    """Count the rows of `input` (points in N dimensions: its last dimension) in an N-dimensional
    grid of bins: `bins` per dimension (a number, or one per dimension, over `range`'s
    (min, max) pairs, by default the points' span) or the edges in a tensor per dimension.

    >>> tg.histogramdd(tg.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), bins=[2, 2]).hist
    tensor([[0., 1.],
            [1., 1.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"histogramdd(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if input.dtype.kind != "f":
        raise NotImplementedError(
            f"histogramdd counts floating-point values; got {input.dtype} (convert with "
            f".to(tg.float32))"
        )
    n = input.shape[-1]
    points = input.numpy().reshape(-1, n)
    edges = _dd_edges(input, points, bins, range)
    counts = np.ones(points.shape[0], dtype=input.dtype)
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(
            "histogramdd() received an invalid combination of arguments - got (Tensor, weight="
            f"{type(weight).__name__}), but expected one of:\n{_DD_SIGNATURES}\n"
        )
    if weight is not None:
        if weight.shape != input.shape[:-1]:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with shape "
                f"{list(input.shape)} and weight with shape "
                f"{list(getattr(weight, 'shape', ()))}"
            )
        if weight.dtype != input.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                f"should have the same dtype, but got input({input.dtype}), and "
                f"weight({weight.dtype})"
            )
        counts = weight.numpy().ravel()
    sizes = [len(e) - 1 for e in edges]
    inside = np.ones(points.shape[0], dtype=bool)
    for d, e in enumerate(edges):  # (NaN is never inside)
        inside &= (points[:, d] >= e[0]) & (points[:, d] <= e[-1])
    flat = np.zeros(int(inside.sum()), dtype=np.int64)
    for d, e in enumerate(edges):
        where = np.searchsorted(e, points[inside, d], side="right") - 1
        flat = flat * sizes[d] + np.minimum(where, sizes[d] - 1)  # (the last edge: last bin)
    total = int(np.prod(sizes))
    hist = np.bincount(flat, weights=counts[inside], minlength=total)[:total]
    hist = hist.astype(input.dtype).reshape(sizes)
    if density:
        volume = np.ones((), dtype=np.float64)
        for e in edges:
            volume = np.multiply.outer(volume, np.diff(e))
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = (hist / (hist.sum() * volume)).astype(input.dtype)
    return HistogramddResult(Tensor(hist), tuple(Tensor(e.copy()) for e in edges))


__all__ = ["HistogramResult", "HistogramddResult", "histogram", "histogramdd"]
