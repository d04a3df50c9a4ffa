"""tg.cuda, as `torch.cuda` on a PyTorch built without CUDA: what programs ask before choosing a
device (`is_available()` is False, `device_count()` is 0), and the seed calls they make
unconditionally (`manual_seed`, `manual_seed_all`: nothing to seed); `tg.cuda.amp.GradScaler`
is always disabled, as PyTorch's without CUDA. Anything that needs a GPU
is a clear RuntimeError: tapegrad computes on the CPU with NumPy.

Layer L0: standard library only.
"""

from __future__ import annotations

from typing import NoReturn

from . import amp


def is_available() -> bool:
    """False: tapegrad has no CUDA device (`device = "cuda" if tg.cuda.is_available() else "cpu"`).

    >>> tg.cuda.is_available()
    False
    """
    return False


def device_count() -> int:
    """0: the number of CUDA devices tapegrad can use.

    >>> tg.cuda.device_count()
    0
    """
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: there is no CUDA device to compute in bfloat16 on.

    >>> tg.cuda.is_bf16_supported()
    False
    """
    return False


def manual_seed(seed: int) -> None:
    """Nothing to do: there is no CUDA generator (as PyTorch without CUDA, silently).

    >>> tg.cuda.manual_seed(0)
    """
    return None


def manual_seed_all(seed: int) -> None:
    """Nothing to do: there are no CUDA generators.

    >>> tg.cuda.manual_seed_all(0)
    """
    return None


def seed() -> None:
    """Nothing to do: there is no CUDA generator."""
    return None


def seed_all() -> None:
    """Nothing to do: there are no CUDA generators."""
    return None


def empty_cache() -> None:
    """Nothing to do: no CUDA memory is cached (PyTorch without CUDA does nothing too)."""
    return None


def _no_cuda(what: str) -> NoReturn:
    raise RuntimeError(
        f"tg.cuda.{what}: there is no CUDA device; tapegrad computes on the CPU with NumPy "
        f"(check tg.cuda.is_available() first)"
    )


def synchronize(device: object = None) -> None:
    """A clear error: there is no CUDA device to wait for."""
    _no_cuda("synchronize()")


def current_device() -> int:
    """A clear error: there is no current CUDA device."""
    _no_cuda("current_device()")


def get_device_name(device: object = None) -> str:
    """A clear error: there is no CUDA device to name."""
    _no_cuda("get_device_name()")


def set_device(device: object) -> None:
    """A clear error: there is no CUDA device to select."""
    _no_cuda("set_device()")


__all__ = [
    "amp",
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "is_available",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "set_device",
    "synchronize",
]
