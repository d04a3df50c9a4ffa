"""tg.optim.Adafactor and tg.optim.Muon: first steps by hand, trajectories equal to torch.optim's,
PyTorch's state layout, state_dict resumption, and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from optim_against_torch import assert_resumes_exactly, assert_same_trajectory
from tapegrad import nn
from tapegrad.optim.muon import bfloat16_round, zeropower_via_newtonschulz

ADAFACTOR_CONFIGS = [
    {},
    {"weight_decay": 0.1, "lr": 0.01},
    {"weight_decay": 0.1, "maximize": True},
    {"beta2_decay": -1.0},
    {"d": 1.5},
    {"eps": (1e-3, 1e-3), "lr": 0.5},
    {"foreach": True},
]


@pytest.mark.parametrize("kwargs", ADAFACTOR_CONFIGS)
def test_adafactor_follows_torch(kwargs):
    pytest.importorskip("torch")
    assert_same_trajectory("Adafactor", kwargs)


def test_adafactor_groups_follow_torch():
    pytest.importorskip("torch")
    assert_same_trajectory("Adafactor", {}, groups=[{"lr": 0.05}, {"weight_decay": 0.2}])


def test_adafactor_vector_first_step_by_hand():
    # t = 1: beta = 1, so V = g^2 and U = g/|g| = sign(g); RMS(U) = 1 <= d: no clipping;
    # alpha = max(eps2, RMS(p)) * min(lr, 1)
    p0, g = np.array([3.0, -4.0]), np.array([0.5, -2.0])
    p = nn.Parameter(tg.tensor(p0))
    opt = tg.optim.Adafactor([p], lr=0.1)
    opt.step([tg.tensor(g)])
    alpha = math.sqrt((9 + 16) / 2) * 0.1
    np.testing.assert_allclose(p.numpy(), p0 - alpha * np.sign(g), rtol=1e-14)
    assert opt.state[p]["step"] == 1.0 and opt.state[p]["variance"].shape == (2,)


def test_adafactor_matrix_state_is_factored_and_first_step_by_hand():
    rng = np.random.default_rng(3)
    p0, g = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    p = nn.Parameter(tg.tensor(p0))
    opt = tg.optim.Adafactor([p], lr=0.2, d=1.2)
    opt.step([tg.tensor(g)])
    state = opt.state[p]
    assert set(state) == {"step", "row_var", "col_var"}
    assert state["row_var"].shape == (2, 3, 1) and state["col_var"].shape == (2, 1, 4)
    r, c = (g * g).mean(-1, keepdims=True), (g * g).mean(-2, keepdims=True)
    v = r * c / r.mean(-2, keepdims=True)
    u = g / np.sqrt(v)
    u = u / max(1.0, np.sqrt((u * u).mean()) / 1.2)
    alpha = max(1e-3, np.sqrt((p0 * p0).mean())) * 0.2
    np.testing.assert_allclose(p.numpy(), p0 - alpha * u, rtol=1e-12)


def test_adafactor_state_dict_matches_torch_layout_and_resumes():
    torch = pytest.importorskip("torch")
    w = nn.Parameter(tg.ones(3, 2))
    tw = torch.nn.Parameter(torch.ones(3, 2, dtype=torch.float64))
    ours, theirs = tg.optim.Adafactor([w]), torch.optim.Adafactor([tw])
    w.grad, tw.grad = tg.ones(3, 2), torch.ones(3, 2, dtype=torch.float64)
    ours.step()
    theirs.step()
    a, b = ours.state_dict(), theirs.state_dict()
    assert set(a["state"][0]) == set(b["state"][0])
    for key in ("row_var", "col_var"):
        np.testing.assert_allclose(a["state"][0][key], b["state"][0][key].numpy())
    assert set(a["param_groups"][0]) == set(b["param_groups"][0])
    assert a["param_groups"][0]["eps"] == (None, 1e-3)
    assert_resumes_exactly(tg.optim.Adafactor, {"lr": 0.05, "weight_decay": 0.1})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"eps": (-1e-30, 1e-3)}, "epsilon1 should be >= 0"),
        ({"eps": (None, -1.0)}, "epsilon2 should be >= 0"),
        ({"d": 0.0}, "Clipping threshold d should be >= 1"),
        ({"beta2_decay": 0.8}, "beta2_decay should be <= 0"),
        ({"lr": -1.0}, "lr"),
        ({"weight_decay": -1.0}, "weight_decay"),
    ],
)
def test_adafactor_errors_are_pytorchs(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tg.optim.Adafactor([nn.Parameter(tg.ones(2))], **kwargs)


# Muon's parameters must be matrices: the shared problem's bias becomes a column
def _muon_paths(torch, kwargs: dict, shape: tuple[int, int] = (4, 3), steps: int = 20) -> tuple:
    rng = np.random.default_rng(7)
    start = [rng.standard_normal(shape), rng.standard_normal((shape[0], 1))]
    x = rng.standard_normal((shape[1], 1))
    paths = []
    for lib in (torch, tg):
        params = [lib.tensor(a, requires_grad=True) for a in start]
        opt = lib.optim.Muon(params, **kwargs)
        path = []
        for _ in range(steps):
            opt.zero_grad()
            y = (params[0] @ lib.tensor(x) + params[1]).tanh()
            ((y * y).sum() + 0.1 * (params[0] * params[0]).sum()).backward()
            opt.step()
            path.append([p.detach().numpy().copy() for p in params])
        paths.append(path)
    return paths


MUON_CONFIGS = [
    {},
    {"lr": 0.01},
    {"weight_decay": 0.2},
    {"momentum": 0.8},
    {"nesterov": False, "lr": 0.02},
    {"ns_steps": 6},
    {"ns_coefficients": (3.4, -4.7, 2.0)},
    {"adjust_lr_fn": "match_rms_adamw", "lr": 0.02},
    {"adjust_lr_fn": "original", "lr": 0.05},
]


@pytest.mark.parametrize("kwargs", MUON_CONFIGS)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
def test_muon_follows_torch(kwargs, shape):
    torch = pytest.importorskip("torch")
    theirs, ours = _muon_paths(torch, kwargs, shape)
    for step, (t, g) in enumerate(zip(theirs, ours)):
        for a, b in zip(t, g):
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=f"step {step + 1}")
    assert np.abs(theirs[-1][0] - theirs[0][0]).max() > 1e-4  # (it moved)


def test_muon_tensor_lr_scales_in_float32_as_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0, g = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    tw = torch.tensor(w0, requires_grad=True)
    opt = torch.optim.Muon([tw], lr=torch.tensor(0.001))
    tw.grad = torch.tensor(g)
    opt.step()
    w = nn.Parameter(tg.tensor(w0))
    tg.optim.Muon([w], lr=tg.tensor(0.001)).step([tg.tensor(g)])
    np.testing.assert_array_equal(w.numpy(), tw.detach().numpy())


def test_newton_schulz_equals_torchs_bfloat16_iteration():
    torch = pytest.importorskip("torch")
    from torch.optim._muon import _zeropower_via_newtonschulz

    rng = np.random.default_rng(1)
    for shape in [(4, 3), (3, 4), (5, 1), (8, 8)]:
        for _ in range(10):
            g = rng.standard_normal(shape) * rng.uniform(0.01, 10)
            theirs = _zeropower_via_newtonschulz(torch.tensor(g), (3.4445, -4.775, 2.0315), 5, 1e-7)
            ours = zeropower_via_newtonschulz(g, (3.4445, -4.775, 2.0315), 5, 1e-7)
            np.testing.assert_array_equal(ours, theirs.float().numpy())


def test_newton_schulz_nearly_orthogonalises():
    rng = np.random.default_rng(2)
    o = zeropower_via_newtonschulz(rng.standard_normal((6, 3)), (3.4445, -4.775, 2.0315), 5, 1e-7)
    singular = np.linalg.svd(o.astype(np.float64), compute_uv=False)
    assert np.all((singular > 0.5) & (singular < 1.5))  # (PyTorch's: S' ~ Uniform(0.5, 1.5))


def test_bfloat16_round_ties_to_even_and_keeps_specials():
    values = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-9, np.inf, -0.0, np.nan], np.float32)
    got = bfloat16_round(values)
    np.testing.assert_array_equal(got[:5], np.array([1.0, 1 + 4 * 2**-8, 1.0, np.inf, -0.0]))
    assert np.isnan(got[5])


def test_muon_state_and_resume():
    w = nn.Parameter(tg.ones(3, 2))
    opt = tg.optim.Muon([w])
    opt.step([tg.ones(3, 2)])
    assert set(opt.state[w]) == {"momentum_buffer"}
    saved = opt.state_dict()
    assert saved["param_groups"][0]["ns_coefficients"] == (3.4445, -4.775, 2.0315)
    twin = nn.Parameter(w.detach().clone())
    other = tg.optim.Muon([twin])
    other.load_state_dict(saved)
    for o, p in ((opt, w), (other, twin)):
        o.step([tg.full((3, 2), 0.5)])
    np.testing.assert_array_equal(w.numpy(), twin.numpy())


def test_muon_refuses_what_torch_refuses():
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        tg.optim.Muon([nn.Parameter(tg.ones(2, 3, 4))])
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        tg.optim.Muon([nn.Parameter(tg.ones(3))])
    with pytest.raises(ValueError, match="Adjust learning rate function arbitrary"):
        tg.optim.Muon([nn.Parameter(tg.ones(2, 3))], adjust_lr_fn="arbitrary")
    with pytest.raises(ValueError, match="momentum"):
        tg.optim.Muon([nn.Parameter(tg.ones(2, 3))], momentum=-0.5)
    with pytest.raises(TypeError):
        tg.optim.Muon([nn.Parameter(tg.ones(2, 3))], foreach=True)  # (as torch's: no foreach)
    w = nn.Parameter(tg.ones(2, 3))
    with pytest.raises(ValueError, match="less than 100"):
        tg.optim.Muon([w], ns_steps=100).step([tg.ones(2, 3)])
