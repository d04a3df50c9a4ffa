"""Opt-in: glibc's malloc set to keep freed memory for the next training step (Linux, glibc).

By default glibc gives freed heap memory back to the operating system once twice the largest
recently freed block lies free at the top of the heap, and serves blocks above its (adaptive)
mmap threshold by mmap, unmapped again when freed. A training step frees its activations and
allocates them again, so such a step page-faults its working set back in every time.
`keep_freed_memory()` sets the thresholds where glibc's own adaptive ones end up after it has seen
a 32 MB block freed: blocks under 32 MB come from the heap, and up to 64 MB of freed heap is kept.
The setting is process-wide and cannot be undone, so importing tapegrad never makes it: call
`tg.utils.keep_freed_memory()`, or set `TAPEGRAD_MALLOC=keep` before tapegrad is imported.
Layer L0: standard library only.
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings
from typing import Any

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest adaptive mmap threshold on 64-bit
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what glibc pairs with it

_applied = False


def why_not() -> str | None:
    """Why keep_freed_memory() cannot apply here (None: it can)."""
    if os.environ.get("TAPEGRAD_MALLOC") == "system":
        return "TAPEGRAD_MALLOC=system asks for glibc's own settings"
    tuned = "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", "")
    if tuned or any(name.startswith("MALLOC_") for name in os.environ):
        return "malloc is tuned by the environment (MALLOC_* or GLIBC_TUNABLES): left as set"
    if not sys.platform.startswith("linux") or _mallopt() is None:
        return f"only glibc's malloc (Linux) has these settings; this is {sys.platform}"
    return None


def _mallopt() -> Any:
    try:
        return ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # (musl and others: no glibc mallopt)
        return None


def keep_freed_memory(strict: bool = False) -> bool:
    """Make glibc's malloc keep freed memory for reuse (see the module's docstring); whether the
    setting is in effect. Off glibc, or with malloc tuned by the environment, it does nothing and
    returns False (`strict=True`: raises a RuntimeError saying why). Calling it again is free.

    >>> tg.utils.keep_freed_memory()  # doctest: +SKIP  (Linux with glibc)
    True
    """
    global _applied
    reason = None if _applied else why_not()
    if reason is not None:
        if strict:
            raise RuntimeError(f"keep_freed_memory() does nothing here: {reason}")
        return False
    if not _applied:
        mallopt = _mallopt()
        _applied = bool(
            mallopt is not None
            and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
            and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
        )
    return _applied


def apply_environment() -> None:
    """`TAPEGRAD_MALLOC=keep`: keep freed memory from import on (a warning says why when it
    cannot apply: it was asked for explicitly)."""
    if os.environ.get("TAPEGRAD_MALLOC") == "keep" and not keep_freed_memory():
        warnings.warn(
            f"TAPEGRAD_MALLOC=keep does nothing here: {why_not()}", RuntimeWarning, stacklevel=2
        )
