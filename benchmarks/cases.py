"""What every workload builder returns (`Case`), the arms' names and labels, and the one-thread
PyTorch import. Imports NumPy only (torch and HIPS autograd lazily, when an arm asks for them).

A builder takes the workload's data (NumPy float32 arrays, shared by every arm: never modify them)
and returns a Case; nothing here times anything.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

F32 = np.float32

# Every arm, in the order tables list them. "numpy" is the hand-written reference; the tapegrad
# arms differ only in how the same computation is written.
ARMS = ("numpy", "tapegrad", "tapegrad_fn", "tapegrad_ms", "tapegrad_raw", "torch", "autograd")
LABELS = {
    "numpy": "NumPy, hand-written",
    "tapegrad": "tapegrad",
    "tapegrad_fn": "tapegrad functional",
    "tapegrad_ms": "tapegrad MindSpore style",
    "tapegrad_raw": "tapegrad raw tensors",
    "torch": "PyTorch",
    "autograd": "HIPS autograd",
}
# only run when importable: never a dependency
OPTIONAL = {"torch": "torch", "autograd": "autograd.numpy"}


@dataclass
class Case:
    """`step()` runs one timed unit of work; `grads()` returns, as NumPy arrays, the gradients the
    most recent step computed (for a training step: those its update used); `params()`, for a
    training step, the live parameter arrays (the harness compares one step's update across arms).
    """

    step: Callable[[], object]
    grads: Callable[[], list]
    params: Optional[Callable[[], list]] = None


ArmTable = dict[str, Callable[[dict], Case]]  # arm name -> builder


def arm_available(arm: str) -> bool:
    """numpy and the tapegrad arms always; torch / HIPS autograd only when importable."""
    if arm not in OPTIONAL:
        return arm in ARMS
    try:
        importlib.import_module(OPTIONAL[arm])
    except Exception:
        return False
    return True


def torch_one_thread():
    """PyTorch, pinned to one intra-op thread like every other arm."""
    import torch

    torch.set_num_threads(1)
    return torch
