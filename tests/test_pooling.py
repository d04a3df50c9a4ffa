"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool2d (functional and layers) and the
pooling primitives.

Always on: gradcheck and gradgradcheck in float64 (inputs without ties, so max-pool is smooth
there), closed forms (window max and mean by hand, PyTorch's divisor rules written out), ties and
NaNs (one winner per window), return_indices, reprs, every error. With torch: values, indices and
gradients over many configurations.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.nn import functional_pooling as F
from tapegrad.primitives import pooling as P

RNG = np.random.default_rng(1)


def distinct(*shape):
    """Values at least 0.1 apart (no ties inside any window), shuffled."""
    n = int(np.prod(shape))
    return tg.tensor(RNG.permutation(n).reshape(shape) * 0.1 - n * 0.05, requires_grad=True)


MAX_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1), ceil_mode=True),
    dict(kernel_size=3, stride=2, ceil_mode=True),
]
AVG_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 1), divisor_override=4),
]


@pytest.mark.parametrize("kw", MAX_CASES)
def test_max_pool2d_gradcheck_and_gradgradcheck(kw):
    x = distinct(2, 2, 6, 7)
    assert tg.autograd.gradcheck(lambda x: F.max_pool2d(x, **kw), (x,))
    assert tg.autograd.gradgradcheck(lambda x: F.max_pool2d(x, **kw), (x,))


@pytest.mark.parametrize("kw", AVG_CASES)
def test_avg_pool2d_gradcheck_and_gradgradcheck(kw):
    x = distinct(2, 2, 6, 7)
    assert tg.autograd.gradgradcheck(lambda x: F.avg_pool2d(x, **kw), (x,))


def test_1d_adaptive_and_layers_gradcheck():
    x = distinct(2, 3, 9)
    assert tg.autograd.gradgradcheck(lambda x: F.max_pool1d(x, 3, 2, 1), (x,))
    assert tg.autograd.gradgradcheck(lambda x: F.avg_pool1d(x, 3, 2, 1, True, False), (x,))
    y = distinct(2, 2, 7, 5)
    for size in [(3, 2), 1, (None, 4), (7, 5)]:
        assert tg.autograd.gradgradcheck(lambda y: F.adaptive_avg_pool2d(y, size), (y,))
    for layer in (tg.nn.MaxPool2d(2, 1), tg.nn.AvgPool2d(3, 2, 1), tg.nn.AdaptiveAvgPool2d(2)):
        assert tg.autograd.gradgradcheck(lambda y: layer(y), (y,))


def test_the_backward_primitives_are_checked_on_their_own():
    p = dict(kernel_size=(2, 2), stride=(1, 2), padding=(1, 1, 0, 0), dilation=(1, 1))
    x = distinct(1, 2, 4, 4).numpy()
    out = P.max_pool2d(x, **p)
    g = tg.tensor(RNG.standard_normal(out.shape), requires_grad=True)
    gx = tg.tensor(RNG.standard_normal(x.shape), requires_grad=True)
    assert tg.autograd.gradgradcheck(lambda g: P.max_pool2d_backward(g, x, out, **p), (g,))
    assert tg.autograd.gradgradcheck(lambda gx: P.max_pool2d_gather(gx, x, out, **p), (gx,))
    q = dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 2, 0, 0), divisor=6)
    out = P.avg_pool2d(x, **q)
    g = tg.tensor(RNG.standard_normal(out.shape), requires_grad=True)
    assert tg.autograd.gradgradcheck(
        lambda g: P.avg_pool2d_backward(g, input_shape=x.shape, **q), (g,)
    )


# ---- closed forms ------------------------------------------------------------------------------


def test_max_and_avg_of_2x2_windows_by_hand():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(F.max_pool2d(tg.tensor(x), 2).numpy()[0, 0], [[5, 7], [13, 15]])
    want = [[2.5, 4.5], [10.5, 12.5]]
    np.testing.assert_array_equal(F.avg_pool2d(tg.tensor(x), 2).numpy()[0, 0], want)


