"""nn.Buffer (registered on assignment, persistent=), nn.RNNBase and nn.RNNCellBase as the real
base classes of the recurrent layers and cells, and the deprecated nn.Container: each as
PyTorch's."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn


def test_buffer_assignment_registers_it():
    m = nn.Module()
    m.steps = nn.Buffer(tg.zeros(2))
    m.scratch = nn.Buffer(tg.ones(3), persistent=False)
    m.plain = tg.ones(1)  # (a plain Tensor stays an attribute, as PyTorch's)
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    assert list(m.state_dict()) == ["steps"]
    assert isinstance(m.steps, nn.Buffer) and isinstance(m.steps, tg.Tensor)
    m.steps = tg.full((2,), 5.0)  # (assigning to a buffer's name updates it)
    assert m.state_dict()["steps"].tolist() == [5.0, 5.0]
    m.scratch = nn.Buffer(tg.zeros(3), persistent=True)  # (a Buffer brings its persistence)
    assert list(m.state_dict()) == ["steps", "scratch"]


def test_buffer_shares_memory_and_is_off_the_tape():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    b = nn.Buffer(y)
    assert b.grad_fn is None and b.requires_grad  # (requires_grad kept, as PyTorch's detach)
    y.data.numpy()[0] = 7.0
    assert b.tolist() == [7.0, 4.0]
    empty = nn.Buffer()
    assert empty.shape == (0,) and empty.dtype == tg.get_default_dtype()
    assert empty.persistent is True


def test_buffer_matches_torch_in_a_module():
    torch = pytest.importorskip("torch")

    def build(lib):
        m = lib.nn.Linear(2, 2)
        m.count = lib.nn.Buffer(lib.zeros(1))
        m.cache = lib.nn.Buffer(lib.ones(2), persistent=False)
        return m

    ours, theirs = build(tg), build(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    ours.to(tg.float64)  # (buffers are cast with the module)
    assert ours.count.dtype == tg.float64


def test_buffer_errors():
    with pytest.raises(TypeError, match="nn.Buffer takes a tapegrad Tensor"):
        nn.Buffer([1.0, 2.0])
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError):
        m.weight = nn.Buffer(tg.zeros(2, 2))  # (a parameter's name: a Parameter is expected)

    class Early(nn.Module):
        def __init__(self) -> None:
            self.b = nn.Buffer(tg.zeros(1))  # before Module.__init__: PyTorch's AttributeError
            super().__init__()

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_derive_from_rnnbase(name):
    layer = getattr(nn, name)(3, 4)
    assert isinstance(layer, nn.RNNBase) and isinstance(layer, nn.Module)
    out, _ = layer(tg.randn(5, 2, 3))
    assert out.shape == (5, 2, 4)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_derive_from_rnncellbase(name):
    assert isinstance(getattr(nn, name)(3, 4), nn.RNNCellBase)
    assert not isinstance(getattr(nn, name)(3, 4), nn.RNNBase)


def test_rnnbase_and_rnncellbase_as_torchs():
    torch = pytest.importorskip("torch")
    for ours, theirs in ((nn.RNNBase, torch.nn.RNNBase), (nn.RNNCellBase, torch.nn.RNNCellBase)):
        mine = [(p.name, p.default) for p in inspect.signature(ours).parameters.values()]
        yours = [(p.name, p.default) for p in inspect.signature(theirs).parameters.values()]
        assert mine == yours
    for mode, gates in (("LSTM", 4), ("GRU", 3), ("RNN_TANH", 1), ("RNN_RELU", 1)):
        m, t = nn.RNNBase(mode, 3, 5, num_layers=2), torch.nn.RNNBase(mode, 3, 5, num_layers=2)
        assert [(n, p.shape) for n, p in m.named_parameters()] == [
            (n, tuple(p.shape)) for n, p in t.named_parameters()
        ]
        assert m.weight_ih_l0.shape == (gates * 5, 3)
    with pytest.raises(ValueError, match="Unrecognized RNN mode: FOO"):
        nn.RNNBase("FOO", 3, 4)
    with pytest.raises(NotImplementedError):  # (no forward of its own, as PyTorch's)
        nn.RNNBase("LSTM", 3, 4)(tg.randn(2, 3))
    cell, ref = nn.RNNCellBase(3, 4, True, 2), torch.nn.RNNCellBase(3, 4, True, 2)
    assert [(n, p.shape) for n, p in cell.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in ref.named_parameters()
    ]
    with pytest.raises(NotImplementedError):
        cell(tg.randn(2, 3))


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_lstm_and_gru_keep_their_keywords(name):
    layer = getattr(nn, name)(3, 4, num_layers=2, batch_first=True, bidirectional=True)
    assert (layer.num_layers, layer.batch_first, layer.bidirectional) == (2, True, True)
    assert layer.mode == name
    out, _ = layer(tg.randn(2, 5, 3))
    assert out.shape == (2, 5, 8)


def test_container_is_a_deprecated_module():
    fc = nn.Linear(2, 1)
    with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
        box = nn.Container(fc=fc, act=nn.ReLU())
    assert [n for n, _ in box.named_children()] == ["fc", "act"]
    assert [n for n, _ in box.named_parameters()] == ["fc.weight", "fc.bias"]
    np.testing.assert_array_equal(box.fc.weight.numpy(), fc.weight.numpy())
