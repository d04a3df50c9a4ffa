"""A composite call (F.cross_entropy after F.linear) as the teaching tools show it: one node in
tg.viz's drawing and one step in tg.explain, each opened by expand=; the explanation's header and
formulas name the function called; expand= refuses names that are not composites; the mark left
on the tape keeps no activation alive. (test_composites.py checks every composite's table row.)
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as TF

X43 = np.random.default_rng(0).standard_normal((4, 3))
Y4 = np.array([0, 2, 1, 2])


def mlp_loss() -> tuple:
    x = tg.tensor(X43)
    w = tg.tensor(np.random.default_rng(2).standard_normal((3, 3)), requires_grad=True)
    logits = TF.linear(x, w)
    return TF.cross_entropy(logits.tanh(), tg.tensor(Y4)), w


def test_a_drawing_shows_a_call_as_one_node_and_expands_it() -> None:
    loss, _ = mlp_loss()
    grouped = tg.viz.to_dot(loss)
    assert grouped.count("CrossEntropyBackward") == 1 and "LogsumexpBackward" not in grouped
    assert "LinearBackward" in grouped and "MatmulNtBackward" not in grouped  # (no bias: x @ w.T)
    opened = tg.viz.to_dot(loss, expand=["cross_entropy"])
    assert "CrossEntropyBackward" not in opened and "LogSoftmaxBackward" in opened
    assert "LogsumexpBackward" not in opened  # (one level: log_softmax stays one node)
    everything = tg.viz.to_dot(loss, expand=True)
    assert "LogsumexpBackward" in everything and "LogSoftmaxBackward" not in everything
    assert "MatmulNtBackward" in everything  # (x @ w.T, its transpose folded: tensor/linalg.py)
    with_grads = tg.viz.to_dot(loss, show_grads=True, show_values=True)
    assert with_grads.count("CrossEntropyBackward") == 1 and "grad shape (4, 3)" in with_grads


def test_the_explanation_names_the_function_called() -> None:
    loss, _ = mlp_loss()
    steps = tg.explain(loss, show=False)
    head = steps.text.splitlines()[0]
    assert "made by cross_entropy (CrossEntropyBackward)" in head
    assert [s.node for s in steps] == ["CrossEntropyBackward", "TanhBackward", "LinearBackward"]
    assert steps[0].formulas["x"] == "dL/dx = g * (softmax(x) - onehot(y)) / N"
    assert steps[0].sends_to == {"x": "[2] TanhBackward", "y": "constant"}
    assert float(steps[0].reads["N"]) == 4 and steps[0].reads["y"].tolist() == Y4.tolist()
    assert max(len(line) for line in steps.text.splitlines()) <= 100
    assert "CrossEntropyBackward" in steps._repr_html_()


def test_expand_names_must_be_composites() -> None:
    loss, _ = mlp_loss()
    with pytest.raises(ValueError, match="no composite function named \\['cross_entropie'\\]"):
        tg.explain(loss, show=False, expand=["cross_entropie"])


def test_a_mark_keeps_no_activation_alive() -> None:
    import gc
    import weakref

    x = tg.tensor(X43, requires_grad=True)
    h = x * 2.0
    out = TF.softmax(h, dim=1)
    alive = weakref.ref(h)
    del h
    gc.collect()
    assert alive() is None  # (the mark holds h's node, as an edge does, never the tensor)
    assert out.grad_fn.composite.edges[0] is not None
