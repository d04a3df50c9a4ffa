"""tg.autocast, as `torch.autocast` where it cannot run mixed precision: tapegrad computes every
op in the dtype it is given (NumPy has no bfloat16), so an autocast region changes no dtype.

Each case is PyTorch's own where PyTorch does nothing, and a clear error where it would cast:
`autocast("cuda")` warns and disables itself (as on a CPU-only PyTorch), `enabled=False` is a
no-op, a CPU dtype autocast does not support (float32, float64) warns and disables itself (as
PyTorch), and `autocast("cpu")` with bfloat16 (its default) or float16 is refused with a
RuntimeError (use enabled=False, or cast the model with .half()). `is_autocast_enabled()` is
therefore always False.

Layer L0: standard library, dtypes and devices.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, TypeVar

from . import dtypes
from .devices import device

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype"]

Fn = TypeVar("Fn", bound=Callable[..., Any])


class autocast:
    """A region (a context manager or a decorator) of PyTorch's automatic mixed precision; on
    tapegrad always disabled: on CUDA with PyTorch's warning, a mixed CPU dtype refused.

    >>> with tg.autocast("cpu", enabled=False):
    ...     tg.ones(2).dtype
    dtype('float32')
    """

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        device(device_type)  # (an unknown device type: PyTorch's RuntimeError)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._enabled = False
        if not enabled:
            return
        if device_type != "cpu":
            warnings.warn(
                f"User provided device_type of '{device_type}', but it is not available. "
                f"Disabling autocast. (tapegrad computes on the CPU)",
                UserWarning,
                stacklevel=2,
            )
            return
        name = getattr(self.fast_dtype, "name", str(self.fast_dtype))
        if name in ("bfloat16", "float16"):
            raise RuntimeError(
                f"autocast('cpu', dtype={name}): tapegrad has no mixed precision (every op runs "
                f"in its inputs' dtype); pass enabled=False, or cast the model and inputs "
                f"yourself (model.half(), x.half())"
            )
        warnings.warn(
            "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
            "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None

    def __call__(self, func: Fn) -> Fn:
        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorated  # type: ignore[return-value]


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """False: tapegrad never runs an autocast region.

    >>> tg.is_autocast_enabled("cpu")
    False
    """
    if device_type is not None:
        device(device_type)
    return False


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast would use on `device_type`: bfloat16 on the CPU, float16 elsewhere
    (PyTorch's defaults; tapegrad never casts to them).

    >>> tg.get_autocast_dtype("cuda")
    dtype('float16')
    """
    device(device_type)
    return dtypes.bfloat16 if device_type == "cpu" else dtypes.float16
