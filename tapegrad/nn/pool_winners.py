"""Which element a max pool picks: PyTorch's first maximum in row-major order (the last NaN if
there is one), over whole windows of a strided, padded, dilated pool or along one axis; and the
picks' flat positions in the whole input (a gather rule's `source`).

Layer L5 helpers on NumPy arrays only (the adaptive and volumetric max pools share them).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def winner(values: np.ndarray, axis: int) -> np.ndarray:
    """PyTorch's pick along axis: the first maximum, or the last NaN if there is one."""
    nan = np.isnan(values)
    last_nan = values.shape[axis] - 1 - np.argmax(np.flip(nan, axis), axis)
    return np.where(nan.any(axis), last_nan, np.argmax(values, axis))


def window_winners(
    x: np.ndarray, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple, outs: tuple
) -> np.ndarray:
    """Flat index over the last len(kernel) axes of each window's maximum (PyTorch's pick); a
    window of only -inf names its first element inside the input, as PyTorch."""
    dims = len(kernel)
    lead = x.shape[:-dims]
    widths = [(0, 0)] * len(lead) + list(pads)
    valid = np.pad(np.ones(x.shape[-dims:], bool), pads)
    # (integers compared as float64: padding at -inf lies below every value)
    values = np.pad(x.astype(np.float64, copy=False), widths, constant_values=-np.inf)
    extent = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))

    def windows(a: np.ndarray) -> np.ndarray:
        """(..., *outs, window entries) of a padded array."""
        w = sliding_window_view(a, extent, axis=tuple(range(a.ndim - dims, a.ndim)))
        w = w[
            (Ellipsis,)
            + tuple(slice(None, o * s, s) for o, s in zip(outs, stride))
            + (slice(None),) * dims
        ]
        w = w[(Ellipsis,) + tuple(slice(None, None, d) for d in dilation)]
        return w.reshape(w.shape[: w.ndim - dims] + (math.prod(kernel),))

    keys = windows(values)
    inside = np.broadcast_to(windows(valid), keys.shape)
    pick = winner(keys, -1)
    chosen_inside = np.take_along_axis(inside, pick[..., None], -1)[..., 0]
    pick = np.where(chosen_inside, pick, np.argmax(inside, -1))
    # The window's entry back to a position in the input: its start plus the entry's offsets.
    offsets = np.unravel_index(pick, kernel)
    spatial = x.shape[-dims:]
    flat = np.zeros(pick.shape, np.int64)
    for axis, (o, s, (p, _), d, n) in enumerate(zip(outs, stride, pads, dilation, spatial)):
        start = np.arange(o) * s - p
        shape = [1] * pick.ndim
        shape[pick.ndim - dims + axis] = o
        flat = flat * n + start.reshape(shape) + offsets[axis] * d
    return flat


def flat_source(indices: np.ndarray, spatial: tuple) -> np.ndarray:
    """The maxima's flat positions in the whole input (the rule's `source`), from their positions
    over the pooled axes."""
    size, dims = math.prod(spatial), len(spatial)
    rows = indices.reshape(-1, math.prod(indices.shape[-dims:]))
    return (rows + size * np.arange(len(rows))[:, None]).reshape(indices.shape)
