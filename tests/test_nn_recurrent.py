"""RNN, LSTM, GRU and RNNCell, LSTMCell, GRUCell: outputs and every gradient (input, initial
states, each parameter) equal PyTorch's with copied weights, over layers, directions, batch_first
and unbatched input; finite differences to second order; parameter names, shapes, init, reprs and
errors as PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn = tg.nn


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _pair(kind: str, *args, **kwargs):
    """Our layer and PyTorch's, float64, with PyTorch's (random) weights copied into ours."""
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, kind)(*args, **kwargs).double()
    ours = getattr(nn, kind)(*args, **kwargs).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for name, p in theirs.named_parameters():
        assert getattr(ours, name).shape == tuple(p.shape), name
        getattr(ours, name).set_data(p.detach().numpy().copy())
    assert repr(ours) == repr(theirs)
    return ours, theirs


def _leaf(a: np.ndarray):
    return tg.tensor(a, requires_grad=True)


def _same(ours, theirs, args: list) -> None:
    """Forward with `args` (arrays, or pairs of arrays for LSTM states): results, and gradients of
    a weighted sum of every result, equal PyTorch's."""
    torch = pytest.importorskip("torch")

    def build(lib_tensor, a):
        if isinstance(a, tuple):
            return tuple(lib_tensor(v) for v in a)
        return None if a is None else lib_tensor(a)

    ours_in = [build(_leaf, a) for a in args]
    theirs_in = [build(lambda v: torch.tensor(v, requires_grad=True), a) for a in args]
    got, want = ours(*ours_in), theirs(*theirs_in)
    flat_got, flat_want = _flatten(got), _flatten(want)
    assert len(flat_got) == len(flat_want)
    loss_got, loss_want = 0.0, 0.0
    for i, (g, w) in enumerate(zip(flat_got, flat_want)):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g.numpy(), w.detach().numpy(), rtol=1e-10, atol=1e-12)
        c = _rand(*g.shape, seed=10 + i)
        loss_got = (g * tg.tensor(c)).sum() + loss_got
        loss_want = (w * torch.tensor(c)).sum() + loss_want
    loss_got.backward()
    loss_want.backward()
    for g, w in zip(_flatten(ours_in), _flatten(theirs_in)):
        np.testing.assert_allclose(g.grad.numpy(), w.grad.numpy(), rtol=1e-9, atol=1e-11)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            getattr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=name
        )


def _flatten(x) -> list:
    if isinstance(x, (tuple, list)):
        return [v for part in x for v in _flatten(part)]
    return [] if x is None else [x]


CONFIGS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False},
]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(c) or "default")
def test_values_and_gradients_equal_pytorchs(kind, config):
    ours, theirs = _pair(kind, 3, 4, **config)
    layers = config.get("num_layers", 1) * (2 if config.get("bidirectional") else 1)
    x = _rand(2, 5, 3) if config.get("batch_first") else _rand(5, 2, 3)
    _same(ours, theirs, [x])  # (zero initial states)
    h0 = _rand(layers, 2, 4, seed=1)
    state = (h0, _rand(layers, 2, 4, seed=2)) if kind == "LSTM" else h0
    ours.zero_grad(), theirs.zero_grad()
    _same(ours, theirs, [x, state])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_equals_pytorchs(kind):
    ours, theirs = _pair(kind, 3, 4, num_layers=2, bidirectional=True)
    h0 = _rand(4, 4, seed=1)
    state = (h0, _rand(4, 4, seed=2)) if kind == "LSTM" else h0
    _same(ours, theirs, [_rand(6, 3), state])


def test_relu_rnn_equals_pytorchs():
    ours, theirs = _pair("RNN", 3, 4, num_layers=2, nonlinearity="relu")
    _same(ours, theirs, [_rand(5, 2, 3)])


def test_dropout_between_layers():
    """p=1 zeroes what the second layer reads (deterministic, so PyTorch's must agree); eval mode
    and a single layer never drop."""
    ours, theirs = _pair("GRU", 3, 4, num_layers=2, dropout=1.0)
    _same(ours, theirs, [_rand(5, 2, 3)])
    ours.eval(), theirs.eval()
    ours.zero_grad(), theirs.zero_grad()
    _same(ours, theirs, [_rand(5, 2, 3, seed=3)])


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_equal_pytorchs(kind, bias):
    ours, theirs = _pair(kind, 3, 4, bias=bias)
    _same(ours, theirs, [_rand(2, 3)])
    h = _rand(2, 4, seed=1)
    ours.zero_grad(), theirs.zero_grad()
    _same(ours, theirs, [_rand(2, 3), (h, _rand(2, 4, seed=2)) if kind == "LSTMCell" else h])
    ours.zero_grad(), theirs.zero_grad()
    h = _rand(4, seed=1)
    _same(ours, theirs, [_rand(3), (h, _rand(4, seed=2)) if kind == "LSTMCell" else h])


def test_relu_cell_equals_pytorchs():
    ours, theirs = _pair("RNNCell", 3, 4, nonlinearity="relu")
    _same(ours, theirs, [_rand(2, 3), _rand(2, 4, seed=1)])


