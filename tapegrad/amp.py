"""Mixed-precision helpers (MindSpore's mindspore.amp): loss scalers, all_finite, clipping by the
global norm.

Layer L5: imports tensor.py and _utils (tree_map for nested tuples/lists). Scaling is tape ops, so
`scale(loss)` inside a differentiated function scales every gradient; checks and norms use NumPy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._utils import tree_leaves, tree_map
from .tensor import Tensor

_FLOAT32_MAX = float(np.finfo(np.float32).max)  # a Python float: comparing never casts to float32


def _map_tensors(fn: Any, tree: Any, what: str) -> Any:
    """fn applied to each Tensor of a nested tuple/list/dict (None stays None), structure kept."""

    def visit(x: Any) -> Any:
        if x is None:
            return None
        if not isinstance(x, Tensor):
            raise TypeError(
                f"{what} expects Tensors (or nested tuples/lists of them), got {type(x).__name__}"
            )
        return fn(x)

    return tree_map(visit, tree)


def _arrays(tree: Any) -> list:
    """The arrays of the non-None leaves (Tensors, NumPy arrays or numbers)."""
    arrays = [
        np.asarray(x.numpy() if isinstance(x, Tensor) else x)
        for x in tree_leaves(tree)
        if x is not None
    ]
    for a in arrays:
        if a.dtype.kind not in "biuf":
            raise TypeError(
                f"expected gradients (Tensors, NumPy arrays or numbers), got data of dtype "
                f"{a.dtype}; pass the tuple of gradients (e.g. from tg.grad)"
            )
    return arrays


def all_finite(grads: Any) -> bool:
    """True when no element of the (nested) gradients is inf or NaN; a Python bool.

    >>> tg.amp.all_finite((tg.tensor([1.0, 2.0]),))
    True
    """
    return all(bool(np.isfinite(a).all()) for a in _arrays(grads))


def global_norm(grads: Any, norm_type: float = 2.0) -> float:
    """The norm of all gradients taken together (as one long vector), computed in float64."""
    arrays = [a.astype(np.float64) for a in _arrays(grads)]
    if not arrays:
        return 0.0
    if norm_type == math.inf:
        return max(float(np.abs(a).max(initial=0.0)) for a in arrays)
    if norm_type <= 0:
        raise ValueError(f"norm_type must be positive (or math.inf), got {norm_type}")
    return float(sum(float((np.abs(a) ** norm_type).sum()) for a in arrays) ** (1.0 / norm_type))


def clip_by_global_norm(x: Any, clip_norm: float = 1.0, use_norm: float | None = None) -> Any:
    """New gradients g * clip_norm / max(global_norm, clip_norm), same structure; x is not modified.

    >>> tg.amp.clip_by_global_norm((tg.tensor([3.0, 4.0]),), 1.0)
    (tensor([0.6000, 0.8000]),)
    """
    if not clip_norm > 0:
        raise ValueError(f"clip_norm must be positive, got {clip_norm}")
    norm = global_norm(x) if use_norm is None else float(use_norm)
    factor = clip_norm / max(norm, clip_norm)  # <= 1: gradients are only ever shrunk
    return _map_tensors(lambda g: g * factor, x, "clip_by_global_norm")


class LossScaler:
    """Base of the loss scalers: multiply the loss by scale_value, divide the gradients by it."""

    def __init__(self, scale_value: float) -> None:
        if not (isinstance(scale_value, (int, float, np.number)) and scale_value > 0):
            raise ValueError(f"scale_value must be a positive number, got {scale_value!r}")
        self._value = float(scale_value)

    @property
    def scale_value(self) -> Tensor:
        """The current scale, a float32 scalar (MindSpore: `scaler.scale_value.asnumpy()`)"""
        return Tensor(np.float32(self._value))

    def scale(self, inputs: Any) -> Any:
        """inputs * scale_value (a loss or nested gradients); recorded on the tape, dtype kept."""
        return _map_tensors(lambda t: t * self._value, inputs, "scale")

    def unscale(self, inputs: Any) -> Any:
        """inputs / scale_value, structure kept (float16 grads: cast to float32 first)."""
        return _map_tensors(lambda t: t / self._value, inputs, "unscale")

    def adjust(self, grads_finite: Any) -> bool:
        """Update the scale after a step; a static scaler never changes."""
        return True

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scale_value={self._value:g})"


class StaticLossScaler(LossScaler):
    """A fixed loss scale.

    >>> s = tg.amp.StaticLossScaler(1024.0); s.scale(tg.tensor(1.0))
    tensor(1024.)
    """


class DynamicLossScaler(LossScaler):
    """A scale that halves (divides by scale_factor, not below 1) when gradients overflow and grows
    by scale_factor after scale_window consecutive finite steps (MindSpore's semantics).

    >>> s = tg.amp.DynamicLossScaler(1024, 2, 1000); s.adjust(False); float(s.scale_value)
    512.0
    """

    def __init__(
        self, scale_value: float, scale_factor: float = 2, scale_window: int = 1000
    ) -> None:
        super().__init__(scale_value)
        if not scale_factor > 1:
            raise ValueError(f"scale_factor must be greater than 1, got {scale_factor}")
        if not (isinstance(scale_window, (int, np.integer)) and scale_window >= 1):
            raise ValueError(f"scale_window must be a positive int, got {scale_window!r}")
        self.scale_factor, self.scale_window = float(scale_factor), int(scale_window)
        self.counter = 0  # consecutive finite steps since the last change

    def adjust(self, grads_finite: Any) -> bool:
        """Shrink on overflow (grads_finite False), grow after scale_window finite steps; True."""
        if not bool(grads_finite):
            self._value = max(self._value / self.scale_factor, 1.0)
            self.counter = 0
            return True
        self.counter += 1
        if self.counter == self.scale_window:
            grown = self._value * self.scale_factor
            if grown <= _FLOAT32_MAX:  # never grow into float32 overflow
                self._value = grown
            self.counter = 0
        return True

    def __repr__(self) -> str:
        return (
            f"DynamicLossScaler(scale_value={self._value:g}, scale_factor={self.scale_factor:g}, "
            f"scale_window={self.scale_window})"
        )
