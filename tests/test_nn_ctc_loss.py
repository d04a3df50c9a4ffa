"""nn.CTCLoss and F.ctc_loss: values and gradients equal PyTorch's (reductions, blank,
zero_infinity, lengths as tensors or tuples, targets padded or concatenated, unbatched input,
impossible and empty alignments), a closed form by enumerating alignments, gradcheck and
gradgradcheck in float64, the layer's repr, errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn

RNG = np.random.default_rng(17)
X = RNG.standard_normal((7, 4, 5))
PADDED = np.array([[1, 1, 2, 3], [2, 2, 2, 2], [4, 3, 0, 0], [1, 0, 0, 0]])
LENGTHS = np.array([3, 4, 2, 0])
FRAMES = np.array([7, 6, 7, 3])  # (the second cannot spell 2, 2, 2, 2 in 6 steps: 7 needed)


def _concatenated(padded: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return np.concatenate([row[:n] for row, n in zip(padded, lengths)])


def _both(x: np.ndarray, targets, frames, lengths, as_tensors: bool = True, **kw):
    """(ours, theirs): the loss and the gradient in the logits x, through log_softmax."""
    torch = pytest.importorskip("torch")
    gx = tg.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    if as_tensors:
        ours_args = [tg.tensor(np.asarray(a)) for a in (targets, frames, lengths)]
    else:  # (targets as an array, the lengths as tuples)
        ours_args = [np.asarray(targets), *(tuple(int(v) for v in a) for a in (frames, lengths))]
    theirs_args = [torch.tensor(np.asarray(a)) for a in (targets, frames, lengths)]
    out = F.ctc_loss(gx.log_softmax(-1), *ours_args, **kw)
    want = torch.nn.functional.ctc_loss(tx.log_softmax(-1), *theirs_args, **kw)
    return (out, gx), (want, tx)


@pytest.mark.parametrize(
    "reduction, concatenated, as_tensors",
    list(itertools.product(["mean", "sum", "none"], [False, True], [True, False])),
)
def test_values_and_gradients_equal_pytorchs(reduction, concatenated, as_tensors) -> None:
    targets = _concatenated(PADDED, LENGTHS) if concatenated else PADDED
    (out, gx), (want, tx) = _both(
        X, targets, FRAMES, LENGTHS, as_tensors, reduction=reduction, zero_infinity=True
    )
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
    c = RNG.uniform(0.5, 1.5, tuple(want.shape))
    (out * tg.tensor(c)).sum().backward()
    (want * pytest.importorskip("torch").tensor(c)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_impossible_alignments_are_inf_or_zero_and_the_blank_can_move() -> None:
    (out, _), (want, _) = _both(X, PADDED, FRAMES, LENGTHS, reduction="none")
    assert np.isinf(out.numpy()[1]) and np.isinf(want.detach().numpy()[1])
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    for reduction in ("mean", "sum"):
        (out, gx), (want, _) = _both(X, PADDED, FRAMES, LENGTHS, reduction=reduction)
        assert out.item() == np.inf and want.item() == np.inf
    (gradient,) = tg.autograd.grad(out, [gx])  # (PyTorch's: NaN for the impossible sequence)
    assert np.isfinite(gradient.numpy()).all() and not gradient.numpy()[:, 1].any()
    # another blank: labels are then any class but it (0 among them)
    targets = np.where(PADDED == 4, 0, PADDED)
    (out, gx), (want, tx) = _both(X, targets, FRAMES, LENGTHS, blank=4, zero_infinity=True)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    out.backward()
    want.backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_unbatched_input_and_no_frames() -> None:
    (out, gx), (want, tx) = _both(X[:, 0], PADDED[0, :3], [7], [3], reduction="none")
    assert out.shape == tuple(want.shape) == ()
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12)
    out.backward()
    want.backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-13)
    # no frames: the empty target is certain (loss 0), any other impossible
    (out, _), (want, _) = _both(X[:, :2], PADDED[:2], [0, 0], [0, 2], reduction="none")
    np.testing.assert_allclose(out.numpy(), want.detach().numpy())
    assert out.numpy().tolist() == [0.0, np.inf]


def test_the_loss_is_minus_log_of_the_sum_over_alignments() -> None:
    # (every path of 4 steps over 3 classes that collapses to [1, 2]: the definition itself)
    x = RNG.standard_normal((4, 3))
    lp = x - np.log(np.exp(x).sum(1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(3), repeat=4):
        merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if [k for k in merged if k != 0] == [1, 2]:
            total += np.exp(sum(lp[t, k] for t, k in enumerate(path)))
    got = F.ctc_loss(tg.tensor(lp), tg.tensor([1, 2]), (4,), (2,), reduction="sum")
    np.testing.assert_allclose(got.item(), -np.log(total), rtol=1e-13)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_in_log_probs_pytorchs_gradient_adds_exp_log_probs(reduction: str) -> None:
    # (the deliberate difference: PyTorch's kernel adds g * w * exp(log_probs), w the reduction's
    # factor; summing to g * w over the classes, log_softmax's backward removes it again)
    torch = pytest.importorskip("torch")
    lp = tg.tensor(X, requires_grad=True).log_softmax(2).detach().requires_grad_()
    tlp = torch.tensor(lp.numpy(), requires_grad=True)
    args = (PADDED, FRAMES, LENGTHS)
    kw = {"reduction": reduction, "zero_infinity": True}
    out = F.ctc_loss(lp, *args, **kw)
    want = torch.nn.functional.ctc_loss(tlp, *(torch.tensor(a) for a in args), **kw)
    out.sum().backward()
    want.sum().backward()
    factor = 1 / (len(LENGTHS) * np.maximum(LENGTHS, 1)) if reduction == "mean" else 1.0
    frames = np.arange(len(X))[:, None] < FRAMES  # (past a sequence's length: no term)
    extra = np.exp(lp.numpy()) * (factor * frames * (np.arange(4) != 1))[:, :, None]
    np.testing.assert_allclose(lp.grad.numpy() + extra, tlp.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_gradcheck_and_gradgradcheck_in_float64(reduction: str) -> None:
    x = tg.tensor(RNG.standard_normal((5, 2, 4)), requires_grad=True)
    targets, frames, lengths = tg.tensor([[1, 3], [2, 2]]), (5, 4), (2, 2)

    def loss(t):
        return F.ctc_loss(t.log_softmax(2), targets, frames, lengths, reduction=reduction)

    assert tg.autograd.gradcheck(loss, (x,))
    assert tg.autograd.gradgradcheck(loss, (x,))
    # (in the log-probabilities themselves too: the derivative of the loss as written, where
    # PyTorch's kernel adds exp(log_probs), a term log_softmax's backward then cancels)
    lp = tg.tensor(RNG.standard_normal((5, 2, 4)), requires_grad=True)
    assert tg.autograd.gradcheck(
        lambda t: F.ctc_loss(t, targets, frames, lengths, reduction=reduction), (lp,)
    )


def test_the_layer_is_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    layer = nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
    assert repr(layer) == repr(torch.nn.CTCLoss()) == "CTCLoss()"
    assert layer.blank == 0 and layer.zero_infinity and layer.reduction == "sum"
    lp = tg.tensor(X).log_softmax(2)
    want = torch.nn.CTCLoss(reduction="sum", zero_infinity=True)(
        torch.tensor(X).log_softmax(2),
        *(torch.tensor(a) for a in (PADDED, FRAMES, LENGTHS)),
    )
    np.testing.assert_allclose(layer(lp, PADDED, FRAMES, LENGTHS).item(), want.item(), rtol=1e-12)
    assert "ctc_loss" in F.__all__ and "CTCLoss" in nn.__all__


def test_errors() -> None:
    lp = tg.tensor(X).log_softmax(2)
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, PADDED, FRAMES, LENGTHS, blank=5)
    with pytest.raises(RuntimeError, match="input_lengths must be at most the 7 time steps"):
        F.ctc_loss(lp, PADDED, FRAMES + 1, LENGTHS)
    with pytest.raises(RuntimeError, match="fewer than the longest target_length 5"):
        F.ctc_loss(lp, PADDED, FRAMES, [5, 1, 1, 1])
    with pytest.raises(RuntimeError, match="sum\\(target_lengths\\) = 9 entries, got 5"):
        F.ctc_loss(lp, np.arange(1, 6), FRAMES, LENGTHS)
    with pytest.raises(RuntimeError, match="target_lengths must have 4 entries, got 3"):
        F.ctc_loss(lp, PADDED, FRAMES, LENGTHS[:3])
    with pytest.raises(IndexError, match="target labels must be classes in \\[0, 5\\)"):
        F.ctc_loss(lp, PADDED + 4, FRAMES, LENGTHS)
    with pytest.raises(TypeError, match="input_lengths must be integers"):
        F.ctc_loss(lp, PADDED, FRAMES.astype(float), LENGTHS)
    with pytest.raises(TypeError, match="log_probs must be a tapegrad Tensor"):
        F.ctc_loss(X, PADDED, FRAMES, LENGTHS)
    with pytest.raises(NotImplementedError, match="not implemented for float16"):
        F.ctc_loss(lp.to(tg.float16), PADDED, FRAMES, LENGTHS)
    assert F.ctc_loss(lp.to(tg.float32), PADDED, FRAMES, LENGTHS).dtype == tg.float32
    with pytest.raises(ValueError, match="reduction must be"):
        F.ctc_loss(lp, PADDED, FRAMES, LENGTHS, reduction="avg")


@pytest.mark.parametrize("module", ["functional_ctc", "losses_ctc"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.nn.{module}")
    result = doctest.testmod(found, extraglobs={"tg": tg, "F": F})
    assert result.attempted > 0 and result.failed == 0
