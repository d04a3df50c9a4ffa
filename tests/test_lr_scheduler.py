"""tg.optim.lr_scheduler: learning-rate sequences against closed forms and torch, state, errors."""

from __future__ import annotations

import bisect
import math

import pytest

import tapegrad as tg
from tapegrad import nn
from tapegrad.optim import lr_scheduler as S


def make_opt(lrs=(0.1, 0.02)):
    groups = [{"params": [nn.Parameter(tg.ones(2))], "lr": lr} for lr in lrs]
    return tg.optim.SGD(groups, lr=lrs[0], momentum=0.9)


def sequence(sched, epochs=12):
    """The lrs of every group at epochs 0..epochs-1 (the constructor set epoch 0)."""
    seen = [sched.get_last_lr()]
    for _ in range(epochs - 1):
        sched.optimizer.step()  # (no grads: nothing moves, as a real loop would call it)
        sched.step()
        seen.append(sched.get_last_lr())
    return seen


CLOSED_FORMS = {
    "step": (
        lambda o: S.StepLR(o, step_size=3, gamma=0.5),
        lambda base, e: base * 0.5 ** (e // 3),
    ),
    "multistep": (
        lambda o: S.MultiStepLR(o, milestones=[5, 2, 5], gamma=0.1),  # 5 twice: gamma**2 there
        lambda base, e: base * 0.1 ** bisect.bisect_right([2, 5, 5], e),
    ),
    "exponential": (
        lambda o: S.ExponentialLR(o, gamma=0.9),
        lambda base, e: base * 0.9**e,
    ),
    "cosine": (
        lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001),  # 12 epochs: down, up, down
        lambda base, e: 0.001 + (base - 0.001) * (1 + math.cos(math.pi * e / 4)) / 2,
    ),
    "lambda": (
        lambda o: S.LambdaLR(o, lr_lambda=lambda e: 1 / (1 + e)),
        lambda base, e: base / (1 + e),
    ),
}


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_learning_rates_follow_the_closed_form_in_every_group(name):
    build, closed = CLOSED_FORMS[name]
    opt = make_opt()
    sched = build(opt)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.02] == sched.base_lrs
    got = sequence(sched)
    for e, lrs in enumerate(got):
        assert lrs == pytest.approx([closed(0.1, e), closed(0.02, e)], rel=1e-12, abs=1e-15)
    assert sched.last_epoch == 11
    assert [g["lr"] for g in opt.param_groups] == got[-1]


def test_the_constructor_takes_the_initial_step():
    opt = make_opt((0.5,))
    sched = S.StepLR(opt, step_size=1, gamma=0.1)
    assert (
        sched.last_epoch == 0 and sched.get_last_lr() == [0.5] and opt.param_groups[0]["lr"] == 0.5
    )
    sched.step()
    assert sched.last_epoch == 1 and opt.param_groups[0]["lr"] == pytest.approx(0.05)


def test_lambda_lr_takes_one_function_per_group():
    opt = make_opt()
    sched = S.LambdaLR(opt, [lambda e: 0.5**e, lambda e: 1.0 + e])
    sched.step()
    sched.step()
    assert sched.get_last_lr() == pytest.approx([0.1 * 0.25, 0.02 * 3])
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(make_opt(), [lambda e: 1.0])
    with pytest.raises(TypeError, match="function of the epoch"):
        S.LambdaLR(make_opt(), 0.5)


def test_schedulers_chain_on_the_current_lr():
    opt = make_opt((1.0,))
    a = S.ExponentialLR(opt, gamma=0.5)
    b = S.StepLR(opt, step_size=2, gamma=0.1)
    for _ in range(2):
        a.step()
        b.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.5**2 * 0.1)


