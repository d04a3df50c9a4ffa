"""LSTM with proj_size (PyTorch's projections: h_t = (o * tanh(c_t)) @ W_hr.T, weight_hr_l<k>):
parameter names and shapes, reprs, outputs and every gradient equal PyTorch's with copied weights
(dense and packed input, batch_first, bidirectional, two layers); finite differences; errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

nn = tg.nn
rnn = tg.nn.utils.rnn


def _pair(**options):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.LSTM(3, 5, proj_size=2, **options).double()
    ours = nn.LSTM(3, 5, proj_size=2, dtype=tg.float64, **options)
    assert repr(ours) == repr(theirs)
    names = [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert [(n, p.shape) for n, p in ours.named_parameters()] == names
    for name, p in theirs.named_parameters():
        getattr(ours, name).set_data(p.detach().numpy().copy())
    return ours, theirs, torch


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("packed", [False, True])
def test_projections_match_torch(bidirectional, batch_first, packed):
    ours, theirs, torch = _pair(num_layers=2, bidirectional=bidirectional, batch_first=batch_first)
    d = 2 if bidirectional else 1
    x, h0, c0 = rand(4, 4, 3), rand(2 * d, 4, 2, seed=1), rand(2 * d, 4, 5, seed=2)
    results = []
    for lib, layer in ((tg, ours), (torch, theirs)):
        leaves = [lib.tensor(a, requires_grad=True) for a in (x, h0, c0)]
        inp = leaves[0]
        if packed:
            inp = lib.nn.utils.rnn.pack_padded_sequence(inp, [2, 4, 1, 3], batch_first, False)
        out, (h, c) = layer(inp, (leaves[1], leaves[2]))
        if packed:
            out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first)[0]
        w = lib.tensor(rand(*out.shape, seed=3))
        ((out * w).sum() + (h * h).sum() + (c * c).sum()).backward()
        results.append((out, h, c, leaves))
    (oo, oh, oc, ol), (to, th, tc, tl) = results
    assert oo.shape == tuple(to.shape) and oo.shape[-1] == 2 * d and oh.shape == (2 * d, 4, 2)
    for a, b in ((oo, to), (oh, th), (oc, tc)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-13)
    for a, b in zip(ol, tl):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-13)
    for name, p in theirs.named_parameters():
        got = getattr(ours, name).grad.numpy()
        np.testing.assert_allclose(got, p.grad.numpy(), rtol=1e-9, atol=1e-13)


def test_projection_gradients_finite_differences():
    layer = nn.LSTM(2, 3, proj_size=1, dtype=tg.float64)

    def fn(x, w_hr):
        return tg.func.functional_call(layer, {"weight_hr_l0": w_hr}, (x,))[0]

    leaves = [
        tg.tensor(rand(3, 2, 2), requires_grad=True),
        tg.tensor(rand(1, 3), requires_grad=True),
    ]
    assert tg.autograd.gradcheck(fn, leaves)


def test_layout_and_errors():
    m = nn.LSTM(3, 5, proj_size=2, bias=False)
    assert [n for n, _ in m.named_parameters()] == ["weight_ih_l0", "weight_hh_l0", "weight_hr_l0"]
    assert m.weight_hh_l0.shape == (20, 2) and len(m.all_weights[0]) == 3
    assert m(tg.randn(4, 3))[0].shape == (4, 2)  # unbatched
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 2\), got \[1, 2, 5\]"
    ):
        m(tg.randn(4, 2, 3), (tg.zeros(1, 2, 5), tg.zeros(1, 2, 5)))
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 5\), got \[1, 2, 2\]"
    ):
        m(tg.randn(4, 2, 3), (tg.zeros(1, 2, 2), tg.zeros(1, 2, 2)))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 5, proj_size=5)
    with pytest.raises(ValueError, match="positive integer or zero to disable projections"):
        nn.LSTM(3, 5, proj_size=-1)
    with pytest.raises(ValueError, match="only supported for LSTM, not RNN or GRU"):
        nn.GRU(3, 5, proj_size=2)
    with pytest.raises(ValueError, match="only supported for LSTM, not RNN or GRU"):
        nn.RNN(3, 5, proj_size=2)


def test_errors_are_torchs():
    torch = pytest.importorskip("torch")
    m = torch.nn.LSTM(3, 5, proj_size=2)
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 2\), got \[1, 2, 5\]"
    ):
        m(torch.randn(4, 2, 3), (torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        torch.nn.LSTM(3, 5, proj_size=5)
    with pytest.raises(ValueError, match="positive integer or zero to disable projections"):
        torch.nn.LSTM(3, 5, proj_size=-1)
    with pytest.raises(ValueError, match="only supported for LSTM, not RNN or GRU"):
        torch.nn.GRU(3, 5, proj_size=2)
    with pytest.raises(ValueError, match="only supported for LSTM, not RNN or GRU"):
        torch.nn.RNN(3, 5, proj_size=2)
