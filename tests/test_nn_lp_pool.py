"""Power-average pooling: F.lp_pool1d / lp_pool2d and nn.LPPool1d / LPPool2d.

Always on: closed forms ((sum over the window of x ** p) ** (1/p)), gradient 0 where a window sums
to 0 (PyTorch's sign * relu rule), p = inf / -inf, gradcheck and gradgradcheck in float64, reprs,
no state, errors. With torch: values and gradients for several p, strides and ceil_mode, batched and
unbatched.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(11)


def positive(*shape: int) -> tg.Tensor:
    """Values in [0.5, 1.5) (away from 0, where x ** p of a non-integer p has no gradient)."""
    return tg.tensor(RNG.random(shape) + 0.5, requires_grad=True)


def test_closed_form_2d() -> None:
    x = positive(2, 3, 5, 6).detach().numpy()
    p, out = 3.0, F.lp_pool2d(tg.tensor(x), 3.0, (2, 3), stride=(2, 2))
    assert out.shape == (2, 3, 2, 2)
    want = np.zeros(out.shape)
    for i, j in itertools.product(range(2), range(2)):
        box = x[:, :, 2 * i : 2 * i + 2, 2 * j : 2 * j + 3]
        want[:, :, i, j] = (box**p).sum((2, 3)) ** (1 / p)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


def test_closed_form_1d_and_unbatched() -> None:
    x = tg.tensor([[3.0, 4.0, 1.0, 0.0, 2.0, 2.0]], dtype=tg.float64)  # (C, L): unbatched
    assert F.lp_pool1d(x, 2, 2).tolist() == [[5.0, 1.0, np.sqrt(8.0)]]
    assert F.lp_pool1d(x, 1, 3, stride=3).tolist() == [[8.0, 4.0]]
    assert nn.LPPool1d(2, 2)(x).shape == (1, 3)


def test_zero_windows_have_gradient_zero() -> None:
    x = tg.tensor([[[0.0, 0.0, 3.0, 4.0]]], requires_grad=True)
    F.lp_pool1d(x, 2, 2).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), [[[0.0, 0.0, 0.6, 0.8]]])


def test_infinite_norms_are_max_and_min_of_abs() -> None:
    x = tg.tensor([[[-3.0, 1.0, 0.5, -2.0]]], requires_grad=True)
    assert F.lp_pool1d(x, float("inf"), 2).tolist() == [[[3.0, 2.0]]]
    assert F.lp_pool1d(x, -float("inf"), 2).tolist() == [[[1.0, 0.5]]]
    F.lp_pool1d(x, float("inf"), 2).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [[[-1.0, 0.0, 0.0, -1.0]]]


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_gradcheck_and_second_order(p: float) -> None:
    x2, x1 = positive(2, 2, 5, 4), positive(2, 3, 7)
    for fn, x in [
        (lambda t: F.lp_pool2d(t, p, (2, 3), stride=(2, 1), ceil_mode=True), x2),
        (lambda t: F.lp_pool1d(t, p, 3, stride=2, ceil_mode=True), x1),
    ]:
        assert tg.autograd.gradcheck(fn, (x,))
        assert tg.autograd.gradgradcheck(fn, (x,))


def test_layers_repr_and_no_state() -> None:
    assert (
        repr(nn.LPPool2d(2, 3))
        == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    )
    layer = nn.LPPool1d(2.0, 3, 2, True)
    assert repr(layer) == "LPPool1d(norm_type=2.0, kernel_size=3, stride=2, ceil_mode=True)"
    assert layer.state_dict() == {} and list(layer.parameters()) == []
    assert nn.LPPool2d(1, (2, 3), stride=(1, 2))(tg.ones(1, 2, 4, 7)).shape == (1, 2, 3, 3)


def test_errors() -> None:
    with pytest.raises(ValueError, match="norm_type"):
        F.lp_pool1d(tg.ones(1, 2, 6), 0, 2)
    with pytest.raises(TypeError, match="norm_type"):
        F.lp_pool2d(tg.ones(1, 2, 6, 6), "2", 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lp_pool2d"):
        F.lp_pool2d(tg.ones(6), 2, 2)  # too few dimensions
    with pytest.raises(RuntimeError, match="too small"):
        F.lp_pool1d(tg.ones(1, 2, 2), 2, 3)
    with pytest.raises(ValueError, match="kernel_size"):
        nn.LPPool2d(2, 0)


@pytest.mark.parametrize(
    "dims, shape, p, kernel, stride, ceil",
    [
        (1, (2, 3, 9), 2, 3, None, False),
        (1, (3, 8), 3, 3, 2, True),  # unbatched
        (1, (2, 2, 10), 1.5, 4, 3, True),
        (2, (2, 3, 7, 6), 2, (2, 3), None, False),
        (2, (2, 7, 8), 4, 3, (2, 2), True),  # unbatched
        (2, (1, 2, 9, 9), 1, 2, 3, True),
        (2, (1, 2, 5, 5), float("inf"), 2, 2, True),
        (1, (1, 2, 7), -float("inf"), 2, 2, True),
    ],
)
def test_matches_torch(
    dims: int, shape: tuple, p: float, kernel: object, stride: object, ceil: bool
) -> None:
    torch = pytest.importorskip("torch")
    data = RNG.standard_normal(shape)
    data = np.abs(data) + 0.1 if not float(p).is_integer() else data
    x = tg.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    ours = getattr(nn, f"LPPool{dims}d")(p, kernel, stride, ceil)
    theirs = getattr(torch.nn, f"LPPool{dims}d")(p, kernel, stride, ceil)
    assert repr(ours) == repr(theirs)
    y, ty = ours(x), theirs(tx)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = RNG.standard_normal(y.shape)
    y.backward(tg.tensor(g))
    ty.backward(torch.tensor(g))
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_int64_input_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    data = np.arange(12).reshape(1, 2, 6)
    ours = F.lp_pool1d(tg.tensor(data), 2, 3)
    theirs = torch.nn.functional.lp_pool1d(torch.tensor(data), 2, 3)
    assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