def test_state_dict_round_trip_resumes_the_schedule():
    opt = make_opt()
    sched = S.CosineAnnealingLR(opt, T_max=5)
    for _ in range(3):
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    assert saved["last_epoch"] == 3 and "optimizer" not in saved
    rest = [sched.step() or sched.get_last_lr() for _ in range(4)]

    twin_opt = make_opt((9.0, 9.0))
    twin = S.CosineAnnealingLR(twin_opt, T_max=5)
    twin_opt.load_state_dict(saved_opt)
    twin.load_state_dict(saved)
    assert twin.last_epoch == 3 and twin.base_lrs == [0.1, 0.02]
    assert [twin.step() or twin.get_last_lr() for _ in range(4)] == rest


def test_lambda_state_dict_keeps_callable_objects_not_functions():
    class Warmup:
        def __init__(self):
            self.factor = 2.0

        def __call__(self, epoch):
            return self.factor * epoch

    w = Warmup()
    sched = S.LambdaLR(make_opt(), [w, lambda e: 1.0])
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"factor": 2.0}, None]
    w.factor = 5.0
    sched.load_state_dict(state)
    assert w.factor == 2.0


def test_resuming_with_last_epoch_needs_initial_lr():
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(make_opt(), step_size=2, last_epoch=3)
    opt = make_opt((1.0,))
    S.StepLR(opt, step_size=2)
    resumed = S.StepLR(opt, step_size=2, gamma=0.5, last_epoch=3)  # initial_lr is there now
    assert resumed.last_epoch == 4 and resumed.get_last_lr() == [0.5]  # epoch 4: a multiple of 2


def test_step_with_an_epoch_warns_and_uses_the_closed_form():
    sched = S.ExponentialLR(make_opt((1.0,)), gamma=0.5)
    with pytest.warns(UserWarning, match="deprecated"):
        sched.step(3)
    assert sched.last_epoch == 3 and sched.get_last_lr() == [0.125]


def test_clear_errors():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR([nn.Parameter(tg.ones(1))], step_size=1)
    with pytest.raises(ValueError, match="step_size must be an int >= 1"):
        S.StepLR(make_opt(), step_size=0)
    with pytest.raises(TypeError, match="T_max must be an int"):
        S.CosineAnnealingLR(make_opt(), T_max=2.5)
    with pytest.raises(TypeError, match="milestones must be a list"):
        S.MultiStepLR(make_opt(), milestones=3)
    with pytest.raises(ValueError, match="invalid gamma"):
        S.ExponentialLR(make_opt(), gamma=-1)
    with pytest.raises(ValueError, match="last_epoch"):
        S.ExponentialLR(make_opt(), gamma=0.5, last_epoch=-2)


# ---- against torch.optim.lr_scheduler -----------------------------------------------------------
TORCH_CASES = {
    "StepLR": dict(step_size=3, gamma=0.5),
    "MultiStepLR": dict(milestones=[2, 5, 5, 9], gamma=0.3),
    "ExponentialLR": dict(gamma=0.8),
    "CosineAnnealingLR": dict(T_max=4, eta_min=0.001),
    "LambdaLR": dict(lr_lambda=lambda e: 0.7**e + 0.1 * e),
}


@pytest.mark.parametrize("name", list(TORCH_CASES))
def test_sequences_match_torch(name):
    torch = pytest.importorskip("torch", reason="the comparison with torch's schedulers needs it")
    kwargs = TORCH_CASES[name]
    ref_opt = torch.optim.SGD(
        [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in (0.1, 0.02)], lr=0.1
    )
    ref = getattr(torch.optim.lr_scheduler, name)(ref_opt, **kwargs)
    expected = [ref.get_last_lr()]
    for _ in range(15):
        ref_opt.step()
        ref.step()
        expected.append(ref.get_last_lr())
    ours = sequence(getattr(S, name)(make_opt(), **kwargs), epochs=16)
    assert len(ours) == len(expected)
    for got, want in zip(ours, expected):
        assert got == pytest.approx(want, rel=1e-13, abs=1e-16)
