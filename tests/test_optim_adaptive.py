"""tg.optim.NAdam, RAdam, Adamax: hand-derived first steps, trajectories equal to torch.optim's,
PyTorch's state and param_groups layout, state_dict resumption, hyperparameter errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from optim_against_torch import assert_resumes_exactly, assert_same_trajectory
from tapegrad import nn


def steps(cls, grads, p0=1.0, **kwargs) -> list[float]:
    """A scalar parameter stepped with the given gradients; its value after each step."""
    p = nn.Parameter(tg.tensor(p0, dtype=tg.float64))
    opt = cls([p], **kwargs)
    values = []
    for g in grads:
        opt.step((tg.tensor(g, dtype=tg.float64),))
        values.append(p.item())
    return values


def test_nadam_first_step_by_hand():
    b1, b2, lr, eps, psi, g = 0.9, 0.999, 0.1, 1e-8, 4e-3, 2.0
    mu1 = b1 * (1 - 0.5 * 0.96 ** (1 * psi))
    mu2 = b1 * (1 - 0.5 * 0.96 ** (2 * psi))
    m, v = (1 - b1) * g, (1 - b2) * g * g
    d = math.sqrt(v / (1 - b2)) + eps
    expected = 1.0 - lr * (1 - mu1) / (1 - mu1) * g / d - lr * mu2 / (1 - mu1 * mu2) * m / d
    # (mu_1 is rounded to float32 as PyTorch keeps the product: relative error ~1e-7)
    assert steps(tg.optim.NAdam, [g], lr=lr) == pytest.approx([expected], rel=1e-6)


def test_radam_is_momentum_sgd_until_the_variance_is_tractable():
    # b2 = 0.999: rho_t <= 5 for the first steps, so p -= lr * m / (1 - b1^t) = lr * g for a
    # constant g; b2 = 0.5 gives rho_inf = 3 < 5: never rectified.
    assert steps(tg.optim.RAdam, [1.0] * 3, lr=0.1) == pytest.approx([0.9, 0.8, 0.7], rel=1e-12)
    assert steps(tg.optim.RAdam, [1.0] * 2, lr=0.1, betas=(0.9, 0.5)) == pytest.approx([0.9, 0.8])


def test_radam_rectified_step_by_hand():
    # b2 = 0.9: rho_inf = 19, rho_t passes 5 at step 6, so both branches run within 7 steps
    b1, b2, lr, eps, g = 0.5, 0.9, 0.1, 1e-8, 1.0
    rho_inf = 2 / (1 - b2) - 1
    values = steps(tg.optim.RAdam, [g] * 7, lr=lr, betas=(b1, b2), eps=eps)
    p, m, v = 1.0, 0.0, 0.0
    for t in range(1, 8):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
        m_hat = m / (1 - b1**t)
        if rho_t > 5:
            r = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            p -= lr * m_hat * r * math.sqrt(1 - b2**t) / (math.sqrt(v) + eps)
        else:
            p -= lr * m_hat
    assert any(rho_inf - 2 * t * b2**t / (1 - b2**t) > 5 for t in range(1, 8))
    assert values[-1] == pytest.approx(p, rel=1e-12)


def test_adamax_two_steps_by_hand():
    b1, b2, lr, eps = 0.9, 0.999, 0.1, 1e-8
    m1, u1 = (1 - b1) * 2.0, 2.0 + eps
    p1 = 1.0 - lr / (1 - b1) * m1 / u1
    m2, u2 = b1 * m1 + (1 - b1) * -1.0, max(b2 * u1, 1.0 + eps)
    p2 = p1 - lr / (1 - b1**2) * m2 / u2
    assert steps(tg.optim.Adamax, [2.0, -1.0], lr=lr) == pytest.approx([p1, p2], rel=1e-12)


SETTINGS = [
    ("NAdam", {}),
    ("NAdam", {"lr": 0.05, "betas": (0.8, 0.95), "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.05, "maximize": True, "eps": 1e-3}),
    ("RAdam", {}),
    ("RAdam", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1}),
    (
        "RAdam",
        {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1, "decoupled_weight_decay": True},
    ),
    ("RAdam", {"lr": 0.05, "betas": (0.7, 0.8), "maximize": True, "foreach": False}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1, "eps": 1e-3}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.05, "maximize": True, "capturable": False}),
]


@pytest.mark.parametrize(
    "name,kwargs", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)]
)
def test_trajectory_equals_torch(name, kwargs):
    pytest.importorskip("torch")
    assert_same_trajectory(name, kwargs)


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax"])
def test_param_groups_with_their_own_settings_equal_torch(name):
    pytest.importorskip("torch")
    groups = [{"lr": 0.05, "weight_decay": 0.1}, {"betas": (0.8, 0.9), "maximize": True}]
    assert_same_trajectory(name, {"lr": 0.01}, groups)


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax"])
def test_state_and_param_groups_layout_follow_pytorch(name):
    torch = pytest.importorskip("torch")
    t = torch.ones(3, requires_grad=True)
    t_opt = getattr(torch.optim, name)([t])
    t.grad = torch.ones(3)
    t_opt.step()
    p = nn.Parameter(tg.ones(3))
    opt = getattr(tg.optim, name)([p])
    opt.step((tg.ones(3),))
    saved, t_saved = opt.state_dict(), t_opt.state_dict()
    assert set(saved["param_groups"][0]) == set(t_saved["param_groups"][0])
    assert set(saved["state"][0]) == set(t_saved["state"][0])
    for key, value in t_saved["param_groups"][0].items():
        if key != "params":
            assert saved["param_groups"][0][key] == value, key
    assert saved["state"][0]["step"] == 1
    if name == "NAdam":
        assert saved["state"][0]["mu_product"] == t_saved["state"][0]["mu_product"].item()


@pytest.mark.parametrize(
    "cls,kwargs",
    [
        (tg.optim.NAdam, {"lr": 0.05, "weight_decay": 0.1}),
        (tg.optim.RAdam, {"lr": 0.05, "betas": (0.8, 0.9)}),
        (tg.optim.Adamax, {"lr": 0.05, "weight_decay": 0.1}),
    ],
)
def test_state_dict_round_trip_resumes_exactly(cls, kwargs):
    assert_resumes_exactly(cls, kwargs)


@pytest.mark.parametrize("cls", [tg.optim.NAdam, tg.optim.RAdam, tg.optim.Adamax])
def test_invalid_hyperparameters_are_refused_as_pytorch_does(cls):
    p = nn.Parameter(tg.ones(2))
    for kwargs, message in [
        ({"lr": -1.0}, "invalid lr"),
        ({"eps": -1.0}, "invalid eps"),
        ({"betas": (1.0, 0.9)}, r"invalid betas\[0\]"),
        ({"betas": (0.9, -0.1)}, r"invalid betas\[1\]"),
        ({"weight_decay": -0.1}, "invalid weight_decay"),
        ({"differentiable": True}, "differentiable=True"),
    ]:
        with pytest.raises(ValueError, match=message):
            cls([p], **kwargs)
    with pytest.raises(TypeError, match="betas must be a pair"):
        cls([p], betas=0.9)
    if cls is tg.optim.NAdam:
        with pytest.raises(ValueError, match="invalid momentum_decay"):
            cls([p], momentum_decay=-1.0)


def test_updates_are_in_place_and_leave_the_gradient_alone():
    for cls in (tg.optim.NAdam, tg.optim.RAdam, tg.optim.Adamax):
        p = nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float32))
        memory, version = p.numpy(), p._version
        g = tg.tensor([0.5, -0.5], dtype=tg.float32)
        cls([p], weight_decay=0.1).step((g,))
        assert p.numpy() is memory and p.dtype == tg.float32 and p._version > version
        assert np.array_equal(g.numpy(), np.array([0.5, -0.5], dtype=np.float32))


def test_sparse_adam_is_built_as_pytorch_checks_it_and_refuses_dense_gradients():
    p = nn.Parameter(tg.ones(3))
    opt = tg.optim.SparseAdam([p], lr=0.01)
    assert opt.param_groups[0] | {"params": None} == {
        "lr": 0.01,
        "betas": (0.9, 0.999),
        "eps": 1e-8,
        "maximize": False,
        "params": None,
    }
    for kwargs, message in [({"lr": 0.0}, "invalid lr"), ({"eps": 0.0}, "invalid eps")]:
        with pytest.raises(ValueError, match=message):
            tg.optim.SparseAdam([p], **kwargs)
    with pytest.raises(ValueError, match=r"invalid betas\[1\]"):
        tg.optim.SparseAdam([p], betas=(0.9, 1.0))
    opt.step((None,))  # (no gradient: nothing to refuse, as PyTorch)
    with pytest.raises(RuntimeError, match="use tg.optim.Adam"):
        opt.step((tg.ones(3),))
    assert np.array_equal(p.numpy(), np.ones(3, dtype=np.float32)) and not opt.state[p]
