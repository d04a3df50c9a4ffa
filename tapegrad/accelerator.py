"""tg.accelerator, as `torch.accelerator` on a CPU-only PyTorch: no accelerator is available
(`is_available()` False, `current_accelerator()` None), so a program's
`torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"`
picks the CPU; asking for the accelerator's device or stream is PyTorch's RuntimeError.

Layer L0: standard library only.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = [
    "is_available",
    "current_accelerator",
    "device_count",
    "current_device_index",
    "current_device_idx",
    "set_device_index",
    "set_device_idx",
    "current_stream",
    "synchronize",
]


def is_available() -> bool:
    """False: tapegrad computes on the CPU, which is no accelerator.

    >>> tg.accelerator.is_available()
    False
    """
    return False


def current_accelerator(check_available: bool = False) -> None:
    """None: there is no accelerator.

    >>> tg.accelerator.current_accelerator() is None
    True
    """
    return None


def device_count() -> int:
    """0 accelerator devices.

    >>> tg.accelerator.device_count()
    0
    """
    return 0


def _none_available() -> NoReturn:
    raise RuntimeError(
        "Cannot access accelerator device when none is available. (tapegrad computes on the "
        "CPU: check tg.accelerator.is_available() first)"
    )


def current_device_index() -> int:
    """Refused: there is no accelerator device (RuntimeError, as PyTorch's).

    >>> tg.accelerator.current_device_index  # doctest: +ELLIPSIS
    <function current_device_index at ...>
    """
    _none_available()


def current_device_idx() -> int:
    """current_device_index's older name: refused.

    >>> tg.accelerator.current_device_idx  # doctest: +ELLIPSIS
    <function current_device_idx at ...>
    """
    _none_available()


def set_device_index(device: Any) -> None:
    """Refused: there is no accelerator device to select.

    >>> tg.accelerator.set_device_index  # doctest: +ELLIPSIS
    <function set_device_index at ...>
    """
    _none_available()


def set_device_idx(device: Any) -> None:
    """set_device_index's older name: refused.

    >>> tg.accelerator.set_device_idx  # doctest: +ELLIPSIS
    <function set_device_idx at ...>
    """
    _none_available()


def current_stream(device: Any = None) -> NoReturn:
    """Refused: there is no accelerator stream.

    >>> tg.accelerator.current_stream  # doctest: +ELLIPSIS
    <function current_stream at ...>
    """
    _none_available()


def synchronize(device: Any = None) -> None:
    """Refused: there is no accelerator to wait for (as PyTorch's RuntimeError).

    >>> tg.accelerator.synchronize  # doctest: +ELLIPSIS
    <function synchronize at ...>
    """
    _none_available()
