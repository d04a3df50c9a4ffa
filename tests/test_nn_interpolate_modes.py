"""F.interpolate's other modes: 'nearest' / 'nearest-exact' over 5-D input, 'trilinear',
'bicubic' (align_corners both ways), 'area', antialias=True for bilinear / bicubic / lanczos,
scale_factor with recompute_scale_factor both ways: values and gradients equal PyTorch's, finite
differences to second order, PyTorch's errors; and where PyTorch's own gradient is not the
gradient of its forward, tapegrad's is."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


SIZES = [
    {"size": 7},
    {"size": 2},
    {"size": 1},
    {"scale_factor": 1.7},
    {"scale_factor": 0.6},
    {"scale_factor": 2.0},
    {"scale_factor": 1.7, "recompute_scale_factor": True},
    {"scale_factor": 0.45, "recompute_scale_factor": False},
    {"scale_factor": 3.3},
]
CASES = []
for _kw in SIZES:
    CASES += [((1, 2, 5, 4, 3), dict(_kw, mode="nearest"))]
    CASES += [((1, 2, 5, 4, 3), dict(_kw, mode="nearest-exact"))]
    CASES += [((1, 2, 5, 4, 3), dict(_kw, mode="area"))]
    CASES += [((2, 2, 5, 4), dict(_kw, mode="area")), ((2, 2, 5), dict(_kw, mode="area"))]
    for _align in (None, False, True):
        _more = {} if _align is None else {"align_corners": _align}
        CASES += [((1, 2, 5, 4, 3), dict(_kw, mode="trilinear", **_more))]
        CASES += [((2, 2, 5, 4), dict(_kw, mode="bicubic", **_more))]
        CASES += [((2, 2, 5, 4), dict(_kw, mode="bicubic", antialias=True, **_more))]
        CASES += [((2, 2, 5, 4), dict(_kw, mode="bilinear", antialias=True, **_more))]
    CASES += [((2, 2, 9, 8), dict(_kw, mode="lanczos", antialias=True))]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, kw", CASES, ids=str)
def test_values_and_gradients_equal_pytorchs(shape, kw, dtype):
    torch = pytest.importorskip("torch")
    x = _rand(*shape).astype(dtype)
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    want, out = torch.nn.functional.interpolate(tx, **kw), F.interpolate(gx, **kw)
    if kw.get("antialias") and want.shape[-1] == 1 < want.shape[-2]:
        pytest.skip("PyTorch's antialiased kernel repeats its first row here (see below)")
    assert out.shape == tuple(want.shape) and out.dtype == np.dtype(dtype)
    tol = {"float64": 1e-12, "float32": 2e-6}[dtype]
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    c = _rand(*out.shape, seed=5).astype(dtype)
    (want * torch.tensor(c)).sum().backward()
    (out * tg.tensor(c)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize(
    "shape, kw",
    [
        ((1, 1, 3, 2, 3), {"size": (4, 3, 2), "mode": "trilinear"}),
        ((1, 1, 3, 2, 3), {"scale_factor": 1.5, "mode": "trilinear", "align_corners": True}),
        ((1, 1, 3, 2, 3), {"scale_factor": 1.5, "mode": "nearest"}),
        ((1, 1, 3, 2, 3), {"size": (2, 3, 2), "mode": "nearest-exact"}),
        ((1, 1, 3, 2, 3), {"size": (2, 1, 2), "mode": "area"}),
        ((1, 2, 3, 4), {"size": (5, 3), "mode": "bicubic"}),
        ((1, 2, 3, 4), {"size": (5, 3), "mode": "bicubic", "align_corners": True}),
        ((1, 2, 5, 6), {"size": (3, 2), "mode": "bicubic", "antialias": True}),
        ((1, 2, 5, 6), {"size": (2, 4), "mode": "bilinear", "antialias": True}),
        ((1, 1, 7, 6), {"size": (3, 2), "mode": "lanczos", "antialias": True}),
    ],
    ids=str,
)
def test_gradients_to_second_order(shape, kw):
    x = tg.tensor(_rand(*shape), requires_grad=True)
    assert gradcheck(lambda x: F.interpolate(x, **kw) ** 2, [x])
    assert gradgradcheck(lambda x: F.interpolate(x, **kw) ** 2, [x])


def test_bicubic_weights_are_keys_cubic_with_clamped_borders():
    """An impulse through bicubic: the taps are Keys' kernel (A = -0.75) at the source offsets,
    those past a border added onto the border pixel (the rows still sum to 1)."""
    x = np.zeros((1, 1, 1, 6))
    x[..., 0] = 1.0  # (the first pixel: outputs near the left border also read its clamped taps)
    out = F.interpolate(tg.tensor(x), size=(1, 9), mode="bicubic").numpy()[0, 0, 0]

    def keys(d: float) -> float:
        d, a = abs(d), -0.75
        if d < 1:
            return ((a + 2) * d - (a + 3)) * d * d + 1
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a if d < 2 else 0.0

    step = 6 / 9
    for i, got in enumerate(out):
        src = (i + 0.5) * step - 0.5
        low = int(np.floor(src))
        want = sum(keys(src - j) for j in range(low - 1, low + 3) if min(max(j, 0), 5) == 0)
        assert got == pytest.approx(want, abs=1e-12), i
    ones = F.interpolate(tg.ones(1, 1, 4, 5, dtype=tg.float64), size=(7, 3), mode="bicubic").numpy()
    np.testing.assert_allclose(ones, 1.0, rtol=0, atol=1e-12)


def test_area_is_adaptive_average_pooling():
    x = tg.tensor(_rand(2, 3, 7, 5, 4))
    np.testing.assert_array_equal(
        F.interpolate(x, size=(3, 2, 4), mode="area").numpy(),
        F.adaptive_avg_pool3d(x, (3, 2, 4)).numpy(),
    )
    # (a scale_factor gives the size; the averaging windows are adaptive pooling's, not 1/scale)
    np.testing.assert_array_equal(
        F.interpolate(x[..., 0, 0], scale_factor=0.45, mode="area").numpy(),
        F.adaptive_avg_pool1d(x[..., 0, 0], 3).numpy(),
    )


def test_antialias_is_separable_where_pytorchs_kernel_repeats_its_first_row():
    """Deliberate: PyTorch 2.x's CPU antialiased kernel, shrinking W to 1 while resizing H, gives
    every output row the first row's value; tapegrad's result is the filter along H then W."""
    x = tg.arange(20.0, dtype=tg.float64).reshape(1, 1, 5, 4)
    for mode in ("bilinear", "bicubic"):
        both = F.interpolate(x, size=(3, 1), mode=mode, antialias=True)
        rows = F.interpolate(x, size=(3, 4), mode=mode, antialias=True)
        np.testing.assert_allclose(
            both.numpy(), F.interpolate(rows, size=(3, 1), mode=mode, antialias=True).numpy()
        )
        assert len(set(both.numpy().ravel().round(9))) == 3  # (the rows differ, as x's do)


def test_an_axis_of_the_same_size_keeps_its_gradient_consistent_with_its_values():
    """Deliberate: where scale_factor leaves an axis's size unchanged (5 * 1.1 -> 5), PyTorch's
    backward of 1-D/3-D 'nearest', 'bicubic' and antialiased modes copies while its forward
    resamples (or the reverse); tapegrad's gradient is that of the values it returns."""
    x = tg.tensor(_rand(1, 1, 5, 4), requires_grad=True)
    for kw in (
        {"mode": "bicubic"},
        {"mode": "bilinear", "antialias": True},
    ):
        assert gradcheck(lambda x: F.interpolate(x, scale_factor=1.1, **kw), [x])
    y = tg.tensor(_rand(1, 1, 5), requires_grad=True)
    out = F.interpolate(y, scale_factor=1.1, mode="nearest")
    np.testing.assert_array_equal(out.numpy()[0, 0], y.numpy()[0, 0, [0, 0, 1, 2, 3]])
    out.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy()[0, 0], [2.0, 1.0, 1.0, 1.0, 0.0])


