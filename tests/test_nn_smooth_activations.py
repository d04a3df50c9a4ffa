"""The smooth activations beyond the classic ones (selu, celu, mish, softsign, tanhshrink,
logsigmoid, glu, softmin, Softmax2d) and the in-place functional forms: values and gradients against
PyTorch, second-order gradchecks, the elu family's derivative at 0, stability, layers and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad.autograd import gradcheck, gradgradcheck

POINTS = np.concatenate([[-30.0, -3.0, -1.0, 0.0, 1.0, 3.0, 30.0], np.linspace(-4, 4, 17) + 0.01])

CALLS = [
    ("selu", lambda F, x: F.selu(x)),
    ("celu", lambda F, x: F.celu(x, 0.5)),  # (0.5: exact in float32, see below)
    ("mish", lambda F, x: F.mish(x)),
    ("softsign", lambda F, x: F.softsign(x)),
    ("tanhshrink", lambda F, x: F.tanhshrink(x)),
    ("logsigmoid", lambda F, x: F.logsigmoid(x)),
    ("glu", lambda F, x: F.glu(x.reshape(4, -1), 0)),
    ("softmin", lambda F, x: F.softmin(x.reshape(4, -1), dim=1)),
]


def _run(lib, call, values: np.ndarray) -> tuple:
    x = lib.tensor(values, requires_grad=True)
    out = call(x)
    scale = lib.tensor(np.linspace(0.5, 1.5, out.numel() if lib is not tg else out.size))
    (out * scale.reshape(out.shape)).sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_values_and_gradients_equal_pytorchs(name, call) -> None:
    torch = pytest.importorskip("torch")
    out, grad = _run(tg, lambda x: call(F, x), POINTS)
    want_out, want_grad = _run(torch, lambda x: call(torch.nn.functional, x), POINTS)
    np.testing.assert_allclose(out, want_out, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-13, atol=1e-15)  # (rounding near 0)


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_gradcheck_to_second_order(name, call) -> None:
    x = tg.tensor(np.linspace(-3, 3, 8) + 0.01, requires_grad=True)
    assert gradcheck(lambda v: call(F, v), (x,))
    assert gradgradcheck(lambda v: call(F, v), (x,))


def test_the_elu_familys_derivative_at_zero_is_pytorchs() -> None:
    def grad_at_0(fn) -> float:
        x = tg.tensor([0.0], requires_grad=True)
        fn(x).sum().backward()
        return float(x.grad.numpy()[0])

    assert grad_at_0(F.selu) == pytest.approx(1.0507009873554805 * 1.6732632423543772)
    assert grad_at_0(lambda x: F.celu(x, 2.0)) == 1.0
    assert grad_at_0(F.softsign) == 1.0
    assert grad_at_0(F.logsigmoid) == 0.5


def test_celus_derivative_is_the_exact_one() -> None:
    # PyTorch's derivative takes 1 / alpha with alpha rounded to float32 (0.7 -> 0.699999988):
    # tapegrad's is the derivative of its forward, so they differ by ~1e-8 there
    x = tg.tensor([-1.3, -0.2], dtype=np.float64, requires_grad=True)
    F.celu(x, 0.7).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.array([-1.3, -0.2]) / 0.7), rtol=1e-15)


def test_large_inputs_stay_finite() -> None:
    x = tg.tensor([-1000.0, 1000.0], requires_grad=True)
    F.logsigmoid(x).sum().backward()
    assert F.logsigmoid(x).tolist() == [-1000.0, 0.0] and x.grad.tolist() == [1.0, 0.0]
    y = tg.tensor([-1000.0, 1000.0], requires_grad=True)
    F.mish(y).sum().backward()
    assert F.mish(y).tolist() == [0.0, 1000.0] and y.grad.tolist() == [0.0, 1.0]


def test_float32_in_float32_out() -> None:
    x = tg.tensor([-1.0, 2.0], dtype=np.float32)
    for fn in (F.selu, F.celu, F.mish, F.softsign, F.tanhshrink, F.logsigmoid, F.glu):
        assert fn(x).dtype == np.float32
    assert F.softmin(x, 0, dtype=np.float64).dtype == np.float64


def test_in_place_forms_write_into_the_input() -> None:
    for fn, want in (
        (F.relu_, [0.0, 2.0]),
        (lambda x: F.leaky_relu_(x, 0.5), [-0.5, 2.0]),
        (F.elu_, [np.expm1(-1.0), 2.0]),
        (F.selu_, [F.selu(tg.tensor([-1.0])).item(), 2.0 * 1.0507009873554805]),
        (lambda x: F.celu_(x, 2.0), [2.0 * np.expm1(-0.5), 2.0]),
        (lambda x: F.mish(x, inplace=True), [F.mish(tg.tensor([-1.0])).item(), 1.9440]),
    ):
        x = tg.tensor([-1.0, 2.0], dtype=np.float64)
        assert fn(x) is x and x.tolist() == pytest.approx(want, rel=1e-4)


def test_glu_halves_and_errors() -> None:
    x = tg.tensor([[1.0, 2.0, 0.0, 0.0]])
    assert F.glu(x).tolist() == [[0.5, 1.0]]
    with pytest.raises(RuntimeError, match="dimension 1 is size 3"):
        F.glu(tg.ones(2, 3))
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(tg.tensor(1.0))
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.glu(tg.ones(2), 3)
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        F.celu(tg.ones(2), 0.0)


def test_softmin_is_softmax_of_the_negation_and_warns_without_dim() -> None:
    x = tg.tensor([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(F.softmin(x, 1).numpy(), F.softmax(-x, 1).numpy())
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        F.softmin(x)


def test_layers_call_their_function_and_print_as_pytorchs() -> None:
    nn = tg.nn
    x = tg.tensor(np.linspace(-2, 2, 8).reshape(2, 4))
    for layer, fn in (
        (nn.SELU(), F.selu),
        (nn.CELU(2.0), lambda v: F.celu(v, 2.0)),
        (nn.Mish(), F.mish),
        (nn.Softsign(), F.softsign),
        (nn.Tanhshrink(), F.tanhshrink),
        (nn.LogSigmoid(), F.logsigmoid),
        (nn.GLU(0), lambda v: F.glu(v, 0)),
        (nn.Softmin(1), lambda v: F.softmin(v, 1)),
    ):
        np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())
    images = tg.tensor(np.random.default_rng(0).standard_normal((2, 3, 2, 2)))
    np.testing.assert_allclose(nn.Softmax2d()(images).numpy(), F.softmax(images, -3).numpy())
    with pytest.raises(ValueError, match="expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(x)
    reprs = {
        nn.SELU(): "SELU()",
        nn.SELU(True): "SELU(inplace=True)",
        nn.CELU(): "CELU(alpha=1.0)",
        nn.CELU(2.0, True): "CELU(alpha=2.0, inplace=True)",
        nn.Mish(True): "Mish()",
        nn.Softsign(): "Softsign()",
        nn.Tanhshrink(): "Tanhshrink()",
        nn.LogSigmoid(): "LogSigmoid()",
        nn.GLU(): "GLU(dim=-1)",
        nn.Softmin(): "Softmin(dim=None)",
        nn.Softmax2d(): "Softmax2d()",
    }
    for layer, text in reprs.items():
        assert repr(layer) == text


@pytest.mark.parametrize(
    "name, call",
    [
        ("relu", lambda a: F.relu(a)),
        ("gelu", lambda a: F.gelu(a)),
        ("softmax", lambda a: F.softmax(a, 0)),
        ("hardtanh", lambda a: F.hardtanh(a)),
        ("prelu", lambda a: F.prelu(a, tg.ones(1))),
        ("normalize", lambda a: F.normalize(a)),
        ("dropout", lambda a: F.dropout(a)),
        ("pad", lambda a: F.pad(a, (1, 1))),
        ("alpha_dropout", lambda a: F.alpha_dropout(a)),
        ("group_norm", lambda a: F.group_norm(a, 1)),
        ("pixel_shuffle", lambda a: F.pixel_shuffle(a, 1)),
        ("layer_norm", lambda a: F.layer_norm(a, (2,))),
        ("batch_norm", lambda a: F.batch_norm(a, None, None, training=True)),
        ("pdist", lambda a: F.pdist(a)),
        ("RNNCell", lambda a: tg.nn.RNNCell(2, 3)(a)),
        ("Unflatten", lambda a: tg.nn.Unflatten(1, (2, 1))(a)),
        ("LayerNorm", lambda a: tg.nn.LayerNorm(2)(a)),
    ],
)
def test_every_functional_module_refuses_a_non_tensor_naming_the_function(name, call) -> None:
    # one check (nn/functional_arguments.py) serves functional.py and its topic modules alike
    with pytest.raises(TypeError, match=rf"^{name} takes a tapegrad Tensor, got ndarray; wrap it"):
        call(np.ones((1, 2, 2)))


def test_inplace_writes_into_the_input_in_every_functional_module() -> None:
    for fn in (F.relu, F.hardtanh, lambda v, inplace: F.dropout(v, 0.0, True, inplace)):
        x = tg.tensor([-1.0, 0.5])
        out = fn(x, inplace=True)
        assert out is x
        assert np.array_equal(x.numpy(), fn(tg.tensor([-1.0, 0.5]), inplace=False).numpy())
