"""Anomaly mode: remember where each node was created and complain about NaN/Inf in backward.

Layer L1: numpy and the standard library. The engine calls `check`; Tensor recording calls
`capture_stack` (only while anomaly mode is on, so normal runs pay nothing).
"""

from __future__ import annotations

import os
import traceback
import weakref
from typing import Any

import numpy as np

from .._state import state

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class detect_anomaly:
    """Context manager: a NaN/Inf made in backward raises an error naming the forward op, line."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._prev: list[bool] = []

    def __enter__(self) -> "detect_anomaly":
        self._prev.append(state.anomaly)
        state.anomaly = self.check_nan
        return self

    def __exit__(self, *exc: Any) -> None:
        state.anomaly = self._prev.pop()


def is_anomaly_enabled() -> bool:
    return state.anomaly


# Where each node was created, kept only in anomaly mode (weakly: it goes with its node).
_stacks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def capture_stack(node: Any) -> None:
    """Remember the call stack creating `node`, without tapegrad's own frames (the user's line
    comes last)."""
    frames = traceback.extract_stack()[:-1]
    _stacks[node] = [
        f for f in frames if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR + os.sep)
    ]


def creation_stack(node: Any) -> list | None:
    """The stack capture_stack remembered for `node` (None: recorded outside anomaly mode)."""
    return _stacks.get(node)


def check(node: Any, index: int, grad: Any) -> None:
    """Raise if `grad` (the gradient node sends to its input `index`) holds NaN or Inf."""
    data = getattr(grad, "_data", grad)
    if np.issubdtype(np.asarray(data).dtype, np.inexact) and not np.all(np.isfinite(data)):
        kind = "nan" if np.any(np.isnan(data)) else "inf"
        stack = creation_stack(node)
        where = (
            "".join(traceback.format_list(stack[-3:]))
            if stack
            else ("  (unknown: the op was recorded outside detect_anomaly())\n")
        )
        raise RuntimeError(
            f"Function '{node.name}' returned {kind} values in its {index}th output (the gradient "
            f"for input {index} of the forward op '{node.prim.name}').\n"
            f"The forward op was created at:\n{where}"
            "Check that op's inputs (log/sqrt/div of zero or negative values are the usual "
            "causes)."
        )
