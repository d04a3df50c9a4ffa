"""F.linear_cross_entropy, nn.LinearCrossEntropyOptions and nn.LinearCrossEntropyLoss (PyTorch
2.13's fused head loss): the values, gradients, errors and module structure PyTorch gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads
from tapegrad import nn
from tapegrad.nn import functional as F

R = np.random.default_rng(3)
X = R.standard_normal((6, 4))
W = R.standard_normal((5, 4))
B = R.standard_normal(5)
Y = np.array([0, 4, 2, 1, 3, 2])
CLASS_WEIGHTS = np.array([0.5, 1.0, 2.0, 1.5, 0.25])

CASES = [
    {},
    {"reduction": "sum"},
    {"reduction": "none"},
    {"weight": CLASS_WEIGHTS},
    {"ignore_index": 2},
    {"label_smoothing": 0.2, "weight": CLASS_WEIGHTS},
]


def _both(lib: Any, x: Any, w: Any, y: Any, b: Any, kw: dict) -> tuple:
    """(loss, leaves) of linear_cross_entropy in `lib` (tapegrad or torch) on float64 copies."""
    leaves = [lib.tensor(a, requires_grad=True) for a in (x, w) + ((b,) if b is not None else ())]
    bias = leaves[2] if b is not None else None
    args = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    functional = lib.nn.functional
    target = lib.tensor(y)
    out = functional.linear_cross_entropy(leaves[0], leaves[1], target, linear_bias=bias, **args)
    out.sum().backward()
    return out, leaves


@pytest.mark.parametrize("kw", CASES, ids=[",".join(k) or "mean" for k in CASES])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_values_and_gradients_equal_pytorchs(kw: dict, bias: bool) -> None:
    torch = pytest.importorskip("torch")
    ours, our_leaves = _both(tg, X, W, Y, B if bias else None, kw)
    theirs, their_leaves = _both(torch, X, W, Y, B if bias else None, kw)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert ours.shape == tuple(theirs.shape) and ours.dtype == tg.float64
    for a, b in zip(our_leaves, their_leaves):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_class_probabilities_k_dimensional_and_unbatched_inputs_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    probs = np.exp(R.standard_normal((6, 5)))
    probs /= probs.sum(1, keepdims=True)
    for x, w, y, b in [
        (X, W, probs, B),  # probabilities
        (X, R.standard_normal((5, 2, 4)), R.integers(0, 5, (6, 2)), R.standard_normal((5, 2))),
        (X[0], W, np.array(3), B),  # one sample, a 0-d target
    ]:
        ours, our_leaves = _both(tg, x, w, y, b, {})
        theirs, their_leaves = _both(torch, x, w, y, b, {})
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12)
        for a, c in zip(our_leaves, their_leaves):
            np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_gradients_to_second_order_against_finite_differences() -> None:
    y = tg.tensor(Y)

    def loss(x: tg.Tensor, w: tg.Tensor, b: tg.Tensor) -> tg.Tensor:
        return F.linear_cross_entropy(x, w, y, linear_bias=b, label_smoothing=0.1)

    check_grads(loss, X, W, B)


def test_one_step_with_the_textbook_rule() -> None:
    x, w = tg.tensor(X, requires_grad=True), tg.tensor(W, requires_grad=True)
    out = F.linear_cross_entropy(x, w, tg.tensor(Y))
    assert out.grad_fn.composite.name == "linear_cross_entropy"
    steps = tg.explain(out, show=False)
    assert [s.node for s in steps] == ["LinearCrossEntropyBackward"]
    assert "T(W) @ x" not in str(tg.autograd.formula("cross_entropy"))
    assert "@ W" in str(tg.autograd.formula("linear_cross_entropy"))


def test_errors_are_pytorchs() -> None:
    x, w, y = tg.tensor(X), tg.tensor(W), tg.tensor(Y)
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2, got 3"):
        F.linear_cross_entropy(x.reshape(2, 3, 4), w, y)
    with pytest.raises(RuntimeError, match="linear_weight with dimensionality at least 2, got 1"):
        F.linear_cross_entropy(x, w[0], y)
    with pytest.raises(RuntimeError, match="got 4 and 3, respectively"):
        F.linear_cross_entropy(x, w[:, :3], y)
    with pytest.raises(RuntimeError, match=r"expected linear_bias shape \(5,\), got \(4,\)"):
        F.linear_cross_entropy(x, w, y, linear_bias=tg.zeros(4))
    with pytest.raises(RuntimeError, match="requires batched input"):
        F.linear_cross_entropy(x[0], tg.zeros(5, 2, 4), tg.tensor(1))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified"):
        F.linear_cross_entropy(x, w, tg.ones(6, 5) / 5, ignore_index=0)
    with pytest.raises(TypeError, match="options must be a LinearCrossEntropyOptions"):
        F.linear_cross_entropy(x, w, y, options="chunked")


def test_options_are_checked_as_pytorch_checks_them_and_change_nothing() -> None:
    assert (
        nn.LinearCrossEntropyOptions()
        == nn.modules.linear_cross_entropy_options.LinearCrossEntropyOptions()
    )
    with pytest.raises(ValueError, match="invalid acc_policy: 'fast'"):
        nn.LinearCrossEntropyOptions(acc_policy="fast")
    with pytest.raises(ValueError, match="invalid chunking_method: 'rows:2'"):
        nn.LinearCrossEntropyOptions(chunking_method="rows:2")
    with pytest.raises(ValueError, match="batch_chunk_size must be positive int or None, got 0"):
        nn.LinearCrossEntropyOptions(batch_chunk_size=0)
    with pytest.raises(ValueError, match="acc_dtype must be one of"):
        nn.LinearCrossEntropyOptions(acc_dtype=tg.int64)
    options = nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
    x, w, y = tg.tensor(X), tg.tensor(W), tg.tensor(Y)
    plain = F.linear_cross_entropy(x, w, y).numpy()
    assert F.linear_cross_entropy(x, w, y, options=options).numpy() == plain


def test_the_module_is_pytorchs_linear_head_and_loss() -> None:
    torch = pytest.importorskip("torch")
    tg.manual_seed(7)
    torch.manual_seed(7)
    kw: dict = {"out_features": (2,), "bias": True, "label_smoothing": 0.1}
    ours = nn.LinearCrossEntropyLoss(4, 5, dtype=tg.float64, **kw)
    theirs = torch.nn.LinearCrossEntropyLoss(4, 5, dtype=torch.float64, **kw)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["linear.weight", "linear.bias"]
    for key, value in theirs.state_dict().items():  # (the same draws from the same seed)
        np.testing.assert_array_equal(ours.state_dict()[key].numpy(), value.numpy())
    assert repr(ours) == repr(theirs)
    target = R.integers(0, 5, (6, 2))
    loss = ours(tg.tensor(X), tg.tensor(target))
    expected = theirs(torch.tensor(X), torch.tensor(target))
    np.testing.assert_allclose(loss.numpy(), expected.detach().numpy(), rtol=1e-12)
    loss.backward()
    expected.backward()
    np.testing.assert_allclose(
        ours.linear.weight.grad.numpy(), theirs.linear.weight.grad.numpy(), rtol=1e-10
    )


def test_the_modules_checks_are_pytorchs() -> None:
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(5,\), got \(4,\)"):
        nn.LinearCrossEntropyLoss(4, 5, weight=tg.ones(4))
    with pytest.raises(RuntimeError, match="label_smoothing to be in range"):
        nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5)
    loss = nn.LinearCrossEntropyLoss(4, 5, weight=tg.tensor(CLASS_WEIGHTS, dtype=tg.float32))
    assert "weight" in dict(loss.named_buffers()) and loss.linear.bias is None
