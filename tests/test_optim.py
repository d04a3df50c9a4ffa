"""tg.optim: SGD / Adam / AdamW against hand-derived PyTorch updates, both calling styles, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn


def run(opt_cls, grads, p0=1.0, **kwargs) -> list[float]:
    """Step a scalar parameter with the given sequence of gradients; return its value after each step."""
    p = nn.Parameter(tg.tensor(p0, dtype=tg.float64))
    opt = opt_cls([p], **kwargs)
    values = []
    for g in grads:
        p.grad = tg.tensor(g, dtype=tg.float64)
        opt.step()
        values.append(p.item())
    return values


# ---- SGD ---------------------------------------------------------------------------------------
def test_sgd_plain_and_weight_decay():
    assert run(tg.optim.SGD, [1.0, 2.0], lr=0.1) == pytest.approx([0.9, 0.7])
    # d = g + wd * p:  p1 = 1 - 0.1 * (1 + 0.1);  p2 = 0.89 - 0.1 * (1 + 0.089)
    assert run(tg.optim.SGD, [1.0, 1.0], lr=0.1, weight_decay=0.1) == pytest.approx([0.89, 0.7811])


def test_sgd_momentum_dampening_and_nesterov():
    # b1 = g (no dampening on the first step); b2 = 0.9*b1 + g = 1.9
    assert run(tg.optim.SGD, [1.0, 1.0], lr=0.1, momentum=0.9) == pytest.approx([0.9, 0.71])
    # b2 = 0.9*1 + (1 - 0.5)*1 = 1.4
    assert run(tg.optim.SGD, [1.0, 1.0], lr=0.1, momentum=0.9, dampening=0.5) == pytest.approx(
        [0.9, 0.76]
    )
    # nesterov: d = g + 0.9*b;  d1 = 1.9, d2 = 1 + 0.9*1.9 = 2.71
    assert run(tg.optim.SGD, [1.0, 1.0], lr=0.1, momentum=0.9, nesterov=True) == pytest.approx(
        [0.81, 0.539]
    )


# ---- Adam / AdamW ------------------------------------------------------------------------------
def test_adam_bias_correction_makes_the_first_steps_lr_sized():
    # For a constant g, m_hat = g and v_hat = g^2 at every step, so each step moves lr*g/(|g|+eps).
    values = run(tg.optim.Adam, [0.5] * 3, lr=0.01)
    step = 0.01 * 0.5 / (0.5 + 1e-8)
    assert values == pytest.approx([1 - step, 1 - 2 * step, 1 - 3 * step], rel=1e-12)


def test_adam_two_steps_by_hand():
    b1, b2, lr, eps = 0.9, 0.999, 0.1, 1e-8
    m1, v1 = (1 - b1) * 1.0, (1 - b2) * 1.0
    p1 = 1.0 - lr * (m1 / (1 - b1)) / (math.sqrt(v1 / (1 - b2)) + eps)
    m2, v2 = b1 * m1 + (1 - b1) * 3.0, b2 * v1 + (1 - b2) * 9.0
    p2 = p1 - lr * (m2 / (1 - b1**2)) / (math.sqrt(v2 / (1 - b2**2)) + eps)
    assert run(tg.optim.Adam, [1.0, 3.0], lr=lr) == pytest.approx([p1, p2], rel=1e-12)
    assert p1 == pytest.approx(0.9) and 1 - p2 == pytest.approx(0.1 + 0.0917778, rel=1e-5)


def test_adam_l2_versus_adamw_decoupled_decay():
    # Adam: g' = g + wd*p = 1.1, m_hat/sqrt(v_hat) = 1  -> p1 = 1 - 0.1 = 0.9
    assert run(tg.optim.Adam, [1.0], lr=0.1, weight_decay=0.1) == pytest.approx([0.9])
    # AdamW: p *= 1 - lr*wd first (0.99), then the plain Adam step of 0.1 -> 0.89
    assert run(tg.optim.AdamW, [1.0], lr=0.1, weight_decay=0.1) == pytest.approx([0.89])
    assert tg.optim.AdamW([nn.Parameter(tg.zeros(1))]).param_groups[0]["weight_decay"] == 1e-2


# ---- calling styles ----------------------------------------------------------------------------
def seed_net():
    net = nn.Dense(3, 1, has_bias=False)
    net.weight.set_data(tg.tensor([[2.0, 3.0, 4.0]]))
    return net


def loss_of(net):
    return nn.MSELoss()(net(tg.tensor([[1.0, 2.0, 3.0]])).squeeze(), 19.0)


def test_step_from_grad_and_from_a_tuple_of_grads_agree_and_record_nothing():
    a, b = seed_net(), seed_net()
    opt_a = tg.optim.SGD(a.parameters(), lr=0.1)
    loss_of(a).backward()
    opt_a.step()
    grads = tg.autograd.grad(loss_of(b), b.trainable_params())
    tg.optim.SGD(b.trainable_params(), lr=0.1).step(grads)
    expected = [[2 - 0.2, 3 - 0.4, 4 - 0.6]]
    np.testing.assert_allclose(a.weight.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(b.weight.numpy(), expected, rtol=1e-6)
    assert a.weight.is_leaf and a.weight.grad_fn is None and isinstance(a.weight, nn.Parameter)
    opt_a.zero_grad()
    assert a.weight.grad is None


def test_mindspore_call_style_closure_and_none_grads():
    net = seed_net()
    opt = tg.optim.SGD(net.trainable_params(), lr=0.1)
    opt(tg.autograd.grad(loss_of(net), net.trainable_params()))  # MindSpore: optimizer(grads)
    np.testing.assert_allclose(net.weight.numpy(), [[1.8, 2.6, 3.4]], rtol=1e-6)
    opt.step((None,))  # a None gradient leaves its parameter alone
    np.testing.assert_allclose(net.weight.numpy(), [[1.8, 2.6, 3.4]], rtol=1e-6)

    def closure():
        opt.zero_grad()
        loss = loss_of(net)
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == pytest.approx((1.8 + 5.2 + 10.2 - 19) ** 2)


def test_parameter_groups_have_their_own_lr():
    w, b = nn.Parameter(tg.ones(2)), nn.Parameter(tg.ones(1))
    opt = tg.optim.SGD([{"params": [w]}, {"params": b, "lr": 1.0}], lr=0.1)
    opt.step((tg.ones(2), tg.ones(1)))
    assert w.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == [0.0]


def test_a_step_bumps_the_version_so_stale_graphs_are_reported():
    p = nn.Parameter(tg.ones(2))
    out = (p * p).sum()
    tg.optim.SGD([p], lr=0.1).step((tg.ones(2),))
    with pytest.raises(RuntimeError):
        out.backward()


def test_clear_errors():
    p = nn.Parameter(tg.ones(2))
    with pytest.raises(ValueError, match="invalid lr: -0.1"):
        tg.optim.SGD([p], lr=-0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        tg.optim.Adam([])
    with pytest.raises(ValueError, match=r"betas\[1\]"):
        tg.optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="nesterov"):
        tg.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        tg.optim.SGD([np.ones(2)], lr=0.1)
    with pytest.raises(ValueError, match="leaf"):
        tg.optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="appears twice"):
        tg.optim.SGD([p, p], lr=0.1)
    opt = tg.optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="2 gradients for 1 parameters"):
        opt.step((tg.ones(2), tg.ones(2)))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        opt.step((tg.ones(3),))
