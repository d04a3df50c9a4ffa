"""Optional accelerator: SciPy's BLAS axpy (y += a * x in one pass over memory), used by the
optimizers' last write where SciPy is installed (the `fast` extra). Without SciPy every caller
takes its NumPy path (`a * x` into a scratch array, then `y -= ...`: two passes); results agree to
float rounding (axpy may fuse the multiply and the add).

Why it pays: a parameter update streams p, g and the scratch array through memory twice; on the
784-512-512-10 MLP that is 2.2% of an SGD step (measured: 297 -> 159 us an update, caches cold
after a GEMM). SciPy is imported on first use, never by `import tapegrad`.
Layer L0: numpy only (SciPy optionally, lazily).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

_AXPY: dict[np.dtype, Callable[..., Any]] | None = None  # dtype -> ?axpy, {} without SciPy
_enabled = True


def use_blas(flag: bool) -> None:
    """Turn the accelerator on or off (tests run both paths; it is on when SciPy is installed).

    >>> use_blas(False)  # the NumPy path from now on
    """
    global _enabled
    _enabled = bool(flag)


def _kernels() -> dict[np.dtype, Callable[..., Any]]:
    global _AXPY
    if _AXPY is None:
        try:
            from scipy.linalg import blas
        except ImportError:  # (the `fast` extra is not installed: NumPy paths only)
            _AXPY = {}
        else:
            _AXPY = {np.dtype(np.float32): blas.saxpy, np.dtype(np.float64): blas.daxpy}
    return _AXPY


def axpy(a: float, x: np.ndarray, y: np.ndarray) -> bool:
    """y += a * x in place through BLAS when it can be done there exactly in y's memory (SciPy
    present, both arrays C-contiguous, of one float32/float64 dtype and shape, y writable);
    False, y untouched, otherwise.

    >>> axpy(-0.1, g, p) or np.subtract(p, 0.1 * g, out=p)
    """
    if not _enabled:
        return False
    kernel = _kernels().get(y.dtype)
    if kernel is None or x.dtype is not y.dtype or x.shape != y.shape:
        return False
    flags = y.flags  # (f2py would copy an array it cannot use as it is, and write the copy)
    if not (flags.c_contiguous and flags.writeable and x.flags.c_contiguous):
        return False
    flat = y.reshape(-1)
    done = kernel(x.reshape(-1), flat, a=a)
    return done is flat  # (f2py hands back the array it wrote: y's own memory)
