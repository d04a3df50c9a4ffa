"""MindSpore's names for its users' programs: ops.GradOperation, ParameterTuple, class-style ops,
tapegrad.dtype, set_context, and Dense's initializer names.

Expected values are closed forms, MindSpore's documented tables and examples, or tg.grad (the
function GradOperation is documented to match), never GradOperation's own output.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import ops

X = np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32)
Y = np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32)


class MatNet(tg.nn.Cell):
    """The seeds' f(x, y) = (x * z) @ y with a parameter z."""

    def __init__(self, dtype=np.float32):
        super().__init__()
        self.matmul = ops.MatMul()
        self.z = tg.Parameter(tg.tensor(np.array([1.0], dtype)), name="z")

    def construct(self, x, y):
        return self.matmul(x * self.z, y)


def _np(t):
    return np.asarray(t.numpy())


# ---- GradOperation: MindSpore's result structures ----------------------------------------------
def test_no_flag_gives_the_grad_of_input_0():
    g = ops.GradOperation()(MatNet())(tg.tensor(X), tg.tensor(Y))
    np.testing.assert_allclose(_np(g), np.ones((2, 3)) @ Y.T, rtol=1e-6)


def test_get_all_gives_a_tuple_of_every_input_grad():
    gx, gy = ops.GradOperation(get_all=True)(MatNet())(tg.tensor(X), tg.tensor(Y))
    np.testing.assert_allclose(_np(gx), np.ones((2, 3)) @ Y.T, rtol=1e-6)
    np.testing.assert_allclose(_np(gy), X.T @ np.ones((2, 3)), rtol=1e-6)
    one = ops.GradOperation(get_all=True)(lambda x: x * x)(tg.tensor(3.0))
    assert isinstance(one, tuple) and len(one) == 1 and one[0].item() == 6.0


def test_get_by_list_gives_a_tuple_of_param_grads():
    net = MatNet()
    params = tg.ParameterTuple(net.trainable_params())
    (gz,) = ops.GradOperation(get_by_list=True)(net, params)(tg.tensor(X), tg.tensor(Y))
    np.testing.assert_allclose(_np(gz), [(X @ Y).sum()], rtol=1e-6)  # seed 004: 15.337


def test_both_flags_give_inputs_then_params():
    net = MatNet()
    grads = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(
        tg.tensor(X), tg.tensor(Y)
    )
    (gx, gy), (gz,) = grads
    want = tg.grad(net, (0, 1), net.trainable_params())(tg.tensor(X), tg.tensor(Y))
    for a, b in zip((gx, gy, gz), (want[0][0], want[0][1], want[1][0])):
        np.testing.assert_allclose(_np(a), _np(b))


def test_sens_param_scales_by_the_given_output_gradient():
    net = MatNet()
    sens = np.full((2, 3), 0.1, np.float32)
    grad_op = ops.GradOperation(get_all=True, get_by_list=True, sens_param=True)
    (gx, gy), (gz,) = grad_op(net, tg.ParameterTuple(net.trainable_params()))(
        tg.tensor(X), tg.tensor(Y), tg.tensor(sens)
    )
    np.testing.assert_allclose(_np(gx), sens @ Y.T, rtol=1e-6)
    np.testing.assert_allclose(_np(gy), X.T @ sens, rtol=1e-6)
    np.testing.assert_allclose(_np(gz), [(X * (sens @ Y.T)).sum()], rtol=1e-6)
    only_x = ops.GradOperation(sens_param=True)(net)(tg.tensor(X), tg.tensor(Y), tg.tensor(sens))
    np.testing.assert_allclose(_np(only_x), sens @ Y.T, rtol=1e-6)
    (gz2,) = ops.GradOperation(get_by_list=True, sens_param=True)(net, net.trainable_params())(
        tg.tensor(X), tg.tensor(Y), tg.tensor(sens)
    )
    np.testing.assert_allclose(_np(gz2), _np(gz), rtol=1e-6)


def test_sens_param_with_an_integer_input_that_is_not_differentiated():
    f = lambda x, k: x * k.astype(tg.float32)  # noqa: E731
    g = ops.GradOperation(sens_param=True)(f)(tg.tensor([1.0, 2.0]), tg.tensor([3, 4]), tg.ones(2))
    np.testing.assert_allclose(_np(g), [3.0, 4.0])


