"""tg.nn.utils.weight_norm / remove_weight_norm and spectral_norm / remove_spectral_norm (the
hook-style reparametrizations): parameter and buffer names, forward values, gradients (finite
differences and torch with copied weights), power iteration in training only, removal, and
PyTorch's warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from helpers import rand

utils = tg.nn.utils


def _copy(ours, theirs) -> None:
    for name, p in theirs.named_parameters():
        getattr(ours, name).set_data(p.detach().numpy().copy())
    for name, b in theirs.named_buffers():
        getattr(ours, name).copy_(tg.tensor(b.detach().numpy().copy()))


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return fn(*args, **kwargs)


def test_weight_norm_layout_and_warning():
    lin = tg.nn.Linear(20, 40)
    weight = lin.weight.numpy().copy()
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        m = utils.weight_norm(lin)
    assert m is lin and list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert m.weight_g.shape == (40, 1) and m.weight_v.shape == (40, 20)
    assert isinstance(m.weight_g, tg.nn.Parameter) and not isinstance(m.weight, tg.nn.Parameter)
    np.testing.assert_allclose(m.weight.numpy(), weight, rtol=1e-6)  # (unchanged at first)
    np.testing.assert_allclose(m.weight_g.numpy()[:, 0], np.linalg.norm(weight, axis=1), rtol=1e-6)
    m.weight_g.set_data(m.weight_g.numpy() * 2)  # doubling g doubles the weight at the next call
    m(tg.ones(20))
    np.testing.assert_allclose(m.weight.numpy(), 2 * weight, rtol=1e-5)
    assert utils.remove_weight_norm(m) is m
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, tg.nn.Parameter)
    np.testing.assert_allclose(m.weight.numpy(), 2 * weight, rtol=1e-5)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, None])
def test_weight_norm_matches_torch(dim):
    torch = pytest.importorskip("torch")
    theirs = _quiet(torch.nn.utils.weight_norm, torch.nn.Conv1d(2, 3, 4).double(), dim=dim)
    ours = _quiet(utils.weight_norm, tg.nn.Conv1d(2, 3, 4, dtype=tg.float64), dim=dim)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight_g.shape == tuple(theirs.weight_g.shape)
    _copy(ours, theirs)
    x = rand(2, 2, 6)
    a, b = ours(tg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12)
    w = rand(*a.shape, seed=1)
    (a * tg.tensor(w)).sum().backward()
    (b * torch.tensor(w)).sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        got, want = getattr(ours, name).grad.numpy(), getattr(theirs, name).grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)


def test_weight_norm_gradients_finite_differences():
    m = _quiet(utils.weight_norm, tg.nn.Linear(3, 2, dtype=tg.float64), dim=None)
    x = tg.tensor(rand(4, 3))

    def fn(g, v):
        return tg.func.functional_call(m, {"weight_g": g, "weight_v": v}, (x,))

    leaves = [tg.tensor(rand(), requires_grad=True), tg.tensor(rand(2, 3), requires_grad=True)]
    assert tg.autograd.gradcheck(fn, leaves)
    assert tg.autograd.gradgradcheck(fn, leaves)


def test_weight_norm_errors_as_torchs():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        m = _quiet(lib.nn.utils.weight_norm, lib.nn.Linear(2, 3))
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
            _quiet(lib.nn.utils.weight_norm, m)
        with pytest.raises(ValueError, match="weight_norm of 'bias' not found in Linear"):
            lib.nn.utils.remove_weight_norm(m, "bias")
        with pytest.raises(AttributeError, match="no attribute 'nope'"):
            _quiet(lib.nn.utils.weight_norm, lib.nn.Linear(2, 3), "nope")
    bias = _quiet(utils.weight_norm, tg.nn.Linear(2, 3), "bias")  # (a 1-D parameter: |b|)
    np.testing.assert_allclose(bias.bias_g.numpy(), np.abs(bias.bias_v.numpy()))


def test_spectral_norm_layout():
    m = utils.spectral_norm(tg.nn.Linear(20, 40))
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert m.weight_u.shape == (40,) and m.weight_v.shape == (20,)
    assert np.linalg.norm(m.weight_u.numpy()) == pytest.approx(1.0, rel=1e-5)
    assert utils.spectral_norm(tg.nn.ConvTranspose2d(2, 3, 3)).weight_u.shape == (3,)  # dim 1
    u, _, vt = np.linalg.svd(np.random.default_rng(0).standard_normal((40, 20)))
    spread = np.linspace(1.0, 0.1, 20)
    spread[0] = 3.0  # (a leading singular value well apart: the iteration's rate is 1/3 a step)
    with tg.no_grad():
        m.weight_orig.copy_(tg.tensor((u[:, :20] * spread) @ vt, dtype=tg.float32))
    for _ in range(30):  # power iteration converges to the largest singular value
        out = m(tg.ones(20))
    sigma = np.linalg.svd(m.weight_orig.numpy(), compute_uv=False)[0]
    np.testing.assert_allclose(m.weight.numpy(), m.weight_orig.numpy() / sigma, rtol=1e-4)
    assert out.shape == (40,)
    assert utils.remove_spectral_norm(m) is m
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, tg.nn.Parameter)


@pytest.mark.parametrize("kind,args", [("Linear", (4, 3)), ("Conv2d", (2, 3, 3))])
def test_spectral_norm_matches_torch(kind, args):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.utils.spectral_norm(
        getattr(torch.nn, kind)(*args).double(), n_power_iterations=2
    )
    ours = utils.spectral_norm(getattr(tg.nn, kind)(*args, dtype=tg.float64), n_power_iterations=2)
    _copy(ours, theirs)
    x = rand(2, 4) if kind == "Linear" else rand(2, 2, 5, 5)
    for step in range(3):
        if step == 2:  # eval: u and v stay as they are
            ours.eval()
            theirs.eval()
            u = ours.weight_u.numpy().copy()
        a, b = ours(tg.tensor(x)), theirs(torch.tensor(x))
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(ours.weight_u.numpy(), theirs.weight_u.numpy(), rtol=1e-10)
        np.testing.assert_allclose(ours.weight_v.numpy(), theirs.weight_v.numpy(), rtol=1e-10)
        (a * a).sum().backward()
        (b * b).sum().backward()
        got, want = ours.weight_orig.grad.numpy(), theirs.weight_orig.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.weight_u.numpy(), u)
    utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    np.testing.assert_allclose(ours.weight.numpy(), theirs.weight.detach().numpy(), rtol=1e-12)


def test_spectral_norm_gradient_finite_differences():
    m = utils.spectral_norm(tg.nn.Linear(3, 2, dtype=tg.float64)).eval()
    x = tg.tensor(rand(4, 3))

    def fn(w):
        return tg.func.functional_call(m, {"weight_orig": w}, (x,))

    assert tg.autograd.gradcheck(fn, [tg.tensor(rand(2, 3), requires_grad=True)])


def test_spectral_norm_errors_as_torchs():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(2, 3))
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            lib.nn.utils.spectral_norm(m)
        with pytest.raises(KeyError, match="nope"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 3), "nope")
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 3), n_power_iterations=0)
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in Linear"):
            lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 3))
        with pytest.raises(ValueError, match="cannot be applied as parameter `bias` is None"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 3, bias=False), "bias")
