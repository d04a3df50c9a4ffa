"""Dropout's variants as layers: Dropout1d, Dropout2d, Dropout3d (whole channels), AlphaDropout
(for SELU networks) and FeatureAlphaDropout (whole channels of it). Each a _DropoutNd, as
PyTorch's (none of them a Dropout): Dropout's constructor, checks and repr, their own functions.

Layer L5: imports tensor.py and the nn package's layers (Dropout) and functional_dropout.
"""

from __future__ import annotations

from ..tensor import Tensor
from .functional_dropout import alpha_dropout, dropout1d, dropout2d, dropout3d
from .functional_dropout import feature_alpha_dropout
from .layers import _DropoutNd


class Dropout1d(_DropoutNd):
    """While training, zero whole channels of (N, C, L) or (C, L) with probability p.

    >>> tg.nn.Dropout1d(0.5).eval()(tg.ones(2, 3, 4)).shape
    (2, 3, 4)
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """While training, zero whole channels of (N, C, H, W) or (C, H, W) with probability p.

    >>> tg.nn.Dropout2d(0.5).eval()(tg.ones(2, 3, 4, 4)).shape
    (2, 3, 4, 4)
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """While training, zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p.

    >>> tg.nn.Dropout3d(0.5).eval()(tg.ones(1, 2, 2, 2, 2)).shape
    (1, 2, 2, 2, 2)
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks: keeps mean 0 and variance 1 while training.

    >>> tg.nn.AlphaDropout(0.2).eval()(tg.ones(3))
    tensor([1., 1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout with one draw per channel (input (N, C, ...)): a whole channel is set to
    SELU's negative limit, then a * x + b keeps mean 0 and variance 1 while training.

    >>> tg.nn.FeatureAlphaDropout(0.2).eval()(tg.ones(2, 3))
    tensor([[1., 1., 1.],
            [1., 1., 1.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        return feature_alpha_dropout(input, self.p, self.training, self.inplace)
