"""The spatial transformer's two functions: F.affine_grid (a batch of affine maps applied to the
output's pixel centres, in [-1, 1] coordinates) and F.grid_sample (the input read at those points,
bilinear, nearest or bicubic, with PyTorch's padding modes and align_corners).

Compositions of recorded ops, so both are differentiable in every input: affine_grid is one matmul
with a constant grid of positions; grid_sample unnormalises the grid, folds it into the image by
the padding mode (as PyTorch: a coordinate on a clipping border or a reflection point gets its
one-sided gradient), and mixes the gathered corners by weights that are linear in the grid.
4-D inputs (N, C, H, W) and 5-D ones (N, C, D, H, W: trilinear or nearest, as PyTorch).
Layer L5: tensor.py and tapegrad.math.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..autograd import enable_grad, grad
from ..math import where
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import tensor_argument

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
    "grid_sample for details."
)


def _align(align_corners: bool | None) -> bool:
    """PyTorch's default: False, with its warning that the default changed."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return bool(align_corners)


def _positions(n: int, align_corners: bool, dtype: Any) -> np.ndarray:
    """The n pixel positions along one axis in [-1, 1] (the centres unless align_corners)."""
    if n <= 1:
        return np.zeros(n, dtype)
    steps = np.linspace(-1.0, 1.0, n)
    return (steps if align_corners else steps * (n - 1) / n).astype(dtype)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """Sampling points (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta (N, 2, 3) or
    (N, 3, 4) over an output of `size`.

    >>> F.affine_grid(tg.tensor([[[1.0, 0, 0], [0, 1, 0]]]), (1, 1, 2, 2), False).shape
    (1, 2, 2, 2)
    """
    theta = tensor_argument(theta, "affine_grid")
    align = _align(align_corners)
    if theta.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    dims = len(size) - 2
    if theta.ndim != 3 or theta.shape[1:] != (dims, dims + 1):
        raise ValueError(
            f"Expected a batch of {dims}D affine matrices of shape Nx{dims}x{dims + 1} for size "
            f"{size}. Got {theta.shape}."
        )
    spatial = size[2:]
    if align and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise ValueError(
            f"affine_grid: theta holds {theta.shape[0]} matrices but size asks for a batch of "
            f"{size[0]}"
        )
    # (x varies along the last axis, y along the one before, ...; then the constant 1)
    axes = [_positions(n, align, theta.dtype) for n in reversed(spatial)]
    mesh = np.meshgrid(*axes[::-1], indexing="ij")[::-1]
    base = np.stack([*mesh, np.ones(spatial, theta.dtype)], -1).reshape(-1, dims + 1)
    out = (Tensor(base) @ theta.transpose(1, 2)).reshape(size[0], *spatial, dims)
    return mark(out, "affine_grid", ("theta",), (theta,), {"base": base})


def _reflected(coord: Tensor, low2: int, high2: int) -> Tensor:
    """PyTorch's reflect_coordinates: coord folded into [low2 / 2, high2 / 2] by mirroring (slope
    +1 or -1; at the mirror point itself +1, as PyTorch)."""
    if low2 == high2:
        return coord * 0
    low, span = low2 / 2, (high2 - low2) / 2
    c = coord.detach().numpy()
    dist = where(Tensor(c < low), low - coord, coord - low)
    flips = np.floor(np.abs(c - low) / span)
    extra = dist - Tensor(flips * span)
    return where(Tensor(flips % 2 == 0), extra + low, span - extra + low)


def _clipped(coord: Tensor, size: int) -> Tensor:
    """PyTorch's clip_coordinates: into [0, size - 1], gradient 0 at and beyond either end."""
    c = coord.detach().numpy()
    inside = where(Tensor(c <= 0), coord * 0, coord)
    return where(Tensor(c >= size - 1), inside * 0 + (size - 1), inside)


