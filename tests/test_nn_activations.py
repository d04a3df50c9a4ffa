"""GELU, LeakyReLU, SiLU, Softmax, LogSoftmax, ReLU(inplace), Dropout, Flatten, Identity and their
F. spellings: closed forms, finite differences to second order, PyTorch parity."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, leaf, matches_pytorch, rand
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional
POINTS = np.array([-4.0, -1.3, -0.2, 0.0, 0.3, 1.1, 2.5, 6.0])


def _gelu_exact(x: np.ndarray) -> np.ndarray:
    return np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])


def test_gelu_closed_forms_and_derivatives():
    x = tg.tensor(POINTS, dtype=tg.float64, requires_grad=True)
    assert np.allclose(F.gelu(x).numpy(), _gelu_exact(POINTS), rtol=1e-15, atol=1e-300)
    tanh_form = 0.5 * POINTS * (1 + np.tanh(np.sqrt(2 / np.pi) * (POINTS + 0.044715 * POINTS**3)))
    assert np.allclose(nn.GELU("tanh")(x).numpy(), tanh_form, rtol=1e-15)
    (grad,) = tg.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
    pdf = np.exp(-(POINTS**2) / 2) / math.sqrt(2 * math.pi)
    cdf = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in POINTS])
    assert np.allclose(grad.numpy(), cdf + POINTS * pdf, rtol=1e-14)  # d/dx x Phi(x)
    (second,) = tg.autograd.grad(grad.sum(), x)
    assert np.allclose(second.numpy(), (2 - POINTS**2) * pdf, rtol=1e-12)  # d2/dx2 x Phi(x)
    assert F.gelu(tg.tensor([1.0])).dtype == np.float32
    for approximate in ("none", "tanh"):
        assert gradgradcheck(lambda v, a=approximate: F.gelu(v, approximate=a), (x,))
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        nn.GELU("fast")
    assert repr(nn.GELU()) == "GELU(approximate='none')"


def test_leaky_relu_silu_and_relu():
    x = tg.tensor(POINTS, dtype=tg.float64, requires_grad=True)
    assert np.allclose(nn.LeakyReLU(0.2)(x).numpy(), np.where(POINTS > 0, POINTS, 0.2 * POINTS))
    assert np.allclose(F.leaky_relu(x).numpy(), np.where(POINTS > 0, POINTS, 0.01 * POINTS))
    (slope,) = tg.autograd.grad(nn.LeakyReLU(0.2)(x).sum(), x)
    assert np.array_equal(slope.numpy(), np.where(POINTS > 0, 1.0, 0.2))  # 0.2 at 0, as PyTorch
    sig = 1 / (1 + np.exp(-POINTS))
    assert np.allclose(nn.SiLU()(x).numpy(), POINTS * sig)
    (dsilu,) = tg.autograd.grad(F.silu(x).sum(), x)
    assert np.allclose(dsilu.numpy(), sig * (1 + POINTS * (1 - sig)))
    smooth = tg.tensor([-1.5, -0.4, 0.7, 2.0], dtype=tg.float64, requires_grad=True)
    assert gradgradcheck(F.silu, (smooth,)) and gradcheck(lambda v: F.leaky_relu(v, 0.3), (smooth,))
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.LeakyReLU(0.2, True)) == "LeakyReLU(negative_slope=0.2, inplace=True)"
    assert repr(nn.SiLU()) == "SiLU()" and repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"


def test_inplace_activations_write_into_the_input_and_stay_differentiable():
    x = tg.tensor([-1.0, 2.0])
    for layer, want in [
        (nn.ReLU(inplace=True), [0.0, 2.0]),
        (nn.LeakyReLU(0.5, inplace=True), [-0.5, 2.0]),
    ]:
        v = x.clone()
        out = layer(v)
        assert out is v and v.tolist() == want
    leaf = tg.tensor([-1.0, 2.0], dtype=tg.float64, requires_grad=True)
    hidden = leaf * 3.0
    out = F.silu(hidden, inplace=True)
    (out * out).sum().backward()
    h = np.array([-3.0, 6.0])
    sig = 1 / (1 + np.exp(-h))
    assert np.allclose(leaf.grad.numpy(), 2 * h * sig * sig * (1 + h * (1 - sig)) * 3)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        nn.ReLU(inplace=True)(tg.tensor([1.0], requires_grad=True))


def test_softmax_and_log_softmax_dims():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4))
    for dim in (0, 1, 2, -1):
        e = np.exp(x - x.max(dim, keepdims=True))
        want = e / e.sum(dim, keepdims=True)
        assert np.allclose(nn.Softmax(dim)(tg.tensor(x)).numpy(), want)
        assert np.allclose(F.log_softmax(tg.tensor(x), dim=dim).numpy(), np.log(want))
    t = tg.tensor(x, requires_grad=True)
    assert gradgradcheck(lambda v: F.softmax(v, dim=1), (t,))
    assert gradgradcheck(lambda v: nn.LogSoftmax(dim=-1)(v), (t,))
    assert F.softmax(tg.tensor([1.0, 2.0]), dim=0, dtype=tg.float64).dtype == np.float64
    assert (
        repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"
        and repr(nn.LogSoftmax()) == "LogSoftmax(dim=None)"
    )
    # no dim: PyTorch's legacy choice (0 for 0-, 1- and 3-D input, else 1), with its warning
    for shape, implicit in [((3,), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)]:
        v = tg.tensor(rng.standard_normal(shape))
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            got = nn.Softmax()(v)
        assert np.allclose(got.numpy(), F.softmax(v, dim=implicit).numpy())
        with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
            F.log_softmax(v)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.softmax(tg.ones(2, 3), dim=1)  # no warning with a dim


def test_dropout_flatten_identity():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout(tg.ones(2), -0.1)
    tg.manual_seed(0)
    x = tg.ones(1000, requires_grad=True)
    y = F.dropout(x, 0.2)
    kept = y.numpy() != 0
    assert 0.75 < kept.mean() < 0.85 and np.allclose(y.numpy()[kept], 1.25)
    assert F.dropout(x, 0.2, training=False) is x
    assert np.array_equal(F.dropout(x, 1.0).numpy(), np.zeros(1000))
    v = tg.ones(50)
    out = nn.Dropout(0.5, inplace=True)(v)
    assert out is v and set(np.unique(v.numpy())) <= {0.0, 2.0}
    assert repr(nn.Dropout()) == "Dropout(p=0.5, inplace=False)"
    assert nn.Flatten()(tg.ones(2, 3, 4)).shape == (2, 12)
    assert nn.Flatten(0, 1)(tg.ones(2, 3, 4)).shape == (6, 4)
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    t = tg.ones(3)
    assert nn.Identity(54, unused_argument1=0.1)(t) is t and repr(nn.Identity(3)) == "Identity()"


def test_activations_match_pytorch_to_second_order():
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")
    tf = torch.nn.functional
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(12) * 3, [0.0, 1e-8, -5.0, 9.0]]).reshape(4, 4)
    cases = [
        (lambda v: F.gelu(v), lambda v: tf.gelu(v)),
        (lambda v: F.gelu(v, approximate="tanh"), lambda v: tf.gelu(v, approximate="tanh")),
        (lambda v: F.leaky_relu(v, 0.2), lambda v: tf.leaky_relu(v, 0.2)),
        (F.silu, tf.silu),
        (F.relu, tf.relu),
        (lambda v: F.softmax(v, dim=1), lambda v: tf.softmax(v, dim=1)),
        (lambda v: F.log_softmax(v, dim=0), lambda v: tf.log_softmax(v, dim=0)),
    ]
    g = rng.standard_normal((4, 4))
    for ours_fn, theirs_fn in cases:
        tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        ty, gy = theirs_fn(tx), ours_fn(gx)
        assert np.allclose(gy.numpy(), ty.detach().numpy(), rtol=1e-13, atol=1e-15)
        (td,) = torch.autograd.grad(ty, tx, torch.tensor(g), create_graph=True)
        (gd,) = tg.autograd.grad(gy, gx, tg.tensor(g), create_graph=True)
        assert np.allclose(gd.numpy(), td.detach().numpy(), rtol=1e-12, atol=1e-14)
        (td2,) = torch.autograd.grad(td.sum(), tx, allow_unused=True, materialize_grads=True)
        gd2 = tg.autograd.grad(gd.sum(), gx)[0].numpy() if gd.requires_grad else np.zeros(x.shape)
        assert np.allclose(gd2, td2.numpy(force=True), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("slope", [0.01, 0.0, 1.0, 1.5, -0.5])
@pytest.mark.parametrize("size", [10, 5000])  # (5000: where selects by bits)
def test_leaky_relu_matches_pytorch_bit_for_bit_at_edge_values(slope, size):
    """inf, NaN, -0.0 and denormals, in the output and the gradient (an infinite g included):
    PyTorch's x > 0 ? x : slope * x, and g or g * slope (inf * 0 is NaN there too)."""
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")
    rng = np.random.default_rng(2)
    edges = [-2.0, -0.0, 0.0, 3.0, np.nan, np.inf, -np.inf, 1e-40, -1e-40, 1e30]
    x = np.resize(np.array(edges, np.float32), size)
    x[len(edges) :] = rng.standard_normal(size - len(edges))
    g = np.resize(np.array([1.0, 2.0, np.inf, -np.inf, 1.0], np.float32), size)
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    with np.errstate(invalid="ignore"):
        y = F.leaky_relu(ours, slope)
        y.backward(tg.tensor(g))
    want = torch.nn.functional.leaky_relu(theirs, slope)
    want.backward(torch.tensor(g))
    for a, b in ((y.numpy(), want.detach().numpy()), (ours.grad.numpy(), theirs.grad.numpy())):
        nan = np.isnan(b)  # (NaN where PyTorch has NaN; elsewhere the same bits, -0.0 included)
        assert a.dtype == b.dtype and np.array_equal(np.isnan(a), nan)
        assert np.array_equal(a[~nan].view(np.uint32), b[~nan].view(np.uint32))
    assert type(y.grad_fn).__name__ == "Node" and y.grad_fn.name == "LeakyReluBackward"


