"""tg.cpu, as `torch.cpu`: the CPU device module programs query next to tg.cuda (is_available,
device_count, current_device, synchronize, set_device). The CPU is tapegrad's one device.

Layer L0: standard library and devices.py.
"""

from __future__ import annotations

from typing import Any

from .devices import check_device

__all__ = [
    "is_available",
    "is_initialized",
    "device_count",
    "current_device",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    """True: tapegrad computes on the CPU.

    >>> tg.cpu.is_available()
    True
    """
    return True


def is_initialized() -> bool:
    """True: the CPU needs no initialization.

    >>> tg.cpu.is_initialized()
    True
    """
    return True


def device_count() -> int:
    """1: the CPU counts as one device, as PyTorch's.

    >>> tg.cpu.device_count()
    1
    """
    return 1


def current_device() -> str:
    """'cpu', as torch.cpu.current_device().

    >>> tg.cpu.current_device()
    'cpu'
    """
    return "cpu"


def set_device(device: Any) -> None:
    """Accept the CPU (another device is a clear RuntimeError); nothing changes.

    >>> tg.cpu.set_device("cpu")
    """
    check_device(device, "tg.cpu.set_device")


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: every op has finished when it returns.

    >>> tg.cpu.synchronize()
    """
    check_device(device, "tg.cpu.synchronize")
