"""tg.optim.Adadelta, Rprop, ASGD: hand-derived steps, trajectories equal to torch.optim's,
PyTorch's state and param_groups layout (ASGD's `ax` average), state_dict resumption, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from optim_against_torch import assert_resumes_exactly, assert_same_trajectory
from tapegrad import nn


def steps(cls, grads, p0=1.0, **kwargs) -> tuple[list[float], dict]:
    """A scalar parameter stepped with the given gradients: its values, and the final state."""
    p = nn.Parameter(tg.tensor(p0, dtype=tg.float64))
    opt = cls([p], **kwargs)
    values = []
    for g in grads:
        opt.step((tg.tensor(g, dtype=tg.float64),))
        values.append(p.item())
    return values, opt.state[p]


def test_adadelta_two_steps_by_hand():
    rho, eps, lr = 0.9, 1e-6, 1.0
    p, v, u = 1.0, 0.0, 0.0
    expected = []
    for g in (2.0, -1.0):
        v = rho * v + (1 - rho) * g * g
        d = math.sqrt(u + eps) / math.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * d * d
        p -= lr * d
        expected.append(p)
    values, state = steps(tg.optim.Adadelta, [2.0, -1.0])
    assert values == pytest.approx(expected, rel=1e-12)
    assert state["acc_delta"] == pytest.approx(u, rel=1e-12)


def test_rprop_grows_on_agreement_shrinks_and_skips_on_a_flip():
    # sizes: 0.1 (first: no previous sign), 0.12 (agree), 0.06 (flip: no move), then the next
    # comparison is against 0, so the size stays 0.06 and the move is made.
    values, state = steps(tg.optim.Rprop, [1.0, 1.0, -1.0, -1.0], lr=0.1)
    assert values == pytest.approx([0.9, 0.78, 0.78, 0.84])
    assert state["step_size"] == pytest.approx(0.06) and state["prev"] == -1.0
    clipped, _ = steps(tg.optim.Rprop, [1.0] * 3, lr=0.1, step_sizes=(1e-3, 0.11))
    assert clipped == pytest.approx([0.9, 0.79, 0.68])


def test_asgd_eta_mu_and_the_average_by_hand():
    lr, lambd, alpha, t0 = 0.1, 0.01, 0.5, 1.0
    values, state = steps(
        tg.optim.ASGD, [1.0, 1.0, 1.0, 1.0], lr=lr, lambd=lambd, alpha=alpha, t0=t0
    )
    p, eta, mu, ax = 1.0, float(np.float32(lr)), 1.0, 0.0  # (float32 scalars, as PyTorch)
    for t in (1, 2, 3, 4):  # mu is 1 for t <= t0 + 1 (ax = p), then 1/2: a real average
        p = p * (1 - lambd * eta) - eta * 1.0
        ax = p if mu == 1 else ax + mu * (p - ax)
        eta = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))
        mu = float(np.float32(1 / max(1, t - t0)))
    assert values[-1] == pytest.approx(p, rel=1e-12)
    assert state["ax"] == pytest.approx(ax, rel=1e-12) and state["ax"] != values[-1]
    assert state["eta"] == eta and state["mu"] == mu == float(np.float32(1 / 3))


SETTINGS = [
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.05, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.1)}),
    ("Rprop", {"lr": 0.02, "maximize": True, "foreach": False}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 1e-2, "alpha": 0.5, "t0": 5, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
]


@pytest.mark.parametrize(
    "name,kwargs", SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SETTINGS)]
)
def test_trajectory_equals_torch(name, kwargs):
    pytest.importorskip("torch")
    assert_same_trajectory(name, kwargs)


@pytest.mark.parametrize(
    "name,groups",
    [
        ("Adadelta", [{"lr": 0.5, "weight_decay": 0.1}, {"rho": 0.5, "maximize": True}]),
        ("Rprop", [{"lr": 0.05, "etas": (0.4, 1.3)}, {"step_sizes": (1e-4, 0.02)}]),
        ("ASGD", [{"lr": 0.05, "t0": 3}, {"lambd": 0.1, "alpha": 0.6, "weight_decay": 0.1}]),
    ],
)
def test_param_groups_with_their_own_settings_equal_torch(name, groups):
    pytest.importorskip("torch")
    assert_same_trajectory(name, {"lr": 0.01}, groups)


@pytest.mark.parametrize("name", ["Adadelta", "Rprop", "ASGD"])
def test_state_and_param_groups_layout_follow_pytorch(name):
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    t_opt = getattr(torch.optim, name)([t], lr=0.1, **({"t0": 1} if name == "ASGD" else {}))
    p = nn.Parameter(tg.tensor([1.0, -2.0, 3.0], dtype=tg.float64))
    opt = getattr(tg.optim, name)([p], lr=0.1, **({"t0": 1} if name == "ASGD" else {}))
    for g in ([0.5, 1.0, -1.0], [1.0, -1.0, -2.0], [0.1, 0.2, 0.3]):
        t.grad = torch.tensor(g, dtype=torch.float64)
        t_opt.step()
        opt.step((tg.tensor(g, dtype=tg.float64),))
    saved, t_saved = opt.state_dict(), t_opt.state_dict()
    assert set(saved["param_groups"][0]) == set(t_saved["param_groups"][0])
    for key, value in t_saved["param_groups"][0].items():
        if key != "params":
            assert saved["param_groups"][0][key] == value, key
    assert set(saved["state"][0]) == set(t_saved["state"][0])
    for key, value in t_saved["state"][0].items():
        np.testing.assert_allclose(saved["state"][0][key], value.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "cls,kwargs",
    [
        (tg.optim.Adadelta, {"lr": 0.5, "weight_decay": 0.1}),
        (tg.optim.Rprop, {"lr": 0.05}),
        (tg.optim.ASGD, {"lr": 0.05, "t0": 1}),
    ],
)
def test_state_dict_round_trip_resumes_exactly(cls, kwargs):
    assert_resumes_exactly(cls, kwargs)


def test_invalid_hyperparameters_are_refused_as_pytorch_does():
    p = nn.Parameter(tg.ones(2))
    cases = [
        (tg.optim.Adadelta, {"lr": -1.0}, "invalid lr"),
        (tg.optim.Adadelta, {"rho": 1.5}, "invalid rho"),
        (tg.optim.Adadelta, {"rho": -0.1}, "invalid rho"),
        (tg.optim.Adadelta, {"eps": -1.0}, "invalid eps"),
        (tg.optim.Adadelta, {"weight_decay": -1.0}, "invalid weight_decay"),
        (tg.optim.Rprop, {"lr": -1.0}, "invalid lr"),
        (tg.optim.Rprop, {"etas": (1.2, 0.5)}, "invalid etas"),
        (tg.optim.Rprop, {"etas": (0.0, 1.2)}, "invalid etas"),
        (tg.optim.Rprop, {"etas": (0.5, 1.0)}, "invalid etas"),
        (tg.optim.ASGD, {"lr": -1.0}, "invalid lr"),
        (tg.optim.ASGD, {"weight_decay": -1.0}, "invalid weight_decay"),
        (tg.optim.ASGD, {"differentiable": True}, "differentiable=True"),
    ]
    for cls, kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            cls([p], **kwargs)
    with pytest.raises(TypeError, match="etas must be a pair"):
        tg.optim.Rprop([p], etas=1.2)
    with pytest.raises(TypeError, match="t0 must be a number"):
        tg.optim.ASGD([p], t0="soon")
    assert tg.optim.Adadelta([p], rho=1.0).param_groups[0]["rho"] == 1.0  # (allowed, as PyTorch)


def test_updates_are_in_place_keep_float32_and_leave_the_gradient_alone():
    for cls in (tg.optim.Adadelta, tg.optim.Rprop, tg.optim.ASGD):
        p = nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float32))
        memory, version = p.numpy(), p._version
        g = tg.tensor([0.5, -0.5], dtype=tg.float32)
        opt = cls([p])
        opt.step((g,))
        assert p.numpy() is memory and p.dtype == tg.float32 and p._version > version
        assert np.array_equal(g.numpy(), np.array([0.5, -0.5], dtype=np.float32))
        assert all(
            v.dtype == np.float32 for v in opt.state[p].values() if isinstance(v, np.ndarray)
        )