# ---- softplus, elu, normalize --------------------------------------------------------------------
def test_softplus():
    a = np.array([-30.0, -2.0, -0.1, 0.0, 0.3, 5.0, 9.99, 10.01, 25.0, 1000.0])
    for beta, threshold in [(1.0, 20.0), (2.0, 20.0), (0.5, 3.0)]:
        out = F.softplus(tg.tensor(a), beta, threshold).numpy()
        expected = np.where(
            a * beta > threshold, a, np.log1p(np.exp(np.minimum(a * beta, 50))) / beta
        )
        assert np.allclose(out, expected)
        x = leaf(a)
        F.softplus(x, beta=beta, threshold=threshold).sum().backward()
        sig = 1 / (1 + np.exp(-np.minimum(a * beta, 50)))
        assert np.allclose(x.grad.numpy(), np.where(a * beta > threshold, 1.0, sig))
        assert np.all(np.isfinite(x.grad.numpy()))  # no 0 * inf from the branch not taken
    check_grads(lambda x: F.softplus(x, 2.0, 1.0), rand(3, 4) * 0.9 + 0.05)
    m = nn.Softplus(beta=2.0, threshold=10.0)
    assert repr(m) == "Softplus(beta=2.0, threshold=10.0)"
    assert np.allclose(m(tg.tensor(a)).numpy(), F.softplus(tg.tensor(a), 2.0, 10.0).numpy())
    with pytest.raises(TypeError, match="tapegrad Tensor"):
        F.softplus(a)