def test_avg_pool_divisors_follow_pytorch():
    x = tg.ones(1, 1, 3, 3, dtype=tg.float64)
    # kernel 2, stride 2, padding 1: windows hold 1, 2, 1 real rows / columns out of 2
    with_pad = F.avg_pool2d(x, 2, 2, 1).numpy()[0, 0]
    np.testing.assert_array_equal(with_pad, np.outer([1, 2], [1, 2]) / 4)
    without = F.avg_pool2d(x, 2, 2, 1, count_include_pad=False).numpy()[0, 0]
    np.testing.assert_array_equal(without, np.ones((2, 2)))
    np.testing.assert_array_equal(F.avg_pool2d(x, 3, divisor_override=2).numpy(), [[[[4.5]]]])
    # ceil_mode: the last window sticks out past the padding; it is divided by its part inside
    # input + padding only (PyTorch's rule), here 1 row instead of 2
    ceil = F.avg_pool2d(tg.ones(1, 1, 1, 3, dtype=tg.float64), (1, 2), ceil_mode=True).numpy()
    np.testing.assert_array_equal(ceil, [[[[1.0, 1.0]]]])


def test_adaptive_windows_use_floor_and_ceil():
    x = np.arange(5.0).reshape(1, 1, 1, 5)
    out = F.adaptive_avg_pool2d(tg.tensor(x), (1, 3)).numpy()[0, 0, 0]
    # windows [0, 2), [1, 4), [3, 5)
    np.testing.assert_allclose(out, [0.5, 2.0, 3.5])


def test_max_pool_ties_have_one_winner_per_window_the_first():
    x = tg.tensor(np.ones((1, 1, 4, 4)), requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    want = np.zeros((4, 4))
    want[::2, ::2] = 1
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], want)
    # overlapping windows of a constant row: each window sends its gradient to its first element
    y = tg.tensor(np.zeros((1, 1, 1, 5)), requires_grad=True)
    F.max_pool2d(y, (1, 3), stride=1).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy()[0, 0, 0], [1, 1, 1, 0, 0])


def test_max_pool_nan_wins_its_window_once():
    x = tg.tensor(np.array([[[[np.nan, 1.0], [np.nan, 0.0]]]]), requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert np.isnan(out.numpy()).all() and idx.numpy().item() == 2  # the last NaN, as PyTorch
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[0, 0], [1, 0]])


def test_return_indices_are_flat_positions_in_the_input_plane():
    x = tg.tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(idx.numpy()[0, 0], [[5, 7], [13, 15]])
    assert idx.dtype == np.int64
    out, idx = tg.nn.MaxPool1d(2, return_indices=True)(tg.tensor([[3.0, 1.0, 0.0, 4.0]]))
    np.testing.assert_array_equal(idx.numpy(), [[0, 3]])


def test_unbatched_and_integer_inputs():
    assert F.max_pool2d(tg.ones(3, 4, 4), 2).shape == (3, 2, 2)
    assert F.avg_pool2d(tg.ones(3, 4, 4), 2).shape == (3, 2, 2)
    assert F.adaptive_avg_pool2d(tg.ones(3, 4, 4), 1).shape == (3, 1, 1)
    ints = F.max_pool2d(tg.tensor(np.arange(16).reshape(1, 4, 4)), 2, padding=1)
    np.testing.assert_array_equal(ints.numpy(), [[[0, 2, 3], [8, 10, 11], [12, 14, 15]]])


