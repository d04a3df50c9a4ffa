"""tg.optim.lr_scheduler.CyclicLR and MultiplicativeLR: sequences (lr and momentum / beta1)
against closed forms and torch's, state_dict layout and resumption, PyTorch's errors."""

from __future__ import annotations

import math

import pytest

import tapegrad as tg
from tapegrad import nn
from tapegrad.optim import lr_scheduler as S


def _groups(lib, lrs=(0.1, 0.02)):
    return [{"params": [lib.zeros(2, requires_grad=True)], "lr": lr} for lr in lrs]


def _run(lib, optimizer: str, opt_kwargs: dict, build, steps: int = 25) -> list:
    """Each step's lrs and momentum (or beta1) per group, the constructor's epoch first."""
    opt = getattr(lib.optim, optimizer)(_groups(lib), **opt_kwargs)
    sched = build(lib.optim.lr_scheduler, opt)
    key = "betas" if "betas" in opt.defaults else "momentum"

    def seen() -> list:
        values = [g[key][0] if key == "betas" else g[key] for g in opt.param_groups]
        return [*sched.get_last_lr(), *values]

    path = [seen()]
    for _ in range(steps):
        opt.step()
        sched.step()
        path.append(seen())
    return path


def _scale(x):
    return 1 / (1 + 0.1 * x)


CYCLIC = {
    "triangular": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    "asymmetric": lambda S, o: S.CyclicLR(o, [0.01, 0.002], 0.1, step_size_up=3, step_size_down=5),
    "triangular2": lambda S, o: S.CyclicLR(o, 0.01, [0.1, 0.05], 2, mode="triangular2"),
    "exp_range": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range", gamma=0.9),
    "scale_fn cycle": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, scale_fn=_scale),
    "scale_fn iterations": lambda S, o: S.CyclicLR(
        o, 0.01, 0.1, 3, scale_fn=_scale, scale_mode="iterations"
    ),
    "momentum": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, base_momentum=0.7, max_momentum=0.95),
    "no momentum": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 3, cycle_momentum=False),
}


@pytest.mark.parametrize("name", list(CYCLIC))
@pytest.mark.parametrize(
    ("optimizer", "opt_kwargs"), [("SGD", {"momentum": 0.5}), ("Adam", {"betas": (0.5, 0.9)})]
)
def test_cyclic_lr_matches_torch(name, optimizer, opt_kwargs):
    torch = pytest.importorskip("torch")
    theirs = _run(torch, optimizer, opt_kwargs, CYCLIC[name])
    ours = _run(tg, optimizer, opt_kwargs, CYCLIC[name])
    assert sum(ours, []) == pytest.approx(sum(theirs, []), rel=1e-15, abs=1e-15)


def test_cyclic_lr_triangle_by_hand():
    opt = tg.optim.SGD([nn.Parameter(tg.ones(1))], lr=1.0, momentum=0.9)
    sched = S.CyclicLR(opt, base_lr=0.0, max_lr=1.0, step_size_up=2, step_size_down=4)
    lrs, momentums = [], []
    for _ in range(12):
        lrs.append(sched.get_last_lr()[0])
        momentums.append(opt.param_groups[0]["momentum"])
        sched.step()
    assert lrs == pytest.approx([0, 0.5, 1, 0.75, 0.5, 0.25] * 2)
    assert momentums == pytest.approx([0.9 - 0.1 * v for v in lrs])
    assert opt.param_groups[0]["initial_lr"] == 0.0  # (base_lr replaced the optimizer's lr)


def test_cyclic_lr_state_dict_and_resume():
    class Scale:
        def __init__(self) -> None:
            self.k = 0.5

        def __call__(self, x: float) -> float:
            return self.k**x

    opt = tg.optim.SGD([nn.Parameter(tg.ones(1))], lr=1.0, momentum=0.9)
    sched = S.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=Scale())
    for _ in range(4):
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["_scale_fn_custom"] == {"k": 0.5}
    assert state["last_epoch"] == 4 and state["base_lrs"] == [0.01]
    lambda_state = S.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=lambda x: 1.0).state_dict()
    assert lambda_state["_scale_fn_custom"] is None  # (functions are not saved, as PyTorch's)

    twin_opt = tg.optim.SGD([nn.Parameter(tg.ones(1))], lr=1.0, momentum=0.9)
    scale = Scale()
    scale.k = 0.9
    twin = S.CyclicLR(twin_opt, 0.01, 0.1, 3, scale_fn=scale)
    twin.load_state_dict(state)
    assert scale.k == 0.5 and twin._scale_fn_custom is scale
    for _ in range(5):
        sched.step()
        twin.step()
        assert twin.get_last_lr() == sched.get_last_lr()


def test_cyclic_lr_errors_are_pytorchs():
    opt = tg.optim.SGD([nn.Parameter(tg.ones(1))], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        S.CyclicLR(opt, 0.01, 0.1, mode="sawtooth")
    with pytest.raises(ValueError, match="must support momentum or beta1"):
        S.CyclicLR(tg.optim.Adagrad([nn.Parameter(tg.ones(1))]), 0.01, 0.1)
    with pytest.raises(ValueError, match="max_lr"):
        S.CyclicLR(opt, 0.01, [0.1, 0.2])
    with pytest.raises(TypeError, match="not an Optimizer"):
        S.CyclicLR("sgd", 0.01, 0.1)
    S.CyclicLR(tg.optim.Adagrad([nn.Parameter(tg.ones(1))]), 0.01, 0.1, cycle_momentum=False)


MULTIPLICATIVE = {
    "one": lambda S, o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.9),
    "per group": lambda S, o: S.MultiplicativeLR(
        o, lr_lambda=[lambda e: 0.95, lambda e: 1 / (1 + 0.01 * e)]
    ),
}


@pytest.mark.parametrize("name", list(MULTIPLICATIVE))
def test_multiplicative_lr_matches_torch(name):
    torch = pytest.importorskip("torch")
    theirs = _run(torch, "SGD", {"momentum": 0.5}, MULTIPLICATIVE[name])
    ours = _run(tg, "SGD", {"momentum": 0.5}, MULTIPLICATIVE[name])
    assert sum(ours, []) == pytest.approx(sum(theirs, []), rel=1e-15)


def test_multiplicative_lr_by_hand_and_state():
    class Factor:
        def __init__(self) -> None:
            self.f = 0.5

        def __call__(self, epoch: int) -> float:
            return self.f

    opt = tg.optim.SGD([nn.Parameter(tg.ones(1))], lr=1.0)
    sched = S.MultiplicativeLR(opt, Factor())
    lrs = [sched.get_last_lr()[0]]
    for _ in range(3):
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == [1.0, 0.5, 0.25, 0.125]
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"f": 0.5}] and state["last_epoch"] == 3
    other = Factor()
    other.f = 0.1
    twin = S.MultiplicativeLR(tg.optim.SGD([nn.Parameter(tg.ones(1))], lr=1.0), other)
    twin.load_state_dict(state)
    assert other.f == 0.5 and twin.last_epoch == 3
    assert math.isclose(S.MultiplicativeLR(opt, lambda e: 2.0).get_last_lr()[0], 0.125)


def test_multiplicative_lr_errors_are_pytorchs():
    opt = tg.optim.SGD(_groups(tg), lr=0.1)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.MultiplicativeLR(opt, [lambda e: 0.9])
    with pytest.raises(TypeError, match="lr_lambda"):
        S.MultiplicativeLR(opt, 0.9)