def test_elu():
    a = np.array([-50.0, -1.0, -0.1, 0.0, 0.2, 3.0, 800.0])
    for alpha in (1.0, 0.5):
        out = F.elu(tg.tensor(a), alpha).numpy()
        assert np.allclose(out, np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0))))
        x = leaf(a)
        F.elu(x, alpha=alpha).sum().backward()
        # the derivative at 0 is alpha (PyTorch takes the exp side there)
        assert np.allclose(x.grad.numpy(), np.where(a > 0, 1.0, alpha * np.exp(np.minimum(a, 0))))
    check_grads(lambda x: F.elu(x, 0.7), rand(3, 4) + 0.05)
    y = tg.tensor(a)
    assert F.elu(y, inplace=True) is y and y.numpy()[1] == np.expm1(-1.0)
    check_grads(lambda x: F.elu(x * 1.0, 1.3, inplace=True), rand(4) + 0.05)
    assert (
        repr(nn.ELU()) == "ELU(alpha=1.0)"
        and repr(nn.ELU(0.5, True)) == "ELU(alpha=0.5, inplace=True)"
    )
    z = tg.tensor([-1.0, 1.0])
    assert nn.ELU(inplace=True)(z) is z


def test_normalize():
    a = rand(3, 4)
    out = F.normalize(tg.tensor(a)).numpy()
    assert np.allclose(out, a / np.linalg.norm(a, axis=1, keepdims=True))
    out = F.normalize(tg.tensor(a), p=1.0, dim=0).numpy()
    assert np.allclose(out, a / np.abs(a).sum(axis=0, keepdims=True))
    assert np.array_equal(F.normalize(tg.zeros(2, 3)).numpy(), np.zeros((2, 3)))  # eps: no 0/0
    check_grads(lambda x: F.normalize(x), a)
    check_grads(lambda x: F.normalize(x, p=3.0, dim=-1), a)
    x = leaf(np.zeros((2, 3)))
    F.normalize(x).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.full((2, 3), 1e12))  # 1 / eps, as PyTorch
    with pytest.raises(IndexError, match="out of range"):
        F.normalize(tg.ones(3))  # dim=1 of a vector, as PyTorch


