"""Adaptive pooling: adaptive_avg_pool1d/3d, adaptive_max_pool1d/2d/3d (functional and layers).

Always on: closed forms (PyTorch's window formula written out), gradcheck and gradgradcheck in
float64, ties and NaNs (PyTorch's winner), return_indices, None in output_size, reprs, errors.
With torch: values, indices and gradients over uneven windows, batched and unbatched.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(7)


def distinct(*shape: int) -> tg.Tensor:
    """Values at least 0.1 apart (no ties), shuffled, float64, requiring grad."""
    n = int(np.prod(shape))
    return tg.tensor(RNG.permutation(n).reshape(shape) * 0.1 - n * 0.05, requires_grad=True)


def windows(n: int, o: int) -> list:
    return [range((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)]


def test_closed_forms_match_the_window_formula() -> None:
    x = distinct(2, 3, 4, 5, 7).detach().numpy()
    outs = (3, 2, 4)
    want_avg = np.zeros(x.shape[:2] + outs)
    want_max = np.zeros(x.shape[:2] + outs)
    for i, j, k in itertools.product(*(range(o) for o in outs)):
        d, h, w = (windows(n, o)[t] for n, o, t in zip(x.shape[2:], outs, (i, j, k)))
        box = x[:, :, d][:, :, :, h][:, :, :, :, w]
        want_avg[:, :, i, j, k] = box.mean((2, 3, 4))
        want_max[:, :, i, j, k] = box.max((2, 3, 4))
    t = tg.tensor(x)
    np.testing.assert_allclose(F.adaptive_avg_pool3d(t, outs).numpy(), want_avg, rtol=1e-12)
    np.testing.assert_array_equal(F.adaptive_max_pool3d(t, outs).numpy(), want_max)
    line = tg.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]])
    assert F.adaptive_avg_pool1d(line, 2).tolist() == [[[2.0, 4.0]]]  # windows [0,3) and [2,5)
    out, idx = F.adaptive_max_pool1d(line, 3, return_indices=True)
    assert out.tolist() == [[[2.0, 4.0, 5.0]]] and idx.tolist() == [[[1, 3, 4]]]
    assert idx.dtype == tg.int64


@pytest.mark.parametrize(
    "fn, shape, size",
    [
        (F.adaptive_avg_pool1d, (2, 3, 7), 3),
        (F.adaptive_avg_pool3d, (2, 2, 3, 5, 4), (2, None, 3)),
        (F.adaptive_max_pool1d, (2, 3, 7), 3),
        (F.adaptive_max_pool2d, (2, 2, 5, 7), (3, 4)),
        (F.adaptive_max_pool3d, (2, 3, 5, 4), (2, 3, 3)),  # unbatched
    ],
)
def test_gradients_to_second_order(fn, shape, size) -> None:
    x = distinct(*shape)
    assert tg.autograd.gradcheck(lambda t: fn(t, size), (x,))
    assert tg.autograd.gradgradcheck(lambda t: fn(t, size), (x,))


def test_ties_and_nans_pick_pytorchs_winner() -> None:
    ones = tg.ones(1, 1, 4, 4, requires_grad=True)
    out, idx = F.adaptive_max_pool2d(ones, 1, return_indices=True)
    out.sum().backward()
    assert idx.item() == 0 and ones.grad.numpy()[0, 0, 0, 0] == 1.0 and ones.grad.sum() == 1.0
    nan = float("nan")
    x = tg.tensor([[[1.0, nan, 3.0, nan, 2.0]]])
    out, idx = F.adaptive_max_pool1d(x, 1, return_indices=True)
    assert np.isnan(out.item()) and idx.item() == 3  # the last NaN, as PyTorch
    grid = tg.tensor([[[nan, 0.0], [nan, 0.0], [1.0, nan]]])
    assert F.adaptive_max_pool2d(grid, 1, return_indices=True)[1].item() == 5


def test_layers_reprs_and_output_structure() -> None:
    assert repr(nn.AdaptiveAvgPool1d(3)) == "AdaptiveAvgPool1d(output_size=3)"
    assert repr(nn.AdaptiveAvgPool3d((2, None, 1))) == "AdaptiveAvgPool3d(output_size=(2, None, 1))"
    assert repr(nn.AdaptiveMaxPool2d((None, 3), True)) == "AdaptiveMaxPool2d(output_size=(None, 3))"
    x = distinct(2, 3, 6, 5)
    out, idx = nn.AdaptiveMaxPool2d((None, 2), return_indices=True)(x)
    assert out.shape == (2, 3, 6, 2) and idx.shape == (2, 3, 6, 2)
    assert nn.AdaptiveMaxPool1d(4)(x[0]).shape == (3, 6, 4)
    assert nn.AdaptiveMaxPool3d(1)(x).shape == (2, 1, 1, 1)
    assert nn.AdaptiveAvgPool3d(2)(x).shape == (2, 2, 2, 2)
    assert list(nn.AdaptiveMaxPool3d(1).state_dict()) == []
    assert F.adaptive_max_pool2d(x, 0).shape == (2, 3, 0, 0)
    same = F.adaptive_avg_pool1d(x[0], 5)
    assert same is not x[0] and np.array_equal(same.numpy(), x[0].detach().numpy())


def test_errors() -> None:
    with pytest.raises(ValueError, match="3-D .* or 4-D"):
        F.adaptive_max_pool2d(tg.ones(3, 4), 2)
    with pytest.raises(ValueError, match="2-D .* or 3-D"):
        F.adaptive_avg_pool1d(tg.ones(2, 3, 4, 5), 2)
    with pytest.raises(ValueError, match="non-zero size"):
        F.adaptive_max_pool2d(tg.ones(2, 3, 0, 4), 2)
    with pytest.raises(TypeError, match="floating point"):
        F.adaptive_max_pool2d(tg.ones(2, 3, 5, 4, dtype=tg.int64), 2)
    with pytest.raises(ValueError, match="output_size"):
        F.adaptive_avg_pool1d(tg.ones(2, 3, 4), None)
    with pytest.raises(ValueError, match="output_size"):
        F.adaptive_max_pool1d(tg.ones(2, 3, 4), -1)
    with pytest.raises(ValueError, match="tuple of 3"):
        nn.AdaptiveAvgPool3d((1, 2))
    with pytest.raises(TypeError, match="tapegrad Tensor"):
        F.adaptive_max_pool3d(np.ones((1, 2, 2, 2)), 1)


CASES = [
    ("adaptive_avg_pool1d", (2, 3, 11), 4),
    ("adaptive_avg_pool1d", (3, 5), (2,)),
    ("adaptive_avg_pool3d", (2, 2, 5, 7, 3), (3, 2, 2)),
    ("adaptive_avg_pool3d", (2, 5, 7, 3), (None, 4, 1)),
    ("adaptive_max_pool1d", (2, 3, 11), 4),
    ("adaptive_max_pool1d", (3, 9), 5),
    ("adaptive_max_pool2d", (2, 3, 7, 9), (3, 4)),
    ("adaptive_max_pool2d", (3, 7, 9), (None, 5)),
    ("adaptive_max_pool3d", (2, 2, 5, 7, 6), (3, 4, 4)),
    ("adaptive_max_pool3d", (2, 5, 7, 6), 2),
]


@pytest.mark.parametrize("name, shape, size", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_torch(name, shape, size, dtype) -> None:
    torch = pytest.importorskip("torch")
    data = RNG.standard_normal(shape).astype(dtype)
    data.flat[::5] = data.flat[1]  # (ties: PyTorch's first maximum)
    x = tg.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    kw = {"return_indices": True} if "max" in name else {}
    got = getattr(F, name)(x, size, **kw)
    want = getattr(torch.nn.functional, name)(tx, size, **kw)
    if "max" in name:
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
        got, want = got[0], want[0]
    assert got.dtype == getattr(tg, dtype) and got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)
    weights = RNG.standard_normal(got.shape).astype(dtype)
    (got * tg.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_layers_against_torch() -> None:
    torch = pytest.importorskip("torch")
    data = RNG.standard_normal((2, 3, 6, 7, 5))
    for ours, theirs, arg in [
        (nn.AdaptiveAvgPool3d, torch.nn.AdaptiveAvgPool3d, (2, None, 3)),
        (nn.AdaptiveMaxPool3d, torch.nn.AdaptiveMaxPool3d, (4, 3, None)),
        (nn.AdaptiveMaxPool2d, torch.nn.AdaptiveMaxPool2d, (None, 4)),
        (nn.AdaptiveMaxPool1d, torch.nn.AdaptiveMaxPool1d, 3),
        (nn.AdaptiveAvgPool1d, torch.nn.AdaptiveAvgPool1d, 4),
    ]:
        dims = int(ours.__name__[-2])
        x = data.reshape(-1, *data.shape[-dims - 1 :])[:2]
        got, want = ours(arg)(tg.tensor(x)), theirs(arg)(torch.tensor(x))
        assert repr(ours(arg)) == repr(theirs(arg))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("module", ["functional_adaptive_pool", "pooling"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