def test_several_outputs_are_summed_without_sens():
    f = lambda x: (tg.sin(x), tg.cos(x))  # noqa: E731
    g = ops.GradOperation()(f)(tg.tensor(0.3))
    assert g.item() == pytest.approx(np.cos(0.3) - np.sin(0.3), rel=1e-6)


def test_grad_operation_is_differentiable_twice():
    x = tg.tensor(np.array([0.2, 1.1]))
    d1 = ops.GradOperation()(lambda t: tg.sin(t) * t)
    d2 = ops.GradOperation()(d1)(x)
    np.testing.assert_allclose(_np(d2), 2 * np.cos(x.numpy()) - x.numpy() * np.sin(x.numpy()))


def test_grad_operation_errors_say_what_to_do():
    net = MatNet()
    with pytest.raises(ValueError, match=r"grad_op\(net, params\)"):
        ops.GradOperation(get_by_list=True)(net)
    with pytest.raises(ValueError, match="get_by_list=True"):
        ops.GradOperation()(net, net.trainable_params())
    with pytest.raises(TypeError, match="True or False"):
        ops.GradOperation(get_all=1)
    with pytest.raises(TypeError, match="function or a Cell"):
        ops.GradOperation()(3)
    sens_op = ops.GradOperation(get_all=True, sens_param=True)
    with pytest.raises(ValueError, match=r"shape \[2, 2\].*output has shape \[2, 3\]"):
        sens_op(net)(tg.tensor(X), tg.tensor(Y), tg.ones(2, 2))
    with pytest.raises(TypeError, match="last argument"):
        sens_op(net)(tg.tensor(X), tg.tensor(Y))
    with pytest.raises(TypeError, match="without inputs"):
        ops.GradOperation()(lambda: tg.ones(1))()


def test_parameter_tuple():
    net = MatNet()
    params = tg.ParameterTuple(net.trainable_params())
    assert isinstance(params, tuple) and params == (net.z,)
    assert tg.ops.ParameterTuple is tg.ParameterTuple
    with pytest.raises(TypeError, match="item 1 is a Tensor"):
        tg.ParameterTuple([net.z, tg.ones(2)])
    g = tg.grad(net, None, params)(tg.tensor(X), tg.tensor(Y))  # tg.grad takes one as weights
    np.testing.assert_allclose(_np(g[0]), [(X @ Y).sum()], rtol=1e-6)


