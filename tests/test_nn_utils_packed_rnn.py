"""RNN, LSTM and GRU on a PackedSequence: the output is a PackedSequence and each final state is
the one after that sequence's own last step (the reverse direction starting there), as PyTorch's.
Against torch with copied weights: forward values and every gradient (input, initial states,
parameters), batch_first both ways, bidirectional, multi-layer, enforce_sorted False; finite
differences on small cases."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

nn = tg.nn
rnn = tg.nn.utils.rnn


def _pair(kind: str, *args, **kwargs):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, kind)(*args, **kwargs).double()
    ours = getattr(nn, kind)(*args, **kwargs).double()
    for name, p in theirs.named_parameters():
        getattr(ours, name).set_data(p.detach().numpy().copy())
    return ours, theirs


def _states(h):
    return list(h) if isinstance(h, tuple) else [h]


def _run(lib, layer, x, lengths, batch_first, enforce_sorted, hx):
    """Pack x, run the layer, pad the output: (padded, lengths, final states, the leaves)."""
    leaf = lib.tensor(x, requires_grad=True)
    h0 = None if hx is None else tuple(lib.tensor(h, requires_grad=True) for h in hx)
    utils = lib.nn.utils.rnn
    packed = utils.pack_padded_sequence(leaf, lengths, batch_first, enforce_sorted)
    out, h = layer(packed, None if h0 is None else h0 if len(h0) == 2 else h0[0])
    assert isinstance(out, utils.PackedSequence)
    np.testing.assert_array_equal(np.asarray(out.batch_sizes), np.asarray(packed.batch_sizes))
    padded, lens = utils.pad_packed_sequence(out, batch_first)
    return padded, lens, _states(h), [leaf, *(h0 or ())]


CASES = [
    ("RNN", dict(num_layers=2, bidirectional=True)),
    ("RNN", dict(nonlinearity="relu", bias=False)),
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict()),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(num_layers=3, bias=False)),
]


@pytest.mark.parametrize("kind,options", CASES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
@pytest.mark.parametrize("with_hx", [False, True])
def test_packed_layers_match_torch(kind, options, batch_first, enforce_sorted, with_hx):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(kind, 3, 4, batch_first=batch_first, **options)
    lengths = [5, 4, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4, 4]
    x = rand(5, 5, 3, seed=1)
    layers = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
    hx = None
    if with_hx:
        hx = [rand(layers, 5, 4, seed=2 + i) for i in range(2 if kind == "LSTM" else 1)]
    got = _run(tg, ours, x, lengths, batch_first, enforce_sorted, hx)
    want = _run(torch, theirs, x, lengths, batch_first, enforce_sorted, hx)
    np.testing.assert_allclose(got[0].numpy(), want[0].detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    for a, b in zip(got[2], want[2]):
        assert a.shape == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = rand(*got[0].shape, seed=3)
    vs = [rand(*h.shape, seed=4 + i) for i, h in enumerate(got[2])]
    for lib, (padded, _, finals, leaves) in ((tg, got), (torch, want)):
        loss = (padded * lib.tensor(w)).sum()
        for h, v in zip(finals, vs):
            loss = loss + (h * lib.tensor(v)).sum()
        loss.backward()
    for a, b in zip(got[3], want[3]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            getattr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-9, atol=1e-12
        )


def test_final_states_are_each_sequences_own_last_step():
    """h_n of a packed batch equals the state after running each sequence alone, unpadded."""
    layer = nn.GRU(2, 3, bidirectional=True, dtype=tg.float64)
    seqs = [tg.tensor(rand(n, 2, seed=n)) for n in (2, 5, 3)]
    out, h = layer(rnn.pack_sequence(seqs, enforce_sorted=False))
    outputs = rnn.unpack_sequence(out)
    for b, s in enumerate(seqs):
        alone, h_alone = layer(s)
        np.testing.assert_allclose(h.numpy()[:, b], h_alone.numpy(), rtol=1e-12)
        np.testing.assert_allclose(outputs[b].numpy(), alone.numpy(), rtol=1e-12)


def test_packed_lstm_gradients_finite_differences():
    layer = nn.LSTM(2, 2, num_layers=2, bidirectional=True, dtype=tg.float64)

    def fn(x, h0, c0):
        packed = rnn.pack_padded_sequence(x, [1, 3, 2], enforce_sorted=False)
        out, (h, c) = layer(packed, (h0, c0))
        return tg.cat([out.data.reshape(-1), h.reshape(-1), c.reshape(-1)])

    inputs = [
        tg.tensor(rand(*s, seed=i), requires_grad=True)
        for i, s in enumerate([(3, 3, 2), (4, 3, 2), (4, 3, 2)])
    ]
    assert tg.autograd.gradcheck(fn, inputs)


def test_packed_rnn_second_order():
    layer = nn.RNN(2, 2, dtype=tg.float64)

    def fn(x):
        return layer(rnn.pack_padded_sequence(x, [3, 1], batch_first=True))[1]

    x = tg.tensor(rand(2, 3, 2), requires_grad=True)
    assert tg.autograd.gradgradcheck(fn, [x])


def test_packed_input_errors():
    lstm = nn.LSTM(3, 4)
    packed = rnn.pack_sequence([tg.randn(3, 3), tg.randn(2, 3)])
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[1, 3, 4\]"
    ):
        lstm(packed, (tg.zeros(1, 3, 4), tg.zeros(1, 3, 4)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        nn.GRU(2, 4)(packed)
    flat = rnn.PackedSequence(tg.zeros(5), packed.batch_sizes)
    with pytest.raises(RuntimeError, match="input must have 2 dimensions, got 1"):
        nn.RNN(3, 4)(flat)


def test_packed_errors_are_torchs_too():
    """(PyTorch's LSTM reports a packed batch's wrong hidden size as a size mismatch.)"""
    torch = pytest.importorskip("torch")
    lstm = torch.nn.LSTM(3, 4)
    packed = torch.nn.utils.rnn.pack_sequence([torch.randn(3, 3), torch.randn(2, 3)])
    with pytest.raises(RuntimeError, match="size"):
        lstm(packed, (torch.zeros(1, 3, 4), torch.zeros(1, 3, 4)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        torch.nn.GRU(2, 4)(packed)
    flat = torch.nn.utils.rnn.PackedSequence(torch.zeros(5), packed.batch_sizes)
    with pytest.raises(RuntimeError, match="input must have 2 dimensions, got 1"):
        torch.nn.RNN(3, 4)(flat)


def test_dense_input_is_unchanged_and_dropout_runs_on_packed_rows():
    layer = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    packed = rnn.pack_sequence([tg.randn(4, 3), tg.randn(2, 3)])
    out, (h, c) = layer(packed)
    assert out.data.shape == (6, 4) and h.shape == (2, 2, 4) and c.shape == (2, 2, 4)
    layer.eval()
    a, _ = layer(packed)
    b, _ = layer(packed)
    np.testing.assert_array_equal(a.data.numpy(), b.data.numpy())
