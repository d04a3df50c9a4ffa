"""Batch norm in training with its affine runs as ONE node, affine_normalize, whose backward on
arrays is the closed form (primitives/fused_normalization.py): equal to the composite it replaces
(normalize, * w, + b) to second order, to PyTorch in float32 and float64, across the few-samples-
at-a-time chunks of its kernels, and when its backward runs again after g changed in place."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

F = tg.nn.functional

# (several chunks of the kernels' scratch arrays, in float64: 73 KB a sample, 256 KB a chunk)
BIG = (7, 4, 48, 48)


def _composite(x, w, b, eps=1e-5):
    """Training batch norm as separate ops (the reference the fused node replaces)."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    centered = x - x.mean(axes, keepdims=True)
    xhat = centered / ((centered * centered).mean(axes, keepdims=True) + eps).sqrt()
    return xhat * w.reshape(shape) + b.reshape(shape)


def _fused(x, w, b):
    return F.batch_norm(x, None, None, w, b, training=True)


def _data(shape, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    c = shape[1]
    arrays = (
        rng.standard_normal(shape) * 3 + 2,  # (an offset: the centering matters)
        rng.uniform(0.5, 1.5, c),
        rng.standard_normal(c),
        rng.standard_normal(shape),
    )
    return [a.astype(dtype) for a in arrays]


def test_one_node_with_the_affine_and_the_composite_without_it():
    x, w, b, _ = _data((4, 3, 2, 2))
    xt = tg.tensor(x, requires_grad=True)
    out = _fused(xt, tg.tensor(w, requires_grad=True), tg.tensor(b, requires_grad=True))
    assert out.grad_fn.name == "AffineNormalizeBackward"
    plain = F.batch_norm(xt, None, None, training=True)  # (no affine: normalize alone)
    assert plain.grad_fn.name == "NormalizeBackward"


@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 2, 2)])
def test_gradcheck_to_second_order(shape):
    x, w, b, _ = _data(shape, seed=1)
    inputs = [tg.tensor(a, requires_grad=True) for a in (x, w, b)]
    assert gradcheck(_fused, inputs)
    assert gradgradcheck(_fused, inputs)


@pytest.mark.parametrize("shape", [(5, 3), (3, 2, 5), BIG])
def test_equals_the_composite_to_second_order(shape):
    x, w, b, g = _data(shape, seed=2)
    rng = np.random.default_rng(5)
    v = [rng.standard_normal(a.shape) for a in (x, w, b)]  # (directions for the second order)
    results = []
    for fn in (_fused, _composite):
        leaves = [tg.tensor(a, requires_grad=True) for a in (x, w, b)]
        out = fn(*leaves)
        first = tg.autograd.grad(out, leaves, tg.tensor(g), create_graph=True)
        inner = sum((d * tg.tensor(u)).sum() for d, u in zip(first, v))
        second = tg.autograd.grad(inner, leaves, materialize_grads=True)
        results.append([out, *first, *second])
    for got, want in zip(*results):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("rows_max", [None, 1])  # (per-channel rows a sample long; broadcast)
def test_plain_backward_equals_the_composite_over_several_chunks(rows_max, monkeypatch):
    from tapegrad.primitives import normalization

    if rows_max is not None:  # (samples over the size where channel_rows spreads the constants)
        monkeypatch.setattr(normalization, "_ROWS_MAX", rows_max)
    x, w, b, g = _data(BIG, seed=3)
    row = normalization.channel_rows(np.ones((1, 4, 1, 1)), x)
    assert row.shape == ((1, 4, 1, 1) if rows_max else (1,) + BIG[1:])
    results = []
    for fn in (_fused, _composite):
        leaves = [tg.tensor(a, requires_grad=True) for a in (x, w, b)]
        out = fn(*leaves)
        out.backward(tg.tensor(g))
        results.append([out.numpy()] + [t.grad.numpy() for t in leaves])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-11)


def test_run_again_after_g_changed_in_place_and_with_parts_frozen():
    """The per-node sums are reused within one backward only: a second backward of the same
    node (retain_graph) with g changed in place in between sees the new g."""
    x, w, b, g = _data((3, 2, 4, 4), seed=4)
    for frozen in ((), ("x",), ("b",), ("x", "b")):
        leaves = {
            name: tg.tensor(a, requires_grad=name not in frozen)
            for name, a in zip("xwb", (x, w, b))
        }
        out = _fused(*leaves.values())
        gt = tg.tensor(g.copy())
        out.backward(gt, retain_graph=True)
        first = {n: t.grad.numpy().copy() for n, t in leaves.items() if t.requires_grad}
        gt.numpy()[...] *= -2.0  # (in place: the same array object)
        for t in leaves.values():
            t.grad = None
        out.backward(gt)
        for name, grad in first.items():
            np.testing.assert_allclose(leaves[name].grad.numpy(), -2.0 * grad, rtol=1e-12)


# ---- PyTorch parity ----------------------------------------------------------------------------
def _torch():
    return pytest.importorskip("torch", reason="PyTorch parity checks need torch")


@pytest.mark.parametrize("shape", [(32, 16, 16, 16), (6, 3, 10)])
def test_float32_matches_pytorch_with_running_statistics(shape):
    torch = _torch()
    x, w, b, g = _data(shape, seed=6, dtype=np.float32)
    layer = "BatchNorm2d" if len(shape) == 4 else "BatchNorm1d"
    ours, theirs = getattr(tg.nn, layer)(shape[1]), getattr(torch.nn, layer)(shape[1])
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(w))
        theirs.bias.copy_(torch.from_numpy(b))
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    xt, tx = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, want = ours(xt), theirs(tx)
    out.backward(tg.tensor(g))
    want.backward(torch.from_numpy(g))
    assert out.dtype == xt.grad.dtype == ours.weight.grad.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-2)
    for name, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), value.numpy(), rtol=1e-5)


def test_second_order_matches_pytorch():
    torch = _torch()
    x, w, b, g = _data((4, 3, 5, 3), seed=7)
    v = np.random.default_rng(8).standard_normal(x.shape)
    found = []
    for lib, fn in ((tg, _fused), (torch, torch.nn.functional.batch_norm)):
        leaves = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        if lib is torch:
            out = fn(leaves[0], None, None, leaves[1], leaves[2], training=True)
        else:
            out = fn(*leaves)
        (dx,) = lib.autograd.grad(out, [leaves[0]], lib.tensor(g), create_graph=True)
        second = lib.autograd.grad((dx * lib.tensor(v)).sum(), leaves, materialize_grads=True)
        found.append([dx.detach().numpy(), *(s.detach().numpy() for s in second)])
    for got, want in zip(*found):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)
