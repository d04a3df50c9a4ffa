"""tg.nn.functional has PyTorch's `F.` names for convolution and pooling (conv1d, conv2d,
max/avg_pool1d/2d, adaptive_avg_pool2d), re-exported from functional_conv and functional_pooling:
reachable, the same functions, giving closed-form values, and PyTorch's values when torch is
installed."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F

NAMES = (
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "max_pool1d",
    "max_pool2d",
)


@pytest.mark.parametrize("name", NAMES)
def test_reachable_from_nn_functional(name: str) -> None:
    assert name in F.__all__
    home = tg.nn.functional_conv if name.startswith("conv") else tg.nn.functional_pooling
    assert getattr(F, name) is getattr(home, name)  # one implementation
    assert getattr(tg.nn.functional, name) is getattr(F, name)


def test_from_import_as_in_pytorch() -> None:
    from tapegrad.nn.functional import adaptive_avg_pool2d, conv2d, max_pool2d

    features = max_pool2d(conv2d(tg.ones(1, 1, 4, 4), tg.ones(2, 1, 3, 3)), 2)  # 9s, (1, 2, 1, 1)
    assert adaptive_avg_pool2d(features, 1).tolist() == [[[[9.0]], [[9.0]]]]


def grid() -> tg.Tensor:
    return tg.arange(16.0).reshape(1, 1, 4, 4)  # x[i, j] = 4i + j


def test_closed_form_values() -> None:
    i, j = np.meshgrid(np.arange(3), np.arange(3), indexing="ij")
    # a 2x2 window of ones sums x[i, j] + x[i, j+1] + x[i+1, j] + x[i+1, j+1] = 16i + 4j + 10
    out = F.conv2d(grid(), tg.ones(1, 1, 2, 2)).numpy()[0, 0]
    np.testing.assert_array_equal(out, 16 * i + 4 * j + 10)
    line = tg.arange(6.0).reshape(1, 1, 6)
    diffs = F.conv1d(line, tg.tensor([[[1.0, -1.0]]]), tg.tensor([0.5]))
    np.testing.assert_array_equal(diffs.numpy(), np.full((1, 1, 5), -0.5))
    np.testing.assert_array_equal(F.max_pool2d(grid(), 2).numpy()[0, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(F.max_pool1d(line, 2).numpy()[0, 0], [1, 3, 5])
    np.testing.assert_array_equal(F.avg_pool2d(grid(), 2).numpy()[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    np.testing.assert_array_equal(F.avg_pool1d(line, 2).numpy()[0, 0], [0.5, 2.5, 4.5])
    assert F.adaptive_avg_pool2d(grid(), 1).item() == 7.5  # the mean of 0..15
    np.testing.assert_array_equal(
        F.adaptive_avg_pool2d(grid(), (2, 2)).numpy(), F.avg_pool2d(grid(), 2).numpy()
    )


def test_layers_are_their_functional_forms() -> None:
    tg.manual_seed(0)
    conv = tg.nn.Conv2d(2, 3, 3, padding=1, stride=2)
    x = tg.randn(2, 2, 7, 7)
    by_hand = F.conv2d(x, conv.weight, conv.bias, stride=2, padding=1)
    np.testing.assert_array_equal(conv(x).numpy(), by_hand.numpy())
    np.testing.assert_array_equal(tg.nn.MaxPool2d(3, 2)(x).numpy(), F.max_pool2d(x, 3, 2).numpy())


def test_second_order_through_the_functional_names() -> None:
    rng = np.random.default_rng(0)
    x = tg.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    w = tg.tensor(rng.standard_normal((2, 2, 3, 3)), requires_grad=True)

    def net(x, w):
        return F.adaptive_avg_pool2d(F.avg_pool2d(F.conv2d(x, w, padding=1), 2).tanh(), 1)

    assert tg.autograd.gradcheck(net, (x, w))
    assert tg.autograd.gradgradcheck(net, (x, w))


def test_same_values_as_pytorch() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch values need torch")
    tF = torch.nn.functional
    rng = np.random.default_rng(1)
    x2, x1 = rng.standard_normal((2, 4, 9, 8)), rng.standard_normal((2, 4, 11))
    w2, w1, b = (
        rng.standard_normal((6, 2, 3, 2)),
        rng.standard_normal((6, 4, 3)),
        rng.standard_normal(6),
    )
    calls = [
        ("conv2d", (x2, w2, b), dict(stride=(2, 1), padding=1, groups=2)),
        ("conv1d", (x1, w1, b), dict(padding="same", dilation=2)),
        ("max_pool2d", (x2,), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
        ("max_pool1d", (x1,), dict(kernel_size=2)),
        ("avg_pool2d", (x2,), dict(kernel_size=(2, 3), padding=1, count_include_pad=False)),
        ("avg_pool1d", (x1,), dict(kernel_size=3, stride=2)),
        ("adaptive_avg_pool2d", (x2,), dict(output_size=(3, 5))),
    ]
    for name, args, kwargs in calls:
        ours = getattr(F, name)(*(tg.tensor(a) for a in args), **kwargs).numpy()
        theirs = getattr(tF, name)(*(torch.tensor(a) for a in args), **kwargs).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=name)
