"""tg.nn.SGD / Momentum / Adam: MindSpore's signatures, defaults and update rules.

Each optimizer's first steps are checked against MindSpore's formula written out here in NumPy
(float64), with and without each option; then MindSpore's quickstart training loop runs; then bad
input. Formulas: MindSpore's nn/optim/{optimizer,sgd,momentum,adam}.py and its SGD/Adam kernels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn

RNG = np.random.default_rng(0)
P0 = RNG.normal(size=(3, 4))
GRADS = [RNG.normal(size=(3, 4)) for _ in range(4)]


def run(cls, grads=GRADS, p0=P0, name=None, **kwargs) -> list[np.ndarray]:
    """The parameter after each `optimizer(grads)` call (MindSpore's calling style)."""
    p = nn.Parameter(tg.tensor(p0.copy(), dtype=tg.float64), name=name)
    opt = cls([p], **kwargs)
    out = []
    for g in grads:
        opt((tg.tensor(g, dtype=tg.float64),))
        out.append(p.numpy().copy())
    return out


def check(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


# ---- the formulas, written out -----------------------------------------------------------------
def ms_sgd(
    learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, loss_scale=1.0
):
    """MindSpore SGD: the loss scale is divided out first, then the kernel adds wd*p;
    v = d on the first step (no dampening), then v = u*v + (1-dampening)*d."""
    p, v, out = P0.copy(), None, []
    for g in GRADS:
        d = g / loss_scale + weight_decay * p
        if momentum > 0:
            v = d.copy() if v is None else momentum * v + (1 - dampening) * d
            d = d + momentum * v if nesterov else v
        p = p - learning_rate * d
        out.append(p)
    return out


def ms_momentum(
    learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False, decay=True
):
    """MindSpore Momentum: d = (g + wd*p)/loss_scale; v = u*v + d from v = 0;
    p -= lr*(d + u*v) (nesterov) or lr*v."""
    p, v, out = P0.copy(), np.zeros_like(P0), []
    for g in GRADS:
        d = (g + (weight_decay * p if decay else 0)) / loss_scale
        v = momentum * v + d
        lr = learning_rate
        p = p - (lr * d + lr * momentum * v if use_nesterov else lr * v)
        out.append(p)
    return out


def ms_adam(
    learning_rate=1e-3,
    beta1=0.9,
    beta2=0.999,
    eps=1e-8,
    use_nesterov=False,
    weight_decay=0.0,
    loss_scale=1.0,
    use_amsgrad=False,
):
    """MindSpore Adam (its Adam / ApplyAdamWithAmsgrad kernels): eps added to sqrt(v) itself."""
    p, m, v, vhat, out = P0.copy(), np.zeros_like(P0), np.zeros_like(P0), np.zeros_like(P0), []
    for t, g in enumerate(GRADS, start=1):
        d = (g + weight_decay * p) / loss_scale
        m = beta1 * m + (1 - beta1) * d
        v = beta2 * v + (1 - beta2) * d * d
        lr_t = learning_rate * math.sqrt(1 - beta2**t) / (1 - beta1**t)
        vhat = np.maximum(vhat, v)
        num = beta1 * m + (1 - beta1) * d if use_nesterov else m
        p = p - lr_t * num / (np.sqrt(vhat if use_amsgrad else v) + eps)
        out.append(p)
    return out


# ---- SGD -----------------------------------------------------------------------------------------
SGD_OPTIONS = [
    {},
    {"learning_rate": 0.05},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.3},
    {"momentum": 0.9, "nesterov": True},
    {"weight_decay": 0.1},
    {"loss_scale": 128.0},
    {"momentum": 0.8, "dampening": 0.5, "weight_decay": 0.01, "loss_scale": 8.0},
    {"momentum": 0.9, "nesterov": True, "weight_decay": 0.05, "loss_scale": 4.0},
    {"dampening": 0.5},  # momentum 0: dampening changes nothing (the kernel skips v)
]


@pytest.mark.parametrize("kwargs", SGD_OPTIONS, ids=str)
def test_sgd_matches_mindspores_formula(kwargs):
    check(run(nn.SGD, **kwargs), ms_sgd(**kwargs))


def test_sgd_defaults_and_first_momentum_step():
    opt = nn.SGD([nn.Parameter(tg.zeros(2))])
    g = opt.param_groups[0]
    assert (g["lr"], g["momentum"], g["dampening"], g["weight_decay"]) == (0.1, 0.0, 0.0, 0.0)
    assert (g["nesterov"], g["loss_scale"]) == (False, 1.0)
    # scalar by hand: v1 = g1 = 1 (no dampening on the first step); v2 = 0.9*1 + 0.5*1 = 1.4
    p = run(nn.SGD, [np.ones(()), np.ones(())], np.ones(()), momentum=0.9, dampening=0.5)
    assert [float(x) for x in p] == pytest.approx([0.9, 0.76])


def test_sgd_loss_scale_divides_the_gradient_before_weight_decay():
    scaled = [g * 64.0 for g in GRADS]
    check(run(nn.SGD, scaled, loss_scale=64.0, weight_decay=0.1), ms_sgd(weight_decay=0.1))
    # SGD's weight decay lives in its kernel: it applies to parameters named like norm scales too
    check(run(nn.SGD, name="bn.gamma", weight_decay=0.1), ms_sgd(weight_decay=0.1))


def test_sgd_equals_pytorch_rule_without_loss_scale():
    kw = dict(momentum=0.9, dampening=0.2, weight_decay=0.01)
    check(run(nn.SGD, learning_rate=0.1, **kw), run(tg.optim.SGD, lr=0.1, **kw))


# ---- Momentum ------------------------------------------------------------------------------------
MOMENTUM_OPTIONS = [
    {"learning_rate": 0.1, "momentum": 0.9},
    {"learning_rate": 0.1, "momentum": 0.0},
    {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True},
    {"learning_rate": 0.1, "momentum": 0.9, "weight_decay": 0.1},
    {"learning_rate": 0.1, "momentum": 0.9, "loss_scale": 16.0},
    {"learning_rate": 0.1, "momentum": 0.5, "weight_decay": 0.2, "loss_scale": 4.0},
    {"learning_rate": 0.1, "momentum": 0.9, "weight_decay": 0.1, "use_nesterov": True},
]


@pytest.mark.parametrize("kwargs", MOMENTUM_OPTIONS, ids=str)
def test_momentum_matches_mindspores_formula(kwargs):
    check(run(nn.Momentum, **kwargs), ms_momentum(**kwargs))


def test_momentum_needs_learning_rate_and_momentum_and_defaults():
    with pytest.raises(TypeError):
        nn.Momentum([nn.Parameter(tg.zeros(2))])  # type: ignore[call-arg]
    g = nn.Momentum([nn.Parameter(tg.zeros(2))], 0.1, 0.9).param_groups[0]
    assert (g["weight_decay"], g["loss_scale"], g["nesterov"]) == (0.0, 1.0, False)


def test_momentum_weight_decay_skips_beta_and_gamma_unless_grouped():
    kw = dict(learning_rate=0.1, momentum=0.9, weight_decay=0.1, loss_scale=2.0)
    check(run(nn.Momentum, name="norm.gamma", **kw), ms_momentum(**kw, decay=False))
    check(run(nn.Momentum, name="norm.beta", **kw), ms_momentum(**kw, decay=False))
    check(run(nn.Momentum, name="fc.weight", **kw), ms_momentum(**kw))
    # grouped: the group's weight decay applies to all its parameters, whatever their names
    p = nn.Parameter(tg.tensor(P0.copy(), dtype=tg.float64), name="norm.gamma")
    opt = nn.Momentum([{"params": [p], "weight_decay": 0.1}], 0.1, 0.9, loss_scale=2.0)
    got = []
    for g in GRADS:
        opt((tg.tensor(g, dtype=tg.float64),))
        got.append(p.numpy().copy())
    check(got, ms_momentum(**kw))


# ---- Adam ----------------------------------------------------------------------------------------
ADAM_OPTIONS = [
    {},
    {"learning_rate": 0.1},
    {"beta1": 0.5, "beta2": 0.9},
    {"eps": 0.5},  # large: MindSpore's eps placement shows
    {"use_nesterov": True},
    {"weight_decay": 0.1},
    {"loss_scale": 1024.0},
    {"use_amsgrad": True},
    {"use_amsgrad": True, "weight_decay": 0.05, "loss_scale": 8.0, "eps": 0.1},
    {"learning_rate": 0.01, "use_nesterov": True, "weight_decay": 0.1, "loss_scale": 2.0},
]


@pytest.mark.parametrize("kwargs", ADAM_OPTIONS, ids=str)
def test_adam_matches_mindspores_formula(kwargs):
    check(run(nn.Adam, **kwargs), ms_adam(**kwargs))


def test_adam_eps_is_not_bias_corrected_unlike_pytorch():
    ms = run(nn.Adam, learning_rate=0.1, eps=0.5)
    torch_rule = run(tg.optim.Adam, lr=0.1, eps=0.5)
    assert not np.allclose(ms[0], torch_rule[0])
    # PyTorch's rule with eps * sqrt(1 - b2^t) is MindSpore's: check the first step only
    t1 = run(tg.optim.Adam, GRADS[:1], lr=0.1, eps=0.5 / math.sqrt(1 - 0.999))
    np.testing.assert_allclose(ms[0], t1[0], rtol=1e-12)


def test_adam_defaults_and_flags():
    opt = nn.Adam([nn.Parameter(tg.zeros(2))], use_locking=True, use_lazy=True)
    g = opt.param_groups[0]
    assert (g["lr"], g["beta1"], g["beta2"], g["eps"]) == (1e-3, 0.9, 0.999, 1e-8)
    assert (g["weight_decay"], g["loss_scale"], g["use_nesterov"], g["use_amsgrad"]) == (
        0.0,
        1.0,
        False,
        False,
    )
    with pytest.raises(ValueError, match="use_amsgrad"):
        nn.Adam([nn.Parameter(tg.zeros(2))], use_amsgrad=True, use_nesterov=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        nn.Adam([nn.Parameter(tg.zeros(2))], betas=(0.9, 0.99))


# ---- groups, order, state ------------------------------------------------------------------------
def two_params():
    a = nn.Parameter(tg.tensor(P0.copy(), dtype=tg.float64), name="a")
    b = nn.Parameter(tg.tensor(P0[:2].copy(), dtype=tg.float64), name="b")
    return a, b


@pytest.mark.parametrize("cls", [nn.SGD, nn.Momentum, nn.Adam])
def test_group_dicts_set_lr_and_weight_decay_per_group(cls):
    a, b = two_params()
    extra = {"momentum": 0.9} if cls is nn.Momentum else {}
    opt = cls(
        [{"params": [a], "lr": 0.01, "weight_decay": 0.1}, {"params": [b]}],
        learning_rate=0.1,
        **extra,
    )
    assert [g["lr"] for g in opt.param_groups] == [0.01, 0.1]
    assert [g["weight_decay"] for g in opt.param_groups] == [0.1, 0.0]
    solo_a = cls([nn.Parameter(tg.tensor(P0.copy(), dtype=tg.float64))], 0.01, **extra)
    solo_a.param_groups[0]["weight_decay"] = 0.1
    solo_b = cls([nn.Parameter(tg.tensor(P0[:2].copy(), dtype=tg.float64))], 0.1, **extra)
    for g in GRADS[:3]:
        opt((tg.tensor(g, dtype=tg.float64), tg.tensor(g[:2], dtype=tg.float64)))
        solo_a((tg.tensor(g, dtype=tg.float64),))
        solo_b((tg.tensor(g[:2], dtype=tg.float64),))
    np.testing.assert_allclose(a.numpy(), solo_a.parameters[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.numpy(), solo_b.parameters[0].numpy(), rtol=1e-12)


def test_order_params_fixes_the_gradient_order():
    a, b = two_params()
    opt = nn.SGD(
        [{"params": [a]}, {"params": [b], "lr": 0.0}, {"order_params": [b, a]}], learning_rate=0.1
    )
    assert opt.parameters == [b, a] and opt.params == [b, a]
    ga, gb = tg.ones(3, 4, dtype=tg.float64), tg.ones(2, 4, dtype=tg.float64)
    opt((gb, ga))  # in order_params' order
    np.testing.assert_allclose(a.numpy(), P0 - 0.1)
    np.testing.assert_allclose(b.numpy(), P0[:2])  # lr 0
    a.grad, b.grad = ga, gb
    opt.step()
    np.testing.assert_allclose(a.numpy(), P0 - 0.2)
    with pytest.raises(ValueError, match="order_params"):
        nn.SGD([{"params": [a]}, {"params": [b]}, {"order_params": [a]}])


def test_state_names_and_state_dict_round_trip():
    a, b = two_params()
    opt = nn.Adam([a, b], learning_rate=0.1, use_amsgrad=True)
    grads = (tg.ones(3, 4, dtype=tg.float64), tg.ones(2, 4, dtype=tg.float64))
    opt(grads)
    assert set(opt.state[a]) == {"step", "moment1", "moment2", "vhat"}
    saved = opt.state_dict()
    c, d = two_params()
    again = nn.Adam([c, d], learning_rate=0.1, use_amsgrad=True)
    again.load_state_dict(saved)
    c.data, d.data = a.data.numpy().copy(), b.data.numpy().copy()
    opt(grads)
    again(grads)
    np.testing.assert_allclose(c.numpy(), a.numpy(), rtol=1e-12)
    m = nn.Momentum([a], 0.1, 0.9)
    m((grads[0],))
    assert set(m.state[a]) == {"moments"}
    s = nn.SGD([a], momentum=0.9)
    s((grads[0],))
    assert set(s.state[a]) == {"accum"}


def test_lr_scheduler_drives_the_mindspore_optimizers():
    opt = nn.SGD([nn.Parameter(tg.zeros(2))], learning_rate=0.1)
    sched = tg.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05)


def test_float32_parameters_stay_float32_and_change_in_place():
    p = nn.Parameter(tg.ones(3))
    before = p.numpy()
    for cls, kw in [(nn.SGD, {"momentum": 0.9}), (nn.Momentum, {"momentum": 0.9}), (nn.Adam, {})]:
        opt = cls([p], learning_rate=0.1, loss_scale=2.0, **kw)
        opt((tg.ones(3),))
        assert p.dtype == tg.float32 and p.numpy() is not None
    assert np.shares_memory(before, p.numpy())


# ---- MindSpore's quickstart ----------------------------------------------------------------------
class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10),
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


@pytest.mark.parametrize(
    "make",
    [
        lambda params: nn.SGD(params, 1e-2),
        lambda params: nn.Momentum(params, learning_rate=1e-2, momentum=0.9),
        lambda params: nn.Adam(params, learning_rate=1e-3),
    ],
    ids=["SGD", "Momentum", "Adam"],
)
def test_mindspore_quickstart_training_loop(make):
    tg.manual_seed(0)
    rng = np.random.default_rng(1)
    data = tg.tensor(rng.random((32, 1, 28, 28), dtype=np.float32))
    label = tg.tensor(rng.integers(0, 10, size=32).astype(np.int32))
    model = Network()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = make(model.trainable_params())

    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = tg.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    model.set_train() if hasattr(model, "set_train") else model.train()
    losses = [train_step(data, label).item() for _ in range(6)]
    assert all(math.isfinite(v) for v in losses)
    assert losses[-1] < losses[0]


# ---- bad input -----------------------------------------------------------------------------------
def p1():
    return [nn.Parameter(tg.zeros(2))]


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: nn.SGD(p1(), -0.1), ValueError, "learning_rate"),
        (lambda: nn.SGD(p1(), "0.1"), TypeError, "learning_rate"),
        (lambda: nn.SGD(p1(), [0.1, 0.01]), TypeError, "dynamic"),
        (lambda: nn.SGD(p1(), tg.tensor([0.1, 0.01])), TypeError, "dynamic"),
        (lambda: nn.SGD(p1(), lambda step: 0.1), TypeError, "lr_scheduler"),
        (lambda: nn.SGD(p1(), momentum=-0.9), ValueError, "momentum"),
        (lambda: nn.SGD(p1(), dampening=-1.0), ValueError, "dampening"),
        (lambda: nn.SGD(p1(), weight_decay=-1e-4), ValueError, "weight_decay"),
        (lambda: nn.SGD(p1(), nesterov=True), ValueError, "nesterov"),
        (lambda: nn.SGD(p1(), momentum=0.9, dampening=0.1, nesterov=True), ValueError, "nesterov"),
        (lambda: nn.SGD(p1(), nesterov=1), TypeError, "nesterov"),
        (lambda: nn.SGD(p1(), loss_scale=0.0), ValueError, "loss_scale"),
        (lambda: nn.SGD(p1(), loss_scale=-2.0), ValueError, "loss_scale"),
        (lambda: nn.Momentum(p1(), -1.0, 0.9), ValueError, "learning_rate"),
        (lambda: nn.Momentum(p1(), 0.1, -0.9), ValueError, "momentum"),
        (lambda: nn.Momentum(p1(), 0.1, 0.9, use_nesterov="yes"), TypeError, "use_nesterov"),
        (lambda: nn.Adam(p1(), beta1=1.0), ValueError, "beta1"),
        (lambda: nn.Adam(p1(), beta1=0.0), ValueError, "beta1"),
        (lambda: nn.Adam(p1(), beta2=1.5), ValueError, "beta2"),
        (lambda: nn.Adam(p1(), eps=0.0), ValueError, "eps"),
        (lambda: nn.Adam(p1(), eps=-1e-8), ValueError, "eps"),
        (lambda: nn.Adam(p1(), use_nesterov=None), TypeError, "use_nesterov"),
        (lambda: nn.Adam(p1(), learning_rate=-1e-3), ValueError, "learning_rate"),
        (lambda: nn.SGD([]), ValueError, "empty"),
        (lambda: nn.SGD([{"params": p1(), "learning_rate": 0.1}]), ValueError, "'lr'"),
        (
            lambda: nn.SGD([{"params": p1(), "grad_centralization": True}]),
            NotImplementedError,
            "grad_centralization",
        ),
        (lambda: nn.SGD([{"params": p1()}, *p1()]), TypeError, "mix"),
        (lambda: nn.SGD([{"params": p1(), "lr": -1.0}]), ValueError, "learning_rate"),
        (lambda: nn.SGD([np.zeros(2)]), TypeError, "Tensors"),
    ],
)
def test_bad_input_gives_a_clear_error(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_wrong_gradients_give_a_clear_error():
    opt = nn.Adam(p1())
    with pytest.raises(ValueError, match="1 parameters"):
        opt((tg.zeros(2), tg.zeros(2)))
    with pytest.raises(ValueError, match="shape"):
        opt((tg.zeros(3),))


def test_names_are_exported():
    assert {"SGD", "Momentum", "Adam"} <= set(tg.nn.__all__)
    for cls in (tg.nn.SGD, tg.nn.Momentum, tg.nn.Adam):
        assert issubclass(cls, tg.optim.Optimizer)
    assert tg.nn.SGD is not tg.optim.SGD and tg.nn.Adam is not tg.optim.Adam
