"""tg.optim.LBFGS: trajectories and evaluation counts equal to torch.optim.LBFGS on a Rosenbrock
function and a small least-squares model (fixed step and strong-Wolfe line search), the state
layout, state_dict resumption, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn

START = (-1.5, 2.0, 0.5, -0.3)


def rosenbrock(x):
    return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()


def least_squares(params, a, y):
    w, b = params
    r = a @ w + b - y
    return (r * r).mean()


def run(lib, loss_of, starts, kwargs, steps, data=()):
    """Parameters after each step(closure), and the state's counters, for torch or tapegrad."""
    params = [lib.tensor(np.array(s), requires_grad=True) for s in starts]
    opt = lib.optim.LBFGS(params, **kwargs)
    values = [lib.tensor(d) for d in data]

    def closure():
        opt.zero_grad()
        loss = loss_of(params, *values)
        loss.backward()
        return loss

    path = []
    for _ in range(steps):
        opt.step(closure)
        path.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    state = opt.state[params[0]]
    counts = (state["func_evals"], state["n_iter"], len(state["old_dirs"]))
    return np.array(path), counts


SETTINGS = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"lr": 0.5, "max_iter": 7, "history_size": 3},
    {"line_search_fn": "strong_wolfe", "max_iter": 30, "history_size": 2},
    {"max_iter": 4, "max_eval": 3, "tolerance_change": 1e-5},
]


@pytest.mark.parametrize("kwargs", SETTINGS, ids=[str(s) for s in SETTINGS])
def test_rosenbrock_trajectory_equals_torch(kwargs):
    torch = pytest.importorskip("torch")
    loss = lambda params: rosenbrock(params[0])  # noqa: E731
    expected, t_counts = run(torch, loss, [START], kwargs, steps=4)
    got, counts = run(tg, loss, [START], kwargs, steps=4)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert counts == t_counts
    assert np.abs(got[-1] - START).max() > 0.1  # (it moved: the comparison means something)


@pytest.mark.parametrize("kwargs", SETTINGS[:4], ids=[str(s) for s in SETTINGS[:4]])
def test_least_squares_trajectory_equals_torch_and_solves_it(kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, w_true = rng.standard_normal((20, 3)), np.array([1.0, -2.0, 0.5])
    y = a @ w_true + 0.7
    starts = [np.zeros(3), np.zeros(1)]
    expected, t_counts = run(torch, least_squares, starts, kwargs, steps=3, data=(a, y))
    got, counts = run(tg, least_squares, starts, kwargs, steps=3, data=(a, y))
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert counts == t_counts
    if kwargs.get("lr", 1) == 1:
        np.testing.assert_allclose(got[-1], [*w_true, 0.7], atol=1e-4)  # (stopped by tolerances)


def test_state_layout_follows_pytorch():
    torch = pytest.importorskip("torch")
    keys = []
    for lib in (torch, tg):
        x = lib.tensor(np.array(START), requires_grad=True)
        opt = lib.optim.LBFGS([x], max_iter=3)

        def closure(opt=opt, x=x):
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss

        first = opt.step(closure)
        assert float(first.detach()) == pytest.approx(
            float(rosenbrock(lib.tensor(np.array(START))))
        )
        saved = opt.state_dict()
        keys.append((set(saved["state"][0]), saved["param_groups"][0]))
    assert keys[0][0] == keys[1][0]
    assert keys[1][1] == {**keys[0][1], "lr": 1.0}
    assert keys[1][1]["max_eval"] == 3 * 5 // 4


def test_state_dict_round_trip_resumes_exactly():
    def make(start):
        x = tg.tensor(np.array(start), requires_grad=True)
        opt = tg.optim.LBFGS([x], max_iter=3, history_size=4, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss

        return x, opt, closure

    x, opt, closure = make(START)
    opt.step(closure)
    opt.step(closure)
    twin_x, twin, twin_closure = make(x.numpy().copy())
    twin.load_state_dict(opt.state_dict())
    for _ in range(3):
        opt.step(closure)
        twin.step(twin_closure)
    assert np.array_equal(x.numpy(), twin_x.numpy())


def test_already_optimal_returns_without_moving():
    x = nn.Parameter(tg.tensor([1.0, 1.0, 1.0], dtype=tg.float64))
    opt = tg.optim.LBFGS([x])

    def closure():
        opt.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0
    assert np.array_equal(x.numpy(), [1.0, 1.0, 1.0])
    assert opt.state[x] == {"func_evals": 1, "n_iter": 0}


def test_errors_say_what_is_wrong():
    p, q = nn.Parameter(tg.ones(2)), nn.Parameter(tg.ones(2))
    opt = tg.optim.LBFGS([p])
    with pytest.raises(TypeError, match="closure"):  # (Python's own message, as PyTorch)
        opt.step()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="needs a closure"):
        opt.step([tg.ones(2)])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="parameter groups"):
        tg.optim.LBFGS([{"params": [p]}, {"params": [q]}])
    with pytest.raises(ValueError, match="parameter groups"):
        opt.add_param_group({"params": [q]})
    with pytest.raises(RuntimeError, match="only 'strong_wolfe'"):
        tg.optim.LBFGS([p], line_search_fn="backtracking")
    with pytest.raises(ValueError, match="invalid lr"):
        tg.optim.LBFGS([p], lr=-1)
    with pytest.raises(TypeError, match="max_iter must be an int"):
        tg.optim.LBFGS([p], max_iter=2.5)
