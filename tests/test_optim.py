"""tg.optim: SGD, Adam(W), RMSprop, Adagrad against hand-derived updates and torch; in place."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from helpers import seed_dense
from tapegrad import _blas, nn


@pytest.fixture(autouse=True, params=["blas", "numpy"])
def update_path(request):
    """Every test runs twice: parameters written by SciPy's BLAS axpy, and by NumPy alone."""
    _blas.use_blas(request.param == "blas")
    yield request.param
    _blas.use_blas(True)


def run(opt_cls, grads, p0=1.0, **kwargs) -> list[float]:
    """Step a scalar parameter with the given sequence of gradients; its value after each step."""
    p = nn.Parameter(tg.tensor(p0, dtype=tg.float64))
    opt = opt_cls([p], **kwargs)
    values = []
    for g in grads:
        p.grad = tg.tensor(g, dtype=tg.float64)
        opt.step()
        values.append(p.item())
    return values


# ---- SGD -----------------------------------------------------------------------------------------
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


# ---- Adam / AdamW --------------------------------------------------------------------------------
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


# ---- calling styles ------------------------------------------------------------------------------
def loss_of(net):
    return nn.MSELoss()(net(tg.tensor([[1.0, 2.0, 3.0]])).squeeze(), 19.0)


def test_step_from_grad_and_from_a_tuple_of_grads_agree_and_record_nothing():
    a, b = seed_dense(), seed_dense()
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
    net = seed_dense()
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


# ---- RMSprop / Adagrad ---------------------------------------------------------------------------
def test_rmsprop_two_steps_by_hand():
    lr, a, eps = 0.01, 0.99, 1e-8
    v1 = (1 - a) * 1.0
    p1 = 1.0 - lr * 1.0 / (math.sqrt(v1) + eps)
    v2 = a * v1 + (1 - a) * 4.0
    p2 = p1 - lr * 2.0 / (math.sqrt(v2) + eps)
    assert run(tg.optim.RMSprop, [1.0, 2.0]) == pytest.approx([p1, p2], rel=1e-12)
    assert p1 == pytest.approx(0.9)  # the first step is lr / sqrt(1 - alpha) for any g > 0


def test_rmsprop_centered_momentum_and_weight_decay_by_hand():
    lr, a, eps, mom, wd = 0.1, 0.9, 1e-8, 0.5, 0.2
    p, v, avg, buf, values = 1.0, 0.0, 0.0, 0.0, []
    for g in [1.0, -3.0, 0.5]:
        g = g + wd * p
        v = a * v + (1 - a) * g * g
        avg = a * avg + (1 - a) * g
        buf = mom * buf + g / (math.sqrt(v - avg * avg) + eps)  # centered: the variance of g
        p -= lr * buf
        values.append(p)
    got = run(
        tg.optim.RMSprop, [1.0, -3.0, 0.5], lr=lr, alpha=a, momentum=mom, weight_decay=wd,
        centered=True,
    )  # fmt: skip
    assert got == pytest.approx(values, rel=1e-12)


def test_adagrad_by_hand():
    # s = g^2 after one step, so the first step is lr * g / |g|
    assert run(tg.optim.Adagrad, [3.0], lr=0.1) == pytest.approx([0.9])
    # initial_accumulator_value=1: s1 = 1 + 1, s2 = 2 + 4; lr_decay: lr_t = lr / (1 + (t-1)*decay)
    p1 = 1 - 0.1 * 1 / (math.sqrt(2) + 1e-10)
    p2 = p1 - 0.1 / (1 + 0.5) * 2 / (math.sqrt(6) + 1e-10)
    got = run(tg.optim.Adagrad, [1.0, 2.0], lr=0.1, lr_decay=0.5, initial_accumulator_value=1.0)
    assert got == pytest.approx([p1, p2], rel=1e-12)
    # weight decay goes through the gradient: g' = 1 + 0.5 * 1
    assert run(tg.optim.Adagrad, [1.0], lr=0.1, weight_decay=0.5) == pytest.approx([0.9])


