"""The fused recurrent step (nn/recurrent_packed.py's `_fused_step`: lstm_cell, gru_cell and
addmm_nt from primitives/) against the per-op step it replaces (`_step`, the readable reference):
values, gradients and gradients of gradients equal for every mode, with and without biases and
LSTM projections; gradcheck and gradgradcheck in float64; the recorded nodes per time step.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck
from tapegrad.nn.recurrent_packed import (
    _fused_state,
    _fused_step,
    _plain_state,
    _projection,
    _step,
)
from tapegrad.primitives.fused_recurrent import LSTM_ROWS, gru_cell, lstm_cell
from tapegrad.tape.plan import execution_order

N, IN, H, P = 3, 2, 4, 3  # batch, input size, hidden size, LSTM projection size
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _leaf(*shape, seed):
    return tg.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), requires_grad=True)


def _inputs(mode: str, bias: bool, proj: bool) -> list:
    """x, h, (c), w_ih, w_hh, (b_ih, b_hh), (w_hr): the step's leaves, float64."""
    width = GATES[mode] * H
    real = P if proj else H
    ts = [_leaf(N, IN, seed=1), _leaf(N, real, seed=2)]
    ts += [_leaf(N, H, seed=3)] if mode == "LSTM" else []
    ts += [_leaf(width, IN, seed=4), _leaf(width, real, seed=5)]
    ts += [_leaf(width, seed=6), _leaf(width, seed=7)] if bias else []
    ts += [_leaf(P, H, seed=8)] if proj else []
    return ts


def _unpack(mode: str, bias: bool, proj: bool, ts: list) -> tuple:
    ts = list(ts)
    x, h = ts.pop(0), ts.pop(0)
    state = (h, ts.pop(0)) if mode == "LSTM" else h
    w_ih, w_hh = ts.pop(0), ts.pop(0)
    b_ih, b_hh = (ts.pop(0), ts.pop(0)) if bias else (None, None)
    w_hr = ts.pop(0) if proj else None
    return x, state, w_ih, w_hh, b_ih, b_hh, w_hr


def composite(mode: str, bias: bool, proj: bool):
    def step(*ts):
        x, state, w_ih, w_hh, b_ih, b_hh, w_hr = _unpack(mode, bias, proj, ts)
        new = _step(mode, tg.nn.functional.linear(x, w_ih, b_ih), state, w_hh, b_hh, w_hr)
        return new if isinstance(new, tuple) else (new,)

    return step


def fused(mode: str, bias: bool, proj: bool):
    def step(*ts):
        x, state, w_ih, w_hh, b_ih, b_hh, w_hr = _unpack(mode, bias, proj, ts)
        projected = _projection(mode, x, w_ih, b_ih, b_hh)
        hidden_bias = b_hh if mode == "GRU" else None
        new = _fused_step(mode, projected, _fused_state(mode, state), w_hh, hidden_bias, w_hr)
        new = _plain_state(mode, new)
        return new if isinstance(new, tuple) else (new,)

    return step


CASES = [(m, b, False) for m in GATES for b in (True, False)] + [("LSTM", True, True)]


def _weighted(outs, seed: int):
    rng = np.random.default_rng(seed)
    return sum((o * tg.tensor(rng.standard_normal(o.shape))).sum() for o in outs)


@pytest.mark.parametrize("mode,bias,proj", CASES)
def test_the_fused_step_equals_the_per_op_step_to_second_order(mode, bias, proj):
    ts = _inputs(mode, bias, proj)
    want, got = composite(mode, bias, proj)(*ts), fused(mode, bias, proj)(*ts)
    assert len(want) == len(got)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-13, atol=1e-15)
    grads_want = tg.autograd.grad(_weighted(want, 9), ts, create_graph=True, allow_unused=True)
    grads_got = tg.autograd.grad(_weighted(got, 9), ts, create_graph=True, allow_unused=True)
    for a, b in zip(grads_got, grads_want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)
    used = [i for i, g in enumerate(grads_want) if g is not None and g.requires_grad]
    second_want = tg.autograd.grad(
        _weighted([grads_want[i] for i in used], 10), ts, allow_unused=True
    )
    second_got = tg.autograd.grad(
        _weighted([grads_got[i] for i in used], 10), ts, allow_unused=True
    )
    for a, b in zip(second_got, second_want):
        assert (a is None) == (b is None) or np.all((a if b is None else b).numpy() == 0)
        if a is not None and b is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("mode,bias,proj", [c for c in CASES if c[0] != "RNN_RELU"])
