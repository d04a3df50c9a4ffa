"""tg.distributed: the names training scripts import from `torch.distributed` before deciding to
run in one process. tapegrad has no process groups and no collectives, so `is_available()` is
False and `is_initialized()` False; starting a group is a clear RuntimeError, and asking for the
rank or size of a group that was never started is PyTorch's ValueError.

Layer L0: standard library only.
"""

from __future__ import annotations

from typing import Any, NoReturn

_NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call "
    "init_process_group. (tapegrad runs in one process and has no process groups.)"
)


def is_available() -> bool:
    """False: tapegrad has no distributed backend (no process groups, no collectives).

    >>> tg.distributed.is_available()
    False
    """
    return False


def is_initialized() -> bool:
    """False: no process group is ever started in tapegrad.

    >>> tg.distributed.is_initialized()
    False
    """
    return False


def init_process_group(*args: Any, **kwargs: Any) -> NoReturn:
    """A clear error: tapegrad trains in one process (run the script without torchrun).

    >>> tg.distributed.init_process_group(backend="gloo")  # RuntimeError
    """
    raise RuntimeError(
        "tg.distributed.init_process_group: tapegrad has no distributed backend; run the "
        "program as a single process (without torchrun, or with RANK/WORLD_SIZE unset)"
    )


def destroy_process_group(group: Any = None) -> NoReturn:
    """PyTorch's ValueError: there is no process group to destroy.

    >>> tg.distributed.destroy_process_group()  # ValueError
    """
    raise ValueError(_NOT_INITIALIZED)


def get_rank(group: Any = None) -> NoReturn:
    """PyTorch's ValueError: no process group was started, so there is no rank.

    >>> tg.distributed.get_rank()  # ValueError
    """
    raise ValueError(_NOT_INITIALIZED)


def get_world_size(group: Any = None) -> NoReturn:
    """PyTorch's ValueError: no process group was started, so there is no world size.

    >>> tg.distributed.get_world_size()  # ValueError
    """
    raise ValueError(_NOT_INITIALIZED)


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> NoReturn:
    """PyTorch's ValueError: there is no process group to wait for.

    >>> tg.distributed.barrier()  # ValueError
    """
    raise ValueError(_NOT_INITIALIZED)


__all__ = [
    "barrier",
    "destroy_process_group",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "is_initialized",
]
