"""Embedding, F.embedding and F.one_hot: lookups, padding_idx, from_pretrained, max_norm,
scale_grad_by_freq, errors, PyTorch parity."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def test_lookup_shapes_init_and_gradient():
    tg.manual_seed(0)
    emb = nn.Embedding(10, 3)
    assert emb.weight.shape == (10, 3) and emb.weight.dtype == np.float32
    w = emb.weight.numpy()
    assert abs(w.mean()) < 0.8 and 0.4 < w.std() < 1.6  # N(0, 1) init
    idx = np.array([[1, 4, 1], [0, 9, 1]])
    out = emb(tg.tensor(idx))
    assert out.shape == (2, 3, 3) and np.array_equal(out.numpy(), w[idx])
    assert emb(tg.tensor(4)).shape == (3,) and emb(np.array([2, 3])).shape == (2, 3)
    assert emb(tg.tensor(np.array([5], np.int32))).shape == (1, 3)
    g = np.arange(18.0).reshape(2, 3, 3)
    out.backward(tg.tensor(g, dtype=tg.float32))
    want = np.zeros((10, 3))
    np.add.at(want, idx, g)  # repeated indices add up
    assert np.allclose(emb.weight.grad.numpy(), want)
    weight = tg.tensor(np.random.default_rng(0).standard_normal((5, 2)), requires_grad=True)
    assert gradgradcheck(lambda w: F.embedding(tg.tensor([[0, 3], [3, 3]]), w) ** 2, (weight,))
    assert repr(nn.Embedding(10, 3, padding_idx=0, max_norm=2.0)) == (
        "Embedding(10, 3, padding_idx=0, max_norm=2.0)"
    )


def test_padding_idx_row_starts_at_zero_and_gets_no_gradient():
    emb = nn.Embedding(6, 2, padding_idx=-1)
    assert emb.padding_idx == 5 and np.array_equal(emb.weight.numpy()[5], [0.0, 0.0])
    idx = tg.tensor([[5, 1, 5], [2, 5, 1]])
    out = emb(idx)
    assert np.array_equal(out.numpy()[0, 0], [0.0, 0.0])
    out.sum().backward()
    grad = emb.weight.grad.numpy()
    assert np.array_equal(grad[5], [0.0, 0.0]) and np.array_equal(grad[1], [2.0, 2.0])
    weight = tg.tensor(np.ones((4, 2)), requires_grad=True)
    out = F.embedding(tg.tensor([0, 2, 3, 2]), weight, padding_idx=2)
    assert np.array_equal(out.numpy(), np.ones((4, 2)))  # (values as usual: only gradients differ)
    (out * 2.0).sum().backward()
    assert weight.grad.numpy()[:, 0].tolist() == [2.0, 0.0, 0.0, 2.0]
    frozen_rows = tg.tensor(np.ones((3, 2)), requires_grad=True)
    assert gradcheck(lambda w: F.embedding(tg.tensor([0, 1, 0]), w, padding_idx=2), (frozen_rows,))
    with pytest.raises(
        ValueError, match=r"padding_idx must be within num_embeddings: -6 <= padding_idx < 6, got 6"
    ):
        nn.Embedding(6, 2, padding_idx=6)


def test_from_pretrained_freezes_and_keeps_the_rows():
    table = tg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    emb = nn.Embedding.from_pretrained(table, padding_idx=1)
    assert not emb.weight.requires_grad and emb.padding_idx == 1
    assert emb(tg.tensor([1])).tolist() == [[3.0, 4.0]]  # the padding row is kept as given
    assert emb.weight is not table and emb.trainable_params() == []
    trainable = nn.Embedding.from_pretrained(table, freeze=False)
    assert trainable.weight.requires_grad and repr(trainable) == "Embedding(3, 2)"
    with pytest.raises(ValueError, match="expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(tg.ones(3))


def test_max_norm_and_scale_grad_by_freq():
    weight = tg.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    out = F.embedding(tg.tensor([1, 1, 3]), weight, max_norm=1.0)
    rows = np.arange(12.0).reshape(4, 3)
    for r in (1, 3):  # looked-up rows are rescaled in place to norm max_norm (PyTorch's epsilon)
        rows[r] *= 1.0 / (np.linalg.norm(rows[r]) + 1e-7)
    assert np.allclose(weight.numpy(), rows) and np.allclose(out.numpy(), rows[[1, 1, 3]])
    weight = tg.tensor(np.ones((4, 3)), requires_grad=True)
    out = F.embedding(tg.tensor([1, 1, 3, 1]), weight, scale_grad_by_freq=True)
    assert np.array_equal(out.numpy(), np.ones((4, 3)))
    out.sum().backward()
    assert np.allclose(weight.grad.numpy()[:, 0], [0.0, 1.0, 0.0, 1.0])  # 3 lookups, each / 3
    with pytest.raises(ValueError, match="sparse gradients are not supported"):
        nn.Embedding(3, 2, sparse=True)


def test_bad_indices_are_clear_errors():
    emb = nn.Embedding(5, 2)
    with pytest.raises(
        IndexError,
        match=r"Embedding: index 5 is out of range for 5 embeddings \(valid indices are 0..4\) "
        r"in indices of shape \(2,\)",
    ):
        emb(tg.tensor([1, 5]))
    with pytest.raises(IndexError, match="index -1 is out of range"):
        emb(tg.tensor([-1]))
    with pytest.raises(
        TypeError, match=r"Embedding: indices must be integers .* dtype float32 and shape \(1,\)"
    ):
        emb(tg.tensor([1.0]))
    with pytest.raises(TypeError, match="indices must be integers"):
        F.embedding(tg.tensor([True]), tg.ones(3, 2))
    with pytest.raises(ValueError, match="weight must be a 2-D tensor"):
        F.embedding(tg.tensor([0]), tg.ones(3))


def test_one_hot():
    got = F.one_hot(tg.tensor([[0, 2], [1, 1]]), 4)
    assert got.dtype == np.int64 and got.shape == (2, 2, 4)
    assert np.array_equal(got.numpy(), np.eye(4, dtype=np.int64)[[[0, 2], [1, 1]]])
    assert F.one_hot(tg.tensor([3, 0])).shape == (2, 4)  # num_classes = max + 1
    assert F.one_hot(tg.tensor(np.zeros(0, np.int64)), 3).shape == (0, 3)
    with pytest.raises(ValueError, match="smaller than num_classes=3, got 3"):
        F.one_hot(tg.tensor([0, 3]), 3)
    with pytest.raises(ValueError, match="non-negative"):
        F.one_hot(tg.tensor([0, -1]), 3)
    with pytest.raises(TypeError, match="integer class indices, got dtype float32"):
        F.one_hot(tg.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="empty tensor"):
        F.one_hot(tg.tensor(np.zeros(0, np.int64)))


def test_embedding_matches_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")
    rng = np.random.default_rng(2)
    table = rng.standard_normal((6, 3))
    idx = np.array([[1, 2, 1], [0, 5, 1]])
    g = rng.standard_normal((2, 3, 3))
    options = [
        {},
        {"padding_idx": 1},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"padding_idx": 1, "scale_grad_by_freq": True},
        {"max_norm": 1.0},
        {"max_norm": 0.5, "norm_type": 1.0},
    ]
    for kwargs in options:
        tw, gw = torch.tensor(table, requires_grad=True), tg.tensor(table, requires_grad=True)
        ty = torch.nn.functional.embedding(torch.tensor(idx), tw, **kwargs)
        gy = F.embedding(tg.tensor(idx), gw, **kwargs)
        ty.backward(torch.tensor(g))
        gy.backward(tg.tensor(g))
        assert np.allclose(gy.numpy(), ty.detach().numpy()), kwargs
        assert np.allclose(gw.grad.numpy(), tw.grad.numpy()), kwargs
        assert np.allclose(gw.numpy(), tw.detach().numpy()), kwargs
    t_onehot = torch.nn.functional.one_hot(torch.tensor([[0, 2], [1, 1]]), 4).numpy()
    assert np.array_equal(F.one_hot(tg.tensor([[0, 2], [1, 1]]), 4).numpy(), t_onehot)


@pytest.mark.parametrize(
    "num, index_shape, width",
    [(65, (12, 64), 128), (10, (300,), 3), (7, (400,), None), (5, (20, 30), 2)],
)
def test_many_lookups_sum_their_gradients_as_add_at(num, index_shape, width):
    """From 256 looked-up rows the gradient is summed by sorting (primitives/shape.py): the
    same sums as np.add.at, negative indices included, through a tuple index too."""
    rng = np.random.default_rng(0)
    idx = rng.integers(-num, num, index_shape)
    row = () if width is None else (width,)
    g = rng.standard_normal(index_shape + row)
    expected = np.zeros((num,) + row)
    np.add.at(expected, idx, g)
    for index in (idx, (idx,)):
        w = tg.zeros((num,) + row, dtype=tg.float64, requires_grad=True)
        (w[index] * tg.tensor(g)).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-12, atol=1e-12)
    emb = tg.nn.Embedding(num, 3).to(tg.float64)
    upstream = rng.standard_normal(index_shape + (3,))
    (emb(tg.tensor(idx % num)) * tg.tensor(upstream)).sum().backward()
    expected = np.zeros((num, 3))
    np.add.at(expected, idx % num, upstream)
    np.testing.assert_allclose(emb.weight.grad.numpy(), expected, rtol=1e-12, atol=1e-12)