def test_the_fused_step_passes_gradcheck_and_gradgradcheck(mode, bias, proj):
    ts = _inputs(mode, bias, proj)
    step = fused(mode, bias, proj)
    assert gradcheck(step, ts)
    assert gradgradcheck(step, ts)


def test_the_cells_read_only_their_state_row_and_keep_the_workspace():
    """lstm_cell reads row 1 of its state (c), gru_cell row 0 (h); the workspace rows hold the
    activated gates, so that the rules compute no activation again."""
    rng = np.random.default_rng(0)
    gates, hc = rng.standard_normal((N, 4 * H)), rng.standard_normal((LSTM_ROWS, N, H))
    out = lstm_cell.forward(gates, hc)
    other = hc.copy()
    other[[0, 2, 3, 4, 5, 6]] = 7.0
    np.testing.assert_array_equal(lstm_cell.forward(gates, other), out)
    sig = 1 / (1 + np.exp(-gates))
    i, f, gg, o = np.split(gates, 4, -1)
    np.testing.assert_allclose(out[2], sig[:, :H])
    np.testing.assert_allclose(out[4], np.tanh(gg))
    np.testing.assert_allclose(out[1], sig[:, H : 2 * H] * hc[1] + sig[:, :H] * np.tanh(gg))
    np.testing.assert_allclose(out[6], np.tanh(out[1]))
    xg, hg, h = rng.standard_normal((N, 3 * H)), rng.standard_normal((N, 3 * H)), hc[:4]
    changed = h.copy()
    changed[1:] = -3.0
    np.testing.assert_array_equal(gru_cell.forward(xg, hg, changed), gru_cell.forward(xg, hg, h))


def test_a_very_negative_gate_gives_the_sigmoids_limit_without_a_warning():
    gates = np.array([[-1000.0, 1000.0, 0.0, -1000.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = lstm_cell.forward(gates, np.zeros((2, 1, 1)))
    assert out[2, 0, 0] == 0.0 and out[3, 0, 0] == 1.0 and out[5, 0, 0] == 0.0


@pytest.mark.parametrize("kind,per_step", [("LSTM", 5), ("GRU", 5), ("RNN", 4)])
def test_a_time_step_records_a_few_nodes(kind, per_step):
    """The step's input rows, h (a view of the cell's output), the hidden GEMM, the cell and h's
    place in the output (stack's reshape): the per-op step recorded about 16 for an LSTM."""
    steps = 20
    layer = getattr(tg.nn, kind)(3, 5)
    out, _ = layer(tg.randn(steps, 2, 3))
    nodes = execution_order([out.grad_fn])
    assert len(nodes) <= per_step * steps + 8, len(nodes)
    names = [n.prim.name for n in nodes]
    cell = {"LSTM": "lstm_cell", "GRU": "gru_cell", "RNN": "tanh"}[kind]
    assert names.count(cell) == steps


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_vmap_over_a_layer_equals_each_example(kind):
    layer = getattr(tg.nn, kind)(3, 4, num_layers=2, bidirectional=True).double()
    x = tg.tensor(np.random.default_rng(0).standard_normal((3, 5, 2, 3)))
    got = tg.func.vmap(lambda xi: layer(xi)[0])(x)
    want = tg.stack([layer(x[b])[0] for b in range(3)])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-14)
