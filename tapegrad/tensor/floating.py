"""A float's representation: frexp (mantissa and power-of-two exponent), ldexp (scaling by a power
of two) and nextafter (the neighbouring float), as PyTorch's.

Layer L3: numpy, the dtypes, the rule table (nextafter; transcendental's exp2 for ldexp) and
`record.apply`. frexp's mantissa is x times two constant powers of two (exact: each is a power of
two a float holds, in two steps so that neither overflows), so its gradient is PyTorch's,
g * 2**-exponent; ldexp is x * 2**other, as PyTorch computes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np

from .. import dtypes
from ..primitives import floating as F
from ..primitives import transcendental as T
from .base import TensorBase
from .coerce import TensorLike, as_tensor, coerce
from .record import apply, wrap
from .writing import unary_

if TYPE_CHECKING:
    from .tensor import Tensor


class FrexpResult(NamedTuple):
    """What frexp gives: (mantissa, exponent), as torch.return_types.frexp."""

    mantissa: Tensor
    exponent: Tensor


def _floating_only(x: TensorBase, name: str) -> None:
    """x of a floating dtype (PyTorch has these for no other): else a clear error."""
    if x.dtype.kind != "f":
        raise TypeError(
            f"{name}: only floating-point tensors are supported, got {x.dtype}; convert it first "
            f"(x.float())"
        )


class FloatingMixin(TensorBase):
    """The float-representation methods of Tensor."""

    __slots__ = ()

    def frexp(self) -> FrexpResult:
        """(mantissa, exponent) with self = mantissa * 2**exponent, |mantissa| in [0.5, 1) (0,
        inf and NaN: themselves and exponent 0); the exponent is int32.

        >>> tg.tensor([8.0]).frexp()
        FrexpResult(mantissa=tensor([0.5000]), exponent=tensor([4], dtype=int32))
        """
        _floating_only(self, "frexp")
        exponent = np.frexp(self._data)[1].astype(np.int32)
        half = -exponent // 2  # (2**-exponent in two factors: 2**1074 overflows a float64)
        ones = np.ones(self.shape, self.dtype)
        scaled = cast("Tensor", self) * np.ldexp(ones, half)
        mantissa = scaled * np.ldexp(ones, -exponent - half)
        return FrexpResult(mantissa, wrap(exponent))

    def ldexp(self, other: TensorLike) -> Tensor:
        """self * 2**other, elementwise (integers give the default float dtype).

        >>> tg.tensor([1.0, 3.0]).ldexp(tg.tensor([3, 1]))
        tensor([8., 6.])
        """
        power = as_tensor(other)
        kinds = [t.dtype for t in (self, power) if t.dtype.kind == "f"]
        want = np.result_type(*kinds) if kinds else np.dtype(dtypes.default_float)
        x = cast("Tensor", self).to(want)
        return x * apply(T.exp2, power.to(want))

    def nextafter(self, other: TensorLike) -> Tensor:
        """The next float after self towards other, elementwise (its gradient: g for self).

        >>> tg.tensor([1.0], dtype=tg.float64).nextafter(tg.tensor([2.0], dtype=tg.float64))
        tensor([1.0000], dtype=float64)
        """
        toward = coerce(other)
        kinds = [d for d in (self.dtype, getattr(toward, "dtype", None)) if d and d.kind == "f"]
        if not kinds or self.dtype.kind != "f" and not isinstance(toward, TensorBase):
            _floating_only(self, "nextafter")
        want = np.result_type(*kinds)  # (both in it first: a step in float64 is none in float32)
        x = cast("Tensor", self).to(want)
        y = cast("Tensor", toward).to(want) if isinstance(toward, TensorBase) else toward
        return apply(F.nextafter, x, y)

    def ldexp_(self, other: TensorLike) -> Tensor:
        """ldexp in place.

        >>> x = tg.tensor([1.0, 2.0]); x.ldexp_(tg.tensor([1, 1]))
        tensor([2., 4.])
        """
        return unary_(self, "ldexp_", lambda old, o: as_tensor(old).ldexp(o), other)

    def nextafter_(self, other: TensorLike) -> Tensor:
        """nextafter in place.

        >>> x = tg.tensor([0.0]); x.nextafter_(tg.tensor([1.0])) > 0
        tensor([True])
        """
        return unary_(self, "nextafter_", lambda old, o: as_tensor(old).nextafter(o), other)