def test_defaults_and_state_layout_follow_pytorch():
    p = nn.Parameter(tg.ones(2))
    rms = tg.optim.RMSprop([p])
    assert {k: rms.defaults[k] for k in ("lr", "alpha", "eps", "momentum", "centered")} == {
        "lr": 1e-2, "alpha": 0.99, "eps": 1e-8, "momentum": 0, "centered": False,
    }  # fmt: skip
    ada = tg.optim.Adagrad([p])
    assert ada.defaults["eps"] == 1e-10 and ada.defaults["lr"] == 1e-2
    assert ada.state[p]["step"] == 0 and ada.state[p]["sum"].tolist() == [0.0, 0.0]  # eager state
    rms_c = tg.optim.RMSprop([p], momentum=0.9, centered=True)
    rms_c.step((tg.ones(2),))
    assert set(rms_c.state[p]) == {"step", "square_avg", "momentum_buffer", "grad_avg"}


# ---- in place: one buffer, grads untouched, versions bumped --------------------------------------
ALL_OPTIMIZERS = [
    (tg.optim.SGD, dict(lr=0.1)),
    (tg.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    (tg.optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.3)),
    (tg.optim.Adam, dict(lr=0.1, weight_decay=0.1)),
    (tg.optim.AdamW, dict(lr=0.1)),
    (tg.optim.RMSprop, dict(momentum=0.9, centered=True, weight_decay=0.1)),
    (tg.optim.Adagrad, dict(lr_decay=0.1, weight_decay=0.1)),
]
IDS = [f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(ALL_OPTIMIZERS)]


@pytest.mark.parametrize("cls,kwargs", ALL_OPTIMIZERS, ids=IDS)
def test_updates_are_in_place_and_leave_the_gradient_alone(cls, kwargs):
    w = nn.Parameter(tg.tensor(np.arange(6.0).reshape(2, 3)))
    b = nn.Parameter(tg.ones(4))
    w.grad, b.grad = tg.ones(2, 3), tg.full((4,), 0.5)
    buffers, before = [w.numpy(), b.numpy()], w.numpy().copy()
    opt = cls([w, b], **kwargs)
    for _ in range(2):
        opt.step()
    assert w.numpy() is buffers[0] and b.numpy() is buffers[1]  # the parameters' own memory
    assert not np.array_equal(w.numpy(), before)
    assert w.grad.tolist() == [[1.0] * 3] * 2 and b.grad.tolist() == [0.5] * 4


@pytest.mark.parametrize("cls,kwargs", ALL_OPTIMIZERS, ids=IDS)
def test_every_optimizer_bumps_the_version(cls, kwargs):
    p = nn.Parameter(tg.ones(3))
    out = (p * p).sum()  # saves p for backward
    cls([p], **kwargs).step((tg.ones(3),))
    with pytest.raises(RuntimeError, match="modified by an inplace operation|in-place|inplace"):
        out.backward()


def test_a_bad_gradient_changes_no_parameter():
    a, b = nn.Parameter(tg.ones(2)), nn.Parameter(tg.ones(3))
    with pytest.raises(ValueError, match="gradient 1 has shape"):
        tg.optim.SGD([a, b], lr=0.1).step((tg.ones(2), tg.ones(2)))
    assert a.tolist() == [1.0, 1.0]


def test_float32_parameters_stay_float32_and_mixed_shapes_share_scratch():
    ps = [nn.Parameter(tg.ones(*s)) for s in [(3, 2), (7,), (1,), ()]]
    opt = tg.optim.Adam(ps, lr=0.1)
    opt.step(tuple(tg.ones(*p.shape) for p in ps))
    for p in ps:
        assert p.dtype == np.float32 and np.allclose(p.numpy(), 0.9)


# ---- against torch.optim -------------------------------------------------------------------------
TORCH_CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.2)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, weight_decay=0.1, momentum=0.5)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("RMSprop", dict(lr=0.01, weight_decay=0.1, momentum=0.5, maximize=True)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, maximize=True)),
]


