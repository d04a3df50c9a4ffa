"""tg.amp: loss scalers (the seed's numbers, float16 underflow), all_finite, gradient clipping."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from helpers import seed_dense
from tapegrad import nn
from tapegrad.amp import DynamicLossScaler, StaticLossScaler, all_finite, clip_by_global_norm


# ---- StaticLossScaler --------------------------------------------------------------------------
def test_seed_static_loss_scaler_numbers():
    net = seed_dense()
    scaler = StaticLossScaler(1024.0)
    loss = nn.MSELoss()(
        net(tg.tensor([[1, 2, 3]], tg.float32)).squeeze(), tg.tensor(19, tg.float32)
    )
    scaled = scaler.scale(loss)
    assert scaled.item() == 1024.0
    grads = tg.autograd.grad(scaled, net.trainable_params())
    assert isinstance(grads, tuple)
    np.testing.assert_array_equal(grads[0].numpy(), [[2048, 4096, 6144]])
    unscaled = scaler.unscale(grads)
    assert isinstance(unscaled, tuple) and len(unscaled) == 1
    np.testing.assert_array_equal(unscaled[0].numpy(), [[2, 4, 6]])
    assert scaler.unscale(scaled).item() == 1.0
    state = all_finite(unscaled)
    assert state is True and str(state) == "True"  # the seed prints `True`


def test_seed_program_with_value_and_grad():
    class Net(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.fc = seed_dense()
            self.loss = nn.MSELoss()

        def construct(self, x, y):
            logits = self.fc(x).squeeze()
            return self.loss(logits, y), logits

    net, loss_scale = Net(), StaticLossScaler(1024.0)

    def forward_fn(x, y):
        loss, logits = net(x, y)
        return loss_scale.scale(loss), logits

    value_and_grad_func = tg.value_and_grad(
        forward_fn, grad_position=None, weights=net.trainable_params(), has_aux=True
    )
    (loss, logits), grad = value_and_grad_func(
        tg.tensor([[1, 2, 3]], tg.float32), tg.tensor(19, tg.float32)
    )
    assert loss.item() == 1024.0 and logits.item() == 20.0
    np.testing.assert_array_equal(grad[0].numpy(), [[2048, 4096, 6144]])
    assert loss_scale.unscale(loss).item() == 1.0
    grad = loss_scale.unscale(grad)
    assert isinstance(grad, tuple)
    np.testing.assert_array_equal(grad[0].numpy(), [[2, 4, 6]])
    assert str(all_finite(grad)) == "True"


def test_scale_and_unscale_keep_nested_structure_and_dtype():
    scaler = StaticLossScaler(4)
    tree = ((tg.tensor([1.0, 2.0]), None), [tg.tensor(3.0, dtype=tg.float16)])
    out = scaler.scale(tree)
    assert isinstance(out, tuple) and isinstance(out[0], tuple) and isinstance(out[1], list)
    assert out[0][1] is None and out[0][0].tolist() == [4.0, 8.0]
    assert out[1][0].dtype == tg.float16 and out[1][0].item() == 12.0
    assert scaler.unscale(out)[1][0].item() == 3.0
    assert float(scaler.scale_value) == 4.0 and scaler.scale_value.numpy().dtype == np.float32
    with pytest.raises(TypeError, match="expects Tensors"):
        scaler.scale([1.0])
    with pytest.raises(ValueError, match="positive"):
        StaticLossScaler(0)


def test_float16_underflow_is_rescued_by_loss_scaling():
    # d loss / d w = 2 * (w*x - y) * x = 2 * 1e-3 * 1e-5 = 2e-8: below float16's smallest subnormal.
    def weight_grad(scaler=None):
        net = nn.Dense(1, 1, has_bias=False, weight_init="ones", dtype=tg.float16)
        x = tg.tensor([[1e-5]], tg.float16)
        y = tg.tensor([[1e-5 - 1e-3]], tg.float16)
        loss = nn.MSELoss()(net(x), y)
        assert loss.dtype == tg.float16
        if scaler is not None:
            loss = scaler.scale(loss)
        return tg.autograd.grad(loss, net.trainable_params())

    plain = weight_grad()
    assert plain[0].dtype == tg.float16 and plain[0].item() == 0.0  # the gradient is lost

    scaler = StaticLossScaler(1024.0)
    scaled = weight_grad(scaler)
    assert scaled[0].dtype == tg.float16 and scaled[0].item() != 0.0
    # Unscale in float32 (the master-weights recipe): back in float16 it would underflow again.
    rescued = scaler.unscale(tuple(g.astype(tg.float32) for g in scaled))
    assert rescued[0].item() == pytest.approx(2e-8, rel=0.02)
    assert all_finite(rescued)


# ---- DynamicLossScaler -------------------------------------------------------------------------
def test_dynamic_scaler_shrinks_on_overflow_and_grows_after_a_window():
    scaler = DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=3)
    assert (
        scaler.adjust(False) is True and float(scaler.scale_value) == 512.0 and scaler.counter == 0
    )
    for _ in range(2):
        scaler.adjust(True)
    assert float(scaler.scale_value) == 512.0 and scaler.counter == 2
    scaler.adjust(False)  # an overflow resets the count of good steps
    assert float(scaler.scale_value) == 256.0 and scaler.counter == 0
    for _ in range(3):
        scaler.adjust(tg.tensor(True))  # a bool tensor (MindSpore style) works too
    assert float(scaler.scale_value) == 512.0 and scaler.counter == 0
    tiny = DynamicLossScaler(3.0, 2, 1)
    for _ in range(4):
        tiny.adjust(False)
    assert float(tiny.scale_value) == 1.0  # never below 1
    top = DynamicLossScaler(2.0**127, 2, 1)
    top.adjust(True)
    assert float(top.scale_value) == 2.0**127  # never grows past float32's range


def test_dynamic_scaler_with_an_injected_overflow_in_float16():
    scaler = DynamicLossScaler(2.0**16, scale_factor=2, scale_window=1000)
    w = nn.Parameter(tg.tensor([1.0], tg.float16))

    def scaled_grads():
        loss = (w * 1.5).sum()
        return scaler.unscale(tg.autograd.grad(scaler.scale(loss), [w]))

    with np.errstate(over="ignore", invalid="ignore"):
        grads = scaled_grads()  # 1.5 * 65536 overflows float16 (max 65504)
    assert not all_finite(grads)
    scaler.adjust(all_finite(grads))
    assert float(scaler.scale_value) == 2.0**15
    grads = scaled_grads()  # 1.5 * 32768 fits: the step can go ahead
    assert all_finite(grads) and grads[0].item() == 1.5
    # MindSpore's documented example: a NaN among float16 grads -> 1024 becomes 512.
    ms = DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=1)
    with np.errstate(invalid="ignore"):
        bad = (
            tg.tensor(np.array([np.log(-1.0), 1.0]), tg.float16),
            tg.tensor(np.array([0.2]), tg.float16),
        )
    ms.adjust(all_finite(ms.unscale(bad)))
    assert float(ms.scale_value) == 512.0


def test_all_finite_on_structures():
    assert all_finite(tg.tensor([1.0, -2.0])) is True
    assert all_finite(((tg.tensor([1.0]), None), [np.array([2.0])])) is True
    assert all_finite((tg.tensor([1.0]), (tg.tensor([np.inf]),))) is False
    assert all_finite(()) is True


# ---- clipping ----------------------------------------------------------------------------------
def test_clip_by_global_norm_matches_the_formula_and_does_not_mutate():
    g1, g2 = tg.tensor([[3.0, 0.0]]), tg.tensor([4.0, 12.0])  # global norm 13
    grads = (g1, g2)
    clipped = clip_by_global_norm(grads, clip_norm=2.6)
    assert isinstance(clipped, tuple) and len(clipped) == 2
    np.testing.assert_allclose(clipped[0].numpy(), [[0.6, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(clipped[1].numpy(), [0.8, 2.4], rtol=1e-6)
    total = math.sqrt(sum(float((c.numpy() ** 2).sum()) for c in clipped))
    assert total == pytest.approx(2.6, rel=1e-6)
    assert g1.tolist() == [[3.0, 0.0]] and g2.tolist() == [4.0, 12.0]  # inputs untouched
    same = clip_by_global_norm(grads, clip_norm=100.0)  # under the limit: values kept, new tensors
    assert same[0] is not g1 and same[1].tolist() == [4.0, 12.0]
    default = clip_by_global_norm(grads)  # clip_norm=1.0
    np.testing.assert_allclose(default[1].numpy(), [4 / 13, 12 / 13], rtol=1e-6)
    nested = clip_by_global_norm(((g1,), [g2]), 1.3)
    np.testing.assert_allclose(nested[1][0].numpy(), [0.4, 1.2], rtol=1e-6)
    with pytest.raises(ValueError, match="clip_norm must be positive"):
        clip_by_global_norm(grads, 0.0)


def test_clip_by_global_norm_keeps_float16_and_avoids_overflow_in_the_norm():
    big = tg.tensor(
        [300.0, 400.0], tg.float16
    )  # 300^2 overflows float16; the norm is done in float64
    out = clip_by_global_norm((big,), 5.0)
    assert out[0].dtype == tg.float16
    np.testing.assert_allclose(out[0].numpy().astype(np.float64), [3.0, 4.0], rtol=1e-3)


def test_clip_grad_norm_pytorch_style():
    a, b = nn.Parameter(tg.zeros(2)), nn.Parameter(tg.zeros(1))
    a.grad, b.grad = tg.tensor([3.0, 4.0]), tg.tensor([12.0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.3)
    assert isinstance(total, tg.Tensor) and total.item() == pytest.approx(13.0)
    np.testing.assert_allclose(
        a.grad.numpy(), [0.3, 0.4], rtol=1e-5
    )  # in place, times 1.3/(13+1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [1.2], rtol=1e-5)
    assert nn.clip_grad_norm_(a, max_norm=10.0).item() == pytest.approx(0.5, rel=1e-5)
    np.testing.assert_allclose(a.grad.numpy(), [0.3, 0.4], rtol=1e-5)  # under the limit: unchanged
    a.grad = tg.tensor([3.0, -5.0])
    assert nn.clip_grad_norm_([a], 1.0, norm_type=math.inf).item() == 5.0
    a.grad = tg.tensor([np.inf, 1.0])
    with pytest.raises(RuntimeError, match="non-finite, so it cannot be clipped"):
        nn.clip_grad_norm_([a], 1.0, error_if_nonfinite=True)


# ---- the seed's full MindSpore-style training step -----------------------------------------------
def test_scaled_clipped_training_step_mindspore_style():
    net = seed_dense()
    scaler = StaticLossScaler(1024.0)
    opt = tg.optim.SGD(net.trainable_params(), lr=0.01)
    grads = tg.autograd.grad(
        scaler.scale(nn.MSELoss()(net(tg.tensor([[1.0, 2.0, 3.0]])).squeeze(), 19.0)),
        net.trainable_params(),
    )
    grads = scaler.unscale(grads)
    assert all_finite(grads)
    grads = tg.ops.clip_by_global_norm(grads)  # norm sqrt(56) -> clipped to 1
    opt(grads)
    step = np.array([[2.0, 4.0, 6.0]]) / math.sqrt(56) * 0.01
    np.testing.assert_allclose(net.weight.numpy(), np.array([[2.0, 3.0, 4.0]]) - step, rtol=1e-6)
