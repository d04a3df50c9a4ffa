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


# ---- the second round: warm-up ramps, restarts, one cycle, sequences, chains, plateaus ---------
def closed_cycle(base, e, T_0, T_mult, low=0.0):
    """CosineAnnealingWarmRestarts at epoch e: find the period e falls in."""
    period, start = T_0, 0
    while e >= start + period:
        start, period = start + period, period * T_mult
    return low + (base - low) * (1 + math.cos(math.pi * (e - start) / period)) / 2


def closed_one_cycle(top, step, total, pct=0.3, div=25.0, final=1e4, cos=True):
    """OneCycleLR's two phases: initial -> max over pct*total - 1 steps, then max -> min."""
    initial, end_up = top / div, pct * total - 1
    low = initial / final

    def anneal(a, b, f):
        return b + (a - b) / 2 * (1 + math.cos(math.pi * f)) if cos else a + (b - a) * f

    if step <= end_up:
        return anneal(initial, top, step / end_up)
    return anneal(top, low, (step - end_up) / (total - 1 - end_up))


MORE_CLOSED_FORMS = {
    "constant": (
        lambda o: S.ConstantLR(o, factor=0.25, total_iters=6),
        lambda base, e: base * (0.25 if e < 6 else 1.0),
    ),
    "linear": (
        lambda o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=8),
        lambda base, e: base * (0.1 + 0.8 * min(e, 8) / 8),
    ),
    "polynomial": (
        lambda o: S.PolynomialLR(o, total_iters=9, power=2.0),
        lambda base, e: base * (1 - min(e, 9) / 9) ** 2,
    ),
    "warm-restarts": (
        lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001),
        lambda base, e: closed_cycle(base, e, 3, 2, 0.001),
    ),
    "warm-restarts-even": (
        lambda o: S.CosineAnnealingWarmRestarts(o, T_0=4),
        lambda base, e: closed_cycle(base, e, 4, 1),
    ),
    "one-cycle": (  # (the base lrs are max_lr / 25: 0.1 and 0.02 as max_lr)
        lambda o: S.OneCycleLR(o, max_lr=[2.5, 0.5], total_steps=25),
        lambda base, e: closed_one_cycle(base * 25, e, 25),
    ),
    "one-cycle-linear": (
        lambda o: S.OneCycleLR(
            o,
            max_lr=[2.5, 0.5],
            epochs=5,
            steps_per_epoch=5,
            pct_start=0.4,
            anneal_strategy="linear",
            cycle_momentum=False,
        ),
        lambda base, e: closed_one_cycle(base * 25, e, 25, pct=0.4, cos=False),
    ),
    "sequential": (  # warm up linearly for 5 epochs, then decay exponentially from the base
        lambda o: S.SequentialLR(
            o,
            [S.LinearLR(o, start_factor=0.2, total_iters=5), S.ExponentialLR(o, gamma=0.8)],
            milestones=[5],
        ),
        lambda base, e: base * (0.2 + 0.8 * e / 5) if e < 5 else base * 0.8 ** (e - 5),
    ),
    "chained": (
        lambda o: S.ChainedScheduler(
            [S.ConstantLR(o, factor=0.5, total_iters=4), S.ExponentialLR(o, gamma=0.9)]
        ),
        lambda base, e: base * (0.5 if e < 4 else 1.0) * 0.9**e,
    ),
}


@pytest.mark.parametrize("name", list(MORE_CLOSED_FORMS))
def test_second_round_schedules_follow_their_closed_forms(name):
    build, closed = MORE_CLOSED_FORMS[name]
    if name.startswith("one-cycle"):  # (its base lrs come from max_lr)
        opt = make_opt((1.0, 1.0))
        sched = build(opt)
        bases = [0.1, 0.02]
    else:
        opt = make_opt()
        sched = build(opt)
        bases = [0.1, 0.02]
    got = sequence(sched, epochs=25)
    for e, lrs in enumerate(got):
        want = [closed(b, e) for b in bases]
        assert lrs == pytest.approx(want, rel=1e-12, abs=1e-15), (name, e)
    assert [g["lr"] for g in opt.param_groups] == got[-1]


