"""The activation functions PyTorch also has as Tensor methods beyond relu and sigmoid:
hardshrink and prelu, as `where` compositions (their gradients are where's: PyTorch's, with
hardshrink's 0 at |x| = lambd and prelu's weight at x = 0).

Layer L3: elementwise.py's `where` and the storage base.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from .base import TensorBase
from .coerce import as_tensor
from .elementwise import where

if TYPE_CHECKING:
    from .tensor import Tensor


class ActivationsMixin(TensorBase):
    """The activation methods of Tensor (nn.functional has them as functions)."""

    __slots__ = ()

    def hardshrink(self, lambd: float = 0.5) -> Tensor:
        """x where |x| > lambd, else 0.

        >>> tg.tensor([-1.0, 0.2, 0.7]).hardshrink()
        tensor([-1.0000,  0.0000,  0.7000])
        """
        x = cast("Tensor", self)
        return where((x.abs() > lambd) | x.isnan(), x, 0)  # (NaN stays NaN, as PyTorch's)

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
