"""The textbook rules of F.unfold (im2col) and F.fold (col2im), each the other's adjoint, run as a
convolution with a one-hot kernel (or its transpose).

Layer L1: numpy and composites.py's machinery (see there for what a rule and its symbols are).
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite


def _taps(p: dict, size: tuple) -> tuple:
    """The number of blocks along H and W, and for each kernel position the window of the padded
    image it reads."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = p["kernel"], p["dilation"], p["padding"], p["stride"]
    ho = (size[0] + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (size[1] + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    taps = [
        (
            slice(i * dh, i * dh + sh * (ho - 1) + 1, sh),
            slice(j * dw, j * dw + sw * (wo - 1) + 1, sw),
        )
        for i in range(kh)
        for j in range(kw)
    ]
    return (ho, wo), taps


def _im2col(p: dict, x: np.ndarray) -> np.ndarray:
    """(*, C, H, W) -> (*, C * kH * kW, L): the blocks as columns."""
    (ph, pw), size = p["padding"], x.shape[-2:]
    padded = np.pad(x, [(0, 0)] * (x.ndim - 2) + [(ph, ph), (pw, pw)])
    _, taps = _taps(p, size)
    cols = np.stack([padded[..., r, c] for r, c in taps], axis=-3)  # (*, C, K, Ho, Wo)
    return cols.reshape(*x.shape[:-3], -1, cols.shape[-2] * cols.shape[-1])


def _col2im(p: dict, cols: np.ndarray, size: tuple) -> np.ndarray:
    """(*, C * kH * kW, L) -> (*, C, H, W): each column added back where its block was."""
    (ph, pw) = p["padding"]
    (ho, wo), taps = _taps(p, size)
    lead = cols.shape[:-2]
    blocks = cols.reshape(*lead, -1, len(taps), ho, wo)
    padded = np.zeros((*lead, blocks.shape[-4], size[0] + 2 * ph, size[1] + 2 * pw), cols.dtype)
    for k, (r, c) in enumerate(taps):
        padded[..., r, c] += blocks[..., k, :, :]
    return padded[..., ph : ph + size[0], pw : pw + size[1]]


def _fold_symbols(p: dict, v: dict) -> dict:
    size = p.get("output_size") or v["x"].shape[-2:]
    return {"im2col": lambda t: _im2col(p, t), "col2im": lambda t: _col2im(p, t, size)}


_NOTE = (
    "im2col: each sliding block of the (padded) image as one column, channel-major (c * kH * kW "
    "+ i * kW + j); col2im: its adjoint, each column added back where its block was"
)


@composite("unfold", _fold_symbols)
def _unfold(p: dict) -> Rule:
    return Rule("unfold", "im2col(x)", {"x": "col2im(g)"}, (_NOTE,))


@composite("fold", _fold_symbols)
def _fold(p: dict) -> Rule:
    return Rule("fold", "col2im(x)", {"x": "im2col(g)"}, (_NOTE,))
