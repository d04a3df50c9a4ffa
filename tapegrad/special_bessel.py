"""torch.special's Bessel and Airy functions without a derivative in PyTorch: bessel_j0/_j1,
bessel_y0/_y1, modified_bessel_k0/_k1, scaled_modified_bessel_k0/_k1 and airy_ai (their NumPy
numerics in primitives/cylinder_functions.py and primitives/airy_functions.py).

As in PyTorch they are values, off the tape (the result never requires grad), of a tensor only (a
Python number is a TypeError, as PyTorch's), in the input's floating dtype (the default float
dtype for integers and bools). Layer L4: numpy and the Tensor layer.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import dtypes
from .primitives import airy_functions, cylinder_functions
from .tensor import Tensor

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0"]
__all__ += ["modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]


def _function(
    numerics: Callable[[object], np.ndarray], what: str, shows: str
) -> Callable[[Tensor], Tensor]:
    name = numerics.__name__

    def function(input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"special.{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__} (wrap it: tg.tensor(...))"
            )
        x = input._data
        if x.dtype.kind not in "fiub":
            raise TypeError(f"special.{name}() takes real tensors, got {input.dtype}")
        dtype = x.dtype if x.dtype.kind == "f" else dtypes.default_float
        return Tensor(np.asarray(numerics(x), dtype=dtype))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"{what}, elementwise (a value, no gradient, as PyTorch's).\n\n"
        f"    >>> tg.special.{name}(tg.tensor([0.5, 2.0]))\n    {shows}\n    "
    )
    function.__module__ = "tapegrad.special"
    return function


C = cylinder_functions
bessel_j0 = _function(
    C.bessel_j0, "J0(x), the Bessel function of the first kind", "tensor([0.9385, 0.2239])"
)
bessel_j1 = _function(
    C.bessel_j1, "J1(x), the Bessel function of the first kind", "tensor([0.2423, 0.5767])"
)
bessel_y0 = _function(
    C.bessel_y0, "Y0(x), the Bessel function of the second kind (NaN for x < 0)",
    "tensor([-0.4445,  0.5104])",
)  # fmt: skip
bessel_y1 = _function(
    C.bessel_y1, "Y1(x), the Bessel function of the second kind (NaN for x < 0)",
    "tensor([-1.4715, -0.1070])",
)  # fmt: skip
modified_bessel_k0 = _function(
    C.modified_bessel_k0, "K0(x), the modified Bessel function of the second kind",
    "tensor([0.9244, 0.1139])",
)  # fmt: skip
modified_bessel_k1 = _function(
    C.modified_bessel_k1, "K1(x), the modified Bessel function of the second kind",
    "tensor([1.6564, 0.1399])",
)  # fmt: skip
scaled_modified_bessel_k0 = _function(
    C.scaled_modified_bessel_k0, "exp(x) K0(x)", "tensor([1.5241, 0.8416])"
)
scaled_modified_bessel_k1 = _function(
    C.scaled_modified_bessel_k1, "exp(x) K1(x)", "tensor([2.7310, 1.0335])"
)
airy_ai = _function(airy_functions.airy_ai, "Ai(x), the Airy function", "tensor([0.2317, 0.0349])")
