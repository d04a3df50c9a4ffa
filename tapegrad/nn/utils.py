"""PyTorch-style gradient utilities on parameters' .grad: clip_grad_norm_ and clip_grad_value_.

Layer L5: imports tensor.py, the tape's grad mode and amp.global_norm (the one norm computation).
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from ..amp import global_norm
from .._state import no_grad
from ..tensor import Tensor


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale every .grad in place so their joint norm is at most max_norm; returns the norm before
    clipping, in the gradients' dtype (float32 when there are none), as PyTorch. `foreach`
    (PyTorch's multi-tensor kernels) is accepted and changes nothing here.

    >>> total = tg.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    """
    grads = _grads(parameters)
    order = float(norm_type)  # (PyTorch takes "inf" too)
    total = global_norm(grads, order)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {order} for gradients from `parameters` is non-finite, so "
            f"it cannot be clipped ({total}). To disable this error and scale the gradients by "
            f"the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coef = max_norm / (total + 1e-6)  # PyTorch's epsilon keeps a zero norm from dividing by zero
    if coef < 1:
        with no_grad():
            for g in grads:
                g.mul_(coef)
    dtype = np.result_type(*(g.dtype for g in grads)) if grads else np.dtype(np.float32)
    return Tensor(np.asarray(total, dtype=dtype))


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every .grad in place to [-clip_value, clip_value] (`foreach` accepted, no effect).

    >>> tg.nn.utils.clip_grad_value_(net.parameters(), clip_value=0.5)
    """
    value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-value, value)


__all__ = ["clip_grad_norm_", "clip_grad_value_"]