def test_reprs_match_pytorch():
    assert repr(tg.nn.MaxPool2d(2)) == (
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    )
    assert repr(tg.nn.MaxPool2d((2, 3), 1, 1, 1, True)) == (
        "MaxPool2d(kernel_size=(2, 3), stride=1, padding=1, dilation=1, ceil_mode=False)"
    )
    assert repr(tg.nn.AvgPool2d(3, 2, 1, True, False, 4)) == (
        "AvgPool2d(kernel_size=3, stride=2, padding=1)"
    )
    assert repr(tg.nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(tg.nn.AdaptiveAvgPool2d((5, None))) == "AdaptiveAvgPool2d(output_size=(5, None))"


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: F.max_pool2d(x, 3, padding=2), RuntimeError, "at most half"),
        (lambda x: F.avg_pool2d(x, 3, padding=2), RuntimeError, "at most half"),
        (lambda x: F.max_pool2d(x, 7), RuntimeError, r"\(2, 3, 5, 5\) is too small"),
        (lambda x: F.max_pool2d(x, 0), ValueError, "kernel_size must be positive"),
        (lambda x: F.max_pool2d(x, 2, stride=0.5), TypeError, "stride must be an int"),
        (lambda x: F.max_pool2d(x, 2, padding=-1), ValueError, "non-negative"),
        (lambda x: F.max_pool2d(x, 2, dilation=0), ValueError, "dilation must be positive"),
        (lambda x: F.max_pool2d(x[0, 0], 2), ValueError, r"max_pool2d: .*got shape \(5, 5\)"),
        (lambda x: F.avg_pool2d(x, 2, divisor_override=0), ValueError, "non-zero"),
        (lambda x: F.adaptive_avg_pool2d(x, (2, -1)), ValueError, "output_size"),
        (lambda x: F.adaptive_avg_pool2d(x[0, 0], 2), ValueError, "got shape"),
        (lambda x: tg.nn.MaxPool2d(7)(x), RuntimeError, r"MaxPool2d\(kernel_size=7.*too small"),
        (lambda x: tg.nn.MaxPool2d(2, stride=0), ValueError, "MaxPool2d: stride must be"),
        (lambda x: tg.nn.AvgPool2d(2, padding=-1), ValueError, "AvgPool2d: padding must be"),
        (lambda x: tg.nn.AdaptiveAvgPool2d("big"), ValueError, "output_size"),
    ],
)
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call(tg.ones(2, 3, 5, 5))


# ---- PyTorch parity ----------------------------------------------------------------------------


@pytest.mark.parametrize("kw", MAX_CASES + [dict(kernel_size=(3, 2), stride=1, padding=(1, 1))])
def test_max_pool2d_matches_torch(kw):
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    x = RNG.standard_normal((2, 3, 7, 8))
    x[0, 0, :2, :2] = 1.0  # a tie
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, idx = F.max_pool2d(ours, return_indices=True, **kw)
    ref, ridx = torch.nn.functional.max_pool2d(theirs, return_indices=True, **kw)
    np.testing.assert_array_equal(out.numpy(), ref.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), ridx.numpy())
    g = RNG.standard_normal(ref.shape)
    out.backward(tg.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "kw",
    AVG_CASES + [dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)],
)
def test_avg_pool2d_matches_torch(kw):
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    x = RNG.standard_normal((2, 3, 7, 8))
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, ref = F.avg_pool2d(ours, **kw), torch.nn.functional.avg_pool2d(theirs, **kw)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12)
    g = RNG.standard_normal(ref.shape)
    out.backward(tg.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("size", [(3, 5), (4, None), 1, (7, 8), (2, 3), (5, 6)])
def test_adaptive_avg_pool2d_matches_torch(size):
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    x = RNG.standard_normal((2, 3, 7, 8))
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = F.adaptive_avg_pool2d(ours, size)
    ref = torch.nn.functional.adaptive_avg_pool2d(theirs, size)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_1d_pools_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch parity (optional)")
    x = RNG.standard_normal((2, 3, 10))
    for ours_fn, ref_fn, args in [
        (F.max_pool1d, torch.nn.functional.max_pool1d, (3, 2, 1, 2, True)),
        (F.avg_pool1d, torch.nn.functional.avg_pool1d, (3, 2, 1, True, False)),
    ]:
        ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out, ref = ours_fn(ours, *args), ref_fn(theirs, *args)
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-12)
        out.sum().backward()
        ref.sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
