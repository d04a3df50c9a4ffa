"""Tests of the functional layer: tg.grad / value_and_grad (API.md's structure table, row by row),
the seed examples (000, 001, 002, 004) with their printed numbers, higher order, vjp/jvp/jacobian/
hessian against each other and finite differences, stop_gradient, errors, and graph lifetime.
"""

import gc
import weakref

import numpy as np
import pytest

import tapegrad as tg
from helpers import SeedNet as Net
from helpers import seed_net
from tapegrad._state import state


def assert_tree(actual, expected, atol=1e-5):
    """Same nesting (tuple vs Tensor, lengths) and values; every tensor detached."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple), f"expected a tuple, got {type(actual).__name__}"
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_tree(a, e, atol)
    else:
        assert isinstance(actual, tg.Tensor), f"expected a Tensor, got {type(actual).__name__}"
        e = np.asarray(expected)
        assert actual.shape == e.shape
        np.testing.assert_allclose(actual.numpy(), e, atol=atol)
        assert actual.grad_fn is None


# ---- the structure table, one test per row, for grad and value_and_grad ------------------------
# f(x, y) = sum(w * x * x * y): df/dx = 2 w x y, df/dy = sum(w x x), df/dw = x x y
X, Y, W = np.array([1.0, 2.0], np.float32), np.float32(3.0), np.array([0.5, -1.0], np.float32)
GX, GY, GW = 2 * W * X * Y, np.sum(W * X * X), X * X * Y
ROWS = [  # (grad_position, uses weights, expected structure)
    (0, False, GX),
    (1, False, GY),
    ((0, 1), False, (GX, GY)),
    (None, True, (GW,)),
    (0, True, (GX, (GW,))),
    ((0, 1), True, ((GX, GY), (GW,))),
]


@pytest.fixture
def table_fn():
    w = tg.nn.Parameter(tg.tensor(W), name="w")
    return (lambda x, y: (w * x * x * y).sum()), w


@pytest.mark.parametrize("position,use_w,expected", ROWS)
def test_grad_table_row(table_fn, position, use_w, expected):
    f, w = table_fn
    g = tg.grad(f, grad_position=position, weights=[w] if use_w else None)(
        tg.tensor(X), tg.tensor(Y)
    )
    assert_tree(g, expected)


@pytest.mark.parametrize("position,use_w,expected", ROWS)
def test_value_and_grad_table_row(table_fn, position, use_w, expected):
    f, w = table_fn
    value, g = tg.value_and_grad(f, position, [w] if use_w else None)(tg.tensor(X), tg.tensor(Y))
    assert_tree(value, np.sum(W * X * X * Y))
    assert_tree(g, expected)


@pytest.mark.parametrize("make", [tg.grad, tg.value_and_grad])
def test_table_row_none_none_is_value_error(make):
    with pytest.raises(ValueError, match="can not be None at the same time"):
        make(lambda x: x, grad_position=None, weights=None)


def test_single_parameter_weights_still_give_a_tuple(table_fn):
    f, w = table_fn
    assert_tree(tg.grad(f, None, w)(tg.tensor(X), tg.tensor(Y)), (GW,))


# ---- seed 000: mindspore.grad basics and the Dense + MSELoss network ---------------------------
def test_seed000_grad_of_inputs():
    x, y = tg.tensor(1.0), tg.tensor(2.0)
    net = lambda x, y: x**2 + y  # noqa: E731
    assert tg.grad(net, grad_position=0)(x, y).item() == 2.0
    assert tg.grad(net, grad_position=1)(x, y).item() == 1.0


def test_seed000_multiple_outputs_are_summed_and_has_aux_picks_output_0():
    x, y = tg.tensor(1.0), tg.tensor(2.0)
    net = lambda x, y: (x**2 + y, x)  # noqa: E731
    assert tg.grad(net, grad_position=0)(x, y).item() == 3.0  # d(x^2 + y + x)/dx
    assert tg.grad(net, grad_position=1)(x, y).item() == 1.0  # the seed prints `out` again: 3.0
    out, aux = tg.grad(net, grad_position=0, has_aux=True)(x, y)
    assert out.item() == 2.0 and isinstance(aux, tuple) and aux[0].item() == 1.0
    out, _ = tg.grad(net, grad_position=1, has_aux=True)(x, y)
    assert out.item() == 1.0


@pytest.fixture(name="seed_net")
def seed_net_and_data():
    return seed_net(), tg.tensor([[1, 2, 3]], tg.float32), tg.tensor(19, tg.float32)


def test_seed000_network_forward(seed_net):
    net, x, y = seed_net
    assert [p.name for p in net.trainable_params()] == ["fc.weight"]
    loss, logits = net(x, y)
    assert loss.item() == 1.0 and logits.item() == 20.0


GRADS_1_TO_6 = [  # "=== grads N ===" of seed 000 / 002
    (0, False, [[4, 6, 8]]),
    (1, False, -2.0),
    ((0, 1), False, ([[4, 6, 8]], -2.0)),
    (None, True, ([[2, 4, 6]],)),
    (0, True, ([[4, 6, 8]], ([[2, 4, 6]],))),
    ((0, 1), True, (([[4, 6, 8]], -2.0), ([[2, 4, 6]],))),
]


@pytest.mark.parametrize("position,use_w,expected", GRADS_1_TO_6)
def test_seed000_grads_1_to_6(seed_net, position, use_w, expected):
    net, x, y = seed_net
    weights = net.trainable_params() if use_w else None
    grads, logit = tg.grad(net, grad_position=position, weights=weights, has_aux=True)(x, y)
    assert_tree(grads, expected)
    assert_tree(logit, (20.0,))


def test_seed000_grads_7_has_aux_false_sums_outputs(seed_net):
    net, x, y = seed_net
    assert_tree(tg.grad(net, grad_position=0, weights=None, has_aux=False)(x, y), [[6, 9, 12]])

    class Net2(Net):
        def construct(self, x, y):
            loss, logits = super().construct(x, y)
            return loss + logits

    net2 = Net2(3, 1)
    net2.fc.weight.set_data(tg.tensor([[2, 3, 4]], tg.float32))
    assert_tree(tg.grad(net2, grad_position=0)(x, y), [[6, 9, 12]])


def test_seed000_grads_8_none_none(seed_net):
    with pytest.raises(ValueError, match="`grad_position` and `weights` can not be None"):
        tg.grad(seed_net[0], grad_position=None, weights=None, has_aux=True)


def test_seed000_value_and_grad(seed_net):
    net, x, y = seed_net
    value, grads = tg.value_and_grad(
        net, grad_position=(0, 1), weights=net.trainable_params(), has_aux=True
    )(x, y)
    assert_tree(value, (1.0, 20.0))
    assert_tree(grads, (([[4, 6, 8]], -2.0), ([[2, 4, 6]],)))


def test_seed000_loss_scale(seed_net):
    net, x, y = seed_net
    loss_scale = tg.amp.StaticLossScaler(1024.0)

    def forward_fn(x, y):
        loss, logits = net(x, y)
        return loss_scale.scale(loss), logits

    (loss, logits), grad = tg.value_and_grad(
        forward_fn, None, net.trainable_params(), has_aux=True
    )(x, y)
    assert loss.item() == 1024.0 and logits.item() == 20.0
    assert_tree(grad, ([[2048, 4096, 6144]],))
    assert_tree(loss_scale.unscale(grad), ([[2, 4, 6]],))
    assert tg.amp.all_finite(grad)


# ---- seed 001: advanced automatic differentiation ---------------------------------------------
class ZNet(tg.nn.Cell):
    """out = x * x * y * z, z a parameter."""

    def __init__(self):
        super().__init__()
        self.z = tg.nn.Parameter(tg.tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return x * x * y * self.z


def test_seed001_first_order_inputs_and_weights():
    x, y = tg.tensor([3.0], tg.float32), tg.tensor([5.0], tg.float32)
    net = ZNet()
    assert_tree(tg.grad(net, grad_position=(0, 1))(x, y), ([30.0], [9.0]))
    assert_tree(
        tg.grad(net, grad_position=None, weights=tuple(net.trainable_params()))(x, y), ([45.0],)
    )


def test_seed001_has_aux_with_dense():
    tg.manual_seed(0)
    net, loss_fn = tg.nn.Dense(10, 1), tg.nn.MSELoss()

    def forward(inputs, labels):
        logits = net(inputs)
        return loss_fn(logits, labels), logits

    inputs = tg.tensor(np.random.randn(16, 10).astype(np.float32))
    labels = tg.tensor(np.random.randn(16, 1).astype(np.float32))
    inputs_gradient, (aux_logits,) = tg.grad(forward, 0, None, has_aux=True)(inputs, labels)
    assert (len(inputs_gradient), aux_logits.shape) == (16, (16, 1))


@pytest.mark.parametrize("stop,expected", [(True, 5.0), (False, 10.0)])
def test_seed001_stop_gradient(stop, expected):
    x, y = tg.tensor([3.0], tg.float32), tg.tensor([5.0], tg.float32)

    def net(x, y):
        out1 = x * y
        out2 = x * y
        if stop:
            out2 = tg.stop_gradient(out2)
        return out1 + out2

    assert_tree(tg.grad(net)(x, y), [expected])


X_PI = tg.tensor(np.array([3.1415926]), tg.float32)


def test_seed001_second_derivative_of_sin():
    out = tg.grad(tg.grad(tg.sin))(X_PI)
    assert str(np.around(out.numpy(), decimals=2)) == "[-0.]"


def test_seed001_second_derivative_of_sin_and_cos():
    out = tg.grad(tg.grad(lambda x: (tg.sin(x), tg.cos(x))))(X_PI)
    np.testing.assert_array_equal(np.around(out.numpy(), 2), [1.0])


def test_seed001_second_derivative_two_inputs_two_outputs():
    def net(x, y):
        return tg.sin(x) - tg.cos(y), tg.cos(x) - tg.sin(y)

    out = tg.grad(tg.grad(net, grad_position=(0, 1)), grad_position=(0, 1))(X_PI, X_PI)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_array_equal(np.around(out[0].numpy(), 2), [1.0])
    np.testing.assert_array_equal(np.around(out[1].numpy(), 2), [-1.0])


# ---- seed 004: GradOperation (get_all, get_by_list, sens_param) ------------------------------
SX = np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32)
SY = np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32)


class MatNet(tg.nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = tg.nn.Parameter(tg.tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return tg.matmul(x * self.z, y)


def test_seed004_grad_of_cos_sin():
    x = np.array([1.0, 2.0, 5.0], np.float32)
    y2 = tg.grad(lambda x: tg.cos(tg.sin(x)))(tg.tensor(x))
    np.testing.assert_allclose(y2.numpy(), -np.sin(np.sin(x)) * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(y2.numpy(), [-0.4028624, 0.32836998, 0.23219854], rtol=1e-6)


def test_seed004_wrt_x_wrt_xy_wrt_params():
    x, y, net = tg.tensor(SX), tg.tensor(SY), MatNet()
    dx = np.ones((2, 3)) @ SY.T
    dy = SX.T @ np.ones((2, 3))
    assert_tree(tg.grad(net)(x, y), dx)
    assert_tree(tg.grad(net, (0, 1))(x, y), (dx, dy))
    assert_tree(tg.grad(net, None, net.trainable_params())(x, y), ([15.337],), atol=1e-4)


def test_seed004_sensitivity_scales_everything():
    x, y, net = tg.tensor(SX), tg.tensor(SY), MatNet()
    sens = tg.tensor(np.full((2, 3), 0.1, np.float32))
    out, vjp_fn = tg.vjp(net, x, y, weights=net.trainable_params())
    grads = vjp_fn(sens)
    dx, dy = np.ones((2, 3)) @ SY.T, SX.T @ np.ones((2, 3))
    assert_tree(grads, ((0.1 * dx, 0.1 * dy), ([1.5337],)), atol=1e-5)
    assert_tree(out, SX @ SY)
    with pytest.raises(ValueError, match=r"cotangent 0 has shape \[2, 2\] but output 0 has shape"):
        vjp_fn(tg.tensor(np.full((2, 2), 0.1, np.float32)))


def test_seed004_grad_called_inside_a_cell():
    class GradNetWrtX(tg.nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, x, y):
            return tg.grad(self.net)(x, y)

    assert_tree(GradNetWrtX(MatNet())(tg.tensor(SX), tg.tensor(SY)), np.ones((2, 3)) @ SY.T)


# ---- higher order, nesting and mixing ---------------------------------------------------------
def test_third_derivatives_match_closed_forms():
    x = tg.tensor([0.3, 1.7], tg.float64)
    d3 = tg.grad(tg.grad(tg.grad(tg.sin)))
    np.testing.assert_allclose(d3(x).numpy(), -np.cos(x.numpy()))
    d3 = tg.grad(tg.grad(tg.grad(lambda x: x**4)))
    np.testing.assert_allclose(d3(x).numpy(), 24 * x.numpy())
    d3 = tg.grad(tg.grad(tg.grad(lambda x: x**2 * tg.sin(x))))
    v = x.numpy()
    np.testing.assert_allclose(d3(x).numpy(), 6 * np.cos(v) - 6 * v * np.sin(v) - v * v * np.cos(v))


def test_mixed_partials_and_grad_position_nesting():
    f = lambda x, y: x**3 * y**2  # noqa: E731
    x, y = tg.tensor(2.0, tg.float64), tg.tensor(3.0, tg.float64)
    assert tg.grad(tg.grad(f, 0), 1)(x, y).item() == pytest.approx(6 * 4 * 3)  # 6 x^2 y
    assert tg.grad(tg.grad(tg.grad(f, 0), 1), 0)(x, y).item() == pytest.approx(12 * 2 * 3)


def test_grad_of_a_closure_over_the_outer_variable():
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x: the inner result stays tied to the outer x
    f = lambda x: x * tg.grad(lambda y: x * y)(tg.tensor(1.0))  # noqa: E731
    assert tg.grad(f)(tg.tensor(3.0)).item() == 6.0


def test_grad_of_fn_using_autograd_grad_with_create_graph():
    def f(x):
        (g,) = tg.autograd.grad((x**3).sum(), x, create_graph=True)
        return g.sum()

    assert_tree(tg.grad(f)(tg.tensor([1.0, 2.0])), [6.0, 12.0])


def test_grad_of_fn_calling_backward_inside():
    def f(x):
        (x**3).sum().backward(create_graph=True)  # x is a fresh leaf: its .grad is 3x^2
        return x.grad.sum()

    assert_tree(tg.grad(f)(tg.tensor([1.0, 2.0])), [6.0, 12.0])


def test_grad_inside_a_gradient_tape_stays_on_the_tape():
    x = tg.tensor(2.0, requires_grad=True)
    with tg.GradientTape() as tape:
        g = tg.grad(lambda x: x**3)(x)  # 3x^2, kept on the tape because the tape is open
    assert g.item() == 12.0 and g.grad_fn is not None
    assert tape.gradient(g, x).item() == 12.0  # 6x


def test_grad_works_inside_no_grad_and_respects_no_grad_inside_fn():
    with tg.no_grad():
        assert tg.grad(lambda x: x * x)(tg.tensor(3.0)).item() == 6.0
        assert not tg.is_grad_enabled()

    def f(x):
        with tg.no_grad():
            c = x * x  # not recorded: a constant for the derivative
        return c * x

    assert tg.grad(f)(tg.tensor(3.0)).item() == 9.0
    assert state.diff_depth == 0


def test_value_and_grad_nested_keeps_the_value_on_the_tape():
    inner = tg.value_and_grad(lambda x: x**3)
    # d/dx (value + grad) = 3x^2 + 6x
    assert tg.grad(lambda x: sum(inner(x)))(tg.tensor(2.0)).item() == 24.0


def pinn_setup():
    w = tg.nn.Parameter(tg.tensor(0.7, tg.float64))
    x = tg.tensor([0.1, 0.5, 1.2], tg.float64)
    u = lambda x: tg.tanh(w * x).sum()  # noqa: E731

    def fd(wv):  # loss(w) = sum (du/dx)^2 = sum (w (1 - tanh^2(w x)))^2, by hand
        return np.sum((wv * (1 - np.tanh(wv * x.numpy()) ** 2)) ** 2)

    return w, x, u, (fd(0.7 + 1e-6) - fd(0.7 - 1e-6)) / 2e-6


def test_cross_derivative_input_then_weights():
    # PINN style: the loss uses du/dx; its gradient w.r.t. the weights needs d2u/dx dw.
    w, x, u, expected = pinn_setup()
    (gw,) = tg.grad(lambda x: (tg.grad(u)(x) ** 2).sum(), None, [w])(x)
    assert gw.item() == pytest.approx(expected, rel=1e-7)


def test_inner_grad_then_backward_inside_a_gradient_tape():
    # A plain call detaches; inside an open tape the inner grad stays on it, so .backward() works.
    w, x, u, expected = pinn_setup()
    with tg.GradientTape():
        loss = (tg.grad(u)(x) ** 2).sum()
    loss.backward()
    assert w.grad.item() == pytest.approx(expected, rel=1e-7)
    assert tg.grad(u)(x).grad_fn is None  # the plain call


# ---- vjp, jvp, jacobian, hessian against each other -------------------------------------------
def vec_fn(x, y):
    return tg.stack([(tg.sin(x) * y).sum(), (x * x).sum() * tg.exp(y[0])])


@pytest.fixture
def xy():
    rng = np.random.default_rng(0)
    return tg.tensor(rng.standard_normal(3)), tg.tensor(rng.standard_normal(3))  # float64


def test_jacobian_vjp_jvp_agree(xy):
    x, y = xy
    jx, jy = tg.jacobian(vec_fn, argnums=(0, 1))(x, y)
    assert jx.shape == (2, 3) and jy.shape == (2, 3) and jx.dtype == np.float64
    rng = np.random.default_rng(1)
    v1, v2, u = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(2)
    out, jv = tg.jvp(vec_fn, (x, y), (tg.tensor(v1), tg.tensor(v2)))
    np.testing.assert_allclose(out.numpy(), vec_fn(x, y).numpy())
    np.testing.assert_allclose(jv.numpy(), jx.numpy() @ v1 + jy.numpy() @ v2, rtol=1e-10)
    _, vjp_fn = tg.vjp(vec_fn, x, y)
    ux, uy = vjp_fn(tg.tensor(u))
    np.testing.assert_allclose(ux.numpy(), u @ jx.numpy(), rtol=1e-10)
    np.testing.assert_allclose(uy.numpy(), u @ jy.numpy(), rtol=1e-10)


def test_jacobian_shape_is_out_shape_plus_in_shape():
    x = tg.tensor(np.arange(6.0).reshape(2, 3))
    j = tg.jacobian(lambda x: x * 2.0)(x)
    assert j.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(j.numpy().reshape(6, 6), 2 * np.eye(6))
    j0, j1 = tg.jacobian(lambda x: (x.sum(), x[0]))(x)  # a tuple result gives a tuple
    assert j0.shape == (2, 3) and j1.shape == (3, 2, 3)


def test_hessian_against_finite_differences_of_grad(xy):
    x, _ = xy
    f = lambda x: (tg.sin(x) * x**2).sum() + x[0] * x[1] * x[2]  # noqa: E731
    h = tg.hessian(f)(x).numpy()
    eps, g = 1e-6, tg.grad(f)
    fd = np.stack(
        [
            (g(x.numpy() + eps * e).numpy() - g(x.numpy() - eps * e).numpy()) / (2 * eps)
            for e in np.eye(3)
        ],
        axis=1,
    )
    np.testing.assert_allclose(h, fd, atol=1e-7)
    np.testing.assert_allclose(h, h.T, atol=1e-12)


def test_hessian_of_two_arguments_is_a_tuple_of_tuples():
    x, y = tg.tensor(2.0, tg.float64), tg.tensor(3.0, tg.float64)
    (hxx, hxy), (hyx, hyy) = tg.hessian(lambda x, y: x**3 * y**2, argnums=(0, 1))(x, y)
    # 6 x y^2, 6 x^2 y, 6 x^2 y, 2 x^3
    assert [h.item() for h in (hxx, hxy, hyx, hyy)] == pytest.approx([108, 72, 72, 16])


def test_jvp_nested_gives_second_order():
    # d/dx of the directional derivative of x^3 along 1: 6x
    f = lambda x: tg.jvp(lambda x: x**3, (x,), (tg.tensor(1.0),))[1]  # noqa: E731
    assert tg.grad(f)(tg.tensor(2.0)).item() == 12.0


# ---- inputs that are not plain float tensors --------------------------------------------------
def test_numbers_arrays_and_nested_tuples_are_promoted():
    g = tg.grad(lambda x: x * x)(3.0)
    assert g.item() == 6.0 and g.dtype == np.float32
    g = tg.grad(lambda x: x * x)(3)
    assert g.item() == 6.0 and g.dtype == np.float32
    g = tg.grad(lambda x: (x * x).sum())(np.array([1.0, 2.0]))
    assert g.dtype == np.float64 and g.tolist() == [2.0, 4.0]
    g = tg.grad(lambda p, s: (p[0] * p[1][0] * p[1][1]).sum())((2.0, (3.0, 4.0)), "label")
    assert isinstance(g, tuple) and isinstance(g[1], tuple)
    assert [g[0].item(), g[1][0].item(), g[1][1].item()] == [12.0, 8.0, 6.0]


def test_unused_inputs_and_weights_get_zeros_of_their_shape_and_dtype():
    w = tg.nn.Parameter(tg.zeros(2, 2, dtype=tg.float64))
    gx, gy = tg.grad(lambda x, y: x * 2, (0, 1))(tg.tensor(1.0), tg.tensor([1.0, 2.0], tg.float16))
    assert gx.item() == 2.0 and gy.shape == (2,) and gy.dtype == np.float16 and not gy.numpy().any()
    (gw,) = tg.grad(lambda x: x * 2, None, [w])(tg.tensor(1.0))
    assert gw.shape == (2, 2) and gw.dtype == np.float64 and not gw.numpy().any()
    assert tg.grad(lambda x: tg.tensor(5.0))(tg.tensor(1.0)).item() == 0.0  # constant result


def test_negative_positions_count_from_the_end():
    assert (
        tg.grad(lambda x, y: x * y, grad_position=-1)(tg.tensor(2.0), tg.tensor(3.0)).item() == 2.0
    )


def test_keyword_arguments_are_passed_through():
    assert tg.grad(lambda x, scale=1.0: x * scale)(tg.tensor(1.0), scale=4.0).item() == 4.0


def test_same_tensor_twice_gives_partial_derivatives():
    x = tg.tensor(3.0)
    gx, gy = tg.grad(lambda a, b: a * b * b, (0, 1))(x, x)
    assert (gx.item(), gy.item()) == (9.0, 18.0)


# ---- stop_gradient -----------------------------------------------------------------------------
def test_stop_gradient_on_nested_structures():
    x = tg.tensor(2.0, requires_grad=True)
    y = x * 3
    out = tg.stop_gradient({"a": (y, [y, 1.5]), "b": None})
    assert out["a"][0].grad_fn is None and not out["a"][1][0].requires_grad
    assert out["a"][1][1] == 1.5 and out["b"] is None and out["a"][0].item() == 6.0


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [1.0, True, "0", (0, 1.5), (False,)])
def test_non_int_grad_position_is_a_type_error(bad):
    with pytest.raises(TypeError, match="grad_position must be an int"):
        tg.grad(lambda x: x, grad_position=bad)


def test_empty_grad_position_is_a_value_error():
    with pytest.raises(ValueError, match="grad_position is an empty tuple"):
        tg.grad(lambda x: x, grad_position=())


@pytest.mark.parametrize("position", [2, -3, (0, 5)])
def test_grad_position_out_of_range_at_call_time(position):
    g = tg.grad(lambda x, y: x * y, grad_position=position)
    with pytest.raises(ValueError, match="grad_position .* is out of range.*2 positional"):
        g(tg.tensor(1.0), tg.tensor(2.0))


def test_bad_weights():
    with pytest.raises(TypeError, match=r"weights\[1\] is a str"):
        tg.grad(lambda x: x, weights=[tg.nn.Parameter(tg.ones(1)), "w"])
    with pytest.raises(ValueError, match=r"weights\[0\] does not require grad"):
        tg.grad(lambda x: x, weights=[tg.ones(1)])
    with pytest.raises(TypeError, match="weights must be"):
        tg.grad(lambda x: x, weights=3)
    p = tg.nn.Parameter(tg.ones(1))
    g = tg.grad(lambda x: x * p, weights=[p])
    p.requires_grad = False  # frozen after creation: caught at call time
    with pytest.raises(ValueError, match="does not require grad"):
        g(tg.tensor(1.0))


def test_has_aux_needs_a_tuple():
    with pytest.raises(ValueError, match="has_aux=True needs fn to return a tuple"):
        tg.grad(lambda x: x * x, has_aux=True)(tg.tensor(1.0))
    with pytest.raises(TypeError, match="has_aux must be True or False"):
        tg.grad(lambda x: x, has_aux="yes")


@pytest.mark.parametrize(
    "leave", [lambda y: y.numpy(), lambda y: float(y.item()), lambda y: np.sum(y.numpy())]
)
def test_result_that_left_the_tape_is_a_clear_error(leave):
    with pytest.raises(TypeError, match="not a tapegrad Tensor: its value left the tape"):
        tg.grad(lambda x: leave(x * x))(tg.tensor(2.0))


def test_other_bad_inputs():
    with pytest.raises(TypeError, match="fn's result is a NoneType"):
        tg.grad(lambda x: None)(tg.tensor(1.0))
    with pytest.raises(TypeError, match="only floating-point inputs"):
        tg.grad(lambda x: x)(tg.tensor([1, 2]))
    with pytest.raises(TypeError, match="a differentiated argument must be"):
        tg.grad(lambda x: x)("text")
    with pytest.raises(TypeError, match="fn must be a function"):
        tg.grad(3)
    with pytest.raises(ValueError, match="cotangent has 1 tensor.* fn's result has 2"):
        tg.vjp(lambda x: (x, x), tg.tensor(1.0))[1](tg.tensor(1.0))
    with pytest.raises(ValueError, match=r"tangents\[0\] has shape \[3\] but inputs\[0\]"):
        tg.jvp(lambda x: x, (tg.ones(2),), (tg.ones(3),))
    assert state.diff_depth == 0 and tg.is_grad_enabled()  # errors leave no state behind


def test_jacobian_argnums_errors():
    with pytest.raises(TypeError, match="argnums must be an int"):
        tg.jacobian(lambda x: x, argnums=None)
    with pytest.raises(ValueError, match="argnums 3 is out of range"):
        tg.jacobian(lambda x: x, argnums=3)(tg.ones(2))


def test_value_is_the_full_output_without_aux_too():
    value, g = tg.value_and_grad(lambda x: (x * x, x))(tg.tensor(3.0))
    assert_tree(value, (9.0, 3.0))
    assert g.item() == 7.0


# ---- nothing is left on the tape after a plain call ---------------------------------------------
def test_plain_call_keeps_no_graph_alive():
    refs = []

    def f(x):
        y = tg.sin(x)
        refs.append(weakref.ref(y))
        refs.append(weakref.ref(y.grad_fn))
        return (y * y).sum(), y

    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (value, aux), g = tg.value_and_grad(f, has_aux=True)(x)
    gc.collect()
    assert all(r() is None for r in refs)
    assert g.grad_fn is None and value.grad_fn is None and aux.grad_fn is None
    assert x.grad is None and x.is_leaf  # the caller's tensor is untouched


def test_a_graph_built_outside_fn_is_not_freed():
    w = tg.nn.Parameter(tg.tensor(2.0))
    h = w * w  # built by the caller, used inside fn
    tg.grad(lambda x: h * x, None, [w])(tg.tensor(1.0))
    h.backward()  # still usable: the functional call did not free it
    assert w.grad.item() == 4.0


def test_docstring_examples_run():
    import doctest

    import tapegrad.functional
    import tapegrad.compat.gradient_tape
    import tapegrad.math

    for module in (tapegrad.functional, tapegrad.compat.gradient_tape, tapegrad.math):
        result = doctest.testmod(
            module, extraglobs={"tg": tg}, optionflags=doctest.NORMALIZE_WHITESPACE
        )
        assert result.attempted > 0 and result.failed == 0
