"""The activation functions PyTorch also has as Tensor methods beyond relu and sigmoid:
hardshrink and prelu, as `where` compositions (their gradients are where's: PyTorch's, with
hardshrink's 0 at |x| = lambd and at NaN, and prelu's weight at x = 0). F.hardshrink calls the
method (nn may import tensor/, never the reverse).

Layer L3: elementwise.py's `where` and the storage base.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .base import TensorBase
from .coerce import as_tensor
from .elementwise import where

if TYPE_CHECKING:
    from .tensor import Tensor


def shrink_lambd(x: TensorBase, lambd: Any, fn: str) -> float:
    """lambd as a number for the shrink `fn` of x; PyTorch's refusal of integer input, and a
    clear error for a lambd that is no number.

    >>> shrink_lambd(tg.ones(2), 0.5, "hardshrink")
    0.5
    """
    if x.dtype.kind != "f":
        raise TypeError(f'{fn}: "{fn}_cpu" not implemented for integer input ({x.dtype})')
    if isinstance(lambd, bool) or not isinstance(lambd, (int, float, np.number)):
        raise TypeError(f"{fn}: lambd must be a number, got {type(lambd).__name__} {lambd!r}")
    return float(lambd) if isinstance(lambd, np.number) else lambd


def nan_or_zero(values: np.ndarray) -> np.ndarray:
    """0, and NaN where values is NaN: a shrink's constant part (its gradient 0, as PyTorch's).

    >>> nan_or_zero(np.array([np.nan, 2.0]))
    array([nan,  0.])
    """
    return np.where(np.isnan(values), values, 0).astype(values.dtype)


class ActivationsMixin(TensorBase):
    """The activation methods of Tensor (nn.functional has them as functions)."""

    __slots__ = ()

    def hardshrink(self, lambd: float = 0.5) -> Tensor:
        """x where |x| > lambd, else 0.

        >>> tg.tensor([-1.0, 0.2, 0.7]).hardshrink()
        tensor([-1.0000,  0.0000,  0.7000])
        """
        lam = shrink_lambd(self, lambd, "hardshrink")
        values = self._data
        return where((values < -lam) | (values > lam), self, nan_or_zero(values))

    def prelu(self, weight: Any) -> Tensor:
        """x where x > 0, else weight * x; weight has one value, or one per channel (dim 1).

        >>> tg.tensor([-2.0, 3.0]).prelu(tg.tensor([0.25]))
        tensor([-0.5000,  3.0000])
        """
        x, w = cast("Tensor", self), as_tensor(weight)
        channels = self.shape[1] if self.ndim >= 2 else 1
        if w.numel() != 1 and w.numel() != channels:
            raise ValueError(
                f"prelu: mismatch of parameter numbers and input channel size: weight has "
                f"{w.numel()} values, the input {channels} channel(s) (dim 1); give one weight "
                f"or one per channel"
            )
        if w.numel() > 1 or w.ndim > self.ndim:
            w = w.reshape(*([channels] + [1] * (self.ndim - 2)))
        return where(x > 0, x, w * x)
