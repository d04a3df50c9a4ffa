"""tg.autograd.compare: hand-derived gradients against the tape's, in backward order, with the rule
that made each tape gradient and the first wrong one named; intermediate tensors without
retain_grad(), and .grad never touched."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F

R = np.random.default_rng(0)
X = R.standard_normal((6, 3))
Y = np.array([0, 2, 1, 2, 0, 1])


def mlp() -> dict:
    """A 3-4-3 tanh MLP with cross-entropy, its tensors and the right gradients by hand."""
    W1 = tg.tensor(R.standard_normal((4, 3)), requires_grad=True, name="W1")
    b1 = tg.tensor(R.standard_normal(4), requires_grad=True, name="b1")
    W2 = tg.tensor(R.standard_normal((3, 4)), requires_grad=True, name="W2")
    pre = F.linear(tg.tensor(X), W1, b1)
    h = pre.tanh()
    h.name = "h"
    logits = F.linear(h, W2)
    loss = F.cross_entropy(logits, tg.tensor(Y))
    p = np.exp(logits.numpy())
    p /= p.sum(1, keepdims=True)
    dlogits = (p - np.eye(3)[Y]) / len(Y)
    dh = dlogits @ W2.numpy()
    dpre = dh * (1 - h.numpy() ** 2)
    grads = {"logits": dlogits, "W2": dlogits.T @ h.numpy(), "h": dh, "pre": dpre}
    grads |= {"W1": dpre.T @ X, "b1": dpre.sum(0)}
    return dict(loss=loss, W1=W1, b1=b1, W2=W2, pre=pre, h=h, logits=logits, grads=grads)


def manual(m: dict, **changed: np.ndarray) -> dict:
    g = {**m["grads"], **changed}
    return {
        "logits": (m["logits"], g["logits"]),
        m["W2"]: g["W2"],
        "h": g["h"],
        "pre": (m["pre"], g["pre"]),
        m["W1"]: g["W1"],
        "b1": g["b1"],
    }


def test_right_gradients_are_all_approximate_in_backward_order() -> None:
    m = mlp()
    result = tg.autograd.compare(m["loss"], manual(m))
    assert [c.name for c in result] == ["logits", "W2", "h", "pre", "W1", "b1"]
    assert result.first_wrong is None and len(result) == 6
    for check in result:
        assert check.approximate and check.maxdiff < 1e-12
        assert isinstance(check.exact, bool) and isinstance(check.maxdiff, float)
        assert check.given.shape == check.tape.shape
    rules = {c.name: c.rule for c in result}
    assert rules["logits"] == "CrossEntropyBackward: dL/dx = g * (softmax(x) - onehot(y)) / N"
    assert rules["pre"] == "TanhBackward: dL/dx = g * (1 - out * out)"
    assert rules["W1"] == "LinearBackward: dL/dw = T(g) @ x"
    assert rules["b1"] == "LinearBackward: dL/db = sum(g, axis=0)"


def test_the_first_wrong_step_is_named_with_its_rule() -> None:
    m = mlp()
    hv = m["h"].numpy()
    wrong = m["grads"]["h"] * (1 - hv)  # tanh' written as 1 - tanh
    result = tg.autograd.compare(m["loss"], manual(m, pre=wrong, W1=wrong.T @ X, b1=wrong.sum(0)))
    first = result.first_wrong
    assert first is not None and first.name == "pre" and not first.approximate
    assert first.maxdiff == pytest.approx(np.abs(wrong - m["grads"]["pre"]).max())
    assert first.rule == "TanhBackward: dL/dx = g * (1 - out * out)"
    assert [c.approximate for c in result] == [True, True, True, False, False, False]
    text = str(result)
    assert "first wrong: pre (check 4 of 6)" in text and "TanhBackward" in text.splitlines()[-1]
    assert max(len(line) for line in text.splitlines()) <= 100
    page = result._repr_html_()
    assert page.startswith("<table") and "first wrong" in page and page.count("<tr>") == 7


def test_the_html_sets_each_rule_as_math_with_its_code() -> None:
    from tapegrad.teach import mathtree
    from tapegrad.teach.mathml import element

    x = tg.tensor([1.5, -2.0], requires_grad=True, name="x")
    loss = (x * x.exp()).sum()  # x's gradient: two rules summed
    (check,) = tg.autograd.compare(loss, {x: np.zeros(2)})
    assert check.rule_parts == (("MulBackward", "x", "g * y"), ("ExpBackward", "x", "g * out"))
    assert check.rule == "MulBackward: dL/dx = g * y + ExpBackward: dL/dx = g * out"
    page = tg.autograd.compare(loss, {x: np.zeros(2), loss: 1.0})._repr_html_()
    for _, label, text in check.rule_parts:
        assert element(mathtree.rule_tree(label, text)) in page
    assert "+ ExpBackward: <math" in page and "dL/dx = g * out</code>" in page
    assert "the seed: dL/dL = 1</code>" in page  # (no rule to set as math: its text)


def test_exact_approximate_and_maxdiff() -> None:
    m = mlp()
    tape = tg.autograd.compare(m["loss"], {m["W1"]: m["grads"]["W1"]})[0].tape
    nudged = tape + 1e-9
    (same,) = tg.autograd.compare(m["loss"], {m["W1"]: tape})
    (close,) = tg.autograd.compare(m["loss"], {m["W1"]: nudged})
    (far,) = tg.autograd.compare(m["loss"], {m["W1"]: nudged}, atol=0, rtol=1e-12)
    assert same.exact and same.approximate and same.maxdiff == 0
    assert not close.exact and close.approximate and close.maxdiff == pytest.approx(1e-9)
    assert not far.approximate
    (seed,) = tg.autograd.compare(m["loss"], {m["loss"]: 1.0})
    assert seed.exact and seed.rule.startswith("the seed")


def test_no_grad_changes_and_no_retain_grad_needed() -> None:
    m = mlp()
    m["h"].retain_grad()
    m["loss"].backward(retain_graph=True)
    before = {k: m[k].grad.numpy().copy() for k in ("W1", "b1", "W2", "h")}
    tg.autograd.compare(m["loss"], manual(m))
    for k, v in before.items():
        np.testing.assert_array_equal(m[k].grad.numpy(), v)
    fresh = mlp()
    tg.autograd.compare(fresh["loss"], manual(fresh))
    assert fresh["W1"].grad is None  # (nothing written)


def test_clear_errors() -> None:
    m = mlp()
    with pytest.raises(ValueError, match="no tensor named 'W3'.*named ones: W1, W2, b1, h"):
        tg.autograd.compare(m["loss"], {"W3": np.zeros(3)})
    with pytest.raises(ValueError, match=r"gradient given for W1 has shape \(3, 4\), but W1 has "):
        tg.autograd.compare(m["loss"], {m["W1"]: np.zeros((3, 4))})
    stray = tg.tensor([1.0], requires_grad=True, name="stray")
    with pytest.raises(ValueError, match="stray is not on the graph of the loss"):
        tg.autograd.compare(m["loss"], {stray: np.zeros(1)})
    with pytest.raises(ValueError, match="does not require grad"):
        tg.autograd.compare(m["loss"], {"x": (tg.tensor(X), X)})
    with pytest.raises(TypeError, match="manual must map tensors"):
        tg.autograd.compare(m["loss"], [m["W1"]])  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        tg.autograd.compare(m["logits"], {m["W1"]: m["grads"]["W1"]})
