"""PyTorch-style gradient utilities on parameters' .grad: clip_grad_norm_.

Layer L5: imports tensor.py, the tape's grad mode and amp.global_norm (the one norm computation).
"""

from __future__ import annotations

import math
from typing import Iterable

from ..amp import global_norm
from .._state import no_grad
from ..tensor import Tensor


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
) -> Tensor:
    """Scale every .grad in place so their joint norm is at most max_norm; returns the norm before.

    >>> total = tg.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    """
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = global_norm(grads, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"the total norm of the gradients is {total}; clipping cannot fix inf/NaN "
            f"gradients (pass error_if_nonfinite=False to clip anyway)"
        )
    coef = max_norm / (total + 1e-6)  # PyTorch's epsilon keeps a zero norm from dividing by zero
    if coef < 1:
        with no_grad():
            for g in grads:
                g.mul_(coef)
    return Tensor(total)
