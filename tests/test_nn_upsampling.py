"""F.interpolate / Upsample (nearest, nearest-exact, linear, bilinear; size or scale_factor,
align_corners, recompute_scale_factor), pixel_shuffle / pixel_unshuffle, the padding layers and
Unflatten: values and gradients equal PyTorch's, finite differences to second order, reprs and
errors as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _same(ours_fn, theirs_fn, x: np.ndarray) -> None:
    """ours_fn(tg x) and theirs_fn(torch x): values and the gradients of a weighted sum agree."""
    torch = pytest.importorskip("torch")
    gx, tx = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, want = ours_fn(gx), theirs_fn(tx)
    assert out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    c = _rand(*out.shape, seed=5)
    (out * tg.tensor(c)).sum().backward()
    (want * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


INTERPOLATIONS = [
    ((2, 3, 5), {"size": 9, "mode": "nearest"}),
    ((2, 3, 5), {"scale_factor": 2.5, "mode": "nearest"}),
    ((2, 3, 9), {"size": 4, "mode": "nearest"}),
    ((2, 3, 5), {"scale_factor": 1.7, "mode": "nearest-exact"}),
    ((2, 3, 5), {"size": 8, "mode": "linear"}),
    ((2, 3, 5), {"size": 8, "mode": "linear", "align_corners": True}),
    ((2, 3, 7), {"scale_factor": 0.6, "mode": "linear"}),
    ((2, 3, 5), {"scale_factor": 1.5, "mode": "linear", "recompute_scale_factor": True}),
    ((1, 2, 3, 4), {"scale_factor": 2, "mode": "nearest"}),
    ((1, 2, 3, 4), {"size": (5, 7), "mode": "bilinear"}),
    ((1, 2, 3, 4), {"size": (5, 7), "mode": "bilinear", "align_corners": True}),
    ((1, 2, 6, 5), {"scale_factor": (0.5, 1.5), "mode": "bilinear"}),
    ((1, 2, 3, 4), {"size": (1, 1), "mode": "bilinear", "align_corners": True}),
    ((2, 1, 4, 4), {"size": (3, 6), "mode": "nearest-exact"}),
]


@pytest.mark.parametrize("shape, kw", INTERPOLATIONS)
def test_interpolate_equals_pytorchs(shape, kw):
    torch = pytest.importorskip("torch")
    _same(
        lambda x: F.interpolate(x, **kw),
        lambda x: torch.nn.functional.interpolate(x, **kw),
        _rand(*shape),
    )


@pytest.mark.parametrize(
    "kw", [{"size": 7, "mode": "linear"}, {"scale_factor": 2, "mode": "nearest"}], ids=str
)
def test_interpolate_gradients_to_second_order(kw):
    x = tg.tensor(_rand(1, 2, 4), requires_grad=True)
    assert gradcheck(lambda x: F.interpolate(x, **kw) ** 2, [x])
    assert gradgradcheck(lambda x: F.interpolate(x, **kw) ** 2, [x])


def test_upsample_layers_equal_pytorchs():
    torch = pytest.importorskip("torch")
    x = _rand(1, 2, 3, 4)
    pairs = [
        (nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
        (
            nn.Upsample(size=(4, 5), mode="bilinear", align_corners=True),
            torch.nn.Upsample(size=(4, 5), mode="bilinear", align_corners=True),
        ),
        (nn.UpsamplingNearest2d(scale_factor=3), torch.nn.UpsamplingNearest2d(scale_factor=3)),
        (nn.UpsamplingBilinear2d(size=5), torch.nn.UpsamplingBilinear2d(size=5)),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        _same(ours, theirs, x)


@pytest.mark.parametrize("r, shape", [(2, (2, 8, 3, 3)), (3, (9, 2, 2)), (2, (2, 1, 4, 2, 3))])
def test_pixel_shuffle_equals_pytorchs_and_unshuffle_inverts_it(r, shape):
    torch = pytest.importorskip("torch")
    x = _rand(*shape)
    _same(lambda t: F.pixel_shuffle(t, r), lambda t: torch.nn.functional.pixel_shuffle(t, r), x)
    up = F.pixel_shuffle(tg.tensor(x), r)
    _same(
        lambda t: F.pixel_unshuffle(t, r),
        lambda t: torch.nn.functional.pixel_unshuffle(t, r),
        up.numpy(),
    )
    np.testing.assert_array_equal(F.pixel_unshuffle(up, r).numpy(), x)
    assert repr(nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))
    assert repr(nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))


@pytest.mark.parametrize(
    "layer, args, shape",
    [
        ("ZeroPad1d", ((1, 2),), (2, 3, 4)),
        ("ZeroPad2d", (1,), (2, 3, 4)),
        ("ZeroPad2d", ((1, 0, 2, -1),), (1, 2, 3, 4)),
        ("ConstantPad1d", (2, 3.5), (3, 4)),
        ("ConstantPad2d", ((1, 2, 3, 0), -1.0), (1, 2, 3, 4)),
        ("ReflectionPad1d", (2,), (2, 3, 4)),
        ("ReflectionPad2d", ((1, 2, 2, 1),), (1, 2, 3, 4)),
        ("ReplicationPad1d", ((3, 1),), (2, 3, 4)),
        ("ReplicationPad2d", (2,), (1, 2, 3, 4)),
        ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 2, 3, 4)),
        ("ConstantPad3d", (1, 2.5), (2, 2, 3, 4)),
        ("ReflectionPad3d", ((1, 2, 0, 1, 2, 1),), (1, 2, 3, 3, 4)),
        ("ReplicationPad3d", (2,), (1, 2, 2, 3, 4)),
        ("CircularPad1d", ((2, 1),), (2, 3, 4)),
        ("CircularPad1d", (1,), (3, 4)),
        ("CircularPad2d", ((1, 2, 2, 0),), (1, 2, 3, 4)),
        ("CircularPad3d", ((1, 0, 1, 2, 1, 1),), (1, 2, 2, 3, 4)),
    ],
)
def test_padding_layers_equal_pytorchs(layer, args, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, layer)(*args), getattr(torch.nn, layer)(*args)
    assert repr(ours) == repr(theirs)
    _same(ours, theirs, _rand(*shape))


def test_unflatten_equals_pytorchs():
    torch = pytest.importorskip("torch")
    for dim, sizes in [(1, (2, 3)), (-1, (3, -1)), (0, [4])]:
        ours, theirs = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
        assert repr(ours) == repr(theirs)
        _same(ours, theirs, _rand(4, 6))


def test_errors_are_pytorchs():
    x = tg.randn(1, 1, 4)
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D"):
        F.interpolate(x, scale_factor=2, mode="bilinear")
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D"):
        F.interpolate(tg.randn(1, 1, 4, 4), scale_factor=2, mode="linear")
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interp"):
        F.interpolate(x, size=3, align_corners=True)
    with pytest.raises(NotImplementedError, match=r"\(got 5D\) for the modes.*\(got bicubic\)"):
        F.interpolate(tg.randn(1, 1, 4, 4, 4), size=3, mode="bicubic")
    with pytest.raises(NotImplementedError, match=r"\(got foo\)"):
        F.interpolate(x, size=3, mode="foo")
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        F.interpolate(tg.randn(1, 1, 4, 4), size=(2, 3, 4))
    with pytest.raises(RuntimeError, match="input.size\\(-3\\)=5 is not divisible by 4"):
        F.pixel_shuffle(tg.randn(1, 5, 2, 2), 2)
    with pytest.raises(RuntimeError, match="height to be divisible by downscale_factor"):
        F.pixel_unshuffle(tg.randn(1, 1, 3, 4), 2)
    with pytest.raises(RuntimeError, match="Provided sizes \\[2, 4\\] don't multiply up"):
        nn.Unflatten(1, (2, 4))(tg.randn(2, 6))
    with pytest.raises(TypeError, match="padding must be an int or a tuple of 4 ints"):
        nn.ZeroPad2d((1, 2))


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.functional_resampling as functional
    import tapegrad.nn.resampling as layers
    import tapegrad.nn.shape_layers as shapes

    for module in (functional, layers, shapes):
        flags = doctest.NORMALIZE_WHITESPACE
        result = doctest.testmod(module, extraglobs={"tg": tg, "F": F}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize("fn", ["pixel_shuffle", "pixel_unshuffle"])
def test_shuffles_refuse_fewer_than_three_dimensions_as_pytorch(fn):
    # one check (_shuffle_arguments) serves both
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.nn.functional, fn)(torch.ones(4, 4), 2)
    with pytest.raises(RuntimeError) as ours:
        getattr(tg.nn.functional, fn)(tg.ones(4, 4), 2)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match=f"^{fn} takes a tapegrad Tensor"):
        getattr(tg.nn.functional, fn)(np.ones((1, 4, 4)), 2)


@pytest.mark.parametrize(
    "name, kwargs, shape",
    [
        ("upsample", {"scale_factor": 2, "mode": "linear", "align_corners": False}, (1, 2, 3)),
        ("upsample", {"size": (3, 5)}, (1, 2, 2, 3)),
        ("upsample_nearest", {"scale_factor": 3}, (2, 1, 2, 2)),
        ("upsample_bilinear", {"size": (4, 3)}, (1, 2, 2, 3)),
        ("upsample_bilinear", {"scale_factor": 2}, (1, 1, 3, 2)),
    ],
)
def test_deprecated_upsample_functions_warn_and_equal_pytorchs(name, kwargs, shape):
    torch = pytest.importorskip("torch")
    x = _rand(*shape)
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
        got = getattr(F, name)(ours, **kwargs)
    with pytest.warns(UserWarning):
        want = getattr(torch.nn.functional, name)(theirs, **kwargs)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
    w = _rand(*got.shape, seed=4)
    (got * tg.tensor(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
    assert "interpolate" in str(tg.autograd.formula(f"F.{name}"))