@pytest.mark.parametrize("cls", [tg.optim.RMSprop, tg.optim.Adagrad])
def test_maximize_ascends_with_the_gradient_negated_before_weight_decay(cls):
    # PyTorch's maximize: g <- -g, then weight decay, then the usual rule; closed form for one
    # step from zero state: RMSprop d = g' / (sqrt((1 - alpha) g'^2) + eps), Adagrad g' / |g'|
    p0, g, lr, wd = np.array([0.5, -2.0, 1.0]), np.array([0.3, 0.1, -4.0]), 0.1, 0.2
    p = tg.nn.Parameter(p0.copy())
    opt = cls([p], lr=lr, weight_decay=wd, maximize=True, foreach=None)
    opt.step([tg.tensor(g)])
    gd = -g + wd * p0
    if cls is tg.optim.RMSprop:
        expected = p0 - lr * gd / (np.sqrt((1 - 0.99) * gd**2) + 1e-8)
    else:
        expected = p0 - lr * gd / (np.sqrt(gd**2) + 1e-10)
    np.testing.assert_allclose(p.numpy(), expected, rtol=1e-12)
    assert opt.param_groups[0]["maximize"] is True
    with pytest.raises(TypeError):  # keyword-only, as PyTorch's maximize
        cls([p], 0.1, 0.9, 0.0, 0.0, 0.0, False, None, True)


@pytest.mark.parametrize("name,kwargs", TORCH_CONFIGS, ids=[c[0] for c in TORCH_CONFIGS])
def test_matches_torch_optim_over_several_steps(name, kwargs):
    torch = pytest.importorskip("torch", reason="the comparison with torch.optim needs PyTorch")
    rng = np.random.default_rng(0)
    shapes = [(3, 4), (5,)]
    starts = [rng.standard_normal(s) for s in shapes]
    ours = [nn.Parameter(tg.tensor(a)) for a in starts]
    theirs = [torch.nn.Parameter(torch.tensor(a)) for a in starts]
    opt = getattr(tg.optim, name)(ours, **kwargs)
    ref = getattr(torch.optim, name)(theirs, foreach=False, **kwargs)
    if "maximize" in kwargs:  # (our foreach= is accepted too)
        opt = getattr(tg.optim, name)(ours, foreach=False, **kwargs)
    for _ in range(8):
        grads = [rng.standard_normal(s) * rng.uniform(0.1, 3.0) for s in shapes]  # v goes down too
        for p, g in zip(theirs, grads):
            p.grad = torch.tensor(g)
        ref.step()
        opt.step(tuple(tg.tensor(g) for g in grads))
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.numpy(), q.detach().numpy(), rtol=1e-10, atol=1e-12)
    if kwargs.get("amsgrad"):  # PyTorch's state layout too
        ours_state, their_state = opt.state_dict()["state"][0], ref.state_dict()["state"][0]
        assert set(ours_state) == set(their_state)
        np.testing.assert_allclose(ours_state["max_exp_avg_sq"], their_state["max_exp_avg_sq"])


def test_new_optimizers_reject_bad_hyperparameters():
    p = nn.Parameter(tg.ones(2))
    with pytest.raises(ValueError, match="invalid alpha"):
        tg.optim.RMSprop([p], alpha=-0.5)
    with pytest.raises(ValueError, match="invalid momentum"):
        tg.optim.RMSprop([p], momentum=-1)
    with pytest.raises(ValueError, match="invalid lr_decay"):
        tg.optim.Adagrad([p], lr_decay=-1)
    with pytest.raises(ValueError, match="invalid initial_accumulator_value"):
        tg.optim.Adagrad([p], initial_accumulator_value=-1)
    with pytest.raises(TypeError, match="eps must be a number"):
        tg.optim.Adagrad([p], eps="tiny")


@pytest.mark.parametrize("cls,kwargs", ALL_OPTIMIZERS[3:], ids=IDS[3:])
def test_state_dict_round_trip_resumes_exactly(cls, kwargs):
    def make():
        return [nn.Parameter(tg.tensor([1.0, -2.0, 3.0], dtype=tg.float64))]

    grads = [tg.tensor(g, dtype=tg.float64) for g in ([0.5, 1, -1], [2, -1, 0.1], [1, 1, 1])]
    a = make()
    opt = cls(a, **kwargs)
    opt.step((grads[0],))
    saved = opt.state_dict()
    b = [nn.Parameter(a[0].detach().clone())]
    twin = cls(b, **kwargs)
    twin.load_state_dict(saved)
    for g in grads[1:]:
        opt.step((g,))
        twin.step((g,))
    assert np.array_equal(a[0].numpy(), b[0].numpy())


