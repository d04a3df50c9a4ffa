"""A tensor read at many indices (an RNN's steps, x[:, t], unbind, chunk) gets its gradient from
getitem's pieces, added in place into one array (primitives/scattered.py): the same values as
full-size zeros summed, wherever the gradient goes (a node's rules, a leaf's .grad, hooks,
retain_grad, autograd.grad targets, the teaching tools, create_graph)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad._state import state
from tapegrad.primitives import scattered
from tapegrad.primitives.fused import getitem_grad
from tapegrad.tape.plan import GATHER_MAX

ROWS, COLS = 64, 80  # 5,120 elements: above SCATTER_FROM; a row is 1/64 of it


def data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((ROWS, COLS)), rng.standard_normal((ROWS, COLS))


def per_row_loss(x: tg.Tensor, w: np.ndarray) -> tg.Tensor:
    """sum_t sum(sin(x[t]) * w[t]) + 0.5 * sum(x^2): rows read one by one, x also read whole."""
    total = (x * x).sum() * 0.5
    for t in range(ROWS):
        total = total + (x[t].sin() * tg.tensor(w[t])).sum()
    return total


def closed_form(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.cos(x) * w + x


def test_the_threshold_keeps_pieces_to_large_tensors_and_small_parts():
    assert scattered.SCATTER_FROM > GATHER_MAX  # (a leaf's small gradients are listed: no pieces)
    big = np.ones(COLS)
    assert scattered.piece_of(big, (ROWS, COLS), (0,)) is not None
    assert scattered.piece_of(np.ones((ROWS // 2, COLS)), (ROWS, COLS), slice(0, 32)) is None
    assert scattered.piece_of(np.ones(2), (2, 2), (0,)) is None


def test_getitem_rule_gives_pieces_only_inside_a_raw_backward():
    g = np.ones(COLS)
    dense = getitem_grad(g, (ROWS, COLS), (3,))
    assert dense.__class__ is np.ndarray and dense[3].sum() == COLS and dense.sum() == COLS
    state.raw_backward = True
    try:
        piece = getitem_grad(g, (ROWS, COLS), (3,))
        fancy = getitem_grad(np.ones((2, COLS)), (ROWS, COLS), (np.array([1, 1]),))
    finally:
        state.raw_backward = False
    assert piece.__class__ is scattered.Scattered
    np.testing.assert_array_equal(piece.dense(), dense)
    assert fancy.__class__ is np.ndarray and fancy[1].sum() == 2 * COLS  # (duplicates added)


@pytest.mark.parametrize("leaf", [True, False])
def test_rows_of_a_leaf_or_a_node_get_the_closed_form(leaf):
    xv, w = data()
    x0 = tg.tensor(xv, requires_grad=True)
    x = x0 if leaf else x0 * 1.0
    per_row_loss(x, w).backward()
    np.testing.assert_allclose(x0.grad.numpy(), closed_form(xv, w), rtol=1e-12, atol=1e-12)
    assert x0.grad.numpy().__class__ is np.ndarray


def test_the_sums_equal_dense_zeros_summed_bit_for_bit(monkeypatch):
    xv, w = data(1)
    x = tg.tensor(xv.astype(np.float32), requires_grad=True)
    (per_row_loss(x * 1.0, w.astype(np.float32))).backward()
    pieces = x.grad.numpy().copy()
    monkeypatch.setattr(scattered, "SCATTER_FROM", 10**12)  # (every piece dense, as before)
    x.grad = None
    (per_row_loss(x * 1.0, w.astype(np.float32))).backward()
    np.testing.assert_array_equal(pieces, x.grad.numpy())


def test_hooks_retained_grads_and_targets_see_whole_arrays():
    xv, w = data(2)
    x = tg.tensor(xv, requires_grad=True)
    y = x * 2.0
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append((type(g), g.shape)))
    per_row_loss(y, w).backward(retain_graph=True)
    assert seen == [(tg.Tensor, (ROWS, COLS))]
    np.testing.assert_allclose(y.grad.numpy(), closed_form(2 * xv, w), rtol=1e-12)
    (gy,) = tg.autograd.grad(per_row_loss(y, w), [y])
    np.testing.assert_allclose(gy.numpy(), closed_form(2 * xv, w), rtol=1e-12)


def test_unbind_and_chunk_of_a_large_tensor():
    xv, w = data(3)
    x = tg.tensor(xv, requires_grad=True)
    rows = x.unbind(0)
    parts = (x * 1.0).chunk(8, dim=1)
    loss = sum((r * tg.tensor(w[i])).sum() for i, r in enumerate(rows))
    loss = loss + sum((p**2).sum() for p in parts)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), w + 2 * xv, rtol=1e-12)


def test_second_order_through_many_rows_records_the_op():
    xv, w = data(4)
    x = tg.tensor(xv, requires_grad=True)
    (g,) = tg.autograd.grad(per_row_loss(x, w), [x], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin(xv) * w + 1, rtol=1e-12)


def test_explain_sees_arrays():
    xv, w = data(5)
    x = tg.tensor(xv, requires_grad=True)
    loss = (x[0].sin() * tg.tensor(w[0])).sum() + (x[1] * 2.0).sum()
    steps = tg.explain(loss, show=False)
    shown = [g for step in steps for g in step.grads_in.values() if g is not None]
    shown += [step.grad_out for step in steps if step.grad_out is not None]
    assert shown and all(isinstance(g, np.ndarray) for g in shown)
    assert any(g.shape == (ROWS, COLS) for g in shown)  # (getitem's pieces shown whole)


def test_lstm_matches_torch_with_long_sequences():
    torch = pytest.importorskip("torch")
    tg.manual_seed(0)
    net = tg.nn.LSTM(16, 32, num_layers=2)
    ref = torch.nn.LSTM(16, 32, num_layers=2).double()
    with torch.no_grad():
        for (name, p), q in zip(net.named_parameters(), ref.parameters()):
            q.copy_(torch.from_numpy(p.numpy().astype(np.float64)))
    net = net.double()
    xv = np.random.default_rng(6).standard_normal((40, 8, 16))
    x, xt = tg.tensor(xv, requires_grad=True), torch.tensor(xv, requires_grad=True)
    (net(x)[0] ** 2).sum().backward()
    (ref(xt)[0] ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12)
