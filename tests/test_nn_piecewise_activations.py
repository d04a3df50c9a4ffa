"""The piecewise-linear activations (hardtanh, relu6, hardsigmoid, hardswish, threshold, the
shrinks, prelu, rrelu): values and gradients against PyTorch, including at the kinks (where
PyTorch picks its subgradient), float64 gradchecks away from them, in-place forms, layers, reprs
and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad.autograd import gradcheck, gradgradcheck

# every kink of every function below, and points between them
KINKS = np.array([-7.0, -6.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 6.0, 7.0])
POINTS = np.concatenate([KINKS, np.linspace(-6.9, 6.9, 23)])

# (name, tapegrad call, the PyTorch call), the same arguments
CALLS = [
    ("hardtanh", lambda F, x: F.hardtanh(x)),
    ("hardtanh-bounds", lambda F, x: F.hardtanh(x, -2.0, 3.0)),
    ("relu6", lambda F, x: F.relu6(x)),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x)),
    ("hardswish", lambda F, x: F.hardswish(x)),
    ("threshold", lambda F, x: F.threshold(x, 1.0, -7.0)),
    ("hardshrink", lambda F, x: F.hardshrink(x)),
    ("hardshrink-lambd", lambda F, x: F.hardshrink(x, 2.0)),
    ("softshrink", lambda F, x: F.softshrink(x, 1.0)),
    ("rrelu-eval", lambda F, x: F.rrelu(x, 0.1, 0.3)),
]


def _grad(lib, fn, values: np.ndarray) -> tuple:
    x = lib.tensor(values, requires_grad=True)
    out = fn(x)
    (g,) = (
        tg.autograd.grad(out.sum(), x)
        if lib is tg
        else __import__("torch").autograd.grad(out.sum(), x)
    )
    return out.detach().numpy(), g.detach().numpy()


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_values_and_gradients_equal_pytorchs_at_and_between_the_kinks(name, call) -> None:
    torch = pytest.importorskip("torch")
    out, grad = _grad(tg, lambda x: call(F, x), POINTS)
    want_out, want_grad = _grad(torch, lambda x: call(torch.nn.functional, x), POINTS)
    np.testing.assert_allclose(out, want_out, rtol=1e-15, atol=0)
    # (PyTorch's hardsigmoid derivative is float32's 1/6, even in float64)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-7 if "sigmoid" in name else 1e-15)


def test_the_subgradient_at_each_kink_is_pytorchs_choice() -> None:
    def grad_at(fn, *xs: float) -> list:
        return _grad(tg, fn, np.array(xs))[1].tolist()

    assert grad_at(F.relu6, 0.0, 6.0, 3.0) == [0.0, 0.0, 1.0]
    assert grad_at(lambda x: F.hardtanh(x, -2.0, 3.0), -2.0, 3.0, 0.0) == [0.0, 0.0, 1.0]
    assert grad_at(F.hardswish, -3.0, 3.0) == [0.0, 1.0]
    assert grad_at(F.hardsigmoid, -3.0, 3.0) == [0.0, 0.0]
    assert grad_at(lambda x: F.hardshrink(x, 0.5), -0.5, 0.5) == [0.0, 0.0]
    assert grad_at(lambda x: F.softshrink(x, 0.5), -0.5, 0.5) == [0.0, 0.0]
    assert grad_at(lambda x: F.threshold(x, 1.0, 5.0), 1.0) == [0.0]
    assert grad_at(lambda x: F.prelu(x, tg.tensor([0.25], dtype=np.float64)), 0.0) == [0.25]
    assert grad_at(lambda x: F.rrelu(x, 0.2, 0.4), 0.0) == [pytest.approx(0.3)]


def test_a_nan_input_gives_nan_with_the_vectorised_kernels_gradient() -> None:
    nan = np.array([np.nan])
    for fn, grad in (
        (F.hardtanh, 0.0),
        (F.relu6, 0.0),
        (F.hardsigmoid, 0.0),
        (F.hardshrink, 0.0),
        (F.softshrink, 0.0),
        (lambda x: F.threshold(x, 0.0, 1.0), 1.0),
    ):
        out, g = _grad(tg, fn, nan)
        assert np.isnan(out).all() and g.tolist() == [grad]
    out, g = _grad(tg, F.hardswish, nan)
    assert np.isnan(out).all() and np.isnan(g).all()


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_gradcheck_away_from_the_kinks(name, call) -> None:
    x = tg.tensor(np.linspace(-6.9, 6.9, 12) + 0.013, requires_grad=True)
    assert gradcheck(lambda v: call(F, v), (x,))
    assert gradgradcheck(lambda v: call(F, v), (x,))  # (0 or the line's: hardswish's is 1/3)


def test_prelu_per_channel_weight_and_its_gradient_equal_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xv, wv = rng.standard_normal((2, 3, 4)), np.array([0.1, -0.3, 0.7])
    x, w = tg.tensor(xv, requires_grad=True), tg.tensor(wv, requires_grad=True)
    tx, tw = torch.tensor(xv, requires_grad=True), torch.tensor(wv, requires_grad=True)
    F.prelu(x, w).sum().backward()
    torch.nn.functional.prelu(tx, tw).sum().backward()
    np.testing.assert_allclose(F.prelu(x, w).numpy(), torch.nn.functional.prelu(tx, tw).detach())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())
    assert gradcheck(F.prelu, (x, w)) and gradgradcheck(F.prelu, (x, w))
    with pytest.raises(RuntimeError, match="parameter numbers = 2 and channel size = 3"):
        F.prelu(x, tg.ones(2))
    with pytest.raises(RuntimeError, match="channel size = 1"):  # (a 1-D input: one channel)
        F.prelu(tg.ones(3), tg.ones(3))


def test_rrelu_draws_its_slopes_in_training_from_the_seeded_generator() -> None:
    x = tg.tensor(-np.ones(1000), requires_grad=True)
    tg.manual_seed(5)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -out.numpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and slopes.std() > 0.04
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), slopes)  # d(a x)/dx = a, the slope drawn
    tg.manual_seed(5)
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3, training=True).numpy(), out.numpy())
    assert F.rrelu(tg.tensor([-1.0, 2.0]), 0.2, 0.4).tolist() == pytest.approx([-0.3, 2.0])
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        F.rrelu(x, 0.5, 0.1)


def test_in_place_forms_write_into_the_input() -> None:
    for fn, want in (
        (lambda x: F.hardtanh_(x), [-1.0, 0.5, 1.0]),
        (lambda x: F.hardtanh(x, inplace=True), [-1.0, 0.5, 1.0]),
        (lambda x: F.relu6(x, inplace=True), [0.0, 0.5, 2.0]),
        (lambda x: F.threshold_(x, 1.0, 9.0), [9.0, 9.0, 2.0]),
        (lambda x: F.rrelu_(x, 0.5, 0.5), [-1.0, 0.5, 2.0]),
        (lambda x: F.hardsigmoid(x, inplace=True), [1 / 6, 7 / 12, 5 / 6]),
    ):
        x = tg.tensor([-2.0, 0.5, 2.0])
        assert fn(x) is x and x.tolist() == pytest.approx(want)
    leaf = tg.tensor([1.0, -1.0], requires_grad=True)
    y = leaf * 1.0
    F.hardtanh_(y, -0.5, 0.5)
    y.sum().backward()
    assert leaf.grad.tolist() == [0.0, 0.0]  # (both clipped: no gradient through the write)


def test_dtypes_follow_the_input_as_pytorchs() -> None:
    assert F.relu6(tg.tensor([1, 7, -3])).tolist() == [1, 6, 0]
    assert F.relu6(tg.tensor([1, 7, -3])).dtype == np.int64
    assert F.hardtanh(tg.tensor([1, 2, 3]), 0, 2).tolist() == [1, 2, 2]
    assert F.threshold(tg.tensor([1, 2]), 1.5, 5.5).tolist() == [5, 2]  # (value cast, as PyTorch)
    for fn in (F.hardtanh, F.hardsigmoid, F.hardswish, F.hardshrink, F.softshrink):
        assert fn(tg.tensor([0.25], dtype=np.float32)).dtype == np.float32


def test_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(tg.ones(2), 2.0, 1.0)
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(tg.ones(2), -1.0)
    with pytest.raises(TypeError, match="not implemented for integer input"):
        F.hardshrink(tg.tensor([1, 2]))
    with pytest.raises(TypeError, match="threshold must be a number"):
        F.threshold(tg.ones(2), "1", 0.0)
    with pytest.raises(TypeError, match="takes a tapegrad Tensor"):
        F.relu6(np.ones(2))


def test_layers_call_their_function_and_print_as_pytorchs() -> None:
    nn = tg.nn
    x = tg.tensor(POINTS)
    for layer, fn in (
        (nn.Hardtanh(-2.0, 3.0), lambda v: F.hardtanh(v, -2.0, 3.0)),
        (nn.ReLU6(), F.relu6),
        (nn.Hardsigmoid(), F.hardsigmoid),
        (nn.Hardswish(), F.hardswish),
        (nn.Threshold(1.0, -7.0), lambda v: F.threshold(v, 1.0, -7.0)),
        (nn.Softshrink(1.0), lambda v: F.softshrink(v, 1.0)),
        (nn.Hardshrink(), F.hardshrink),
        (nn.RReLU(0.1, 0.3).eval(), lambda v: F.rrelu(v, 0.1, 0.3)),
    ):
        np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())
    reprs = {
        nn.ReLU6(): "ReLU6()",
        nn.ReLU6(True): "ReLU6(inplace=True)",
        nn.Hardtanh(): "Hardtanh(min_val=-1.0, max_val=1.0)",
        nn.Hardtanh(-2, 3, True): "Hardtanh(min_val=-2, max_val=3, inplace=True)",
        nn.Hardsigmoid(True): "Hardsigmoid()",
        nn.Hardswish(): "Hardswish()",
        nn.Threshold(0.1, 20): "Threshold(threshold=0.1, value=20)",
        nn.Threshold(1, 2, True): "Threshold(threshold=1, value=2, inplace=True)",
        nn.Softshrink(): "Softshrink(0.5)",
        nn.Hardshrink(1): "Hardshrink(1)",
        nn.PReLU(3, 0.1): "PReLU(num_parameters=3)",
        nn.RReLU(): "RReLU(lower=0.125, upper=0.3333333333333333)",
        nn.RReLU(0.1, 0.3, True): "RReLU(lower=0.1, upper=0.3, inplace=True)",
    }
    for layer, text in reprs.items():
        assert repr(layer) == text
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        assert nn.Hardtanh(min_value=-2.0).min_val == -2.0
    with pytest.raises(ValueError, match="must be greater than min_val"):
        nn.Hardtanh(2.0, 1.0)


def test_prelu_layer_learns_its_slopes() -> None:
    layer = tg.nn.PReLU(3, init=0.1)
    assert [name for name, _ in layer.named_parameters()] == ["weight"]
    assert layer.weight.shape == (3,) and layer.weight.tolist() == pytest.approx([0.1] * 3)
    assert layer.weight.dtype == np.float32
    x = tg.tensor(-np.ones((2, 3, 2), np.float32))
    layer(x).sum().backward()
    assert layer.weight.grad.tolist() == [-4.0, -4.0, -4.0]
    assert tg.nn.PReLU(dtype=tg.float64).weight.dtype == np.float64


@pytest.mark.parametrize("size", [7, 3 * 8192 + 5], ids=["small", "rows-of-zeros"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_keeps_nan_signed_zero_and_infinities_as_pytorch(size, dtype) -> None:
    """Both of relu's kernels (a small array, and a large one taken against rows of zeros):
    values, the sign of zero and the gradient equal PyTorch's, contiguous or not."""
    torch = pytest.importorskip("torch")
    values = np.random.default_rng(0).standard_normal(size).astype(dtype)
    values[:6] = [np.nan, -0.0, 0.0, -np.inf, np.inf, -1.0]
    for x in (values, values[::-1]):  # (a reversed view is not contiguous)
        g = np.arange(x.size, dtype=dtype)
        t, tt = tg.tensor(x, requires_grad=True), torch.tensor(x.copy(), requires_grad=True)
        out, want = F.relu(t), torch.relu(tt)
        out.backward(tg.tensor(g))
        want.backward(torch.tensor(g))
        got, expected = out.detach().numpy(), want.detach().numpy()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
        np.testing.assert_array_equal(t.grad.numpy(), tt.grad.numpy())
