"""parameters_to_vector (on the tape: gradients checked by finite differences and against torch)
and vector_to_parameters (the parameters' values become slices of the vector), with PyTorch's
errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, matches_pytorch, rand

utils = tg.nn.utils


def test_parameters_to_vector_lays_them_end_to_end():
    net = tg.nn.Linear(3, 2)
    vec = utils.parameters_to_vector(net.parameters())
    want = np.concatenate([net.weight.numpy().ravel(), net.bias.numpy()])
    assert vec.shape == (8,)
    np.testing.assert_array_equal(vec.numpy(), want)
    assert vec.requires_grad


def test_parameters_to_vector_gradients():
    def fn(a, b):
        return utils.parameters_to_vector([a, b]) * tg.arange(10.0)

    check_grads(fn, rand(2, 3), rand(4, seed=1))
    matches_pytorch(
        lambda m, a, b: m.nn.utils.parameters_to_vector([a.exp(), b * 2]), [rand(2, 3), rand(4)]
    )


def test_vector_to_parameters_round_trip_and_shared_memory():
    net = tg.nn.Sequential(tg.nn.Linear(3, 2), tg.nn.Linear(2, 1))
    n = sum(p.numel() for p in net.parameters())
    vec = tg.arange(float(n) + 3)  # a longer vector: its tail is left unused, as PyTorch's
    assert utils.vector_to_parameters(vec, net.parameters()) is None
    np.testing.assert_array_equal(
        utils.parameters_to_vector(net.parameters()).numpy(), np.arange(float(n))
    )
    assert net[0].weight.shape == (2, 3) and net[1].bias.shape == (1,)
    vec.numpy()[0] = 100.0  # the parameters hold slices of vec (PyTorch's param.data = ...)
    assert net[0].weight.numpy()[0, 0] == 100.0
    assert isinstance(net[0].weight, tg.nn.Parameter) and net[0].weight.requires_grad


def test_matches_torch():
    torch = pytest.importorskip("torch")
    shapes = [(2, 3), (4,), (1, 1)]
    vec = rand(11)
    ours = [tg.nn.Parameter(tg.zeros(*s, dtype=tg.float64)) for s in shapes]
    theirs = [torch.nn.Parameter(torch.zeros(*s, dtype=torch.float64)) for s in shapes]
    utils.vector_to_parameters(tg.tensor(vec), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(vec), theirs)
    for p, q in zip(ours, theirs):
        np.testing.assert_array_equal(p.numpy(), q.detach().numpy())


def test_errors_as_pytorchs():
    params = [tg.nn.Parameter(tg.zeros(2, 3)), tg.nn.Parameter(tg.zeros(4))]
    with pytest.raises(RuntimeError, match=r"shape '\[2, 3\]' is invalid for input of size 5"):
        utils.vector_to_parameters(tg.arange(5.0), params)
    with pytest.raises(RuntimeError, match=r"shape '\[4\]' is invalid for input of size 2"):
        utils.vector_to_parameters(tg.arange(8.0), params)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0, 2.0], params)
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        utils.parameters_to_vector([])
    with pytest.raises(TypeError, match="expected tapegrad.Tensor, but got: float"):
        utils.parameters_to_vector([1.0])


def test_errors_have_torchs_types():
    torch = pytest.importorskip("torch")
    params = [torch.zeros(2, 3), torch.zeros(4)]
    with pytest.raises(RuntimeError):
        torch.nn.utils.vector_to_parameters(torch.arange(5.0), params)
    with pytest.raises(TypeError):
        torch.nn.utils.vector_to_parameters([1.0, 2.0], params)
    with pytest.raises(ValueError):
        torch.nn.utils.parameters_to_vector([])
