"""torch.nn.utils.clip_grad: get_total_norm, clip_grads_with_norm_, clip_grad_norm_ (the two
composed), clip_grad_value_, and the deprecated clip_grad_norm.

Off the tape, as PyTorch's (its functions run under no_grad): each tensor's norm is taken in
float64 with NumPy and rounded to the tensor's dtype, then the norm of those norms (PyTorch's
order: norm_type 0 counts the tensors with a nonzero entry, as its stacked norms do).

Layer L5: imports tensor.py and the tape's grad mode.
"""

from __future__ import annotations

import math
import types
import warnings
from typing import Iterable

import numpy as np

from ..._state import no_grad
from ...tensor import Tensor

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _norm(a: np.ndarray, p: float) -> float:
    """torch.linalg.vector_norm(a, p) of one array, in float64."""
    x = np.asarray(a, dtype=np.float64).ravel()
    if x.size == 0:
        return 0.0 if p != -math.inf else math.inf
    if p == 2:  # (the common case: no |x| copy)
        return float(math.sqrt(float(np.dot(x, x))))
    x = np.abs(x)
    if p == math.inf:
        return float(x.max())
    if p == -math.inf:
        return float(x.min())
    if p == 0:
        return float(np.count_nonzero(x))
    if p == 1:
        return float(x.sum())
    with np.errstate(divide="ignore"):
        return float((x**p).sum() ** (1.0 / p))


def _order(norm_type: float | str) -> float:
    try:
        return float(norm_type)
    except (TypeError, ValueError):
        raise ValueError(
            f"norm_type must be a number or 'inf' / '-inf', got {norm_type!r}"
        ) from None


def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The norm of the tensors taken together, as if laid end to end in one vector (a 0-d Tensor
    in their promoted dtype; float32 zero when there are none). `foreach` changes nothing here.

    >>> tg.nn.utils.get_total_norm([tg.tensor([3.0]), tg.tensor([4.0])])
    tensor(5.)
    """
    arrays = [t.numpy() if isinstance(t, Tensor) else np.asarray(t) for t in _as_list(tensors)]
    order = _order(norm_type)
    if not arrays:
        return Tensor(np.asarray(0.0, dtype=np.float32))
    dtype = np.result_type(*(a.dtype for a in arrays))
    if not np.issubdtype(dtype, np.floating):
        raise RuntimeError(
            f"get_total_norm: the norm of {dtype} tensors is not defined (PyTorch's "
            f"linalg.vector_norm expects a floating point input); convert them with .float()"
        )
    norms = np.array([np.asarray(_norm(a, order), a.dtype) for a in arrays], dtype=dtype)
    total = np.asarray(_norm(norms, order), dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {order} for gradients from `parameters` is non-finite, so "
            f"it cannot be clipped. To disable this error and scale the gradients by the "
            f"non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor(total)


def clip_grads_with_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale every .grad in place by min(max_norm / (total_norm + 1e-6), 1), the total norm
    computed beforehand (by get_total_norm).

    >>> grads = [p.grad for p in net.parameters() if p.grad is not None]
    >>> tg.nn.utils.clip_grads_with_norm_(net.parameters(), 1.0, tg.nn.utils.get_total_norm(grads))
    """
    if not isinstance(total_norm, Tensor):
        raise TypeError(
            f"clip_grads_with_norm_: total_norm must be a Tensor (get_total_norm's result), got "
            f"{type(total_norm).__name__}; wrap a number as tg.tensor(value)"
        )
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    total = total_norm.numpy()
    coef = np.minimum(float(max_norm) / (total + total.dtype.type(1e-6)), 1.0).astype(total.dtype)
    with no_grad():
        for g in grads:
            g.mul_(float(coef))


def clip_grad_norm_(
    parameters: TensorOrTensors,
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
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if generator and not params:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                UserWarning,
                stacklevel=2,
            )
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float | str = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated spelling of clip_grad_norm_ (a FutureWarning, as PyTorch's).

    >>> total = tg.nn.utils.clip_grad_norm(net.parameters(), 1.0)  # doctest: +SKIP
    """
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every .grad in place to [-clip_value, clip_value] (`foreach` accepted, no effect).

    >>> tg.nn.utils.clip_grad_value_(net.parameters(), clip_value=0.5)
    """
    value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-value, value)


__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]
