"""Runs of equal neighbours: unique_consecutive (each run kept once, as PyTorch's; off the tape,
as unique's).

Layer L3: numpy, the storage base, coerce's dim check and record.py's `wrap`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from .._state import is_grad_enabled
from .base import TensorBase
from .coerce import one_dim
from .record import wrap

if TYPE_CHECKING:
    from .tensor import Tensor


class RunsMixin(TensorBase):
    """The run methods of Tensor."""

    __slots__ = ()

    @overload
    def unique_consecutive(
        self,
        return_inverse: Literal[False] = ...,
        return_counts: Literal[False] = ...,
        dim: int | None = ...,
    ) -> Tensor: ...
    @overload
    def unique_consecutive(
        self, return_inverse: bool = ..., return_counts: bool = ..., dim: int | None = ...
    ) -> Tensor | tuple[Tensor, ...]: ...
    def unique_consecutive(
        self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
    ) -> Tensor | tuple[Tensor, ...]:
        """Each run of equal neighbours once (dim=None: of the flattened tensor; else runs of
        equal slices along dim), with the run each element is in (return_inverse) and each run's
        length (return_counts): a tensor, or a tuple as PyTorch returns. NaNs never match.

        >>> tg.tensor([1, 1, 2, 2, 1]).unique_consecutive(return_counts=True)
        (tensor([1, 2, 1]), tensor([2, 2, 1]))
        """
        if self._requires_grad and is_grad_enabled():  # (PyTorch fails later, at backward)
            raise RuntimeError(
                "unique_consecutive has no derivative (PyTorch's backward refuses it too); call "
                "it on x.detach(), or inside tg.no_grad()"
            )
        source = self._data.reshape(-1) if dim is None or self.ndim == 0 else self._data
        axis = 0 if dim is None else one_dim(dim, max(self.ndim, 1), "unique_consecutive")
        data = np.moveaxis(source, axis, 0)
        # (one row per element, or per slice along dim)
        data = data.reshape(data.shape[0], int(np.prod(data.shape[1:], dtype=np.int64)))
        changed = np.ones(data.shape[0], dtype=bool)  # (a run starts where a slice differs)
        changed[1:] = np.any(data[1:] != data[:-1], axis=1)
        starts = np.flatnonzero(changed)
        values = np.take(source, starts, axis=axis)
        extra = []
        if return_inverse:
            inverse = np.cumsum(changed) - 1
            extra.append(wrap(inverse.reshape(self.shape) if dim is None else inverse))
        if return_counts:
            extra.append(wrap(np.diff(np.append(starts, data.shape[0]))))
        out = wrap(values)
        return (out, *extra) if extra else out