def _source(coord: Tensor, size: int, padding_mode: str, align: bool) -> Tensor:
    """A normalised coordinate as a pixel index, folded into the image as padding_mode says."""
    coord = (coord + 1) / 2 * (size - 1) if align else ((coord + 1) * size - 1) / 2
    if padding_mode == "border":
        coord = _clipped(coord, size)
    elif padding_mode == "reflection":
        coord = (
            _reflected(coord, 0, 2 * (size - 1)) if align else _reflected(coord, -1, 2 * size - 1)
        )
        coord = _clipped(coord, size)
    return coord


def _read(flat: Tensor, at: list, sizes: tuple) -> tuple:
    """Input values at integer pixels `at` (one index array per spatial axis, outermost first,
    each shaped (N, *out)) per channel, and where they lie inside."""
    inside = np.ones(at[0].shape, bool)
    index = np.zeros(at[0].shape, np.int64)
    for i, size in zip(at, sizes):
        inside &= (i >= 0) & (i <= size - 1)
        index = index * size + np.clip(i, 0, size - 1).astype(np.int64)
    n, c = flat.shape[:2]
    index = np.broadcast_to(index.reshape(n, 1, -1), (n, c, index[0].size))
    values = flat.gather(2, Tensor(np.ascontiguousarray(index)))
    return values.reshape(n, c, *at[0].shape[1:]), inside[:, None]


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """input (N, C, H, W) read at grid (N, Ho, Wo, 2) points ((x, y) in [-1, 1]): (N, C, Ho, Wo).

    >>> x = tg.arange(4.0).reshape(1, 1, 2, 2)
    >>> F.grid_sample(x, tg.zeros(1, 1, 1, 2), align_corners=True)
    tensor([[[[1.5000]]]])
    """
    input, grid = tensor_argument(input, "grid_sample"), tensor_argument(grid, "grid_sample")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    align = _align(align_corners)
    if input.ndim not in (4, 5) or grid.ndim != input.ndim or grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            "grid_sampler(): expected 4D input (N, C, H, W) and a grid (N, H_out, W_out, 2), or "
            "5D input (N, C, D, H, W) and a grid (N, D_out, H_out, W_out, 3), got input of shape "
            f"{input.shape} and grid of shape {grid.shape}"
        )
    if mode == "bicubic" and input.ndim == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with "
            f"sizes {input.shape} and grid with sizes {grid.shape}"
        )
    if input.dtype != grid.dtype or input.dtype.kind != "f":
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have the same floating point dtype, "
            f"but got input {input.dtype} and grid {grid.dtype}"
        )
    if 0 in input.shape[2:]:
        raise RuntimeError(
            f"grid_sampler(): expected input to have non-empty spatial dimensions, got "
            f"{input.shape}"
        )
    out = _sampled(input, grid, mode, padding_mode, align)
    params = {"mode": mode, "padding_mode": padding_mode, "align_corners": align, "vjp": vjp}
    return mark(out, "grid_sample", ("x", "grid"), (input, grid), params)


def _sampled(input: Tensor, grid: Tensor, mode: str, padding_mode: str, align: bool) -> Tensor:
    """grid_sample's composition, arguments checked: grid's last axis holds (x, y[, z]), x along
    the last spatial axis of input."""
    n, c, *sizes = input.shape
    flat = input.reshape(n, c, int(np.prod(sizes)))
    # (one pixel coordinate per spatial axis, outermost first: grid's (x, y, z) reversed)
    coords = [
        _source(grid[..., len(sizes) - 1 - axis], size, padding_mode, align)
        for axis, size in enumerate(sizes)
    ]
    if mode == "nearest":  # (round half to even, as PyTorch's nearbyint; no gradient in grid)
        values, inside = _read(flat, [np.rint(t.detach().numpy()) for t in coords], tuple(sizes))
        # (+ an exact 0 that depends on grid: its gradient is zeros, not None, as PyTorch's)
        untouched = where(Tensor(np.zeros(grid.shape, bool)), grid, 0.0).sum(-1)
        return where(Tensor(inside), values, values * 0) + untouched[:, None]
    if mode == "bicubic":
        return _bicubic(flat, grid, (sizes[0], sizes[1]), padding_mode, align)
    lows = [np.floor(t.detach().numpy()) for t in coords]
    fractions = [t - Tensor(low) for t, low in zip(coords, lows)]  # (weights' slopes: +-1)
    total: Tensor | None = None
    for corner in np.ndindex(*(2,) * len(sizes)):  # (2 corners per axis: 4 in 2-D, 8 in 3-D)
        weight = None
        for step, f in zip(corner, fractions):
            factor = f if step else 1 - f
            weight = factor if weight is None else weight * factor
        assert weight is not None
        at = [low + step for low, step in zip(lows, corner)]
        values, inside = _read(flat, at, tuple(sizes))
        term = where(Tensor(inside), values * weight[:, None], values * 0)
        total = term if total is None else total + term
    assert total is not None
    return total


