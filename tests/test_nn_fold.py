"""Fold / Unfold and F.fold / F.unfold: im2col written out, fold as unfold's adjoint, gradcheck to
second order in float64, PyTorch's values and gradients over many geometries, reprs, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(3)


def test_unfold_by_hand_and_fold_is_its_adjoint() -> None:
    x = RNG.standard_normal((2, 3, 5, 4))
    cols = F.unfold(tg.tensor(x), (2, 3), padding=1, stride=(2, 1)).numpy()
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    want = [
        padded[:, :, r : r + 2, c : c + 3].reshape(2, -1)
        for r in range(0, 6, 2)
        for c in range(0, 4)
    ]
    np.testing.assert_array_equal(cols, np.stack(want, -1))
    # <unfold(x), y> == <x, fold(y)> for every x, y
    y = RNG.standard_normal(cols.shape)
    back = F.fold(tg.tensor(y), (5, 4), (2, 3), padding=1, stride=(2, 1)).numpy()
    np.testing.assert_allclose((cols * y).sum(), (x * back).sum(), rtol=1e-12)
    counts = F.fold(F.unfold(tg.ones(1, 1, 3, 3), 2), (3, 3), 2)
    assert counts.numpy()[0, 0].tolist() == [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]


def test_gradients_to_second_order() -> None:
    x = tg.tensor(RNG.standard_normal((2, 2, 4, 5)), requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: F.unfold(t, 2, dilation=(1, 2), padding=1) ** 2, (x,))
    assert tg.autograd.gradgradcheck(lambda t: F.unfold(t, 2, stride=2) ** 2, (x,))
    y = tg.tensor(RNG.standard_normal((2, 8, 6)), requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: F.fold(t, (3, 4), 2) ** 2, (y,))
    assert tg.autograd.gradgradcheck(lambda t: F.fold(t, (4, 5), 2, stride=(1, 2)) ** 2, (y,))


GEOMETRIES = [
    dict(kernel_size=2),
    dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=3, dilation=2, padding=2),
    dict(kernel_size=1, stride=(1, 3)),
]


@pytest.mark.parametrize(
    "shape, geometry", list(itertools.product([(2, 3, 7, 8), (3, 6, 9)], GEOMETRIES))
)
def test_against_torch(shape: tuple, geometry: dict) -> None:
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(shape)
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    cols, want = nn.Unfold(**geometry)(ours), torch.nn.Unfold(**geometry)(theirs)
    np.testing.assert_array_equal(cols.numpy(), want.detach().numpy())
    g = RNG.standard_normal(cols.shape)
    (cols * tg.tensor(g)).sum().backward()
    (want * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
    y = RNG.standard_normal(cols.shape).astype(np.float32)
    ours, theirs = tg.tensor(y, requires_grad=True), torch.tensor(y, requires_grad=True)
    out = nn.Fold(shape[-2:], **geometry)(ours)
    want = torch.nn.Fold(shape[-2:], **geometry)(theirs)
    assert out.dtype == tg.float32 and out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    h = RNG.standard_normal(out.shape).astype(np.float32)
    (out * tg.tensor(h)).sum().backward()
    (want * torch.tensor(h)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert repr(nn.Fold(shape[-2:], **geometry)) == repr(torch.nn.Fold(shape[-2:], **geometry))
    assert repr(nn.Unfold(**geometry)) == repr(torch.nn.Unfold(**geometry))


def test_bool_and_empty_batches_as_pytorch() -> None:
    mask = tg.tensor([[[[True, False, False], [False, False, False], [False, False, True]]]])
    cols = F.unfold(mask, 2)
    assert cols.dtype == np.bool_ and cols.numpy().sum(1).tolist() == [[1, 0, 0, 1]]
    back = F.fold(cols, (3, 3), 2)
    assert back.dtype == np.bool_ and np.array_equal(back.numpy(), mask.numpy())
    assert F.unfold(tg.ones(0, 2, 3, 3), 2).shape == (0, 8, 4)
    assert F.fold(tg.ones(0, 8, 4), (3, 3), 2).shape == (0, 2, 3, 3)


def test_reprs() -> None:
    assert repr(nn.Unfold(2, padding=1)) == "Unfold(kernel_size=2, dilation=1, padding=1, stride=1)"
    assert repr(nn.Fold((4, 5), 2)) == (
        "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    )


def test_errors() -> None:
    with pytest.raises(RuntimeError, match="3D or 4D"):
        F.unfold(tg.ones(3, 4), 2)
    with pytest.raises(RuntimeError, match="sliding blocks as \\(0, 0\\)"):
        F.unfold(tg.ones(1, 2, 3, 3), 4)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.unfold(tg.ones(1, 2, 3, 3), 0)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        F.unfold(tg.ones(1, 2, 3, 3), 2, stride=0)
    with pytest.raises(RuntimeError, match="padding should be non-negative"):
        F.unfold(tg.ones(1, 2, 3, 3), 2, padding=-1)
    with pytest.raises(NotImplementedError, match="floating point"):
        F.unfold(tg.ones(1, 2, 3, 3, dtype=tg.int64), 2)
    with pytest.raises(RuntimeError, match="2D or 3D"):
        F.fold(tg.ones(1, 2, 12, 16), (5, 5), 2)
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size"):
        F.fold(tg.ones(1, 11, 16), (5, 5), 2)
    with pytest.raises(RuntimeError, match="4 \\* 4 = 16, but got input.size\\(2\\)=15"):
        F.fold(tg.ones(1, 12, 15), (5, 5), 2)
    with pytest.raises(TypeError, match="kernel_size must be an int or a tuple of 2"):
        F.unfold(tg.ones(1, 2, 3, 3), (1, 2, 3))


@pytest.mark.parametrize("module", ["fold", "functional_fold"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": tg.nn.functional}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
