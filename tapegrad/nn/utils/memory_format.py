"""torch.nn.utils.memory_format and init: convert_conv2d/3d_weight_memory_format (tapegrad keeps
one layout, so the format is checked and the weights' values stay) and skip_init (a module made
without its own initialization in PyTorch; here made as usual: no meta device).

Layer L5: imports the nn module and the convolution layers.
"""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

from ..conv import Conv2d, Conv3d
from ..conv_transpose import ConvTranspose2d, ConvTranspose3d
from ..module import Module

ModuleT = TypeVar("ModuleT", bound=Module)


def _convert(module: ModuleT, memory_format: Any, kinds: tuple[type, ...]) -> ModuleT:
    if isinstance(module, kinds):
        layer: Any = module
        layer.weight.data = layer.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: ModuleT, memory_format: Any) -> ModuleT:
    """Every Conv2d / ConvTranspose2d weight in module in memory_format (values unchanged;
    tapegrad has one layout, so this checks the format).

    >>> net = tg.nn.utils.convert_conv2d_weight_memory_format(tg.nn.Conv2d(2, 3, 3),
    ...                                                        tg.channels_last)
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: ModuleT, memory_format: Any) -> ModuleT:
    """Every Conv3d / ConvTranspose3d weight in module in memory_format (values unchanged).

    >>> net = tg.nn.utils.convert_conv3d_weight_memory_format(tg.nn.Conv3d(2, 3, 3),
    ...                                                        tg.channels_last_3d)
    """
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))


def skip_init(module_cls: type[ModuleT], *args: Any, **kwargs: Any) -> ModuleT:
    """module_cls(*args, **kwargs); PyTorch skips the parameters' initialization (a meta device),
    tapegrad has none and initializes them as usual. The class must take `device`, as PyTorch's.

    >>> tg.nn.utils.skip_init(tg.nn.Linear, 2, 3).weight.shape
    (3, 2)
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs)


__all__ = [
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "skip_init",
]
