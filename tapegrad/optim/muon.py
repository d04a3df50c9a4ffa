"""Muon, PyTorch's exact algorithm (torch.optim.Muon): momentum, then the update orthogonalised by
a quintic Newton-Schulz iteration computed in bfloat16 as PyTorch computes it, decoupled weight
decay and a learning rate adjusted to the matrix's shape. 2-D parameters only.

Layer L5: imports optim/optimizer.py, optim/adafactor.py (PyTorch's lerp) and tensor. NumPy has
no bfloat16: `bfloat16_round` rounds float32 values to the nearest bfloat16 (ties to even), and
each product sums in float32 as PyTorch's bfloat16 matmul does, so the iteration reproduces
PyTorch's on small matrices bit for bit (on large ones the order of PyTorch's blocked sums can
move a last bfloat16 bit). State: "momentum_buffer".
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from .adafactor import lerp_
from .optimizer import Optimizer, hyperparameter

NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)  # PyTorch's DEFAULT_A, DEFAULT_B, DEFAULT_C
ADJUSTMENTS = (None, "original", "match_rms_adamw")


def bfloat16_round(a: np.ndarray) -> np.ndarray:
    """The float32 values of `a` rounded to bfloat16 (nearest, ties to even), as float32.

    >>> bfloat16_round(np.array([1.0 + 2**-9], np.float32))
    array([1.], dtype=float32)
    """
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> 16) << 16
    return np.where(np.isnan(a), a, rounded.astype(np.uint32).view(np.float32))


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b of bfloat16 values with float32 sums, as PyTorch's bfloat16 matmul: on a short inner
    axis summed in order, term by term, as its kernel does; otherwise summed in float64 and
    rounded (its blocked kernels' order is not reproduced: a last bit may differ)."""
    if a.shape[1] > 16:
        return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    total = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        total += a[:, k : k + 1] * b[k : k + 1, :]
    return total


def _addmm(c: np.ndarray, a: np.ndarray, b: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    """bfloat16 beta * c + alpha * (a @ b) as PyTorch's addmm: the product summed in float32, the
    combination in higher precision with the coefficients rounded to float32, one rounding."""
    mixed = alpha * _product(a, b).astype(np.float64) + beta * c.astype(np.float64)
    return bfloat16_round(mixed.astype(np.float32))


def zeropower_via_newtonschulz(
    grad: np.ndarray, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float
) -> np.ndarray:
    """PyTorch's Newton-Schulz orthogonalisation of a matrix in bfloat16 (float32 values).

    >>> zeropower_via_newtonschulz(np.eye(2), NS_COEFFICIENTS, 5, 1e-7).shape
    (2, 2)
    """
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (float(np.float32(k)) for k in ns_coefficients)
    x = bfloat16_round(grad.astype(np.float32))
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = bfloat16_round(np.float32(np.sqrt(np.sum(np.square(x, dtype=np.float64)))))
    x = bfloat16_round(x / max(norm, bfloat16_round(np.float32(eps))))
    for _ in range(ns_steps):
        gram = bfloat16_round(_product(x, x.T))
        x = _addmm(x, _addmm(gram, gram, gram, b, c), x, a, 1.0)
    return x.T if tall else x


def lr_ratio(adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """PyTorch's Muon learning-rate factor for a matrix of `shape` ("original" or None:
    sqrt(max(1, A/B)); "match_rms_adamw": 0.2 sqrt(max(A, B))).

    >>> lr_ratio(None, (4, 1))
    2.0
    """
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(rows, cols))
    return 1.0


class Muon(Optimizer):
    """Muon, PyTorch's rule for 2-D parameters: B = lerp(B, G, 1 - momentum) (B <- mu B +
    (1 - mu) G); U = lerp(G, B, momentum) with nesterov, else B; O = Newton-Schulz(U) in
    bfloat16 (ns_steps of X <- a X + (b A + c A^2) X, A = X X^T); p *= 1 - lr*wd;
    p -= adjusted_lr * O. Other parameters (biases, embeddings) need another optimizer (AdamW),
    as in PyTorch: a parameter that is not 2-D is a ValueError.

    >>> opt = tg.optim.Muon([net.weight], lr=0.02)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = NS_COEFFICIENTS,
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)

    def _validate(self, group: dict) -> None:
        if isinstance(group["lr"], Tensor) and group["lr"].dtype == np.float32:
            # PyTorch keeps a tensor lr and scales with it in float32: so do these groups
            self.__dict__.setdefault("_float32_lr", set()).add(id(group))
        super()._validate(group)
        group["momentum"] = hyperparameter("momentum", group["momentum"])
        group["eps"] = hyperparameter("eps", group["eps"], -math.inf)
        if group["adjust_lr_fn"] not in ADJUSTMENTS:
            raise ValueError(
                f"Adjust learning rate function {group['adjust_lr_fn']} is not supported "
                f"(use None, 'original' or 'match_rms_adamw')"
            )
        for p in group["params"]:
            if p.ndim != 2:
                raise ValueError(
                    f"Muon only supports 2D parameters whereas we found a parameter with size: "
                    f"{tuple(p.shape)}; optimize biases and other parameters with e.g. "
                    f"tg.optim.AdamW"
                )

    def _update(self, p: Tensor, g: np.ndarray, group: dict, state: dict) -> None:
        lr, momentum = group["lr"], group["momentum"]
        if "momentum_buffer" not in state:  # PyTorch's state layout
            state["momentum_buffer"] = np.zeros_like(g)
        buf = state["momentum_buffer"]
        lerp_(buf, g, 1 - momentum)
        if group["nesterov"]:
            update = g.copy()
            lerp_(update, buf, momentum)
        else:
            update = buf
        ortho = zeropower_via_newtonschulz(
            update, group["ns_coefficients"], group["ns_steps"], group["eps"]
        )
        ratio = lr_ratio(group["adjust_lr_fn"], p.shape)
        step, decay = lr * ratio, 1 - lr * group["weight_decay"]
        if id(group) in getattr(self, "_float32_lr", ()):
            f32 = np.float32(lr)
            step = float(f32 * np.float32(ratio))
            decay = float(np.float32(1) - f32 * np.float32(group["weight_decay"]))
        p.mul_(decay)
        self._descend_by(p, ortho.astype(g.dtype), step)


__all__ = ["Muon"]
