"""The textbook rules of the functions that resample a signal or an image, run as several
primitives: the transposed convolutions (conv2d's input gradient, run forward), interpolate (one
constant matrix per axis) and the pixel and channel shuffles (a reshape and a permute).

Layer L1: numpy, the convolution primitives (nn.py) and composites.py's machinery (see there for
what a rule, its symbols and its variants are); interpolate shares adaptive pooling's symbols.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import nn as convolution
from .composites import Rule, composite


# ---- transposed convolutions: conv2d's input gradient, run forward ----------------------------
def _conv_transpose_symbols(p: dict, v: dict) -> dict:
    """conv2d and its weight gradient with the call's geometry, on the 4-D forms of the arrays."""
    x_shape, inner, outer = p["shapes"]  # (the output past `inner` is appended zeros)
    geometry = {k: p[k] for k in ("stride", "padding", "dilation", "groups")}
    w4 = np.reshape(v["w"], v["w"].shape[:2] + (1,) * (4 - v["w"].ndim) + v["w"].shape[2:])

    def read(g: np.ndarray) -> np.ndarray:
        return np.reshape(g, outer)[:, :, : inner[2], : inner[3]]

    def conv2d(g: np.ndarray, w: Any) -> np.ndarray:
        dx = convolution.conv2d.forward(read(g), w4, None, **geometry)
        return np.reshape(dx, v["x"].shape)

    def conv2d_weight_grad(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        dw = convolution.conv2d_weight_grad.forward(
            np.reshape(x, x_shape), read(g), weight_shape=w4.shape, **geometry
        )
        return np.reshape(dw, v["w"].shape)

    summed = {"sum": lambda t, axis=None: np.sum(t, axis=axis)}
    return {"conv2d": conv2d, "conv2d_weight_grad": conv2d_weight_grad, **summed}


def _conv_transpose_rule(p: dict, dims: int) -> Rule:
    return Rule(
        f"conv_transpose{dims}d",
        "conv2d_input_grad(x, w) + b",
        {
            "x": "conv2d(g, w)",
            "w": "conv2d_weight_grad(x, g)",
            "b": f"sum(g, axis={(0, 2, 3)[: dims + 1]})",
        },
        (
            "the transposed convolution is conv2d's gradient with respect to its input (weight "
            "(C_in, C_out/groups, *kernel)); conv2d and conv2d_weight_grad run with the call's "
            "stride, padding, dilation and groups",
        ),
    )


@composite("conv_transpose1d", _conv_transpose_symbols)
def _conv_transpose1d(p: dict) -> Rule:
    return _conv_transpose_rule(p, 1)


@composite("conv_transpose2d", _conv_transpose_symbols)
def _conv_transpose2d(p: dict) -> Rule:
    return _conv_transpose_rule(p, 2)


def _volume_symbols(p: dict, v: dict) -> dict:
    """The call's conv3d and its weight gradient (made where the call was), and a sum over the
    batch and spatial axes of g seen as 5-D."""

    def summed(t: np.ndarray, axis: tuple) -> np.ndarray:
        return np.sum(np.reshape(t, (-1,) + np.shape(t)[-4:]), axis=axis)

    return {"conv3d": p["conv3d"], "conv3d_weight_grad": p["conv3d_weight_grad"], "sum": summed}


@composite("conv_transpose3d", _volume_symbols)
def _conv_transpose3d(p: dict) -> Rule:
    return Rule(
        "conv_transpose3d",
        "conv3d_input_grad(x, w) + b",
        {"x": "conv3d(g, w)", "w": "conv3d_weight_grad(g, x)", "b": "sum(g, axis=(0, 2, 3, 4))"},
        (
            "the transposed convolution is conv3d's gradient with respect to its input (weight "
            "(C_in, C_out/groups, kD, kH, kW)); run per kernel depth tap as 2-D ones; conv3d and "
            "conv3d_weight_grad run with the call's stride, padding, dilation and groups",
        ),
    )


def _interpolate_symbols(p: dict, v: dict) -> dict:
    """The call's matrices (the identity for an axis it did not resize), and `resample`: each of
    the last three axes multiplied by its matrix."""
    depth, rows, cols = (1,) * max(0, 3 - v["x"].ndim) + v["x"].shape[-3:]
    found = {k: v.get(k) for k in "DAB"}
    d, a, b = (
        np.eye(n) if found[k] is None else found[k] for k, n in zip("DAB", (depth, rows, cols))
    )

    def resample(t: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.einsum("id,jh,kw,...dhw->...ijk", d, a, b, t)

    return {"D": d, "A": a, "B": b, "resample": resample}


@composite("interpolate", _interpolate_symbols)
def _interpolate(p: dict) -> Rule:
    if p.get("spatial", 2) == 3:
        return Rule(
            "interpolate",
            "resample(x, D, A, B)",
            {"x": "resample(g, T(D), T(A), T(B))", "D": None, "A": None, "B": None},
            (
                "D, A, B: the interpolation matrices of depth, rows and columns (each row of one "
                "holds one output position's weights over the input's); resample multiplies each "
                "of the last three axes by its matrix",
            ),
        )
    return Rule(
        "interpolate",
        "A @ x @ T(B)",
        {"x": "T(A) @ g @ B", "A": None, "B": None},
        (
            "A, B: the interpolation matrices of the rows and the columns (each row of one holds "
            "one output position's weights over the input's: a one for nearest, two for linear, "
            "four for bicubic, a stretched filter's when antialiased)",
        ),
    )


def _shuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = x.shape
    k = len(lead)
    blocks = x.reshape(*lead, c // (r * r), r, r, h, w)
    order = tuple(range(k)) + tuple(k + i for i in (0, 3, 1, 4, 2))
    return blocks.transpose(order).reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(x: np.ndarray, r: int) -> np.ndarray:
    *lead, c, h, w = x.shape
    k = len(lead)
    blocks = x.reshape(*lead, c, h // r, r, w // r, r)
    order = tuple(range(k)) + tuple(k + i for i in (0, 2, 4, 1, 3))
    return blocks.transpose(order).reshape(*lead, c * r * r, h // r, w // r)


def _shuffle_symbols(p: dict, v: dict) -> dict:
    r = p.get("upscale_factor", p.get("downscale_factor", 2))
    return {"r": r, "pixel_shuffle": _shuffle, "pixel_unshuffle": _unshuffle}


@composite("pixel_shuffle", _shuffle_symbols)
def _pixel_shuffle(p: dict) -> Rule:
    return Rule(
        "pixel_shuffle",
        "pixel_shuffle(x, r)",
        {"x": "pixel_unshuffle(g, r)"},
        (
            f"r = {p.get('upscale_factor', 'upscale_factor')}: channels C * r ** 2 become r x r "
            f"blocks of pixels; the gradient goes back by the inverse",
        ),
    )


@composite("pixel_unshuffle", _shuffle_symbols)
def _pixel_unshuffle(p: dict) -> Rule:
    return Rule(
        "pixel_unshuffle",
        "pixel_unshuffle(x, r)",
        {"x": "pixel_shuffle(g, r)"},
        (
            f"r = {p.get('downscale_factor', 'downscale_factor')}: r x r blocks of pixels become "
            f"channels; the gradient goes back by the inverse",
        ),
    )


def _channel_shuffle(x: np.ndarray, groups: int) -> np.ndarray:
    n, c, *rest = x.shape
    return x.reshape(n, groups, c // groups, *rest).swapaxes(1, 2).reshape(x.shape)


def _channel_symbols(p: dict, v: dict) -> dict:
    groups = p.get("groups", 1)
    return {"groups": groups, "k": v["x"].shape[1] // groups, "channel_shuffle": _channel_shuffle}


@composite("channel_shuffle", _channel_symbols)
def _channel_shuffle_rule(p: dict) -> Rule:
    return Rule(
        "channel_shuffle",
        "channel_shuffle(x, groups)",
        {"x": "channel_shuffle(g, k)"},
        (
            f"groups = {p.get('groups', 'groups')}, k = C / groups: the channels as a groups x k "
            f"grid, transposed; the gradient goes back by the k x groups transpose",
        ),
    )
