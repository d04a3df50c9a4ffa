"""The textbook rules of the spatial transformer's functions, run as several primitives:
affine_grid (a matmul with the constant grid of positions) and grid_sample (corners gathered and
mixed by weights linear in the grid).

Layer L1: numpy and composites.py's machinery. grid_sample's spread and pull are evaluated by the
function's own composition (nn/functional_grid_sample.vjp, handed over in the call's params), as
the corner weights, masks and padding folds are that composition's.
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite


def _affine_symbols(p: dict, v: dict) -> dict:
    return {"base": p["base"], "flat": lambda g: np.reshape(g, (g.shape[0], -1, g.shape[-1]))}


@composite("affine_grid", _affine_symbols)
def _affine_grid(p: dict) -> Rule:
    return Rule(
        "affine_grid",
        "base @ T(theta)",
        {"theta": "T(flat(g)) @ base"},
        (
            "base: one row (x, y, 1) (or (x, y, z, 1)) per output position, in [-1, 1]; flat: g "
            "with the positions in one axis",
        ),
    )


def _sample_symbols(p: dict, v: dict) -> dict:
    call = {k: p[k] for k in ("mode", "padding_mode", "align_corners")}
    x, grid, vjp = v["x"], v["grid"], p["vjp"]
    return {
        "spread": lambda g: vjp(x, grid, g, 0, **call),
        "pull": lambda g: vjp(x, grid, g, 1, **call),
    }


@composite("grid_sample", _sample_symbols)
def _grid_sample(p: dict) -> Rule:
    return Rule(
        "grid_sample",
        "corners(x, grid) @ weights(grid)",
        {"x": "spread(g)", "grid": "pull(g)"},
        (
            "corners: x at the 4 pixels around each grid point (0 outside, with padding_mode "
            "zeros); weights: their bilinear weights (1 for the nearest with mode='nearest'; "
            "mode='bicubic': the 16 pixels around it, Keys' cubic weights in x times in y)",
            "spread: each g added back at its point's corners with the weights that mixed them",
            "pull: g times the difference of neighbouring corners (the image's slope at the "
            "point), summed over channels, times d(pixel)/d(grid) of unnormalising and padding; "
            "0 for mode='nearest'",
        ),
    )
