"""ConvTranspose1d/2d and F.conv_transpose1d/2d: values and gradients equal PyTorch's with copied
weights (strides, padding, output_padding, groups, dilation, bias, unbatched input, output_size),
finite differences to second order, the adjoint of conv2d, parameters, init, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


CASES_2D = [
    ((2, 4, 5, 5), (4, 3, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((2, 4, 5, 6), (4, 2, 3, 2), {"stride": (2, 3), "groups": 2, "dilation": (2, 1)}),
    ((4, 5, 5), (4, 3, 1, 1), {}),  # (unbatched)
    ((2, 4, 5, 5), (4, 3, 3, 3), {"dilation": 2, "output_padding": 1}),
    ((2, 4, 5, 5), (4, 3, 3, 3), {"padding": 2}),
    ((1, 2, 3, 3), (2, 2, 4, 4), {"stride": 3, "padding": (1, 0), "output_padding": (2, 0)}),
]
CASES_1D = [
    ((2, 4, 7), (4, 3, 3), {"stride": 3, "padding": 1, "output_padding": 2}),
    ((4, 7), (4, 1, 2), {"groups": 4, "dilation": 3}),
]


@pytest.mark.parametrize("x_shape, w_shape, kw", CASES_2D + CASES_1D)
@pytest.mark.parametrize("bias", [True, False])
def test_values_and_gradients_equal_pytorchs(x_shape, w_shape, kw, bias):
    torch = pytest.importorskip("torch")
    dims = len(w_shape) - 2
    x, w = _rand(*x_shape), _rand(*w_shape, seed=1)
    b = _rand(w_shape[1] * kw.get("groups", 1), seed=2) if bias else None
    ours = [tg.tensor(a, requires_grad=True) for a in (x, w, b) if a is not None]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b) if a is not None]
    out = getattr(F, f"conv_transpose{dims}d")(*ours, **kw)
    want = getattr(torch.nn.functional, f"conv_transpose{dims}d")(*theirs, **kw)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    c = _rand(*out.shape, seed=3)
    (out * tg.tensor(c)).sum().backward()
    (want * torch.tensor(c)).sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (
            lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
            [(1, 2, 3, 3), (2, 2, 3, 3), (2,)],
        ),
        (
            lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, groups=2, dilation=2),
            [(2, 2, 4), (2, 1, 2), (2,)],
        ),
    ],
    ids=["2d", "1d-groups"],
)
def test_gradients_to_second_order(fn, shapes):
    inputs = [tg.tensor(_rand(*s, seed=i), requires_grad=True) for i, s in enumerate(shapes)]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_it_is_the_adjoint_of_conv2d():
    """<conv2d(y, w), x> == <y, conv_transpose2d(x, w)> for a y of the transposed output's shape."""
    x, w = _rand(2, 4, 4, 5), _rand(4, 3, 3, 3, seed=1)
    up = F.conv_transpose2d(tg.tensor(x), tg.tensor(w), stride=2, padding=1).numpy()
    y = _rand(*up.shape, seed=2)
    down = F.conv2d(tg.tensor(y), tg.tensor(w), stride=2, padding=1).numpy()
    assert down.shape == x.shape
    np.testing.assert_allclose((down * x).sum(), (up * y).sum(), rtol=1e-12)


@pytest.mark.parametrize(
    "layer, args, kwargs, x_shape",
    [
        (
            "ConvTranspose2d",
            (4, 6, 3),
            {"stride": 2, "padding": 1, "output_padding": 1},
            (2, 4, 5, 5),
        ),
        ("ConvTranspose2d", (4, 6, (2, 3)), {"groups": 2, "bias": False, "dilation": 2}, (4, 3, 3)),
        ("ConvTranspose1d", (3, 2, 4), {"stride": 3}, (2, 3, 6)),
    ],
)
def test_layers_equal_pytorchs(layer, args, kwargs, x_shape):
    torch = pytest.importorskip("torch")
    ours, theirs = (
        getattr(nn, layer)(*args, **kwargs).double(),
        getattr(torch.nn, layer)(*args, **kwargs).double(),
    )
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name, p in theirs.named_parameters():
        assert getattr(ours, name).shape == tuple(p.shape)
        getattr(ours, name).set_data(p.detach().numpy().copy())
    x = _rand(*x_shape)
    gx, tx = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, want = ours(gx), theirs(tx)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    out.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(getattr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-10)


def test_output_size_picks_the_output_padding():
    torch = pytest.importorskip("torch")
    ours, theirs = (
        nn.ConvTranspose2d(3, 4, 3, stride=2),
        torch.nn.ConvTranspose2d(3, 4, 3, stride=2),
    )
    for size in [(9, 10), [1, 4, 10, 9]]:
        assert ours(tg.ones(1, 3, 4, 4), output_size=size).shape == tuple(
            theirs(torch.ones(1, 3, 4, 4), output_size=size).shape
        )
    with pytest.raises(
        ValueError,
        match=r"output size of \(12, 12\), but valid sizes range from \[9, 9\] to \[10, 10\]",
    ):
        ours(tg.ones(1, 3, 4, 4), output_size=(12, 12))


