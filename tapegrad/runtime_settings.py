"""PyTorch's process-wide runtime settings, as programs set and read them before training: thread
counts, float32 matmul precision, the default device, flushing denormals, warn-always, the
deterministic-algorithms flags and anomaly mode (`torch.set_num_threads(4)`,
`torch.use_deterministic_algorithms(True)`, ...), with PyTorch's defaults and errors.

tapegrad computes with NumPy on the CPU, always the same way: a setting is remembered and read back
and changes no result (NumPy's BLAS picks its own threads; every algorithm is deterministic; the
CPU is the only device, so another default device is refused). Anomaly mode is tapegrad's own
(tape/anomaly.py).

Layer L2: the standard library, _state and devices (L0) and tape/anomaly.py.
"""

from __future__ import annotations

import os
import warnings

from ._state import state
from .devices import DeviceLike, check_device, device
from .tape import anomaly

__all__ = [
    "get_num_threads",
    "set_num_threads",
    "get_num_interop_threads",
    "set_num_interop_threads",
    "get_float32_matmul_precision",
    "set_float32_matmul_precision",
    "get_default_device",
    "set_default_device",
    "set_flush_denormal",
    "is_warn_always_enabled",
    "set_warn_always",
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "get_deterministic_debug_mode",
    "set_deterministic_debug_mode",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
]


def _cores() -> int:
    """The CPUs this process may run on (PyTorch's default thread counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return os.cpu_count() or 1


_settings: dict[str, object] = {
    "threads": _cores(),
    "interop_threads": _cores(),
    "matmul_precision": "highest",
    "warn_always": False,
    "deterministic": False,
    "warn_only": False,
}


def _positive_int(value: object, who: str) -> int:
    """`value` as a thread count: an int above 0, else PyTorch's RuntimeError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuntimeError(f"{who} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{who} expects a positive integer")
    return value


def get_num_threads() -> int:
    """The intra-op thread count (remembered: NumPy's BLAS picks its own threads).

    >>> tg.get_num_threads() >= 1
    True
    """
    return int(_settings["threads"])  # type: ignore[call-overload]


def set_num_threads(num: int) -> None:
    """Set the intra-op thread count, as torch.set_num_threads (remembered; no result changes).

    >>> tg.set_num_threads(2); tg.get_num_threads()
    2
    """
    _settings["threads"] = _positive_int(num, "set_num_threads")


def get_num_interop_threads() -> int:
    """The inter-op thread count (remembered; tapegrad runs ops one after another).

    >>> tg.get_num_interop_threads() >= 1
    True
    """
    return int(_settings["interop_threads"])  # type: ignore[call-overload]


def set_num_interop_threads(num: int) -> None:
    """Set the inter-op thread count, as torch.set_num_interop_threads (remembered).

    >>> tg.set_num_interop_threads(2); tg.get_num_interop_threads()
    2
    """
    _settings["interop_threads"] = _positive_int(num, "set_num_interop_threads")


_PRECISIONS = ("highest", "high", "medium")


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision ('highest' unless set): tapegrad always computes in float32.

    >>> tg.get_float32_matmul_precision()
    'highest'
    """
    return str(_settings["matmul_precision"])


def set_float32_matmul_precision(precision: str) -> None:
    """Remember 'highest', 'high' or 'medium' (PyTorch's TF32/bfloat16 hints; NumPy computes in
    float32 either way); another value warns and changes nothing, as PyTorch.

    >>> tg.set_float32_matmul_precision("high"); tg.get_float32_matmul_precision()
    'high'
    """
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            f"setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _settings["matmul_precision"] = precision


def get_default_device() -> device:
    """The device factories place tensors on: always the CPU.

    >>> tg.get_default_device()
    device(type='cpu')
    """
    return device("cpu")


def set_default_device(device: DeviceLike) -> None:
    """Accept the CPU (or None) as the default device; another device is a clear RuntimeError
    (tapegrad computes on the CPU with NumPy).

    >>> tg.set_default_device("cpu")
    """
    check_device(device, "set_default_device")


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormals could be set as asked: NumPy keeps denormals, so turning it on
    returns False (as PyTorch on a CPU without the feature) and turning it off returns True.

    >>> tg.set_flush_denormal(False)
    True
    """
    return not mode


def is_warn_always_enabled() -> bool:
    """Whether warn-once warnings warn every time (remembered; False unless set).

    >>> tg.is_warn_always_enabled()
    False
    """
    return bool(_settings["warn_always"])


def set_warn_always(b: bool) -> None:
    """Remember whether warn-once warnings should warn every time, as torch.set_warn_always.

    >>> tg.set_warn_always(False)
    """
    _settings["warn_always"] = bool(b)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms: tapegrad's (NumPy on the CPU) always are; remembered.

    >>> tg.use_deterministic_algorithms(True); tg.are_deterministic_algorithms_enabled()
    True
    """
    if not isinstance(mode, bool):
        raise TypeError(
            f"use_deterministic_algorithms expects a bool, but got {type(mode).__name__}"
        )
    if not isinstance(warn_only, bool):
        raise TypeError(
            f"use_deterministic_algorithms expects a bool for warn_only, but got "
            f"{type(warn_only).__name__}"
        )
    _settings["deterministic"] = mode
    _settings["warn_only"] = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether use_deterministic_algorithms(True) is in force.

    >>> tg.are_deterministic_algorithms_enabled() in (True, False)
    True
    """
    return bool(_settings["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether use_deterministic_algorithms was given warn_only=True.

    >>> tg.is_deterministic_algorithms_warn_only_enabled() in (True, False)
    True
    """
    return bool(_settings["warn_only"])


_DEBUG_MODES = ("default", "warn", "error")


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn only) or 2 (error), from the deterministic flags, as PyTorch.

    >>> tg.use_deterministic_algorithms(False); tg.get_deterministic_debug_mode()
    0
    """
    if not _settings["deterministic"]:
        return 0
    return 1 if _settings["warn_only"] else 2


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """Set the deterministic flags by mode: "default"/0, "warn"/1 or "error"/2.

    >>> tg.set_deterministic_debug_mode("error"); tg.get_deterministic_debug_mode()
    2
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, bool) or not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode).__name__}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


_check_nan = [True]
_enabled_without_nan_check = [False]


def is_anomaly_enabled() -> bool:
    """Whether anomaly mode is on (detect_anomaly's block, or set_anomaly_enabled(True)).

    >>> tg.is_anomaly_enabled()
    False
    """
    return anomaly.is_anomaly_enabled() or _enabled_without_nan_check[0]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly mode on or off for good (torch.autograd.detect_anomaly without the block).
    tapegrad's anomaly mode always checks for NaN, so check_nan=False keeps it off (as
    tg.autograd.detect_anomaly(check_nan=False)); is_anomaly_enabled() then says True, as PyTorch.

    >>> tg.set_anomaly_enabled(False); tg.is_anomaly_enabled()
    False
    """
    state.anomaly = bool(enabled) and bool(check_nan)
    _check_nan[0] = bool(check_nan)
    _enabled_without_nan_check[0] = bool(enabled) and not check_nan


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode checks the backward for NaN (True unless set_anomaly_enabled said no).

    >>> tg.is_anomaly_check_nan_enabled()
    True
    """
    return _check_nan[0]