# ---- class-style ops -----------------------------------------------------------------------------
UNARY = [
    (ops.Sin, np.sin, np.cos),
    (ops.Cos, np.cos, lambda x: -np.sin(x)),
    (ops.Exp, np.exp, np.exp),
    (ops.Log, np.log, lambda x: 1 / x),
    (ops.Tanh, np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    (ops.Sigmoid, lambda x: 1 / (1 + np.exp(-x)), lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    (ops.Square, np.square, lambda x: 2 * x),
    (ops.Sqrt, np.sqrt, lambda x: 0.5 / np.sqrt(x)),
    (ops.Abs, np.abs, np.sign),
    (ops.Neg, np.negative, lambda x: -np.ones_like(x)),
]
BINARY = [
    (ops.Add, np.add),
    (ops.Sub, np.subtract),
    (ops.Mul, np.multiply),
    (ops.Div, np.divide),
    (ops.Pow, np.power),
    (ops.Maximum, np.maximum),
    (ops.Minimum, np.minimum),
]
XS = np.array([0.3, 1.7, 2.2])


@pytest.mark.parametrize("cls, f, df", UNARY, ids=[c.__name__ for c, _, _ in UNARY])
def test_unary_ops(cls, f, df):
    op = cls()
    np.testing.assert_allclose(_np(op(tg.tensor(XS))), f(XS), rtol=1e-12)
    np.testing.assert_allclose(
        _np(tg.grad(lambda t: op(t).sum())(tg.tensor(XS))), df(XS), rtol=1e-9
    )
    x = tg.tensor(XS, requires_grad=True)
    assert tg.autograd.gradcheck(op, (x,))
    if cls is not ops.Abs:  # |x| has no second derivative worth checking
        assert tg.autograd.gradgradcheck(op, (x,))


@pytest.mark.parametrize("cls, f", BINARY, ids=[c.__name__ for c, _ in BINARY])
def test_binary_ops(cls, f):
    op = cls()
    a, b = np.array([[0.5, 2.0, 1.5]]), np.array([[1.2], [0.7]])  # broadcast to (2, 3)
    np.testing.assert_allclose(_np(op(tg.tensor(a), tg.tensor(b))), f(a, b), rtol=1e-12)
    np.testing.assert_allclose(_np(op(tg.tensor(a), 2.0)), f(a, 2.0), rtol=1e-12)
    ta, tb = tg.tensor(a, requires_grad=True), tg.tensor(b, requires_grad=True)
    assert tg.autograd.gradcheck(op, (ta, tb))
    if cls not in (ops.Maximum, ops.Minimum):
        assert tg.autograd.gradgradcheck(op, (ta, tb))
    with pytest.raises(TypeError, match="at least one input must be a Tensor"):
        op(1.0, 2.0)


def test_matmul_transposes_and_checks():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3)
    out = ops.MatMul(transpose_b=True)(tg.tensor(a), tg.tensor(b))
    np.testing.assert_allclose(_np(out), a @ b.T)
    out = ops.MatMul(transpose_a=True)(tg.tensor(a.T.copy()), tg.tensor(b.T.copy()))
    np.testing.assert_allclose(_np(out), a @ b.T)
    ta, tb = tg.tensor(a, requires_grad=True), tg.tensor(b.T.copy(), requires_grad=True)
    assert tg.autograd.gradcheck(ops.MatMul(), (ta, tb))
    assert tg.autograd.gradgradcheck(ops.MatMul(), (ta, tb))
    with pytest.raises(ValueError, match="columns of x \\(3\\) must equal the rows of y \\(4\\)"):
        ops.MatMul()(tg.tensor(a), tg.tensor(b))
    with pytest.raises(ValueError, match="2-D"):
        ops.MatMul()(tg.ones(3), tg.ones(3, 2))
    with pytest.raises(TypeError, match="same dtype"):
        ops.MatMul()(tg.ones(2, 2), tg.ones(2, 2, dtype=tg.float64))
    with pytest.raises(TypeError, match="bool"):
        ops.MatMul(transpose_a="yes")


def test_reductions_take_mindspore_axis_and_keep_dims():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = tg.tensor(x)
    assert ops.ReduceSum()(t).item() == x.sum()
    assert ops.ReduceSum()(t, ()).item() == x.sum()
    assert ops.ReduceSum(keep_dims=True)(t, 1).shape == (2, 1, 4)
    np.testing.assert_allclose(_np(ops.ReduceSum()(t, (0, 2))), x.sum((0, 2)))
    np.testing.assert_allclose(
        _np(ops.ReduceMean(keep_dims=True)(t, [1])), x.mean(1, keepdims=True)
    )
    assert ops.ReduceSum(skip_mode=True)(t, ()) is t
    tr = tg.tensor(x, requires_grad=True)
    assert tg.autograd.gradcheck(lambda v: ops.ReduceMean()(v, 2), (tr,))
    with pytest.raises(ValueError, match="use \\(\\)"):
        ops.ReduceSum()(t, None)
    with pytest.raises(TypeError, match="keep_dims"):
        ops.ReduceMean(keep_dims=1)


def test_shape_ops():
    x = np.arange(6.0).reshape(2, 3)
    t = tg.tensor(x, requires_grad=True)
    assert ops.Reshape()(t, (3, 2)).shape == (3, 2)
    assert ops.Reshape()(t, (-1,)).shape == (6,)
    np.testing.assert_allclose(_np(ops.Transpose()(t, (1, 0))), x.T)
    np.testing.assert_allclose(_np(ops.Concat(1)((t, t))), np.concatenate([x, x], 1))
    np.testing.assert_allclose(_np(ops.Stack(axis=1)([t, t])), np.stack([x, x], 1))
    assert ops.ExpandDims()(t, 0).shape == (1, 2, 3)
    assert ops.Squeeze()(tg.ones(1, 3, 1)).shape == (3,)
    assert ops.Squeeze(2)(tg.ones(1, 3, 1)).shape == (1, 3)
    assert ops.Squeeze((0, 2))(tg.ones(1, 3, 1)).shape == (3,)
    for f in (
        lambda v: ops.Transpose()(v, (1, 0)),
        lambda v: ops.Concat(0)((v, v * 2)),
        lambda v: ops.Stack(1)([v, v * v]),
        lambda v: ops.Reshape()(v, (3, 2)),
    ):
        assert tg.autograd.gradcheck(f, (t,))
    with pytest.raises(ValueError, match="size 1"):
        ops.Squeeze(1)(tg.ones(1, 3))
    with pytest.raises(ValueError, match="one axis per dimension"):
        ops.Transpose()(t, (0,))
    with pytest.raises(TypeError, match="tuple or list"):
        ops.Concat()(t)
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.ExpandDims()([1.0], 0)
    assert repr(ops.Concat(axis=1)) == "Concat(axis=1)"


# ---- dtype module, context, initializers -------------------------------------------------------
def test_dtype_module_is_mindspores_mstype():
    from tapegrad import dtype as mstype

    assert mstype.float32 == tg.float32 and mstype.float16 == tg.float16
    assert mstype.float64 == tg.float64 and mstype.int32 == tg.int32 and mstype.int64 == tg.int64
    assert mstype.bool_ == tg.bool_ and mstype.single == tg.float32 and mstype.double == tg.float64
    assert tg.tensor([1, 2], dtype=mstype.float32).dtype == np.float32


def test_set_context_accepts_mindspores_modes():
    try:
        tg.set_context(mode=tg.GRAPH_MODE, device_target="CPU", save_graphs=False)
        assert tg.get_context("mode") == tg.GRAPH_MODE and tg.get_context("save_graphs") is False
        assert tg.grad(lambda x: x * x)(tg.tensor(3.0)).item() == 6.0  # still eager
        tg.set_context(mode=tg.PYNATIVE_MODE)
        assert tg.get_context("mode") == tg.PYNATIVE_MODE == 1 and tg.GRAPH_MODE == 0
    finally:
        tg.set_context(mode=tg.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="GRAPH_MODE"):
        tg.set_context(mode=2)
    with pytest.raises(ValueError, match="device_target='CPU'"):
        tg.set_context(device_target="GPU")
    with pytest.raises(ValueError, match="known ones"):
        tg.get_context("no_such_setting")


@pytest.mark.parametrize(
    "name, check",
    [
        ("zeros", lambda w: np.all(w == 0)),
        ("One", lambda w: np.all(w == 1)),
        ("normal", lambda w: abs(w.std() - 0.01) < 0.002),
        ("uniform", lambda w: np.abs(w).max() <= 0.07 and w.std() > 0.03),
        ("truncatedNormal", lambda w: np.abs(w).max() <= 0.02 and w.std() > 0.005),
        ("HeUniform", lambda w: np.abs(w).max() <= np.sqrt(6 / 200) and abs(w.std() - 0.1) < 0.01),
        ("he_normal", lambda w: abs(w.std() - np.sqrt(2 / 200)) < 0.01),
        ("XavierUniform", lambda w: np.abs(w).max() <= np.sqrt(6 / 300)),
        ("xavier_normal", lambda w: abs(w.std() - np.sqrt(2 / 300)) < 0.01),
        ("identity", lambda w: np.array_equal(w, np.eye(100, 200))),
        ("orthogonal", lambda w: np.allclose(w @ w.T, np.eye(100), atol=1e-5)),
    ],
)
def test_dense_takes_mindspores_initializer_names(name, check):
    tg.manual_seed(0)
    d = tg.nn.Dense(200, 100, weight_init=name, bias_init="zeros")
    assert check(d.weight.numpy().astype(np.float64)), name
    assert np.all(d.bias.numpy() == 0)


def test_unknown_initializer_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown initializer 'glorot'"):
        tg.nn.Dense(3, 2, weight_init="glorot")
