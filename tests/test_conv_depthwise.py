"""Depthwise convolution at stride 1 by shifted multiply-adds (primitives/depthwise.py): which convs
take it, its values and gradients equal to the columns path's, second order, float32 kept, samples
in chunks, and PyTorch's values and gradients where installed."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.nn import functional_conv as F
from tapegrad.primitives import depthwise

RNG = np.random.default_rng(3)

CONFIGS = [  # (x shape, kernel, conv2d keywords): groups = channels, one filter each
    ((2, 3, 5, 6), (3, 3), dict(padding=1)),
    ((1, 4, 6, 5), (2, 3), dict(padding=(2, 0), dilation=(1, 2))),
    ((3, 2, 7, 7), (5, 5), dict(padding="same")),
    ((2, 3, 4, 6), (1, 3), dict(padding="valid")),
    ((2, 2, 6, 6), (3, 2), dict(padding=(1, 2), dilation=2)),
]


def t64(*shape):
    return tg.tensor(RNG.standard_normal(shape), requires_grad=True)


def conv_and_grads(x, w, b, kw):
    """The conv's output and (x, w, b)'s gradients under the upstream gradient `up`."""
    for t in (x, w, b):
        t.grad = None
    out = F.conv2d(x, w, b, groups=x.shape[1], **kw)
    up = np.cos(np.arange(out.numpy().size)).reshape(out.shape)
    out.backward(tg.tensor(up, dtype=out.dtype))
    return [out.numpy()] + [t.grad.numpy() for t in (x, w, b)]


@pytest.mark.parametrize("xs,kernel,kw", CONFIGS)
def test_equal_to_the_columns_path_values_and_gradients(xs, kernel, kw, monkeypatch):
    x, w, b = t64(*xs), t64(xs[1], 1, *kernel), t64(xs[1])
    taken = []
    fits = depthwise.fits
    monkeypatch.setattr(depthwise, "fits", lambda *a: taken.append(fits(*a)) or fits(*a))
    got = conv_and_grads(x, w, b, kw)
    assert taken and all(taken)  # (forward, weight gradient, input gradient's transposed conv)
    monkeypatch.setattr(depthwise, "fits", lambda *a: False)
    for a, b_ in zip(got, conv_and_grads(x, w, b, kw)):
        assert a.shape == b_.shape
        np.testing.assert_allclose(a, b_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xs,kernel,kw", CONFIGS[:3])
def test_gradients_to_second_order(xs, kernel, kw):
    x, w, b = t64(*xs), t64(xs[1], 1, *kernel), t64(xs[1])

    def fn(x, w, b):
        return F.conv2d(x, w, b, groups=x.shape[1], **kw)

    assert tg.autograd.gradcheck(fn, (x, w, b))
    assert tg.autograd.gradgradcheck(fn, (x, w, b))


def test_which_convolutions_take_it():
    x = np.zeros((2, 4, 5, 5), np.float32)
    assert depthwise.fits(x, (4, 1, 3, 3), (1, 1), 4, np.float32)
    assert not depthwise.fits(x, (4, 1, 3, 3), (2, 1), 4, np.float32)  # strided
    assert not depthwise.fits(x, (8, 1, 3, 3), (1, 1), 4, np.float32)  # two filters per channel
    assert not depthwise.fits(x, (4, 2, 3, 3), (1, 1), 2, np.float32)  # two channels per group
    assert not depthwise.fits(x, (4, 1, 1, 1), (1, 1), 4, np.float32)  # 1x1: nothing to shift
    assert not depthwise.fits(x[:0], (4, 1, 3, 3), (1, 1), 4, np.float32)  # empty batch


def test_float32_stays_float32_and_chunks_cover_the_batch(monkeypatch):
    x = tg.tensor(RNG.standard_normal((5, 3, 6, 6)).astype(np.float32), requires_grad=True)
    conv = tg.nn.Conv2d(3, 3, 3, padding=1, groups=3)
    whole = conv(x)
    monkeypatch.setattr(depthwise, "_CHUNK", 1)  # one sample at a time
    out = conv(x)
    np.testing.assert_array_equal(out.numpy(), whole.numpy())
    out.sum().backward()
    assert out.dtype == x.grad.dtype == conv.weight.grad.dtype == np.float32


@pytest.mark.parametrize("xs,kernel,kw", CONFIGS)
def test_as_pytorch(xs, kernel, kw):
    torch = pytest.importorskip("torch")
    x, w, b = t64(*xs), t64(xs[1], 1, *kernel), t64(xs[1])
    got = conv_and_grads(x, w, b, kw)
    tx, tw, tb = (torch.tensor(t.numpy(), requires_grad=True) for t in (x, w, b))
    out = torch.nn.functional.conv2d(tx, tw, tb, groups=xs[1], **kw)
    out.backward(torch.tensor(np.cos(np.arange(out.numel())).reshape(out.shape)))
    for a, want in zip(got, [out, tx.grad, tw.grad, tb.grad]):
        np.testing.assert_allclose(a, want.detach().numpy(), rtol=1e-10, atol=1e-12)