# ---- softplus, elu, normalize against PyTorch (when installed), to second order ------------------
SECOND_ORDER_PROGRAMS = {
    "softplus": (lambda m, x: m.nn.functional.softplus(x * 8.0), [(3, 4)]),
    "softplus-beta": (lambda m, x: m.nn.functional.softplus(x, beta=3.0, threshold=2.0), [(3, 4)]),
    "softplus-module": (lambda m, x: m.nn.Softplus(2.0, 1.0)(x), [(3, 4)]),
    "elu": (lambda m, x: m.nn.functional.elu(x), [(3, 4)]),
    "elu-alpha": (lambda m, x: m.nn.functional.elu(x, alpha=0.3), [(3, 4)]),
    "elu-inplace": (lambda m, x: m.nn.functional.elu(x * 1.0, 2.0, inplace=True), [(3, 4)]),
    "elu-module": (lambda m, x: m.nn.ELU(0.5)(x), [(3, 4)]),
    "normalize": (lambda m, x: m.nn.functional.normalize(x), [(3, 4)]),
    "normalize-p1": (lambda m, x: m.nn.functional.normalize(x, p=1.0, dim=0), [(3, 4)]),
    "normalize-p3": (lambda m, x: m.nn.functional.normalize(x, 3, -1, 1e-6), [(2, 3, 4)]),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER_PROGRAMS))
def test_against_pytorch_to_second_order(name):
    fn, shapes = SECOND_ORDER_PROGRAMS[name]
    matches_pytorch(fn, [rand(*s, seed=i) for i, s in enumerate(shapes)], second_order=True)


def test_docstring_examples_run():
    import doctest
    import importlib

    flags = doctest.NORMALIZE_WHITESPACE
    module = importlib.import_module("tapegrad.nn.activation")
    result = doctest.testmod(module, extraglobs={"tg": tg}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
    for fn in (F.softplus, F.elu, F.normalize):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner(optionflags=flags)
        for test in finder.find(fn, globs={"tg": tg, "F": F}):
            assert test.examples and runner.run(test).failed == 0
