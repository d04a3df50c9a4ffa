"""Random: the in-place methods that fill a tensor with random numbers (PyTorch's normal_,
uniform_, bernoulli_, random_, exponential_, ...) land here.

Layer L3: numpy and the storage base. Their numbers must come from tapegrad's generator, so that
generator must live at L3 or below (creation.py, where the factories draw today, is L4).
"""

from __future__ import annotations

from .base import TensorBase


class RandomMixin(TensorBase):
    """The random in-place methods of Tensor (none yet)."""

    __slots__ = ()
