"""F.triplet_margin_with_distance_loss and nn.TripletMarginWithDistanceLoss: any distance the
user passes (default pairwise_distance), swap, margin, reductions; values and gradients against
finite differences and PyTorch, the formula in the distances, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from helpers import check_grads, matches_pytorch, rand
from tapegrad import nn

A, P, N = rand(5, 3, seed=1), rand(5, 3, seed=2), rand(5, 3, seed=3)


def _l1(x, y):
    return (x - y).abs().sum(-1)


def _cosine_distance(m):
    return lambda x, y: 1.0 - m.nn.functional.cosine_similarity(x, y)


def _squared(x, y):
    return ((x - y) ** 2).sum(-1)


CASES = {
    "default": lambda m: {},
    "l1 swap": lambda m: {"distance_function": _l1, "swap": True},
    "cosine margin": lambda m: {"distance_function": _cosine_distance(m), "margin": 0.5},
    "squared none": lambda m: {"distance_function": _squared, "reduction": "none", "margin": 2.0},
    "pairwise module sum": lambda m: {
        "distance_function": m.nn.PairwiseDistance(p=3.0),
        "reduction": "sum",
        "swap": True,
    },
}


@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_match_pytorch(case):
    def fn(m, a, p, n):
        return m.nn.functional.triplet_margin_with_distance_loss(a, p, n, **CASES[case](m))

    # (second order where the distance is smooth: PyTorch's Hessian of abs is a ZeroTensor)
    matches_pytorch(fn, [A, P, N], second_order=case != "l1 swap")


@pytest.mark.parametrize("case", ["l1 swap", "squared none", "cosine margin"])
def test_gradients_match_finite_differences(case):
    kwargs = CASES[case](tg)
    check_grads(lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n, **kwargs), A, P, N)


def test_the_hinge_by_hand():
    a, p, n = (tg.tensor(v, requires_grad=True) for v in ([[0.0, 0.0]], [[0.0, 1.0]], [[3.0, 0.0]]))
    out = F.triplet_margin_with_distance_loss(a, p, n, distance_function=_l1, margin=3.0)
    assert out.item() == 1.0  # (3 + 1 - 3)
    out.backward()
    # dL/da = sign(a - p) - sign(a - n) = (0, -1) - (-1, 0); dL/dp = -sign(a - p);
    # dL/dn = sign(a - n)
    assert a.grad.tolist() == [[1.0, -1.0]]
    assert p.grad.tolist() == [[0.0, 1.0]] and n.grad.tolist() == [[-1.0, 0.0]]
    # swap: d(p, n) = 4 > d(a, n) = 3, so d(a, n) stays
    swapped = F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=_l1, margin=3.0, swap=True
    )
    assert swapped.item() == 1.0


def test_the_layer_and_its_distance_module():
    torch = pytest.importorskip("torch")
    loss = nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)
    ref = torch.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)
    assert isinstance(loss.distance_function, nn.PairwiseDistance)
    assert [n for n, _ in loss.named_children()] == [n for n, _ in ref.named_children()]
    ours = loss(*(tg.tensor(v) for v in (A, P, N)))
    theirs = ref(*(torch.tensor(v) for v in (A, P, N)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    custom = nn.TripletMarginWithDistanceLoss(distance_function=_l1, reduction="none")
    assert custom(*(tg.tensor(v) for v in (A, P, N))).shape == (5,)


def test_the_formula_is_written_in_the_distances():
    text = tg.autograd.formula("F.triplet_margin_with_distance_loss")
    assert "out = max(0, margin + d_ap - d_an)" in text
    assert "dL/dd_ap = g * k / N" in text and "with swap=True: dL/dd_pn = -g * k * s / N" in text
    a, p, n = (tg.tensor(v, requires_grad=True) for v in (A, P, N))
    loss = F.triplet_margin_with_distance_loss(a, p, n, distance_function=_l1, swap=True)
    steps = tg.explain(loss, show=False)
    assert [s.op for s in steps].count("triplet_margin_with_distance_loss") == 1


def test_errors_are_pytorchs():
    a, p, n = (tg.tensor(v) for v in (A, P, N))
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_with_distance_loss(a, p, n, margin=0.0)
    with pytest.raises(ValueError, match="max is not a valid value for reduction"):
        F.triplet_margin_with_distance_loss(a, p, n, reduction="max")
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_with_distance_loss(a, p, n[0])
    with pytest.raises(TypeError):  # (keyword-only, as PyTorch's)
        F.triplet_margin_with_distance_loss(a, p, n, _l1)  # type: ignore[misc]
    with pytest.raises(TypeError, match="must return a tapegrad Tensor"):
        F.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda x, y: 1.0)
    with pytest.raises(TypeError, match="distance_function must be a function"):
        F.triplet_margin_with_distance_loss(a, p, n, distance_function="l1")  # type: ignore
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=-1.0)
