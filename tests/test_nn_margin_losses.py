"""The margin, embedding, divergence and likelihood losses (F.margin_ranking_loss, ..., kl_div,
poisson_nll_loss, gaussian_nll_loss) and their layers: PyTorch's gradient at each hinge's kink,
second-order gradchecks of the smooth ones, reductions, errors and layers. (Values and gradients
on ordinary inputs are compared with PyTorch's in test_composites.py's table of calls.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad.autograd import gradcheck, gradgradcheck

R = np.random.default_rng(3)
SIGNS = tg.tensor(np.sign(R.standard_normal((3, 4))))
PROBS = tg.tensor(R.uniform(0, 1, (3, 4)))


def t(values, grad: bool = True) -> tg.Tensor:
    return tg.tensor(np.asarray(values, np.float64), requires_grad=grad)


def grads(loss: tg.Tensor, *xs: tg.Tensor) -> list:
    return [g.tolist() for g in tg.autograd.grad(loss, list(xs))]


def test_each_hinge_passes_the_gradient_at_its_kink_as_pytorch() -> None:
    # clamp_min in PyTorch: the gradient passes where the hinge is exactly 0
    a, b = t([1.0, 1.0]), t([1.0, 1.0])
    loss = F.margin_ranking_loss(a, b, t([1.0, -1.0], False), reduction="sum")
    assert grads(loss, a, b) == [[-1.0, 1.0], [1.0, -1.0]]
    x = t([1.0, 0.5])
    loss = F.hinge_embedding_loss(x, t([-1.0, -1.0], False), margin=1.0, reduction="sum")
    assert grads(loss, x) == [[-1.0, -1.0]]
    a, p, n = t([[0.0, 0.0]]), t([[0.0, 1.0]]), t([[2.0, 0.0]])
    assert grads(F.triplet_margin_loss(a, p, n, eps=0.0), a, p, n) == [
        [[1.0, -1.0]],
        [[0.0, 1.0]],
        [[-1.0, 0.0]],
    ]
    # multi_margin_loss's kernel: only where the hinge is > 0
    x = t([[1.0, 0.0, 0.5]])
    loss = F.multi_margin_loss(x, tg.tensor([0]), reduction="sum")
    assert grads(loss, x) == [[pytest.approx([-1 / 3, 0.0, 1 / 3])]]


def test_soft_margin_losses_are_stable_and_exact() -> None:
    x = t([0.0, 800.0, -800.0])
    loss = F.soft_margin_loss(x, t([1.0, -1.0, 1.0], False), reduction="none")
    assert loss.tolist() == [pytest.approx(np.log(2)), 800.0, 800.0]
    assert grads(loss.sum(), x) == [[-0.5, 1.0, -1.0]]
    big = t([[800.0, -800.0]])
    target = t([[0.0, 1.0]], False)
    assert F.multilabel_soft_margin_loss(big, target).item() == 800.0


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: F.soft_margin_loss(x, SIGNS) + F.soft_margin_loss(y, SIGNS),
        lambda x, y: F.multilabel_soft_margin_loss(x + y, PROBS),
        lambda x, y: F.kl_div(x, y.sigmoid(), reduction="batchmean"),
        lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True),
        lambda x, y: F.poisson_nll_loss(x, y.exp(), full=True),
        lambda x, y: F.poisson_nll_loss(x.exp(), y, log_input=False),
        lambda x, y: F.gaussian_nll_loss(x, y, x.exp(), full=True),
        lambda x, y: F.cosine_embedding_loss(x, y, tg.tensor([1.0, -1.0, 1.0]), margin=-0.5),
    ],
    ids=["soft", "multilabel", "kl", "kl-log", "poisson", "poisson-rates", "gaussian", "cosine"],
)
def test_smooth_losses_gradcheck_to_second_order(fn) -> None:
    x, y = t(R.standard_normal((3, 4))), t(R.standard_normal((3, 4)))
    assert gradcheck(fn, (x, y)) and gradgradcheck(fn, (x, y))


def test_kl_div_reductions_and_zero_targets() -> None:
    x, y = t([[-1.0, -2.0], [-0.5, -3.0]]), t([[0.0, 0.5], [0.25, 0.25]])
    pointwise = np.where(
        y.numpy() > 0, y.numpy() * (np.log(np.maximum(y.numpy(), 1e-300)) - x.numpy()), 0
    )
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        assert F.kl_div(x, y).item() == pytest.approx(pointwise.mean())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.kl_div(x, y, reduction="batchmean").item() == pytest.approx(pointwise.sum() / 2)
        assert F.kl_div(x, y, reduction="none").shape == (2, 2)
    # at a zero target y log y's part of the gradient is taken as 0 (PyTorch's is NaN there,
    # from xlogy's rule; the one-sided derivative is -inf): only -x remains
    (gy,) = tg.autograd.grad(F.kl_div(x, y, reduction="sum"), [y])
    assert gy.numpy()[0, 0] == 1.0 and np.isfinite(gy.numpy()).all()
    with pytest.raises(ValueError, match="reduction must be"):
        F.kl_div(x, y, reduction="foo")


def test_gaussian_nll_variance_shapes_and_clamp() -> None:
    x, y = t(R.standard_normal((4, 3))), t(R.standard_normal((4, 3)), False)
    per_sample = t(R.uniform(0.5, 2.0, 4))
    shared = F.gaussian_nll_loss(x, y, per_sample.unsqueeze(-1))
    assert F.gaussian_nll_loss(x, y, per_sample).item() == pytest.approx(shared.item())
    assert F.gaussian_nll_loss(x, y, 1.0).item() == pytest.approx(
        0.5 * ((x.numpy() - y.numpy()) ** 2).mean()
    )
    tiny = t(np.full((4, 3), 1e-9))
    (g,) = tg.autograd.grad(F.gaussian_nll_loss(x, y, tiny, eps=1e-3, reduction="sum"), [tiny])
    d2 = (x.numpy() - y.numpy()) ** 2
    np.testing.assert_allclose(g.numpy(), 0.5 * (1 / 1e-3 - d2 / 1e-6))  # (the clamp: value only)
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, y, -per_sample)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(x, y, t(np.ones((3, 4))))


def test_errors_are_clear() -> None:
    x = t(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="same dimension"):
        F.margin_ranking_loss(t([1.0, 2.0]), t([[1.0], [2.0]]), t([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, tg.tensor([0, 3]))
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(x, tg.tensor([0, 1]), p=3)
    with pytest.raises(ValueError, match="integer class indices"):
        F.multi_margin_loss(x, t([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        F.cosine_embedding_loss(x, x, tg.tensor([[1.0], [1.0]]))
    with pytest.raises(RuntimeError, match="1D target expects 2D inputs"):
        F.cosine_embedding_loss(t([1.0, 2.0]), t([1.0, 2.0]), tg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="anchor 2D, positive 1D"):
        F.triplet_margin_loss(x, t([1.0, 2.0, 3.0]), x)
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_loss(x, x, x, margin=0.0)
    with pytest.raises(TypeError, match="must be a tapegrad Tensor"):
        F.soft_margin_loss(np.ones(2), t([1.0, 1.0]))


def test_layers_call_their_functions() -> None:
    nn = tg.nn
    x1, x2 = t(R.standard_normal((4, 3))), t(R.standard_normal((4, 3)))
    y = tg.tensor([1.0, -1.0, 1.0, -1.0])
    y43 = t(np.sign(R.standard_normal((4, 3))), False)
    classes = tg.tensor([0, 2, 1, 2])
    w = np.array([0.5, 1.0, 2.0])
    cases = [
        (nn.MarginRankingLoss(0.2)(x1, x2, y43), F.margin_ranking_loss(x1, x2, y43, 0.2)),
        (nn.HingeEmbeddingLoss(0.5)(x1, y43), F.hinge_embedding_loss(x1, y43, 0.5)),
        (nn.SoftMarginLoss(reduction="sum")(x1, y43), F.soft_margin_loss(x1, y43, reduction="sum")),
        (
            nn.MultiLabelSoftMarginLoss(w)(x1, y43.abs()),
            F.multilabel_soft_margin_loss(x1, y43.abs(), w),
        ),
        (nn.MultiMarginLoss(2, 0.5, w)(x1, classes), F.multi_margin_loss(x1, classes, 2, 0.5, w)),
        (nn.CosineEmbeddingLoss(0.1)(x1, x2, y), F.cosine_embedding_loss(x1, x2, y, 0.1)),
        (
            nn.TripletMarginLoss(swap=True)(x1, x2, x1 * 2),
            F.triplet_margin_loss(x1, x2, x1 * 2, swap=True),
        ),
        (
            nn.KLDivLoss(reduction="batchmean", log_target=True)(x1, x2),
            F.kl_div(x1, x2, reduction="batchmean", log_target=True),
        ),
        (nn.PoissonNLLLoss(full=True)(x1, x2.abs()), F.poisson_nll_loss(x1, x2.abs(), full=True)),
        (nn.GaussianNLLLoss()(x1, x2, x1.exp()), F.gaussian_nll_loss(x1, x2, x1.exp())),
    ]
    for got, want in cases:
        assert got.item() == pytest.approx(want.item(), rel=1e-14)
    assert [name for name, _ in nn.MultiMarginLoss(weight=w).named_buffers()] == ["weight"]
    assert repr(nn.KLDivLoss(reduction="batchmean")) == "KLDivLoss()"  # (as PyTorch's)
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(TypeError):
        nn.GaussianNLLLoss(True)  # (keyword-only, as PyTorch's)


@pytest.mark.parametrize(
    "name",
    [
        "MarginRankingLoss",
        "HingeEmbeddingLoss",
        "SoftMarginLoss",
        "MultiLabelSoftMarginLoss",
        "MultiMarginLoss",
        "CosineEmbeddingLoss",
        "TripletMarginLoss",
    ],
)
def test_margin_loss_signatures_and_options_are_pytorchs(name):
    # the shared bases (_MarginLoss, losses._WeightedLoss) keep each class's own signature
    import inspect

    torch = pytest.importorskip("torch")
    ours, theirs = getattr(tg.nn, name), getattr(torch.nn, name)
    mine, yours = inspect.signature(ours).parameters, inspect.signature(theirs).parameters
    assert list(mine) == list(yours)
    assert [p.default for p in mine.values()] == [p.default for p in yours.values()]
    a, b = ours(reduction="sum"), theirs(reduction="sum")
    for option in ("margin", "p", "eps", "swap", "reduction"):
        assert getattr(a, option, None) == getattr(b, option, None), option
    assert (getattr(a, "weight", None) is None) == (getattr(b, "weight", None) is None)


MULTILABEL = {
    "targets ended by -1": ([[0.1, 0.2, 0.4, 0.8]], [[3, 0, -1, 1]]),
    "a hinge exactly at 0": ([[0.0, 1.0, 0.5]], [[1, -1, 0]]),
    "no target, all targets, a repeated one": (
        [[0.3, -0.2, 0.9], [0.5, 0.1, -0.4], [0.2, 0.7, 0.0]],
        [[-1, 0, 1], [0, 1, 2], [2, 2, -1]],
    ),
    "one sample, unbatched": ([0.3, -1.2, 0.5, 0.1], [2, 1, -1, 0]),
}


@pytest.mark.parametrize("case", MULTILABEL)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_equals_pytorchs(case, reduction) -> None:
    torch = pytest.importorskip("torch")
    x, y = (np.array(v) for v in MULTILABEL[case])
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got = F.multilabel_margin_loss(ours, tg.tensor(y), reduction=reduction)
    want = torch.nn.functional.multilabel_margin_loss(theirs, torch.tensor(y), reduction=reduction)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_multilabel_margin_loss_closed_form_layer_and_errors() -> None:
    x, y = tg.tensor([[0.1, 0.2, 0.4, 0.8]], requires_grad=True), tg.tensor([[3, 0, -1, 1]])
    loss = tg.nn.MultiLabelMarginLoss()(x, y)  # (hinges 0.4, 0.6, 1.1, 1.3 over 4 classes)
    assert abs(loss.item() - 0.85) < 1e-6
    loss.backward()
    assert x.grad.tolist() == [[-0.5, 0.5, 0.5, -0.5]]
    empty = F.multilabel_margin_loss(tg.zeros(0, 4), tg.zeros((0, 4), dtype=tg.int64))
    assert empty.item() == 0.0  # (no sample: 0, as PyTorch, not 0 / 0)
    with pytest.raises(RuntimeError, match="'target' is out of range"):
        F.multilabel_margin_loss(tg.zeros(1, 3), tg.tensor([[0, 3, -1]]))
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        F.multilabel_margin_loss(tg.zeros(1, 3), tg.tensor([0, 1, -1]))
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        F.multilabel_margin_loss(tg.zeros(1, 3), tg.tensor([[0.0, 1.0, -1.0]]))
    with pytest.raises(RuntimeError, match="Expected non-empty vector or matrix"):
        F.multilabel_margin_loss(tg.zeros(2, 3, 4), tg.zeros((2, 3, 4), dtype=tg.int64))
