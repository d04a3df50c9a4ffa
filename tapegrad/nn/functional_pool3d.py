"""The volumetric halves of max_pool3d and avg_pool3d, on geometry functional_pooling checked.

The 2-D pooling kernels work on planes; over volumes, max pooling gathers each window's winner
(found on arrays with PyTorch's pick: the first maximum in (D, H, W) order, or the last NaN), so
its gradient reaches exactly that element as PyTorch's does; average pooling sums the avg_pool2d
primitive's window sums over (H, W) per kernel depth tap (depth slices folded into the batch, as
conv3d does) and divides by the windows' divisors. Layer L5: imports tensor.py, the rule table
(primitives/pooling.py) and pool_winners' pick.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..math import cat
from ..primitives import pooling
from ..tape.composite import mark
from ..tensor import Tensor
from .pool_winners import flat_source, window_winners

__all__: list[str] = []


def max_pool_volume(
    input: Tensor,
    batched: bool,
    kernel: tuple,
    stride: tuple,
    pads: tuple,
    dilation: tuple,
    outs: tuple,
    return_indices: bool,
) -> Any:
    """max_pool3d on checked geometry: each window's winner gathered from the input (and the
    winners' flat D*H*W indices with return_indices).

    >>> max_pool_volume(tg.ones(1, 1, 2, 2, 2), True, (2,) * 3, (2,) * 3, ((0, 0),) * 3,
    ...                 (1,) * 3, (1, 1, 1), False).shape
    (1, 1, 1, 1, 1)
    """
    indices = window_winners(input.numpy(), kernel, stride, pads, dilation, outs)
    lead = input.shape[:-3]
    # (explicit sizes, not -1: an empty batch reshapes too)
    flat = input.reshape(*lead, math.prod(input.shape[-3:]))
    picked = flat.gather(-1, indices.reshape(*lead, math.prod(outs)))
    out = mark(
        picked.reshape(*lead, *outs),
        "max_pool3d",
        ("x",),
        (input,),
        {"source": lambda: flat_source(indices, input.shape[-3:])},
    )
    return (out, Tensor(indices)) if return_indices else out


def avg_pool_volume(
    input: Tensor,
    batched: bool,
    kernel: tuple,
    stride: tuple,
    pads: tuple,
    outs: tuple,
    divisor: Any,
) -> Tensor:
    """avg_pool3d on checked geometry: per kernel depth tap, the (H, W) window sums of the depth
    slices it reads; their total over the taps divided by `divisor` (an int, or one per window).

    >>> avg_pool_volume(tg.ones(1, 1, 2, 2, 2), True, (2,) * 3, (2,) * 3, ((0, 0),) * 3,
    ...                 (1, 1, 1), 8).shape
    (1, 1, 1, 1, 1)
    """
    x = input if batched else input.unsqueeze(0)
    front, back = pads[0]
    if front or back:  # (zeros along depth; H and W are padded by avg_pool2d itself)
        zeros = [Tensor(np.zeros((*x.shape[:2], m, *x.shape[3:]), x.dtype)) for m in (front, back)]
        x = cat([zeros[0], x, zeros[1]], 2)
    n, c = x.shape[:2]
    out_depth, sd = outs[0], stride[0]
    plane = {"kernel_size": kernel[1:], "stride": stride[1:], "padding": pads[1] + pads[2]}
    terms = []
    for k in range(kernel[0]):
        part = x[:, :, k : k + (out_depth - 1) * sd + 1 : sd]
        flat = part.transpose(1, 2).reshape(n * out_depth, c, *x.shape[3:])
        terms.append(pooling.avg_pool2d(flat, **plane, divisor=1))
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    total = total.reshape(n, out_depth, *total.shape[1:]).transpose(1, 2)
    if input.dtype.kind in "iu":  # (integers: the quotient cut toward zero, as PyTorch's)
        out = total.div(Tensor(np.asarray(divisor, input.dtype)), rounding_mode="trunc")
    else:
        out = total / Tensor(np.asarray(divisor, input.dtype))
    return out if batched else out.squeeze(0)
