"""Shared by the optimizer test files: the same float64 problem stepped by torch.optim.X and
tg.optim.X side by side, and a state_dict save/load/continue check.

The problem is sum(tanh(W x + b)^2) + 0.1 sum(W^2) over a 4x3 W and a 4-vector b; param groups
are given as a list of per-group keyword dicts (group 0 holds W, group 1 holds b).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tapegrad as tg


def _start(seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((4, 3)), rng.standard_normal(4)], rng.standard_normal(3)


def _loss(w: Any, b: Any, x: Any) -> Any:
    y = (w @ x + b).tanh()
    return (y * y).sum() + 0.1 * (w * w).sum()


def _make(lib: Any, name: str, params: list, kwargs: dict, groups: list[dict] | None) -> Any:
    if groups is None:
        return getattr(lib.optim, name)(params, **kwargs)
    split = [{"params": [p], **g} for p, g in zip(params, groups)]
    return getattr(lib.optim, name)(split, **kwargs)


def _step(opt: Any, params: list, x: Any) -> Any:
    def closure() -> Any:
        opt.zero_grad()
        loss = _loss(params[0], params[1], x)
        loss.backward()
        return loss

    return opt.step(closure)


def trajectories(
    name: str, kwargs: dict, groups: list[dict] | None = None, steps: int = 20, seed: int = 0
) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]]]:
    """Both libraries' parameters after each of `steps` steps (torch's first), from one start."""
    import torch

    start, x = _start(seed)
    t_params = [torch.tensor(a, requires_grad=True) for a in start]
    g_params = [tg.tensor(a, requires_grad=True) for a in start]
    t_opt = _make(torch, name, t_params, kwargs, groups)
    g_opt = _make(tg, name, g_params, kwargs, groups)
    t_path, g_path = [], []
    for _ in range(steps):
        _step(t_opt, t_params, torch.from_numpy(x))
        _step(g_opt, g_params, tg.tensor(x))
        t_path.append([p.detach().numpy().copy() for p in t_params])
        g_path.append([p.numpy().copy() for p in g_params])
    return t_path, g_path


def assert_same_trajectory(
    name: str, kwargs: dict, groups: list[dict] | None = None, steps: int = 20
) -> None:
    """tg.optim.<name> follows torch.optim.<name> step by step (float64, rtol 1e-10)."""
    t_path, g_path = trajectories(name, kwargs, groups, steps)
    for step, (t_params, g_params) in enumerate(zip(t_path, g_path)):
        for t, g in zip(t_params, g_params):
            np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12, err_msg=f"step {step + 1}")
    moved = np.abs(t_path[-1][0] - _start(0)[0][0]).max()
    assert moved > 1e-6, "the trajectory did not move: the comparison would prove nothing"


def assert_resumes_exactly(cls: Any, kwargs: dict, steps: int = 6) -> None:
    """Save after two steps, load into a fresh optimizer over a copy, continue: equal to the
    uninterrupted run, bit for bit."""
    start, x = _start(1)
    a = [tg.tensor(v, requires_grad=True) for v in start]
    opt = cls(a, **kwargs)
    for _ in range(2):
        _step(opt, a, tg.tensor(x))
    saved = opt.state_dict()
    b = [p.detach().clone().requires_grad_() for p in a]
    twin = cls(b, **kwargs)
    twin.load_state_dict(saved)
    for _ in range(steps):
        _step(opt, a, tg.tensor(x))
        _step(twin, b, tg.tensor(x))
    for p, q in zip(a, b):
        assert np.array_equal(p.numpy(), q.numpy())