def test_init_matches_pytorchs_bounds():
    tg.manual_seed(0)
    layer = nn.ConvTranspose2d(8, 4, 3, groups=2)
    fan_in = 2 * 9  # (weight (8, 2, 3, 3): its dimension 1 times the kernel, as PyTorch's)
    assert layer.weight.shape == (8, 2, 3, 3)
    assert np.abs(layer.weight.numpy()).max() <= 1 / np.sqrt(fan_in)
    assert np.abs(layer.bias.numpy()).max() <= 1 / np.sqrt(fan_in)
    assert np.abs(layer.weight.numpy()).max() > 0.8 / np.sqrt(fan_in)


def test_errors_are_pytorchs():
    with pytest.raises(
        RuntimeError, match="output padding must be smaller than either stride or dilation"
    ):
        F.conv_transpose2d(tg.randn(1, 3, 4, 4), tg.randn(3, 2, 3, 3), output_padding=1)
    with pytest.raises(
        RuntimeError,
        match=r"Calculated output size per channel: \(-2 x -2\). Output size is too small",
    ):
        F.conv_transpose2d(tg.randn(1, 3, 2, 2), tg.randn(3, 2, 3, 3), padding=3)
    with pytest.raises(
        RuntimeError, match="expected input\\[1, 2, 4, 4\\] to have 3 channels, but got 2"
    ):
        F.conv_transpose2d(tg.randn(1, 2, 4, 4), tg.randn(3, 2, 3, 3))
    with pytest.raises(
        ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'
    ):
        nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.ConvTranspose2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding must be an int or a tuple"):
        nn.ConvTranspose2d(3, 4, 3, padding="same")
    with pytest.raises(TypeError, match="same floating dtype"):
        F.conv_transpose1d(tg.randn(1, 3, 4), tg.randn(3, 2, 3, dtype=tg.float64))
    with pytest.raises(ValueError, match="expected a 3-D .* or 4-D"):
        F.conv_transpose2d(tg.randn(4, 4), tg.randn(3, 2, 3, 3))
    with pytest.raises(ValueError, match=r"bias must be a Tensor of shape \(2,\)"):
        F.conv_transpose2d(tg.randn(1, 3, 4, 4), tg.randn(3, 2, 3, 3), tg.randn(3))


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.conv_transpose as layers
    import tapegrad.nn.functional_conv_transpose as functional

    for module in (layers, functional):
        flags = doctest.NORMALIZE_WHITESPACE
        result = doctest.testmod(module, extraglobs={"tg": tg, "F": F}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0


def test_a_bias_of_another_dtype_is_added_in_the_inputs_as_pytorchs():
    torch = pytest.importorskip("torch")
    x, w, b = _rand(1, 2, 3), _rand(2, 3, 2), _rand(3)
    ours_b = tg.tensor(b, requires_grad=True)  # float64 beside a float32 input and weight
    out = F.conv_transpose1d(tg.tensor(x, dtype=np.float32), tg.tensor(w, dtype=np.float32), ours_b)
    theirs_b = torch.tensor(b, requires_grad=True)
    ref = torch.nn.functional.conv_transpose1d(
        torch.tensor(x, dtype=torch.float32), torch.tensor(w, dtype=torch.float32), theirs_b
    )
    assert out.dtype == np.float32 and ref.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    assert ours_b.grad.dtype == np.float64
    np.testing.assert_allclose(ours_b.grad.numpy(), theirs_b.grad.numpy())


@pytest.mark.parametrize(
    "layer", ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
)
def test_every_convolution_has_pytorchs_attributes_and_reset_parameters(layer):
    # one rule (conv._ConvBase) makes, initialises and prints both kinds of convolution
    torch = pytest.importorskip("torch")
    kwargs = {"stride": 2, "groups": 2, "bias": False, "dilation": 2}
    ours, theirs = (
        getattr(nn, layer)(4, 6, 3, **kwargs),
        getattr(torch.nn, layer)(4, 6, 3, **kwargs),
    )
    assert repr(ours) == repr(theirs)
    for name in ("kernel_size", "stride", "padding", "dilation", "output_padding", "groups"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.weight.shape == tuple(theirs.weight.shape) and ours.bias is None
    tg.manual_seed(3)
    ours.reset_parameters()
    first = ours.weight.numpy().copy()
    tg.manual_seed(3)
    ours.reset_parameters()
    np.testing.assert_array_equal(ours.weight.numpy(), first)
    bound = 1 / np.sqrt(np.prod(ours.weight.shape[1:]))  # kaiming_uniform(a=sqrt(5))
    assert np.abs(first).max() <= bound and np.abs(first).max() > bound / 2
