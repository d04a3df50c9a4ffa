"""CrossMapLRN2d: Lua Torch's cross-channel local response normalisation, as PyTorch keeps it
(torch.nn.CrossMapLRN2d): x * (k + alpha / size * sum of x ** 2 over a window of channels) **
-beta, on 4-D input only.

PyTorch's forward runs a sliding sum over the channels that never drops channel 0 (its
`if c > pre_pad` test): every channel's window includes channel 0. The window here is built by
running that same loop on indicator vectors, so the values are PyTorch's; the gradient is the
derivative of those values (recorded ops). PyTorch's hand-written backward is not: its own
gradcheck fails, and it raises for a size larger than about twice the channels.

Layer L5: imports tensor/ and the nn package's module.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..tensor import Tensor
from .module import Module

__all__ = ["CrossMapLRN2d"]


@lru_cache(maxsize=64)
def _window(channels: int, size: int) -> np.ndarray:
    """(channels, channels) 0/1: row c marks the squares PyTorch's loop sums into scale[c]."""
    squares = np.eye(channels)  # column j: the indicator of channel j's square
    scale = np.zeros((channels, channels))
    pre_pad = int((size - 1) / 2 + 1)
    for c in range(min(pre_pad, channels)):
        scale[0] += squares[c]
    for c in range(1, channels):
        scale[c] = scale[c - 1]
        if c < channels - pre_pad + 1:
            scale[c] += squares[c + pre_pad - 1]
        if c > pre_pad:
            scale[c] -= squares[c - pre_pad]
    return scale


class CrossMapLRN2d(Module):
    """x * (k + alpha / size * windowed sum of x ** 2 across channels) ** -beta, input (N, C, H, W).

    >>> tg.nn.CrossMapLRN2d(3)(tg.ones(1, 4, 2, 2)).shape
    (1, 4, 2, 2)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        """The normalised input, of input's shape."""
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        window = _window(int(input.shape[1]), int(self.size)).astype(input.detach().numpy().dtype)
        squares = (input * input).permute(0, 2, 3, 1)
        summed = (squares @ Tensor(window.T)).permute(0, 3, 1, 2)
        scale = summed * (self.alpha / self.size) + self.k
        return input * scale ** (-self.beta)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