_CUBIC_A = -0.75  # (the cubic convolution kernel's parameter PyTorch uses)


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """Keys' cubic convolution weights of the 4 taps at offsets -1, 0, 1, 2 from floor(x), for
    the fraction t = x - floor(x): |d| <= 1 gives ((A + 2)|d| - (A + 3)) d^2 + 1, 1 < |d| < 2
    gives ((A|d| - 5A)|d| + 8A)|d| - 4A."""
    a = _CUBIC_A

    def near(d: Tensor) -> Tensor:
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: Tensor) -> Tensor:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _tap(index: np.ndarray, size: int, padding_mode: str, align: bool) -> np.ndarray:
    """A bicubic tap's integer pixel, folded into the image as padding_mode says (PyTorch pads
    each of the 16 taps, not the sampling point)."""
    if padding_mode == "zeros":
        return index
    coord = Tensor(index.astype(np.float64))
    if padding_mode == "reflection":
        coord = (
            _reflected(coord, 0, 2 * (size - 1)) if align else _reflected(coord, -1, 2 * size - 1)
        )
    return np.rint(_clipped(coord, size).numpy())


def _bicubic(flat: Tensor, grid: Tensor, hw: tuple, padding_mode: str, align: bool) -> Tensor:
    """The 4 x 4 pixels around each point mixed by cubic convolution weights in x and y (the
    weights carry the gradient in the grid; the pixels the one in the input)."""
    h, w = hw
    ix, iy = _source(grid[..., 0], w, "zeros", align), _source(grid[..., 1], h, "zeros", align)
    x0, y0 = np.floor(ix.detach().numpy()), np.floor(iy.detach().numpy())
    wx, wy = _cubic_weights(ix - Tensor(x0)), _cubic_weights(iy - Tensor(y0))
    total: Tensor | None = None
    for i in range(4):
        py = _tap(y0 - 1 + i, h, padding_mode, align)
        for j in range(4):
            px = _tap(x0 - 1 + j, w, padding_mode, align)
            values, inside = _read(flat, [py, px], (h, w))
            term = where(Tensor(inside), values * (wy[i] * wx[j])[:, None], values * 0)
            total = term if total is None else total + term
    assert total is not None
    return total


def vjp(x: np.ndarray, grid: np.ndarray, g: np.ndarray, which: int, **call: Any) -> np.ndarray:
    """grid_sample's gradient in its input (which=0) or grid (1) for output gradient g, on arrays
    (the textbook rule's spread and pull; `call`: mode, padding_mode, align_corners).

    >>> vjp(np.ones((1, 1, 2, 2)), np.zeros((1, 1, 1, 2)), np.ones((1, 1, 1, 1)), 0,
    ...     mode="bilinear", padding_mode="zeros", align_corners=True).sum()
    1.0
    """
    align = call["align_corners"]
    with enable_grad():
        leaves = Tensor(x, requires_grad=True), Tensor(grid, requires_grad=True)
        out = _sampled(leaves[0], leaves[1], call["mode"], call["padding_mode"], align)
        (back,) = grad(out, leaves[which], Tensor(np.asarray(g, x.dtype)), allow_unused=True)
    return np.zeros_like((x, grid)[which]) if back is None else back.numpy()
