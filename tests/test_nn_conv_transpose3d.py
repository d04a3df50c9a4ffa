"""ConvTranspose3d and F.conv_transpose3d (composed per kernel depth tap of the 2-D transposed
convolution): values and gradients equal PyTorch's with copied weights (strides, padding,
output_padding, groups, dilation, bias, unbatched input, output_size), finite differences to
second order, the adjoint of conv3d, parameters, init, repr, state_dict and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


CASES = [
    ((2, 4, 3, 4, 5), (4, 3, 2, 3, 2), {}),
    (
        (2, 4, 3, 4, 5),
        (4, 3, 3, 2, 2),
        {"stride": (2, 1, 3), "padding": (1, 0, 1), "output_padding": (1, 0, 2)},
    ),
    ((2, 4, 3, 4, 5), (4, 1, 3, 2, 2), {"stride": 2, "padding": (2, 1, 0), "groups": 2}),
    ((2, 4, 3, 4, 4), (4, 2, 2, 2, 2), {"dilation": (2, 1, 3), "output_padding": (1, 0, 2)}),
    ((4, 2, 3, 3), (4, 2, 2, 2, 2), {"stride": 3, "padding": 1, "output_padding": 2}),  # unbatched
    ((1, 2, 2, 3, 3), (2, 3, 1, 2, 2), {"stride": (3, 1, 1), "output_padding": (2, 0, 0)}),
    ((1, 2, 2, 3, 3), (2, 3, 4, 1, 1), {"padding": (2, 0, 0)}),  # (padding past some taps)
]


@pytest.mark.parametrize("x_shape, w_shape, kw", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_values_and_gradients_equal_pytorchs(x_shape, w_shape, kw, bias):
    torch = pytest.importorskip("torch")
    a, w = _rand(*x_shape, seed=1), _rand(*w_shape, seed=2)
    b = _rand(w_shape[1] * kw.get("groups", 1), seed=3) if bias else None
    ours = [tg.tensor(v, requires_grad=True) for v in (a, w, b) if v is not None]
    theirs = [torch.tensor(v, requires_grad=True) for v in (a, w, b) if v is not None]
    out = F.conv_transpose3d(*ours, **kw)
    want = torch.nn.functional.conv_transpose3d(*theirs, **kw)
    assert out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = _rand(*out.shape, seed=4)
    out.backward(tg.tensor(g))
    want.backward(torch.tensor(g))
    for mine, real in zip(ours, theirs):
        assert mine.grad is not None
        np.testing.assert_allclose(mine.grad.numpy(), real.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_gradients_to_second_order():
    x = tg.tensor(_rand(1, 2, 2, 3, 2, seed=5), requires_grad=True)
    w = tg.tensor(_rand(2, 2, 2, 2, 1, seed=6), requires_grad=True)
    b = tg.tensor(_rand(2, seed=7), requires_grad=True)

    def fn(x, w, b):
        return F.conv_transpose3d(
            x, w, b, stride=(2, 1, 2), padding=(1, 0, 0), output_padding=(1, 0, 1)
        )

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_it_is_the_adjoint_of_conv3d():
    x, y = tg.tensor(_rand(2, 4, 3, 3, 4, seed=8)), tg.tensor(_rand(2, 3, 6, 5, 7, seed=9))
    w = tg.tensor(_rand(4, 3, 2, 3, 2, seed=10))
    geometry = {"stride": (2, 1, 2), "padding": (1, 0, 1), "dilation": (2, 1, 1)}
    up = F.conv_transpose3d(x, w, output_padding=(1, 0, 1), **geometry)
    assert up.shape == y.shape
    down = F.conv3d(y, w, **geometry)
    np.testing.assert_allclose((up * y).sum().item(), (x * down).sum().item(), rtol=1e-10)


def test_layer_equals_pytorchs_and_output_size():
    torch = pytest.importorskip("torch")
    kwargs = {"stride": (2, 1, 2), "padding": 1, "groups": 2, "dilation": (1, 2, 1)}
    ours, theirs = (
        nn.ConvTranspose3d(4, 6, 3, **kwargs),
        torch.nn.ConvTranspose3d(4, 6, 3, **kwargs),
    )
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "bias"]
    assert ours.weight.shape == tuple(theirs.weight.shape) == (4, 3, 3, 3, 3)
    ours.load_state_dict({k: tg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    a = _rand(2, 4, 3, 4, 3, seed=11).astype(np.float32)
    for size in (None, (6, 6, 6), [2, 6, 5, 6, 5]):
        got = ours(tg.tensor(a), output_size=size)
        want = theirs(torch.tensor(a), output_size=size)
        np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="valid sizes range from"):
        ours(tg.tensor(a), output_size=(9, 9, 9))
    tg.manual_seed(0)
    fresh = nn.ConvTranspose3d(4, 6, 3, groups=2)
    bound = 1 / np.sqrt(3 * 27)  # (fan_in: the weight's dimension 1 times the kernel, as PyTorch)
    assert bound / 2 < np.abs(fresh.weight.numpy()).max() <= bound


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="output_padding_depth: 2 output_padding_height: 0"):
        F.conv_transpose3d(tg.randn(1, 1, 2, 2, 2), tg.randn(1, 1, 2, 2, 2), stride=2,
                           output_padding=(2, 0, 0))  # fmt: skip
    with pytest.raises(RuntimeError, match=r"\(-3 x 3 x 3\). Output size is too small"):
        F.conv_transpose3d(tg.randn(1, 3, 2, 2, 2), tg.randn(3, 2, 2, 2, 2), padding=(3, 0, 0))
    with pytest.raises(RuntimeError, match="to have 3 channels, but got 2"):
        F.conv_transpose3d(tg.randn(1, 2, 2, 2, 2), tg.randn(3, 2, 2, 2, 2))
    with pytest.raises(ValueError, match="expected a 4-D .* or 5-D"):
        F.conv_transpose3d(tg.randn(2, 2, 2), tg.randn(2, 2, 2, 2, 2))
    with pytest.raises(ValueError, match="weight must be a 5-D Tensor"):
        F.conv_transpose3d(tg.randn(1, 2, 2, 2, 2), tg.randn(2, 2, 2, 2))
    with pytest.raises(
        ValueError, match='Only "zeros" padding mode is supported for ConvTranspose3d'
    ):
        nn.ConvTranspose3d(3, 4, 3, padding_mode="reflect")
