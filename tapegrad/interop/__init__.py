"""tg.interop: tapegrad among NumPy and its friends.

Layer L5, one idea a module: numpy_protocols.py (NumPy's ufuncs and functions on Tensors run
tapegrad's ops, recorded: `Tensor.__array_ufunc__` / `__array_function__`), numpy_meanings.py
(NumPy's meaning where tapegrad follows PyTorch's: np.cumsum, np.sort, ...), dlpack.py (zero-copy
exchange with NumPy, PyTorch and JAX: `Tensor.__dlpack__`, `tg.from_dlpack`).
"""

from __future__ import annotations

from .dlpack import dlpack_device, from_dlpack, to_dlpack
from .numpy_protocols import array_function, array_ufunc, numpy_support

__all__ = [
    "array_function",
    "array_ufunc",
    "dlpack_device",
    "from_dlpack",
    "numpy_support",
    "to_dlpack",
]
