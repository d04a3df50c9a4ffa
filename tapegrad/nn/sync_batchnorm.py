"""SyncBatchNorm as PyTorch's behaves on the CPU: with no process group initialised (tapegrad has
none: tg.distributed is one process), PyTorch's SyncBatchNorm falls back to plain batch norm in
training and in eval mode, on input of any rank from 2 up; convert_sync_batchnorm swaps every
batch norm of a model for one, sharing its parameters and buffers.

Layer L5: imports tensor/ and the nn package's module and normalization.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .module import Module
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, ...) whose statistics would be synchronised across processes; with
    one process (tapegrad's), it is BatchNorm over any input rank from 2, as PyTorch's on the CPU.

    >>> tg.nn.SyncBatchNorm(3)(tg.randn(4, 3, 2, 2)).shape
    (4, 3, 2, 2)
    """

    _ranks = tuple(range(2, 65))  # any rank from 2 (checked first with PyTorch's error)
    _layout = "(N, C, ...)"

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def forward(self, input: Tensor) -> Tensor:
        """Batch statistics in train() (running ones updated), running ones in eval()."""
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """`module` with every batch norm in it replaced by a SyncBatchNorm sharing its state.

        >>> tg.nn.SyncBatchNorm.convert_sync_batchnorm(tg.nn.BatchNorm1d(2))
        SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        converted = module
        if isinstance(module, _BatchNorm):
            converted = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
