"""The 3-D pooling family: F.max_pool3d / avg_pool3d / lp_pool3d / max_unpool3d and nn.MaxPool3d /
AvgPool3d / LPPool3d / MaxUnpool3d.

Always on: closed forms (windows written out with NumPy), PyTorch's pick for ties, NaN and windows
of -inf, gradcheck and gradgradcheck in float64, reprs, no state, errors. With torch: values,
indices and gradients over strides, padding, dilation, ceil_mode, count_include_pad and
divisor_override, batched and unbatched.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(37)


def test_closed_forms() -> None:
    a = RNG.standard_normal((2, 3, 4, 6, 5))
    x = tg.tensor(a)
    top, idx = F.max_pool3d(x, (2, 3, 2), return_indices=True)
    mean = F.avg_pool3d(x, (2, 3, 2))
    assert top.shape == mean.shape == idx.shape == (2, 3, 2, 2, 2)
    for i, j, k in itertools.product(range(2), repeat=3):
        box = a[:, :, 2 * i : 2 * i + 2, 3 * j : 3 * j + 3, 2 * k : 2 * k + 2]
        np.testing.assert_array_equal(top.numpy()[..., i, j, k], box.max((2, 3, 4)))
        np.testing.assert_allclose(mean.numpy()[..., i, j, k], box.mean((2, 3, 4)), rtol=1e-12)
        flat = a.reshape(2, 3, -1)
        picked = np.take_along_axis(flat, idx.numpy()[..., i, j, k].reshape(2, 3, 1), -1)
        np.testing.assert_array_equal(picked[..., 0], box.max((2, 3, 4)))
    lp = F.lp_pool3d(tg.tensor(np.abs(a)), 2, 2, stride=(2, 3, 2))
    box = np.abs(a)[:, :, :2, :2, :2]
    np.testing.assert_allclose(lp.numpy()[..., 0, 0, 0], np.sqrt((box**2).sum((2, 3, 4))))


def test_ties_nan_and_minus_infinity_follow_pytorch() -> None:
    x = tg.ones(1, 1, 2, 2, 2, requires_grad=True)
    out, idx = F.max_pool3d(x, 2, return_indices=True)
    out.sum().backward()
    assert idx.tolist() == [[[[[0]]]]]  # (the first maximum in (D, H, W) order)
    assert x.grad is not None and x.grad.flatten().tolist() == [1.0] + [0.0] * 7
    nan = float("nan")
    y = tg.tensor([[[[[1.0, nan], [nan, 2.0]]]]])
    value, where = F.max_pool3d(y, (1, 2, 2), return_indices=True)
    assert np.isnan(value.item()) and where.item() == 2  # (the last NaN, as PyTorch)
    low = tg.full((1, 1, 2, 2, 2), -float("inf"))
    _, where = F.max_pool3d(low, 2, padding=1, return_indices=True)
    assert where.flatten().tolist() == list(range(8))  # (a window's first element in the input)


def test_integer_averages_are_cut_toward_zero() -> None:
    x = tg.tensor(np.array([-7, 0, 0, 0, 5, 0, 0, 0]).reshape(1, 1, 2, 2, 2))
    assert F.avg_pool3d(x, (1, 2, 2)).flatten().tolist() == [-1, 1]


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: F.max_pool3d(t, (2, 2, 3), (1, 2, 1), (1, 0, 1), (2, 1, 1), True),
        lambda t: F.avg_pool3d(t, (2, 3, 2), (2, 1, 2), (1, 1, 0), True, False),
        lambda t: F.avg_pool3d(t, 2, 1, 1, divisor_override=3),
        lambda t: F.lp_pool3d(t, 3, (2, 2, 2), 1),
    ],
    ids=["max", "avg", "avg-divisor", "lp"],
)
def test_gradcheck(fn: Any) -> None:
    x = tg.tensor(RNG.random((2, 2, 3, 4, 5)) + 0.5, requires_grad=True)
    assert tg.autograd.gradcheck(fn, (x,))
    assert tg.autograd.gradgradcheck(fn, (x,))


def test_unpool_inverts_the_pool_and_has_gradients() -> None:
    x = tg.tensor(RNG.standard_normal((2, 3, 4, 4, 6)))
    top, idx = nn.MaxPool3d(2, return_indices=True)(x)
    back = nn.MaxUnpool3d(2)(top, idx)
    assert back.shape == x.shape
    np.testing.assert_array_equal(back.numpy().max((2, 3, 4)), x.numpy().max((2, 3, 4)))
    values = tg.tensor(RNG.standard_normal(top.shape), requires_grad=True)
    assert tg.autograd.gradcheck(lambda v: F.max_unpool3d(v, idx, 2), (values,))
    assert F.max_unpool3d(top, idx, 2, output_size=(5, 5, 7)).shape == (2, 3, 5, 5, 7)


def test_layers_repr_state_and_unbatched() -> None:
    assert repr(nn.MaxPool3d(2)) == (
        "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    )
    assert repr(nn.AvgPool3d((1, 2, 2), padding=1)) == (
        "AvgPool3d(kernel_size=(1, 2, 2), stride=(1, 2, 2), padding=1)"
    )
    assert (
        repr(nn.LPPool3d(2, 2))
        == "LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)"
    )
    assert repr(nn.MaxUnpool3d(2)) == (
        "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))"
    )
    for layer in (nn.MaxPool3d(2), nn.AvgPool3d(2), nn.LPPool3d(2, 2), nn.MaxUnpool3d(2)):
        assert list(layer.state_dict()) == []
    x = tg.tensor(RNG.standard_normal((3, 4, 4, 4)))
    assert nn.MaxPool3d(2)(x).shape == nn.AvgPool3d(2)(x).shape == (3, 2, 2, 2)
    assert nn.LPPool3d(1, 2)(x.abs()).shape == (3, 2, 2, 2)
    np.testing.assert_array_equal(nn.MaxPool3d(2)(x).numpy(), nn.MaxPool3d(2)(x[None])[0].numpy())


def test_errors() -> None:
    with pytest.raises(ValueError, match="expected a 4-D .* or 5-D"):
        F.max_pool3d(tg.ones(2, 4, 4), 2)
    with pytest.raises(ValueError, match="too small"):
        F.avg_pool3d(tg.ones(1, 1, 1, 4, 4), 2)
    with pytest.raises(ValueError, match="at most half"):
        F.max_pool3d(tg.ones(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(ValueError, match="at most half"):
        nn.AvgPool3d(2, padding=(0, 0, 2))(tg.ones(1, 1, 4, 4, 4))
    with pytest.raises(TypeError, match="tuple of 3 ints"):
        nn.MaxPool3d((2, 2))
    with pytest.raises(ValueError, match="non-zero"):
        F.avg_pool3d(tg.ones(1, 1, 2, 2, 2), 2, divisor_override=0)
    with pytest.raises(ValueError, match="invalid output_size"):
        top, idx = F.max_pool3d(tg.ones(1, 1, 4, 4, 4), 2, return_indices=True)
        F.max_unpool3d(top, idx, 2, output_size=(9, 4, 4))


CASES = [
    ((2, 3, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), padding=(1, 1, 0))),
    ((3, 4, 5, 6), dict(kernel_size=2, ceil_mode=True)),
    (
        (1, 2, 5, 5, 6),
        dict(kernel_size=(3, 2, 2), stride=(2, 2, 1), padding=(1, 1, 0), ceil_mode=True),
    ),
]


@pytest.mark.parametrize("shape, kw", CASES)
def test_matches_pytorch(shape: tuple, kw: dict) -> None:
    torch = pytest.importorskip("torch")
    TF = torch.nn.functional
    a = RNG.standard_normal(shape)
    calls: list[tuple[str, dict]] = [("max_pool3d", {"return_indices": True})]
    calls += [("max_pool3d", {"dilation": (2, 1, 1)})] if shape[-3] >= 5 else []
    calls += [
        ("avg_pool3d", {"count_include_pad": c, "divisor_override": d})
        for c, d in itertools.product((True, False), (None, 5))
    ]
    for name, extra in calls:
        x, t = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        ours, theirs = getattr(F, name)(x, **kw, **extra), getattr(TF, name)(t, **kw, **extra)
        if isinstance(theirs, tuple):
            np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
            assert ours[1].dtype == tg.int64
            ours, theirs = ours[0], theirs[0]
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-15)
        g = RNG.standard_normal(ours.shape)
        ours.backward(tg.tensor(g))
        theirs.backward(torch.tensor(g))
        assert x.grad is not None
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-15)
    lp_kw = {k: v for k, v in kw.items() if k != "padding"}
    pos = np.abs(a) + 0.1
    for p in (1.5, 2, float("inf")):
        x, t = tg.tensor(pos, requires_grad=True), torch.tensor(pos, requires_grad=True)
        ours, theirs = F.lp_pool3d(x, p, **lp_kw), TF.lp_pool3d(t, p, **lp_kw)
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12)
        ours.sum().backward()
        theirs.sum().backward()
        assert x.grad is not None
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_unpool_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((2, 3, 4, 5, 6))
    top, idx = torch.nn.functional.max_pool3d(torch.tensor(a), 2, return_indices=True)
    want = torch.nn.functional.max_unpool3d(top, idx, 2, output_size=(5, 5, 7))
    ours = F.max_unpool3d(tg.tensor(top.numpy()), tg.tensor(idx.numpy()), 2, output_size=(5, 5, 7))
    np.testing.assert_array_equal(ours.numpy(), want.numpy())


def test_empty_batches_and_channels_give_empty_results() -> None:
    x = tg.ones(0, 2, 4, 4, 4, requires_grad=True)
    top, idx = F.max_pool3d(x, 2, return_indices=True)
    assert top.shape == idx.shape == (0, 2, 2, 2, 2) and idx.dtype == tg.int64
    top.sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape
    assert F.avg_pool3d(x, 2).shape == F.lp_pool3d(x, 2, 2).shape == (0, 2, 2, 2, 2)
    assert F.max_unpool3d(top, idx, 2).shape == (0, 2, 4, 4, 4)
    assert F.max_pool3d(tg.ones(3, 0, 2, 2, 2), 2).shape == (3, 0, 1, 1, 1)
