"""tg.nn.parallel, as `torch.nn.parallel` on a machine without GPUs: `DataParallel(module)` runs
the module itself (PyTorch does the same when no CUDA device is there), and
`DistributedDataParallel` needs a process group, which tapegrad never has: PyTorch's ValueError.

Layer L5: imports the nn package's module and tg.distributed's message.
"""

from __future__ import annotations

from typing import Any

from ..distributed import _NOT_INITIALIZED
from .module import Module


class DataParallel(Module):
    """Wraps a module and calls it as is: with no GPU there is nothing to split the batch over.

    >>> net = tg.nn.parallel.DataParallel(tg.nn.Linear(2, 1)); net(tg.ones(3, 2)).shape
    (3, 1)
    """

    def __init__(
        self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0
    ) -> None:
        super().__init__()
        self.module = module  # registered: parameters are named "module.weight", as in PyTorch
        self.device_ids: list[int] = []
        self.output_device = None
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """The wrapped module's output for these inputs.

        >>> net(tg.ones(3, 2)).shape
        (3, 1)
        """
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Needs a started process group; tapegrad has none, so making one is PyTorch's ValueError.

    >>> tg.nn.parallel.DistributedDataParallel(tg.nn.Linear(2, 1))  # ValueError
    """

    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None:
        raise ValueError(_NOT_INITIALIZED)


__all__ = ["DataParallel", "DistributedDataParallel"]
