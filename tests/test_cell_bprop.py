"""Cell.bprop: a Cell's own backward replaces the tape's for its inputs (MindSpore), never ignored.

Expected values come from MindSpore's documentation of custom bprop (its two examples) and from
closed forms; a bprop that states the true derivative must pass float64 gradcheck.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import ops


class DocNet(tg.nn.Cell):
    """MindSpore's example: z = x * y * y, with a bprop that is NOT its derivative."""

    def construct(self, x, y):
        z = x * y
        return z * y

    def bprop(self, x, y, out, dout):
        return x + y, x * y


class MatMulNet(tg.nn.Cell):
    """MindSpore's second example: matmul, with bprop dx = x + 1, dy = y + 1."""

    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        return self.matmul(x, y)

    def bprop(self, x, y, out, dout):
        return x + 1, y + 1


class TrueSin(tg.nn.Cell):
    def construct(self, x):
        return tg.sin(x)

    def bprop(self, x, out, dout):
        return (dout * tg.cos(x),)


def test_mindspores_documented_examples():
    out = ops.GradOperation(get_all=True)(DocNet())(tg.tensor(1.0), tg.tensor(2.0))
    assert [o.item() for o in out] == [3.0, 2.0]  # (x + y, x * y), not the tape's (4, 4)
    x = np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32)
    y = np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32)
    gx, gy = ops.GradOperation(get_all=True)(MatMulNet())(tg.tensor(x), tg.tensor(y))
    np.testing.assert_allclose(gx.numpy(), x + 1)
    np.testing.assert_allclose(gy.numpy(), y + 1)


def test_bprop_is_used_by_every_way_of_differentiating():
    x, y = tg.tensor(1.0, requires_grad=True), tg.tensor(2.0, requires_grad=True)
    DocNet()(x, y).backward()
    assert (x.grad.item(), y.grad.item()) == (3.0, 2.0)
    assert tg.grad(DocNet(), (0, 1))(tg.tensor(1.0), tg.tensor(2.0))[1].item() == 2.0
    with tg.GradientTape() as tape:
        a = tg.tensor(1.0)
        tape.watch(a)
        out = DocNet()(a, tg.tensor(2.0))
    assert tape.gradient(out, a).item() == 3.0


def test_dout_flows_into_bprop_and_forward_values_are_unchanged():
    net = DocNet()
    x, y = tg.tensor(1.5), tg.tensor(2.0)
    assert net(x, y).item() == 6.0
    sens = tg.tensor(10.0)
    gx = ops.GradOperation(sens_param=True)(TrueSin())(x, sens)
    assert gx.item() == pytest.approx(10 * np.cos(1.5), rel=1e-6)


def test_a_true_bprop_passes_gradcheck_and_gradgradcheck():
    x = tg.tensor(np.array([0.3, 1.2, -0.7]), requires_grad=True)
    assert tg.autograd.gradcheck(TrueSin(), (x,))
    assert tg.autograd.gradgradcheck(TrueSin(), (x,))


def test_inside_a_larger_computation_the_chain_rule_goes_through_bprop():
    net = TrueSin()
    x = np.array([1.0, 2.0, 5.0])
    g = tg.grad(lambda t: tg.cos(net(t * 2.0)).sum())(tg.tensor(x))
    np.testing.assert_allclose(g.numpy(), -np.sin(np.sin(2 * x)) * np.cos(2 * x) * 2, rtol=1e-6)


def test_several_outputs_get_a_tuple_dout():
    seen = {}

    class Two(tg.nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

        def bprop(self, x, out, dout):
            seen["out"], seen["dout"] = out, dout
            return (dout[0] * 2 + dout[1] * 3,)

    x = tg.tensor([1.0, 2.0], requires_grad=True)
    a, b = Two()(x)
    (a.sum() * 1.0 + b.sum() * 10.0).backward()
    np.testing.assert_allclose(x.grad.numpy(), [32.0, 32.0])
    assert isinstance(seen["out"], tuple) and isinstance(seen["dout"], tuple)
    np.testing.assert_allclose(seen["dout"][1].numpy(), [10.0, 10.0])


def test_keyword_inputs_and_non_tensor_inputs():
    class Scale(tg.nn.Cell):
        def construct(self, x, k):
            return x * k

        def bprop(self, x, k, out, dout):
            return dout * 100.0, None

    x = tg.tensor(2.0, requires_grad=True)
    Scale()(x, k=3.0).backward()
    assert x.grad.item() == 100.0


def test_parameters_inside_get_no_gradient_through_bprop():
    class WithParam(tg.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = tg.Parameter(tg.tensor(2.0))

        def construct(self, x):
            return x * self.w

        def bprop(self, x, out, dout):
            return (dout * self.w,)

    net = WithParam()
    x = tg.tensor(3.0, requires_grad=True)
    net(x).backward()
    assert x.grad.item() == 2.0 and net.w.grad is None


def test_wrong_number_of_gradients_is_a_clear_error():
    class Bad(tg.nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return (dout,)

    x, y = tg.tensor(1.0, requires_grad=True), tg.tensor(2.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Bad.bprop returned 1 gradient\(s\).*2 input\(s\)"):
        Bad()(x, y).backward()


def test_wrong_gradient_shape_is_a_clear_error():
    class BadShape(tg.nn.Cell):
        def construct(self, x):
            return x.sum()

        def bprop(self, x, out, dout):
            return (dout,)

    with pytest.raises(RuntimeError, match=r"shape \[\] for input 0, which has shape \[3\]"):
        BadShape()(tg.ones(3, requires_grad=True)).backward()


def test_cells_without_bprop_use_the_tape():
    class Plain(tg.nn.Cell):
        def construct(self, x):
            return x * x

    x = tg.tensor(3.0, requires_grad=True)
    Plain()(x).backward()
    assert x.grad.item() == 6.0
    assert Plain()(x).grad_fn.name == "MulBackward"
