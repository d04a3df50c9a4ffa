"""glibc's malloc, set to keep freed memory for the next training step (Linux with glibc only).

By default glibc gives freed heap memory back to the operating system once twice the largest
recently freed block lies free at the top of the heap. A training step frees its activations and
allocates them again, so every step page-faults its working set back in: a small CNN on 32x32
images (activations of 2-3.5 MB) took 3,500 page faults and 25 ms a step, 11 ms without them
(measured). The settings below are where glibc's own adaptive thresholds end up after it has seen
a 32 MB block freed: blocks under 32 MB come from the heap, and up to 64 MB of freed heap is kept.
`TAPEGRAD_MALLOC=system` (or MALLOC_* or glibc.malloc tunables in the environment) leaves it.
Layer L0: standard library only.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest adaptive mmap threshold on 64-bit
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what glibc pairs with it


def keep_freed_memory() -> bool:
    """Set glibc's thresholds as above; whether they were set (False: not glibc, or opted out).

    >>> keep_freed_memory() in (True, False)
    True
    """
    if not sys.platform.startswith("linux") or os.environ.get("TAPEGRAD_MALLOC") == "system":
        return False
    tuned = "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", "")
    if tuned or any(name.startswith("MALLOC_") for name in os.environ):  # the user's own tuning
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # (musl and others: no glibc mallopt)
        return False
    return bool(
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
