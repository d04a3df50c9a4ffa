"""`tg.masked`: PyTorch's torch.masked reductions and normalizations on plain tensors with a
mask= argument (the prototype MaskedTensor class is not provided).

reductions.py: sum, prod, amax, amin, argmax, argmin, mean, median, norm, var, std, logsumexp;
normalizations.py: softmax, log_softmax, softmin, normalize, cumsum, cumprod, logaddexp;
_input.py: the canonical mask, identities and dims they share.
"""

from __future__ import annotations

from .normalizations import cumprod, cumsum, log_softmax, logaddexp, normalize, softmax, softmin
from .reductions import amax, amin, argmax, argmin, logsumexp, mean, median, norm, prod, std, sum
from .reductions import var

__all__ = [
    "sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var", "std",
    "logsumexp", "logaddexp", "softmax", "log_softmax", "softmin", "normalize", "cumsum",
    "cumprod",
]  # fmt: skip
