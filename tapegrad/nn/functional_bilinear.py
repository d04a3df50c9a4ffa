"""F.bilinear: out[..., o] = sum_ij x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o].

One einsum over the three operands (its rule gives each one's gradient), checked first with
PyTorch's rules and messages. Layer L5: imports tensor.py and math.einsum.
"""

from __future__ import annotations

from typing import Any

from ..math import einsum
from ..tape.composite import mark
from ..tensor import Tensor

__all__ = ["bilinear"]


def _checked(input1: Any, input2: Any, weight: Any, bias: Any) -> None:
    for name, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"bilinear: {name} must be a tapegrad Tensor, got {type(t).__name__}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"bilinear: bias must be a tapegrad Tensor or None, got {type(bias)}")
    if weight.ndim != 3:
        raise ValueError(
            f"bilinear(): weight must be 3-D (out_features, in1_features, in2_features), got "
            f"shape {weight.shape}"
        )
    if input1.ndim == 0 or input1.shape[:-1] != input2.shape[:-1]:
        raise ValueError(
            f"bilinear(): input batch dimensions do not match: input1 of shape {input1.shape}, "
            f"input2 of shape {input2.shape} (all but the last axis must agree)"
        )
    for k, t in ((1, input1), (2, input2)):
        if t.shape[-1] != weight.shape[k]:
            raise ValueError(
                f"bilinear(): input{k} size does not match weight size: got {t.shape[-1]} but "
                f"expected {weight.shape[k]} (weight of shape {weight.shape})"
            )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != weight.shape[0]):
        raise ValueError(
            f"bilinear(): bias size does not match weight size: got {bias.shape} but expected "
            f"({weight.shape[0]},)"
        )


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x1^T W_o x2 + b_o for each output o: input1 (*, in1), input2 (*, in2), weight (out, in1,
    in2), bias (out,); the leading axes of the inputs must agree.

    >>> F.bilinear(tg.ones(2, 3), tg.ones(2, 4), tg.ones(5, 3, 4)).shape
    (2, 5)
    """
    _checked(input1, input2, weight, bias)
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    if bias is not None:
        out = out + bias
    labels = ("x1", "x2", "w", "b")
    return mark(out, "bilinear", labels, (input1, input2, weight, bias))