def test_optimizer_parameters_is_mindspores_name_for_its_parameter_list() -> None:
    net = tg.nn.Dense(3, 2)
    opt = tg.optim.SGD(net.trainable_params(), 0.1)
    assert opt.parameters == opt.params and opt.parameters[0] is net.weight


# ---- maximize=, foreach=, amsgrad= ---------------------------------------------------------------
def _one_step(cls, p0, g, **kwargs):
    p = nn.Parameter(tg.tensor(p0.copy()))
    opt = cls([p], **kwargs)
    opt.step([tg.tensor(g)])
    return p.numpy()


def test_sgd_and_adam_maximize_and_foreach():
    p0, g = np.array([0.5, -2.0, 1.0]), np.array([0.3, 0.1, -4.0])
    lr, wd = 0.1, 0.2
    for foreach in (None, False, True):
        out = _one_step(tg.optim.SGD, p0, g, lr=lr, weight_decay=wd, maximize=True, foreach=foreach)
        np.testing.assert_allclose(out, p0 - lr * (-g + wd * p0), rtol=1e-12)
    for cls in (tg.optim.Adam, tg.optim.AdamW):
        out = _one_step(cls, p0, g, lr=lr, maximize=True, weight_decay=0.0)
        np.testing.assert_allclose(out, p0 + lr * g / (np.abs(g) + 1e-8), rtol=1e-9)
    opt = tg.optim.SGD([nn.Parameter(tg.ones(2))], 0.1, 0.9, 0.0)  # API.md's positional order
    assert opt.param_groups[0]["momentum"] == 0.9 and opt.param_groups[0]["maximize"] is False
    with pytest.raises(TypeError):  # keyword-only, as PyTorch's
        tg.optim.SGD([nn.Parameter(tg.ones(2))], 0.1, 0.0, 0.0, False, 0.0, True)
    with pytest.raises(TypeError):
        tg.optim.Adam([nn.Parameter(tg.ones(2))], 0.1, (0.9, 0.99), 1e-8, 0.0, False, None)


def test_amsgrad_uses_the_largest_second_moment():
    # two steps with a big then a small gradient: v2 < v1 / b2-ish, so AMSGrad keeps v_max = v1
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.1
    g1, g2 = np.array([4.0]), np.array([0.1])
    for cls in (tg.optim.Adam, tg.optim.AdamW):
        p = nn.Parameter(tg.tensor([1.0], tg.float64))
        opt = cls([p], lr=lr, betas=(b1, b2), eps=eps, amsgrad=True, weight_decay=0.0)
        opt.step([tg.tensor(g1)])
        opt.step([tg.tensor(g2)])
        m1, v1 = (1 - b1) * g1, (1 - b2) * g1**2
        m2, v2 = b1 * m1 + (1 - b1) * g2, b2 * v1 + (1 - b2) * g2**2
        p1 = 1.0 - lr * (m1 / (1 - b1)) / (np.sqrt(v1) / np.sqrt(1 - b2) + eps)
        vmax = np.maximum(v1, v2)
        p2 = p1 - lr * (m2 / (1 - b1**2)) / (np.sqrt(vmax) / np.sqrt(1 - b2**2) + eps)
        np.testing.assert_allclose(p.numpy(), p2, rtol=1e-12)
        state = opt.state[p]
        assert np.array_equal(state["max_exp_avg_sq"], np.maximum(v1, v2))
        assert opt.param_groups[0]["amsgrad"] is True
    plain = tg.optim.Adam([nn.Parameter(tg.ones(2))])
    plain.step([tg.ones(2)])
    assert "max_exp_avg_sq" not in next(iter(plain.state.values()))  # (PyTorch's layout)


def test_a_step_on_read_only_memory_says_so_and_changes_nothing():
    """The update writes straight into the parameter's memory; read-only memory gets the
    project's error from the in-place path, not NumPy's."""
    p = tg.nn.Parameter(np.ones(3, np.float32))
    p.numpy().setflags(write=False)
    opt = tg.optim.SGD([p], lr=0.1)
    with pytest.raises(RuntimeError, match="read-only"):
        opt.step([np.ones(3, np.float32)])
    np.testing.assert_array_equal(p.numpy(), np.ones(3, np.float32))