def test_uint8_nearest_copies_bytes():
    x = tg.tensor(np.arange(12, dtype=np.uint8).reshape(1, 1, 3, 4))
    out = F.interpolate(x, scale_factor=2)
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out.numpy()[0, 0, ::2, ::2], x.numpy()[0, 0])


def test_errors_are_pytorchs():
    v = tg.randn(1, 1, 2, 3, 4)
    with pytest.raises(NotImplementedError, match="Got 4D input, but trilinear mode needs 5D"):
        F.interpolate(v[0], size=3, mode="trilinear")
    with pytest.raises(NotImplementedError, match="Got 5D input, but bilinear mode needs 4D"):
        F.interpolate(v, size=3, mode="bilinear")
    with pytest.raises(NotImplementedError, match=r"\(got 5D\) for the modes.*\(got bicubic\)"):
        F.interpolate(v, size=3, mode="bicubic")
    with pytest.raises(ValueError, match="Anti-alias option is restricted to bilinear, bicubic"):
        F.interpolate(v, size=3, mode="trilinear", antialias=True)
    with pytest.raises(ValueError, match="Anti-alias option is restricted"):
        F.interpolate(v[0], size=3, mode="nearest", antialias=True)
    with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
        F.interpolate(v[0], size=3, mode="lanczos")
    with pytest.raises(ValueError, match="Lanczos mode does not support align_corners=True"):
        F.interpolate(v[0], size=3, mode="lanczos", antialias=True, align_corners=True)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(v, size=3, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful"):
        F.interpolate(v, size=3, recompute_scale_factor=True)
    with pytest.raises(TypeError, match="expected size to be one of int"):
        F.interpolate(v, size=(2.0, 3, 4))
    with pytest.raises(NotImplementedError, match="must be floating point"):
        F.interpolate(tg.ones(1, 1, 4, dtype=tg.int64), size=3)
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
        F.interpolate(v, scale_factor=0.3)


def test_error_types_equal_pytorchs():
    torch = pytest.importorskip("torch")
    calls = [
        ((1, 1, 2, 3, 4), {"size": 3, "mode": "bicubic"}),
        ((1, 1, 2, 3), {"size": 3, "mode": "trilinear"}),
        ((1, 1, 2, 3, 4), {"size": 3, "mode": "trilinear", "antialias": True}),
        ((1, 1, 2, 3), {"size": 3, "mode": "lanczos"}),
        ((1, 1, 2, 3, 4), {"size": 3, "mode": "area", "align_corners": True}),
        ((1, 1, 2, 3, 4), {"scale_factor": 0.3, "mode": "trilinear"}),
    ]
    for shape, kw in calls:
        with pytest.raises(Exception) as theirs:
            torch.nn.functional.interpolate(torch.zeros(shape), **kw)
        with pytest.raises(theirs.type):
            F.interpolate(tg.zeros(*shape), **kw)


def test_upsample_layers_take_the_new_modes():
    torch = pytest.importorskip("torch")
    x = _rand(1, 2, 3, 4, 2)
    for kw in (
        {"scale_factor": 2, "mode": "trilinear"},
        {"size": (2, 5, 3), "mode": "nearest"},
        {"scale_factor": (1.5, 0.5, 2.0), "mode": "area"},
    ):
        ours, theirs = nn.Upsample(**kw), torch.nn.Upsample(**kw)
        np.testing.assert_allclose(
            ours(tg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-12, atol=1e-12
        )
        assert repr(ours) == repr(theirs)
    bicubic = nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True)
    want = torch.nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True)
    np.testing.assert_allclose(
        bicubic(tg.tensor(x[..., 0])).numpy(), want(torch.tensor(x[..., 0])).numpy(), rtol=1e-12
    )


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.resample_weights as weights

    result = doctest.testmod(weights, extraglobs={"tg": tg, "np": np})
    assert result.attempted > 0 and result.failed == 0