def test_gru_cell_closed_form():
    """n = tanh(W_in x + b_in + r * (W_hn h + b_hn)): r multiplies the hidden part with its bias."""
    cell = nn.GRUCell(2, 3).double()
    x, h = _rand(1, 2), _rand(1, 3, seed=1)
    w_ih, w_hh = cell.weight_ih.numpy(), cell.weight_hh.numpy()
    b_ih, b_hh = cell.bias_ih.numpy(), cell.bias_hh.numpy()
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    r, z = sig(gi[:, :3] + gh[:, :3]), sig(gi[:, 3:6] + gh[:, 3:6])
    n = np.tanh(gi[:, 6:] + r * gh[:, 6:])
    np.testing.assert_allclose(cell(tg.tensor(x), tg.tensor(h)).numpy(), (1 - z) * n + z * h)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_gradients_to_second_order(kind):
    layer = getattr(nn, kind)(2, 3, bidirectional=True).double()
    x = _leaf(_rand(3, 1, 2))
    assert gradcheck(lambda x: layer(x)[0], [x])
    assert gradgradcheck(lambda x: layer(x)[0], [x])
    weight = layer.weight_hh_l0_reverse
    assert gradcheck(lambda w: _with(layer, "weight_hh_l0_reverse", w, x), [weight])
    assert gradgradcheck(lambda w: _with(layer, "weight_hh_l0_reverse", w, x), [weight])


def _with(layer, name: str, value, x):
    """layer(x)[0] with parameter `name` replaced by `value` (the checker's perturbed copy)."""
    saved = layer._parameters[name]
    layer._parameters[name] = value
    try:
        return layer(x)[0]
    finally:
        layer._parameters[name] = saved


def test_init_is_uniform_within_one_over_sqrt_hidden():
    tg.manual_seed(0)
    layer = nn.LSTM(10, 16, num_layers=2)
    values = np.concatenate([p.numpy().ravel() for p in layer.parameters()])
    assert np.abs(values).max() <= 0.25 and np.abs(values).max() > 0.24
    assert abs(values.mean()) < 0.01 and values.dtype == np.float32
    assert [len(w) for w in layer.all_weights] == [4, 4]
    assert layer.weight_ih_l1.shape == (64, 16) and nn.GRU(3, 5).weight_hh_l0.shape == (15, 5)
    layer.flatten_parameters()  # (a no-op, as PyTorch's on the CPU)


def test_reprs():
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"  # (as PyTorch's)
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(nn.LSTMCell(3, 4, bias=False)) == "LSTMCell(3, 4, bias=False)"
    text = "GRU(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)"
    assert repr(nn.GRU(3, 4, 2, False, True, 0.5, True)) == text


def test_errors_are_pytorchs():
    with pytest.raises(
        ValueError, match="Unknown nonlinearity 'foo'. Select from 'tanh' or 'relu'"
    ):
        nn.RNN(3, 4, nonlinearity="foo")
    with pytest.raises(ValueError, match=r"dropout should be a number in range \[0, 1\]"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.GRU(3, 4, num_layers=0)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(3, 0)
    with pytest.raises(TypeError, match="input_size should be of type int"):
        nn.GRU(3.0, 4)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)
    lstm = nn.LSTM(3, 4)
    with pytest.raises(
        RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"
    ):
        lstm(tg.randn(5, 2, 2))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        lstm(tg.randn(2, 3, 3, 3))
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"
    ):
        lstm(tg.randn(5, 2, 3), (tg.randn(1, 3, 4), tg.randn(1, 3, 4)))
    with pytest.raises(TypeError, match=r"hx must be a pair \(h_0, c_0\)"):
        lstm(tg.randn(5, 2, 3), tg.randn(1, 2, 4))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D"):
        lstm(tg.randn(5, 3), (tg.randn(1, 2, 4), tg.randn(1, 2, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]"):
        nn.GRU(3, 4)(tg.randn(5, 2, 3), tg.randn(2, 2, 4))
    with pytest.raises(TypeError, match="takes a tapegrad Tensor or a PackedSequence, got ndarray"):
        nn.GRU(3, 4)(np.ones((5, 2, 3)))
    cell = nn.GRUCell(3, 4)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        cell(tg.randn(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(tg.randn(2, 3), tg.randn(3, 4))
    with pytest.raises(
        RuntimeError, match="hidden0 has inconsistent hidden_size: got 2, expected 4"
    ):
        cell(tg.randn(2, 3), tg.randn(2, 2))
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        cell(tg.randn(2, 2, 3))
    with pytest.raises(RuntimeError, match="for 1-D input, hx should also be 1-D"):
        cell(tg.randn(3), tg.randn(2, 4))
    with pytest.raises(TypeError, match=r"LSTMCell: hx must be a pair \(h, c\)"):
        nn.LSTMCell(3, 4)(tg.randn(2, 3), tg.randn(2, 4))


def test_no_warning_for_dropout_with_several_layers():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.LSTM(3, 4, num_layers=2, dropout=0.5)


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.recurrent as layers
    import tapegrad.nn.recurrent_cells as cells

    for module in (layers, cells):
        flags = doctest.NORMALIZE_WHITESPACE
        result = doctest.testmod(module, extraglobs={"tg": tg}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_signatures_are_pytorchs(name):
    # the cells share _CellBase's __init__ (LSTMCell's and GRUCell's are it)
    import inspect

    torch = pytest.importorskip("torch")
    mine = inspect.signature(getattr(tg.nn, name)).parameters
    yours = inspect.signature(getattr(torch.nn, name)).parameters
    assert [(p.name, p.default) for p in mine.values()] == [
        (p.name, p.default) for p in yours.values()
    ]
