"""tg.nn.utils.parametrize (register_parametrization, remove_parametrizations, is_parametrized,
cached, type_before_parametrizations, transfer_parametrizations_and_params) and
tg.nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal): state_dict layout, values
and gradients equal to PyTorch's (loading PyTorch's state), finite differences, errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

P = tg.nn.utils.parametrize
PS = tg.nn.utils.parametrizations


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _scale(lib, factor):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * factor

        def right_inverse(self, A):
            return A / factor

    return Scale()


def _pair(kind, *args):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, kind)(*args).double()
    ours = getattr(tg.nn, kind)(*args, dtype=tg.float64)
    for name, p in theirs.named_parameters():
        getattr(ours, name).set_data(p.detach().numpy().copy())
    return ours, theirs, torch


def _load(ours, theirs):
    state = {k: tg.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict(state)


def _same_forward_and_grads(ours, theirs, torch, x):
    a, b = ours(tg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-13)
    (a * a).sum().backward()
    (b * b).sum().backward()
    for (n, p), (m, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n == m
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_register_parametrization_as_torch():
    ours, theirs, torch = _pair("Linear", 3, 3)
    assert P.register_parametrization(ours, "weight", _symmetric(tg)) is ours
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", _symmetric(torch))
    assert type(ours).__name__ == "ParametrizedLinear" and isinstance(ours, tg.nn.Linear)
    assert list(ours.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    w = ours.weight.numpy()
    np.testing.assert_array_equal(w, w.T)
    np.testing.assert_allclose(w, theirs.weight.detach().numpy())
    _same_forward_and_grads(ours, theirs, torch, rand(2, 3))
    assert P.is_parametrized(ours) and P.is_parametrized(ours, "weight")
    assert not P.is_parametrized(ours, "bias") and not P.is_parametrized(tg.nn.Linear(2, 2))
    assert P.type_before_parametrizations(ours) is tg.nn.Linear


def test_assignment_goes_through_right_inverse():
    ours, theirs, torch = _pair("Linear", 3, 3)
    P.register_parametrization(ours, "weight", _symmetric(tg))
    torch.nn.utils.parametrize.register_parametrization(theirs, "weight", _symmetric(torch))
    s = rand(3, 3, seed=4)
    s = s + s.T
    original = ours.parametrizations.weight.original
    ours.weight = tg.tensor(s)
    theirs.weight = torch.tensor(s)
    assert ours.parametrizations.weight.original is original  # (the same Parameter, new values)
    np.testing.assert_allclose(ours.weight.numpy(), s)
    np.testing.assert_allclose(original.numpy(), theirs.parametrizations.weight.original.detach())
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        ours.weight = tg.nn.Parameter(tg.tensor(s))


def test_chained_parametrizations_and_gradients():
    ours, theirs, torch = _pair("Linear", 3, 3)
    for lib, m in ((tg, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib, 3.0))
    assert len(ours.parametrizations.weight) == 2
    np.testing.assert_allclose(ours.weight.numpy(), theirs.weight.detach().numpy())
    _same_forward_and_grads(ours, theirs, torch, rand(4, 3))
    x = tg.tensor(rand(2, 3))

    def fn(w):
        return tg.func.functional_call(ours, {"parametrizations.weight.original": w}, (x,))

    assert tg.autograd.gradcheck(fn, [tg.tensor(rand(3, 3), requires_grad=True)])


def test_remove_parametrizations_both_ways():
    for leave in (True, False):
        m = tg.nn.Linear(3, 3, dtype=tg.float64)
        raw = m.weight.numpy().copy()
        P.register_parametrization(m, "weight", _scale(tg, 2.0))
        value = m.weight.numpy().copy()
        np.testing.assert_allclose(value, raw)  # right_inverse stored raw / 2
        assert P.remove_parametrizations(m, "weight", leave_parametrized=leave) is m
        assert type(m) is tg.nn.Linear and not hasattr(m, "parametrizations")
        assert list(m.state_dict()) == ["weight", "bias"] or list(m.state_dict()) == [
            "bias",
            "weight",
        ]
        assert isinstance(m.weight, tg.nn.Parameter)
        np.testing.assert_allclose(m.weight.numpy(), raw if leave else raw / 2)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(tg.nn.Linear(2, 2), "weight")


def test_cached_computes_once():
    calls = []

    class Count(tg.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1.0

    m = P.register_parametrization(tg.nn.Linear(2, 2), "weight", Count())
    calls.clear()
    with P.cached():
        first = m.weight
        assert m.weight is first
        m(tg.ones(2))
    assert len(calls) == 1
    assert m.weight is not m.weight and len(calls) == 3


def test_registration_errors_as_torchs():
    torch = pytest.importorskip("torch")

    def shape_changer(lib):
        class Row(lib.nn.Module):
            def forward(self, X):
                return X[:1]

        return Row()

    def dtype_changer(lib):
        class Half(lib.nn.Module):
            def forward(self, X):
                return X.float()

        return Half()

    for lib in (tg, torch):
        reg = lib.nn.utils.parametrize.register_parametrization
        with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
            reg(lib.nn.Linear(2, 2), "nope", _symmetric(lib))
        with pytest.raises(ValueError, match="may not change the shape"):
            reg(lib.nn.Linear(2, 2).double(), "weight", shape_changer(lib))
        with pytest.raises(ValueError, match="may not change the dtype"):
            reg(lib.nn.Linear(2, 2).double(), "weight", dtype_changer(lib))
        m = reg(lib.nn.Linear(2, 2).double(), "weight", shape_changer(lib), unsafe=True)
        assert tuple(m.weight.shape) == (1, 2)


def test_buffers_copies_and_pickling():
    m = tg.nn.BatchNorm1d(3)
    P.register_parametrization(m, "running_mean", _scale(tg, 2.0))
    assert "parametrizations.running_mean.original" in m.state_dict()
    assert not isinstance(m.parametrizations.running_mean.original, tg.nn.Parameter)
    twin = copy.deepcopy(m)
    assert type(twin).__name__ == "ParametrizedBatchNorm1d"
    np.testing.assert_array_equal(twin.running_mean.numpy(), m.running_mean.numpy())
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)


def test_transfer_parametrizations_and_params():
    a = P.register_parametrization(tg.nn.Linear(3, 3), "weight", _symmetric(tg))
    b = tg.nn.Linear(3, 3)
    assert P.transfer_parametrizations_and_params(a, b) is b
    assert P.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_array_equal(b.weight.numpy(), a.weight.numpy())


@pytest.mark.parametrize(
    "kind,args", [("Linear", (4, 3)), ("Linear", (3, 5)), ("Conv1d", (2, 3, 2))]
)
def test_parametrizations_weight_norm_matches_torch(kind, args):
    ours, theirs, torch = _pair(kind, *args)
    PS.weight_norm(ours)
    torch.nn.utils.parametrizations.weight_norm(theirs)
    _load(ours, theirs)
    x = rand(2, args[0]) if kind == "Linear" else rand(2, 2, 5)
    _same_forward_and_grads(ours, theirs, torch, x)
    g = ours.parametrizations.weight.original0
    assert g.shape == (args[1], 1) + (1,) * (len(ours.weight.shape) - 2)


def test_parametrizations_weight_norm_gradcheck():
    m = PS.weight_norm(tg.nn.Linear(3, 2, dtype=tg.float64), dim=None)
    x = tg.tensor(rand(4, 3))

    def fn(g, v):
        state = {"parametrizations.weight.original0": g, "parametrizations.weight.original1": v}
        return tg.func.functional_call(m, state, (x,))

    leaves = [tg.tensor(rand(), requires_grad=True), tg.tensor(rand(2, 3), requires_grad=True)]
    assert tg.autograd.gradcheck(fn, leaves)


@pytest.mark.parametrize("kind,args", [("Linear", (4, 3)), ("ConvTranspose2d", (2, 3, 2))])
def test_parametrizations_spectral_norm_matches_torch(kind, args):
    ours, theirs, torch = _pair(kind, *args)
    PS.spectral_norm(ours)
    torch.nn.utils.parametrizations.spectral_norm(theirs)
    _load(ours, theirs)  # (the buffers _u, _v too)
    x = rand(2, 4) if kind == "Linear" else rand(2, 2, 3, 3)
    for _ in range(2):  # each call in training mode runs a power iteration
        _same_forward_and_grads(ours, theirs, torch, x)
        u = ours.parametrizations.weight[0]._u.numpy()
        np.testing.assert_allclose(u, theirs.parametrizations.weight[0]._u.numpy(), rtol=1e-10)


def test_parametrizations_spectral_norm_converges():
    m = PS.spectral_norm(tg.nn.Linear(5, 4, dtype=tg.float64))
    w = m.parametrizations.weight.original.numpy()
    for _ in range(20):
        out = m.weight
    np.testing.assert_allclose(np.linalg.svd(out.numpy(), compute_uv=False)[0], 1.0, rtol=1e-6)
    np.testing.assert_allclose(m.parametrizations.weight.original.numpy(), w)
    with pytest.raises(IndexError, match="Dimension out of range"):
        PS.spectral_norm(tg.nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="no parameter or buffer with name 'nope'"):
        PS.spectral_norm(tg.nn.Linear(2, 2), "nope")


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5)])
def test_orthogonal_matches_torch(orthogonal_map, use_trivialization, shape):
    ours, theirs, torch = _pair("Linear", *shape)
    options = dict(orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    PS.orthogonal(ours, **options)
    torch.nn.utils.parametrizations.orthogonal(theirs, **options)
    _load(ours, theirs)
    w = ours.weight.numpy()
    q = w if w.shape[0] >= w.shape[1] else w.T
    np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-12)
    _same_forward_and_grads(ours, theirs, torch, rand(2, shape[0]))
    n = max(shape)  # (rows of an n x n orthogonal matrix: orthonormal rows or columns)
    target = np.linalg.qr(rand(n, n, seed=8))[0][: shape[1], : shape[0]]
    if use_trivialization or orthogonal_map == "householder":
        ours.weight = tg.tensor(target)
        theirs.weight = torch.tensor(target)
        np.testing.assert_allclose(ours.weight.numpy(), target, atol=1e-12)
        np.testing.assert_allclose(ours.weight.numpy(), theirs.weight.detach().numpy(), atol=1e-12)
    else:
        with pytest.raises(NotImplementedError, match="use_trivialization=False"):
            ours.weight = tg.tensor(target)


def test_orthogonal_gradcheck_and_errors():
    m = PS.orthogonal(tg.nn.Linear(3, 3, dtype=tg.float64), orthogonal_map="cayley")
    x = tg.tensor(rand(2, 3))

    def fn(w):
        return tg.func.functional_call(m, {"parametrizations.weight.original": w}, (x,))

    assert tg.autograd.gradcheck(fn, [tg.tensor(rand(3, 3) * 0.3, requires_grad=True)])
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        PS.orthogonal(tg.nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp"'):
        PS.orthogonal(tg.nn.Linear(2, 2), orthogonal_map="qr")