def test_one_cycle_momentum_cycles_the_other_way_and_stops_at_the_end():
    opt = tg.optim.Adam([nn.Parameter(tg.ones(2))], lr=1.0)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=10, three_phase=True)
    betas = [opt.param_groups[0]["betas"][0]]
    for _ in range(9):
        opt.step()
        sched.step()
        betas.append(opt.param_groups[0]["betas"][0])
    assert betas[0] == pytest.approx(0.95) and min(betas) == pytest.approx(0.85)
    assert opt.param_groups[0]["betas"][1] == 0.999  # (only beta1 cycles)
    sched.step()  # step 10 of 10 is allowed, 11 is not
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        sched.step()
    with pytest.raises(ValueError, match="must support momentum or beta1"):
        S.OneCycleLR(tg.optim.Adagrad([nn.Parameter(tg.ones(1))]), max_lr=1.0, total_steps=5)
    with pytest.raises(ValueError, match="total_steps OR"):
        S.OneCycleLR(make_opt(), max_lr=1.0)
    with pytest.raises(ValueError, match="pct_start"):
        S.OneCycleLR(make_opt(), max_lr=1.0, total_steps=5, pct_start=1)


def test_reduce_lr_on_plateau_by_hand():
    opt = make_opt((1.0,))
    sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    losses = [5, 4, 4, 4, 4, 4, 4, 3.9999, 1, 1, 1, 1, 1, 1]
    seen = []
    for loss in losses:
        sched.step(tg.tensor(float(loss)))  # (a one-element tensor is a metric too)
        seen.append(sched.get_last_lr()[0])
    # bad epochs counted from the best (4); more than 1 halves the lr, then one epoch of rest;
    # 3.9999 is no improvement under threshold 1e-4 (relative); the lr stops at min_lr
    assert seen == [1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]
    maximize = S.ReduceLROnPlateau(
        make_opt((1.0,)), mode="max", threshold_mode="abs", threshold=0.1, patience=0
    )
    for accuracy in (0.5, 0.55, 0.7):
        maximize.step(accuracy)
    assert maximize.get_last_lr() == [0.1] and maximize.best == 0.7
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        S.ReduceLROnPlateau(make_opt(), factor=1.0)
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 1"):
        S.ReduceLROnPlateau(make_opt(), min_lr=[0.1])
    with pytest.raises(ValueError, match="mode avg is unknown"):
        S.ReduceLROnPlateau(make_opt(), mode="avg")


def test_combined_schedulers_refuse_what_pytorch_refuses():
    opt, other = make_opt(), make_opt()
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        S.SequentialLR(opt, [S.ExponentialLR(opt, 0.9)], milestones=[3])
    with pytest.raises(ValueError, match="same optimizer"):
        S.ChainedScheduler([S.ExponentialLR(opt, 0.9), S.ExponentialLR(other, 0.9)])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="at least one scheduler"):
        S.SequentialLR(opt, [], milestones=[])
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        S.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="Expected positive integer T_0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)


def test_second_round_state_dicts_resume_the_schedule():
    def build(o):
        warm = S.LinearLR(o, start_factor=0.1, total_iters=3)
        return S.SequentialLR(o, [warm, S.CosineAnnealingWarmRestarts(o, T_0=4)], milestones=[3])

    opt = make_opt()
    sched = build(opt)
    for _ in range(5):
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    assert len(saved["_schedulers"]) == 2 and "optimizer" not in saved
    rest = [sched.step() or sched.get_last_lr() for _ in range(8)]
    twin_opt = make_opt((9.0, 9.0))
    twin = build(twin_opt)
    twin_opt.load_state_dict(saved_opt)
    twin.load_state_dict(saved)
    resumed = [twin.step() or twin.get_last_lr() for _ in range(8)]
    assert sum(resumed, []) == pytest.approx(sum(rest, []), rel=1e-14)
    plateau = S.ReduceLROnPlateau(make_opt(), patience=0)
    plateau.step(1.0)
    again = S.ReduceLROnPlateau(make_opt(), patience=0)
    again.load_state_dict(plateau.state_dict())
    assert again.best == 1.0 and again.last_epoch == 1


