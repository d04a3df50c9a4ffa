"""Distances and similarities (F.cosine_similarity, pairwise_distance, pdist) and their layers:
values and gradients against PyTorch (PyTorch 2's clamp of each norm in cosine_similarity, eps
added to pairwise differences), second-order gradchecks, zero vectors, reprs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad.autograd import gradcheck, gradgradcheck

R = np.random.default_rng(11)
A, B = R.standard_normal((4, 5)), R.standard_normal((4, 5))

CALLS = [
    ("cosine", lambda F, x, y: F.cosine_similarity(x, y)),
    ("cosine-dim0", lambda F, x, y: F.cosine_similarity(x, y, dim=0, eps=1e-3)),
    ("cosine-broadcast", lambda F, x, y: F.cosine_similarity(x[:1], y, dim=-1)),
    ("pairwise", lambda F, x, y: F.pairwise_distance(x, y)),
    ("pairwise-p1-keepdim", lambda F, x, y: F.pairwise_distance(x, y, 1.0, keepdim=True)),
    ("pairwise-inf", lambda F, x, y: F.pairwise_distance(x, y, float("inf"))),
    ("pairwise-negative-p", lambda F, x, y: F.pairwise_distance(x, y, -1.5)),
    ("pdist", lambda F, x, y: F.pdist(x) + F.pdist(y, 3.0)),
    ("pdist-p1", lambda F, x, y: F.pdist(x - y, 1.0)),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("scale", [1.0, 1e-9], ids=["ordinary", "tiny-x"])
def test_values_and_gradients_equal_pytorchs(name, call, scale) -> None:
    torch = pytest.importorskip("torch")
    x, y = tg.tensor(A * scale, requires_grad=True), tg.tensor(B, requires_grad=True)
    tx, ty = torch.tensor(A * scale, requires_grad=True), torch.tensor(B, requires_grad=True)
    out, want = call(F, x, y), call(torch.nn.functional, tx, ty)
    assert out.shape == tuple(want.shape)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-15)
    weights = np.linspace(0.5, 1.5, out.size).reshape(out.shape)
    (out * tg.tensor(weights)).sum().backward()
    (want * torch.tensor(weights)).sum().backward()
    for ours, theirs in ((x, tx), (y, ty)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "name,call", CALLS[:5] + CALLS[7:], ids=[c[0] for c in CALLS[:5] + CALLS[7:]]
)
def test_gradcheck_to_second_order(name, call) -> None:
    x, y = tg.tensor(A, requires_grad=True), tg.tensor(B, requires_grad=True)
    assert gradcheck(lambda u, v: call(F, u, v), (x, y))
    assert gradgradcheck(lambda u, v: call(F, u, v), (x, y))


def test_zero_vectors_give_finite_values_and_gradients() -> None:
    zero = tg.tensor(np.zeros((2, 3)), requires_grad=True)
    other = tg.tensor(np.ones((2, 3)), requires_grad=True)
    similarity = F.cosine_similarity(zero, other)
    assert similarity.tolist() == [0.0, 0.0]
    similarity.sum().backward()
    assert np.isfinite(zero.grad.numpy()).all()
    same = tg.tensor(np.ones((3, 2)), requires_grad=True)
    distances = F.pdist(same)
    assert distances.tolist() == [0.0, 0.0, 0.0]
    distances.sum().backward()
    assert same.grad.tolist() == [[0.0, 0.0]] * 3  # (a norm's gradient at 0 is 0)


def test_pdist_orders_the_pairs_as_the_upper_triangle() -> None:
    x = tg.tensor([[0.0], [1.0], [3.0], [7.0]])
    assert F.pdist(x).tolist() == [1.0, 3.0, 7.0, 2.0, 6.0, 4.0]
    assert F.pdist(tg.ones(1, 3)).shape == (0,)


def test_errors_are_clear() -> None:
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        F.pdist(tg.ones(3))
    with pytest.raises(RuntimeError, match="non-negative p"):
        F.pdist(tg.ones(2, 3), -1.0)
    with pytest.raises(ValueError, match="do not broadcast"):
        F.cosine_similarity(tg.ones(2, 3), tg.ones(2, 4))
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.cosine_similarity(tg.ones(2, 3), tg.ones(2, 3), dim=2)
    with pytest.raises(TypeError, match="x2 must be a tapegrad Tensor"):
        F.pairwise_distance(tg.ones(2), [1.0, 2.0])


def test_layers_call_their_functions_and_print_as_pytorchs() -> None:
    x, y = tg.tensor(A), tg.tensor(B)
    cosine, distance = tg.nn.CosineSimilarity(dim=0, eps=1e-6), tg.nn.PairwiseDistance(1.0, 0.0)
    np.testing.assert_array_equal(cosine(x, y).numpy(), F.cosine_similarity(x, y, 0, 1e-6).numpy())
    np.testing.assert_array_equal(
        distance(x, y).numpy(), F.pairwise_distance(x, y, 1.0, 0.0).numpy()
    )
    assert distance.norm == 1.0 and distance.eps == 0.0 and not distance.keepdim
    assert repr(tg.nn.CosineSimilarity()) == "CosineSimilarity()"
    assert repr(tg.nn.PairwiseDistance()) == "PairwiseDistance()"
