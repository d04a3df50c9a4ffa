"""Warnings where PyTorch warns: reading .grad of a non-leaf (retain_grad says how), and losses
given shapes that broadcast. Each program runs on tapegrad against closed forms and on PyTorch when
it is installed (helpers.Programs)."""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from helpers import Programs


PROGRAMS = Programs()
program = PROGRAMS.program


def _record_warnings(fn: Callable) -> list:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in seen]


@program(expected={"non_leaf": True, "leaf": False, "retained": False, "retained_grad": [1.0, 1.0]})
def grad_of_a_non_leaf_warns(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y, z = x * 2, x * 3
    z.retain_grad()
    (y.sum() + z.sum()).backward()

    def says_retain_grad(read):
        return any(c == "UserWarning" and "retain_grad" in m for c, m in _record_warnings(read))

    return {
        "non_leaf": says_retain_grad(lambda: y.grad),
        "leaf": says_retain_grad(lambda: x.grad),
        "retained": says_retain_grad(lambda: z.grad),
        "retained_grad": z.grad,
    }


@program(
    expected={
        "mse": float(np.mean((np.arange(4.0)[:, None] - np.arange(4.0)[None, :]) ** 2)),
        "l1": float(np.mean(np.abs(np.arange(4.0)[:, None] - np.arange(4.0)[None, :]))),
        "mse_warns": True,
        "l1_warns": True,
        "same_shape_warns": False,
    }
)
def losses_with_broadcasting_shapes_warn(torch):
    inp, target = torch.arange(4.0).reshape(4, 1), torch.arange(4.0)
    out = {}

    def warns(fn):
        seen = _record_warnings(fn)
        return any(c == "UserWarning" and "target size" in m for c, m in seen)

    out["mse_warns"] = warns(lambda: out.setdefault("mse", torch.nn.MSELoss()(inp, target)))
    out["l1_warns"] = warns(lambda: out.setdefault("l1", torch.nn.L1Loss()(inp, target)))
    out["same_shape_warns"] = warns(lambda: torch.nn.MSELoss()(inp, target.reshape(4, 1)))
    return out


# ---- programs: closed forms on tapegrad, their errors, PyTorch's results when installed ----------
# (no program here raises: a test of the errors would have no case)
test_program_gives_closed_form, _, test_program_matches_pytorch = PROGRAMS.tests()