def test_warm_restarts_take_fractional_epochs():
    opt = make_opt((1.0,))
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    for epoch in (0.5, 1.5, 2.5, 5.75, 6.5):
        sched.step(epoch)
        assert sched.get_last_lr()[0] == pytest.approx(closed_cycle(1.0, epoch, 2, 2))


def test_sgd_has_pytorch_default_lr():
    opt = tg.optim.SGD([nn.Parameter(tg.ones(2))])
    assert opt.param_groups[0]["lr"] == 1e-3 == opt.defaults["lr"]


SECOND_ROUND_TORCH = {
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.4, total_iters=7),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.05, end_factor=0.7, total_iters=11),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=13, power=1.5),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, 3, 2, 0.001),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 0.3], total_steps=24),
    "OneCycleLR-3": lambda S, o: S.OneCycleLR(
        o, max_lr=0.4, epochs=4, steps_per_epoch=6, three_phase=True, anneal_strategy="linear"
    ),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o,
        [
            S.ConstantLR(o, factor=0.1, total_iters=2),
            S.LinearLR(o, 0.5, total_iters=4),
            S.CosineAnnealingLR(o, T_max=6),
        ],
        milestones=[3, 9],
    ),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.LinearLR(o, 0.3, total_iters=5), S.ExponentialLR(o, 0.95), S.StepLR(o, 4, 0.5)]
    ),
}


@pytest.mark.parametrize("name", list(SECOND_ROUND_TORCH))
def test_second_round_trajectories_match_torch(name):
    torch = pytest.importorskip("torch", reason="the comparison with torch's schedulers needs it")
    build = SECOND_ROUND_TORCH[name]
    ref_opt = torch.optim.SGD(
        [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in (0.1, 0.02)],
        lr=0.1,
        momentum=0.9,
    )
    ref = build(torch.optim.lr_scheduler, ref_opt)
    expected, momenta = [ref.get_last_lr()], [ref_opt.param_groups[0]["momentum"]]
    for _ in range(23):
        ref_opt.step()
        ref.step()
        expected.append(ref.get_last_lr())
        momenta.append(ref_opt.param_groups[0]["momentum"])
    opt = make_opt()
    sched = build(S, opt)
    ours, our_momenta = [sched.get_last_lr()], [opt.param_groups[0]["momentum"]]
    for _ in range(23):
        opt.step()
        sched.step()
        ours.append(sched.get_last_lr())
        our_momenta.append(opt.param_groups[0]["momentum"])
    for got, want in zip(ours, expected):
        assert got == pytest.approx(want, rel=1e-13, abs=1e-16)
    assert our_momenta == pytest.approx(momenta, rel=1e-13)


def test_reduce_lr_on_plateau_matches_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch's schedulers needs it")
    metrics = [3, 2.5, 2.6, 2.6, 2.4, 2.4, 2.4, 2.4, 1.0, 1.1, 1.2, 1.3, 1.1, 1.0, 0.99999, 0.9]
    metrics += [0.9] * 8
    for keywords in (
        dict(factor=0.5, patience=1, cooldown=2, min_lr=[0.01, 0.015]),
        dict(mode="max", threshold_mode="abs", threshold=0.05, patience=0),
        dict(patience=2, eps=0.05),
    ):
        ref_opt = torch.optim.SGD(
            [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in (0.1, 0.02)]
        )
        ref = torch.optim.lr_scheduler.ReduceLROnPlateau(ref_opt, **keywords)
        sched = S.ReduceLROnPlateau(make_opt(), **keywords)
        for m in metrics:
            ref.step(m)
            sched.step(m)
            assert sched.get_last_lr() == pytest.approx(ref.get_last_lr(), rel=1e-14)
            assert sched.num_bad_epochs == ref.num_bad_epochs
