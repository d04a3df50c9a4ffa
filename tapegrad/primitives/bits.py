"""Selection by bits: np.where's results without its branch per element, which a random mask
(relu's, max-pool's, leaky_relu's) makes 6-10x slower on large arrays (measured). A float's bits
are ANDed with all ones or all zeros, so the results are exact: an inf or NaN selected away gives
0 (`g * keep` would give NaN), -0.0 and NaN payloads are kept.

Layer L1: numpy only.
"""

from __future__ import annotations

import numpy as np

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}  # an unsigned integer per float width

# Below this many elements np.where's one call is cheaper than the bit operations' several.
_SELECT_FROM = 4096


def masked(g, keep, out=None):
    """where(keep, g, 0) for an array g and a bool array `keep` of its shape, into `out` if given
    (other masks, shapes and dtypes: by np.where)."""
    return _selected(g, keep, True, out)


def dropped(g, drop, out=None):
    """where(drop, 0, g), as masked(g, ~drop) without the pass that inverts the mask."""
    return _selected(g, drop, False, out)


def _ones_where(mask, value, uint):
    """All ones where the bool `mask` equals `value`, zeros elsewhere, as `uint`: one pass, as
    0 - 1 and False - 1 wrap to all ones in unsigned arithmetic."""
    return np.subtract(0, mask, dtype=uint) if value else np.subtract(mask, 1, dtype=uint)


def _selected(g, mask, value, out):
    """g where the bool `mask` equals `value`, 0 elsewhere (masked's and dropped's kernel)."""
    uint = _UINT.get(g.itemsize) if g.dtype.kind in "fc" else None
    same = mask.__class__ is np.ndarray and mask.dtype == bool and mask.shape == g.shape
    if uint is None or not same or not g.ndim:
        chosen = np.where(mask, g, 0) if value else np.where(mask, 0, g)
        if out is None:
            return chosen
        np.copyto(out, chosen)
        return out
    bits = _ones_where(mask, value, uint)
    if out is None:
        return np.bitwise_and(bits, g.view(uint), out=bits).view(g.dtype)
    np.bitwise_and(bits, g.view(uint), out=out.view(uint))
    return out


def select(cond, x, y):
    """np.where(cond, x, y); by bits when x and y are large arrays of cond's shape and of one float
    dtype, and cond is bool."""
    arrays = cond.__class__ is x.__class__ is y.__class__ is np.ndarray
    if not arrays or x.size < _SELECT_FROM or x.dtype != y.dtype or x.dtype.kind not in "fc":
        return np.where(cond, x, y)
    uint = _UINT.get(x.itemsize)
    if uint is None or cond.dtype != bool or not cond.shape == x.shape == y.shape:
        return np.where(cond, x, y)
    bits = _ones_where(cond, True, uint)
    out = np.bitwise_and(x.view(uint), bits)
    np.bitwise_and(y.view(uint), np.invert(bits, out=bits), out=bits)
    return np.bitwise_or(out, bits, out=out).view(x.dtype)
