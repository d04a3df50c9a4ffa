"""tg.nn.functional's piecewise-linear activations (PyTorch's `F.` spellings): hardtanh and relu6,
hardsigmoid, hardswish, threshold, softshrink, hardshrink, prelu and rrelu, with the in-place
forms hardtanh_, threshold_ and rrelu_.

Each is a `where` between the input (or a line of it) and a constant: the pieces PyTorch's
backward passes the gradient through are chosen by masks written as PyTorch's backward writes
them, so a kink (hardtanh at min_val, relu6 at 0 and 6, hardshrink at +-lambd) gets PyTorch's
subgradient; no new rule. A NaN input gives NaN, with the gradient of PyTorch's vectorised
kernel (0 for hardtanh, relu6, hardsigmoid and the shrinks, NaN for hardswish, 1 for threshold);
its scalar loop over a tensor's last few elements differs (tests/conformance/deliberate.py).

Layer L5: tapegrad ops only; results are marked (`mark`) for the teaching tools (rules:
primitives/composite_activations.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..math import where
from ..random import numpy_generator as generator
from ..tape.composite import mark
from ..tensor import Tensor
from ..tensor.activations import nan_or_zero, shrink_lambd
from .functional_arguments import in_place, tensor_argument


def _passing(x: Tensor, passes: np.ndarray, elsewhere: Any) -> Tensor:
    """x where `passes`, the constant `elsewhere` (in x's dtype) otherwise: the gradient is 1
    where x passes and 0 elsewhere."""
    fill = np.asarray(elsewhere).astype(x.dtype, copy=False)
    return where(passes, x, fill)


def _number(value: Any, name: str, fn: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{fn}: {name} must be a number, got {type(value).__name__} {value!r}")
    return float(value) if isinstance(value, np.number) else value


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """x clipped to [min_val, max_val]; the gradient is 1 strictly inside and 0 at and beyond
    the bounds (as PyTorch's).

    >>> F.hardtanh(tg.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    tensor_argument(input, "hardtanh")
    low, high = _number(min_val, "min_val", "hardtanh"), _number(max_val, "max_val", "hardtanh")
    if low > high:
        raise ValueError("hardtanh: min_val cannot be greater than max_val")

    def fn(x: Tensor) -> Tensor:
        values = x.numpy()
        return _passing(x, (values > low) & (values < high), np.clip(values, low, high))

    out = in_place(input, inplace, fn)
    return mark(out, "hardtanh", ("x",), (input,), {"min_val": low, "max_val": high})


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh written into input (returned).

    >>> F.hardtanh_(tg.tensor([2.0]))
    tensor([1.])
    """
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6): hardtanh(x, 0, 6), so the gradient is 0 at 0 and at 6 (as PyTorch's).

    >>> F.relu6(tg.tensor([-1.0, 3.0, 8.0]))
    tensor([0., 3., 6.])
    """
    tensor_argument(input, "relu6")
    out = hardtanh(input, 0.0, 6.0, inplace)
    return mark(out, "relu6", ("x",), (input,))


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """x / 6 + 1/2 clipped to [0, 1]; gradient 1/6 strictly inside (-3, 3), else 0 (a NaN too).

    >>> F.hardsigmoid(tg.tensor([-4.0, 0.0, 4.0]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    tensor_argument(input, "hardsigmoid")

    def fn(x: Tensor) -> Tensor:
        values = x.numpy()
        inside = (values > -3.0) & (values < 3.0)
        return where(inside, x / 6.0 + 0.5, np.clip(values / 6.0 + 0.5, 0.0, 1.0).astype(x.dtype))

    return mark(in_place(input, inplace, fn), "hardsigmoid", ("x",), (input,))


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * hardsigmoid(x): 0 up to -3, x (x + 3) / 6 between, x from 3 on; PyTorch's gradient:
    0 at -3, 1 at 3.

    >>> F.hardswish(tg.tensor([-4.0, 0.0, 4.0]))
    tensor([0., 0., 4.])
    """
    tensor_argument(input, "hardswish")

    def fn(x: Tensor) -> Tensor:
        values = x.numpy()
        middle = ~((values <= -3.0) | (values >= 3.0))  # (a NaN too)
        return where(middle, x * (x + 3.0) / 6.0, _passing(x, values >= 3.0, 0.0))

    return mark(in_place(input, inplace, fn), "hardswish", ("x",), (input,))


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else value (in x's dtype, as PyTorch's); gradient 0 there.

    >>> F.threshold(tg.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    tensor_argument(input, "threshold")
    limit = _number(threshold, "threshold", "threshold")
    fill = _number(value, "value", "threshold")

    def fn(x: Tensor) -> Tensor:
        return _passing(x, ~(x.numpy() <= limit), fill)

    out = in_place(input, inplace, fn)
    return mark(out, "threshold", ("x",), (input,), {"threshold": limit, "value": fill})


_threshold = threshold  # (threshold_'s argument `threshold` hides the function's name there)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold written into input (returned).

    >>> F.threshold_(tg.tensor([0.5, 2.0]), 1.0, 0.0)
    tensor([0., 2.])
    """
    return _threshold(input, threshold, value, inplace=True)


def _lambd(input: Tensor, lambd: Any, fn: str) -> float:
    return shrink_lambd(tensor_argument(input, fn), lambd, fn)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0 (gradient 0 at +-lambd, as PyTorch's).

    >>> F.hardshrink(tg.tensor([-1.0, 0.2, 0.7]))
    tensor([-1.0000,  0.0000,  0.7000])
    """
    lam = _lambd(input, lambd, "hardshrink")
    return mark(input.hardshrink(lam), "hardshrink", ("x",), (input,), {"lambd": lam})


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0 (gradient 0 at +-lambd).

    >>> F.softshrink(tg.tensor([-1.0, 0.2, 0.7]))
    tensor([-0.5000,  0.0000,  0.2000])
    """
    lam = _lambd(input, lambd, "softshrink")
    if lam < 0:
        raise RuntimeError(f"softshrink: lambda must be in range [0, inf), but found {lambd}")
    values = input.numpy()
    outside = (values < -lam) | (values > lam)
    # (outside, the input shifted toward 0 by a constant)
    shift = np.where(outside, np.sign(values) * lam, 0.0).astype(input.dtype)
    out = where(outside, input - shift, nan_or_zero(values))
    return mark(out, "softshrink", ("x",), (input,), {"lambd": lam})


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, weight * x otherwise; weight has one element, or one per channel (axis 1;
    a 1-D input has one channel), as PyTorch's. The slope at 0 is weight's.

    >>> F.prelu(tg.tensor([-2.0, 3.0]), tg.tensor([0.25]))
    tensor([-0.5000,  3.0000])
    """
    x = tensor_argument(input, "prelu")
    w = tensor_argument(weight, "prelu (weight)")
    if w.size != 1:
        channels = x.shape[1] if x.ndim >= 2 else 1  # (PyTorch: a 1-D input has one channel)
        if w.size != channels:
            raise RuntimeError(
                f"prelu: Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {w.size} and channel size = {channels}."
            )
        if x.ndim >= 2:  # (one slope per channel, broadcast over the rest)
            w = w.reshape(w.size, *(1,) * (x.ndim - 2))
    elif w.ndim:
        w = w.reshape(())
    out = where(x.numpy() > 0, x, x * w)
    return mark(out, "prelu", ("x", "w"), (x, weight))


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """x where x > 0, a * x otherwise: while training, a is drawn uniformly from [lower, upper] for
    each element <= 0 (tg.manual_seed's generator, as PyTorch draws them); otherwise
    a = (lower + upper) / 2.

    >>> F.rrelu(tg.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    x = tensor_argument(input, "rrelu")
    low, high = _number(lower, "lower", "rrelu"), _number(upper, "upper", "rrelu")
    if low > high:
        raise RuntimeError(
            f"rrelu: Lower bound should be less than or equal to the upper bound (got lower="
            f"{lower}, upper={upper})"
        )
    if training:
        # PyTorch's CPU kernel: a slope drawn (in double, between the bounds in x's dtype) for
        # each element <= 0 in order, none for the others
        below = x.numpy() <= 0
        bounds = np.asarray([low, high], x.dtype).astype(np.float64).tolist()
        drawn = generator(None, "rrelu").uniform(bounds[0], bounds[1], int(below.sum()))
        slopes = np.ones(x.shape, x.dtype)
        slopes[below] = drawn.astype(x.dtype)
    else:
        slopes = np.asarray((low + high) / 2, dtype=x.dtype)

    def fn(v: Tensor) -> Tensor:
        return where(v.numpy() > 0, v, v * slopes)

    out = in_place(x, inplace, fn)
    return mark(out, "rrelu", ("x", "a"), (x, slopes), {"training": training})


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """rrelu written into input (returned).

    >>> F.rrelu_(tg.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    """
    return rrelu(input, lower, upper, training, inplace=True)
