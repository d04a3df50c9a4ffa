"""The spatial transformer's functions: F.affine_grid and F.grid_sample.

Always on: closed forms (identity theta gives the pixel grid; sampling at pixel centres returns the
input; a half-way point averages neighbours), gradcheck in float64 (first order: bilinear is
piecewise linear), the align_corners warning, errors. With torch: values and gradients in input,
grid and theta for every mode (bilinear, nearest, bicubic; 5-D inputs trilinear and nearest),
padding mode and align_corners, on random grids reaching outside
[-1, 1] and points exactly on the borders and the image's centre.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F

RNG = np.random.default_rng(17)
MODES = list(
    itertools.product(
        ["bilinear", "nearest", "bicubic"], ["zeros", "border", "reflection"], [True, False]
    )
)


def grid_with_edges(n: int, h: int, w: int) -> np.ndarray:
    """Random points in [-1.4, 1.4]^2, some exactly on the borders, corners and centre."""
    g = RNG.uniform(-1.4, 1.4, (n, h, w, 2))
    g[0, 0, :4] = [[-1.0, 1.0], [1.0, -1.0], [0.0, 0.0], [1.0, 0.25]]
    return g


def test_identity_theta_gives_the_pixel_grid() -> None:
    eye = tg.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=tg.float64)
    grid = F.affine_grid(eye, (1, 1, 2, 4), align_corners=False).numpy()
    np.testing.assert_allclose(grid[0, 0, :, 0], [-0.75, -0.25, 0.25, 0.75])
    np.testing.assert_allclose(grid[0, :, 0, 1], [-0.5, 0.5])
    aligned = F.affine_grid(eye, (1, 1, 2, 4), align_corners=True).numpy()
    np.testing.assert_allclose(aligned[0, 0, :, 0], [-1.0, -1 / 3, 1 / 3, 1.0])
    x = tg.tensor(RNG.standard_normal((1, 2, 2, 4)))
    for align in (True, False):
        same = F.grid_sample(x, F.affine_grid(eye, (1, 2, 2, 4), align), align_corners=align)
        np.testing.assert_allclose(same.numpy(), x.numpy(), atol=1e-12)


def test_half_way_points_average_their_neighbours() -> None:
    x = tg.tensor([[[[1.0, 3.0], [5.0, 7.0]]]], dtype=tg.float64)
    centre = tg.zeros(1, 1, 1, 2, dtype=tg.float64)
    assert F.grid_sample(x, centre, align_corners=True).item() == 4.0
    assert F.grid_sample(x, centre, align_corners=False).item() == 4.0
    corner = tg.tensor([[[[-1.0, -1.0]]]], dtype=tg.float64)  # half a pixel outside the centres
    assert F.grid_sample(x, corner, align_corners=False).item() == 0.25  # zeros padding
    assert F.grid_sample(x, corner, padding_mode="border", align_corners=False).item() == 1.0


@pytest.mark.parametrize(
    "pad, align", list(itertools.product(["zeros", "border", "reflection"], [True, False]))
)
def test_gradcheck_bilinear(pad: str, align: bool) -> None:
    x = tg.tensor(RNG.standard_normal((2, 2, 3, 4)), requires_grad=True)
    grid = tg.tensor(RNG.uniform(-1.3, 1.3, (2, 3, 2, 2)), requires_grad=True)
    assert tg.autograd.gradcheck(
        lambda a, b: F.grid_sample(a, b, "bilinear", pad, align), (x, grid)
    )


@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
def test_gradcheck_bicubic_to_second_order(pad: str) -> None:
    x = tg.tensor(RNG.standard_normal((1, 1, 3, 4)), requires_grad=True)  # (small: 16 taps a
    grid = tg.tensor(RNG.uniform(-1.3, 1.3, (1, 1, 3, 2)), requires_grad=True)  # point, twice)
    fn = lambda a, b: F.grid_sample(a, b, "bicubic", pad, False)  # noqa: E731
    assert tg.autograd.gradcheck(fn, (x, grid)) and tg.autograd.gradgradcheck(fn, (x, grid))


def test_gradcheck_affine_grid_second_order() -> None:
    theta = tg.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    fn = lambda t: F.affine_grid(t, (2, 1, 2, 3, 4), False) ** 2  # noqa: E731
    assert tg.autograd.gradcheck(fn, (theta,)) and tg.autograd.gradgradcheck(fn, (theta,))


def test_align_corners_default_warns_as_pytorch() -> None:
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(tg.ones(1, 1, 2, 2), tg.zeros(1, 1, 1, 2))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(tg.zeros(1, 2, 3), (1, 1, 2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.grid_sample(tg.ones(1, 1, 2, 2), tg.zeros(1, 1, 1, 2), align_corners=False)


def test_errors() -> None:
    x, grid = tg.ones(1, 1, 3, 3), tg.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError, match="expected mode"):
        F.grid_sample(x, grid, mode="linear", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(x, grid, padding_mode="circular", align_corners=False)
    with pytest.raises(RuntimeError, match="batch size"):
        F.grid_sample(tg.ones(2, 1, 3, 3), grid, align_corners=False)
    with pytest.raises(RuntimeError, match="grid"):
        F.grid_sample(x, tg.zeros(1, 2, 2, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="dtype"):
        F.grid_sample(x, tg.zeros(1, 2, 2, 2, dtype=tg.float64), align_corners=False)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(tg.zeros(1, 3, 4), (1, 1, 2, 2), False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(tg.zeros(1, 2, 3, dtype=tg.int64), (1, 1, 2, 2), False)
    with pytest.raises(NotImplementedError, match="4D and 5D"):
        F.affine_grid(tg.zeros(1, 2, 3), (1, 1, 2), False)
    with pytest.raises(ValueError, match="positive output size"):
        F.affine_grid(tg.zeros(1, 2, 3), (1, 1, 0, 2), False)


@pytest.mark.parametrize("mode, pad, align", MODES)
def test_grid_sample_matches_torch(mode: str, pad: str, align: bool) -> None:
    torch = pytest.importorskip("torch")
    data, grid = RNG.standard_normal((2, 3, 4, 5)), grid_with_edges(2, 3, 6)
    x, g = tg.tensor(data, requires_grad=True), tg.tensor(grid, requires_grad=True)
    tx, tgrid = torch.tensor(data, requires_grad=True), torch.tensor(grid, requires_grad=True)
    out = F.grid_sample(x, g, mode, pad, align)
    tout = torch.nn.functional.grid_sample(tx, tgrid, mode, pad, align)
    assert out.shape == tuple(tout.shape) and out.dtype == tg.float64
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    c = RNG.standard_normal(out.shape)
    (out * tg.tensor(c)).sum().backward()
    (tout * torch.tensor(c)).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-13)
    assert g.grad is not None  # (zeros for mode='nearest', as PyTorch's)
    np.testing.assert_allclose(g.grad.numpy(), tgrid.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("mode, pad, align", [m for m in MODES if m[0] != "bicubic"])
def test_volumetric_grid_sample_matches_torch(mode: str, pad: str, align: bool) -> None:
    torch = pytest.importorskip("torch")
    data, grid = RNG.standard_normal((2, 2, 3, 4, 5)), RNG.uniform(-1.3, 1.3, (2, 2, 3, 2, 3))
    grid[0, 0, 0, :2] = [[1.0, -1.0, 0.0], [0.0, 0.0, 1.0]]  # (on borders and the centre)
    x, g = tg.tensor(data, requires_grad=True), tg.tensor(grid, requires_grad=True)
    tx, tgrid = torch.tensor(data, requires_grad=True), torch.tensor(grid, requires_grad=True)
    out = F.grid_sample(x, g, mode, pad, align)
    tout = torch.nn.functional.grid_sample(tx, tgrid, mode, pad, align)
    assert out.shape == tuple(tout.shape) == (2, 2, 2, 3, 2)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    c = RNG.standard_normal(out.shape)
    (out * tg.tensor(c)).sum().backward()
    (tout * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(g.grad.numpy(), tgrid.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_volumetric_errors_are_pytorchs() -> None:
    x = tg.ones(1, 1, 2, 2, 2)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(x, tg.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match="5D input"):
        F.grid_sample(x, tg.zeros(1, 1, 1, 1, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="expected 5D input"):
        tg.grid_sampler_3d(tg.ones(1, 1, 2, 2), tg.zeros(1, 1, 1, 2), 0, 0, False)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 2, 3, 2, 4)])
def test_affine_grid_matches_torch(size: tuple) -> None:
    torch = pytest.importorskip("torch")
    dims = len(size) - 2
    theta = RNG.standard_normal((2, dims, dims + 1))
    for align in (True, False):
        ours = tg.tensor(theta, requires_grad=True)
        theirs = torch.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (unit-size grids with align_corners: both warn)
            out, tout = (
                F.affine_grid(ours, size, align),
                torch.nn.functional.affine_grid(theirs, size, align),
            )
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), atol=1e-14)
        c = RNG.standard_normal(out.shape)
        (out * tg.tensor(c)).sum().backward()
        (tout * torch.tensor(c)).sum().backward()
        assert ours.grad is not None
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12, atol=1e-13)


def test_float32_spatial_transformer_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]], np.float32)
    data = RNG.standard_normal((1, 3, 6, 7)).astype(np.float32)
    grid = F.affine_grid(tg.tensor(theta), (1, 3, 5, 5), False)
    out = F.grid_sample(tg.tensor(data), grid, align_corners=False)
    tgrid = torch.nn.functional.affine_grid(torch.tensor(theta), (1, 3, 5, 5), False)
    tout = torch.nn.functional.grid_sample(torch.tensor(data), tgrid, align_corners=False)
    assert out.dtype == tg.float32
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-5, atol=1e-6)
