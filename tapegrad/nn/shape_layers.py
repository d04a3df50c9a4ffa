"""Layers that change a tensor's shape and learn nothing: the padding layers (ZeroPad1d/2d/3d,
ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, CircularPad1d/2d/3d, each
F.pad with one mode) and Unflatten. PyTorch's signatures, padding order (left, right, top,
bottom, front, back) and reprs.

Layer L5: imports tensor.py and the nn package's module and functional (F.pad).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..tensor import Tensor
from .functional import pad
from .functional_arguments import tensor_argument
from .module import Module


class _PadNd(Module):
    """Shared by the padding layers: `padding` an int (every side) or a tuple of 2 * dims ints.
    (PyTorch has no such class: its bases are _ConstantPadNd, _ReflectionPadNd,
    _ReplicationPadNd and _CircularPadNd, below.)"""

    dims = 1
    mode = "constant"

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        name, sides = type(self).__name__, 2 * self.dims
        items = (padding,) * sides if isinstance(padding, (int, np.integer)) else tuple(padding)
        if len(items) != sides or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
        ):
            raise TypeError(
                f"{name}: padding must be an int or a tuple of {sides} ints, got {padding!r}"
            )
        self.padding = tuple(int(v) for v in items)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last axis with `value`: padding (left, right) or one int for both.

    >>> tg.nn.ConstantPad1d((1, 2), 3.5)(tg.zeros(1, 2))
    tensor([[3.5000, 0.0000, 0.0000, 3.5000, 3.5000]])
    """

    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two axes with `value`: padding (left, right, top, bottom) or one int.

    >>> tg.nn.ConstantPad2d(1, 0.0)(tg.ones(1, 2, 2)).shape
    (1, 4, 4)
    """

    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three axes with `value`: padding (left, right, top, bottom, front, back) or
    one int.

    >>> tg.nn.ConstantPad3d(1, 0.0)(tg.ones(1, 2, 2, 2)).shape
    (1, 4, 4, 4)
    """

    dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last axis with zeros: padding (left, right) or one int for both.

    >>> tg.nn.ZeroPad1d((0, 1))(tg.ones(1, 2))
    tensor([[1., 1., 0.]])
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two axes with zeros: padding (left, right, top, bottom) or one int.

    >>> tg.nn.ZeroPad2d((1, 0, 0, 1))(tg.ones(1, 1, 2, 2)).shape
    (1, 1, 3, 3)
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three axes with zeros: padding (left, right, top, bottom, front, back) or one
    int.

    >>> tg.nn.ZeroPad3d((1, 0, 0, 0, 0, 1))(tg.ones(1, 1, 2, 2, 2)).shape
    (1, 1, 3, 2, 3)
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    """PyTorch's base of ReflectionPad1d/2d/3d (isinstance checks)."""

    mode = "reflect"


class _ReplicationPadNd(_PadNd):
    """PyTorch's base of ReplicationPad1d/2d/3d."""

    mode = "replicate"


class _CircularPadNd(_PadNd):
    """PyTorch's base of CircularPad1d/2d/3d."""

    mode = "circular"


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last axis with its mirror image (the edge not repeated).

    >>> tg.nn.ReflectionPad1d(2)(tg.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """

    dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last two axes with their mirror images (left, right, top, bottom).

    >>> tg.nn.ReflectionPad2d(1)(tg.ones(1, 1, 3, 3)).shape
    (1, 1, 5, 5)
    """

    dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pad the last three axes with their mirror images (left, right, top, bottom, front, back).

    >>> tg.nn.ReflectionPad3d(1)(tg.ones(1, 1, 3, 3, 3)).shape
    (1, 1, 5, 5, 5)
    """

    dims = 3


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last axis by repeating its edge values.

    >>> tg.nn.ReplicationPad1d((1, 2))(tg.tensor([[1.0, 2.0]]))
    tensor([[1., 1., 2., 2., 2.]])
    """

    dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last two axes by repeating their edge values (left, right, top, bottom).

    >>> tg.nn.ReplicationPad2d(1)(tg.ones(1, 1, 2, 2)).shape
    (1, 1, 4, 4)
    """

    dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pad the last three axes by repeating their edge values.

    >>> tg.nn.ReplicationPad3d(1)(tg.ones(1, 1, 2, 2, 2)).shape
    (1, 1, 4, 4, 4)
    """

    dims = 3


class CircularPad1d(_CircularPadNd):
    """Pad the last axis with values from its other end, as if it wrapped around.

    >>> tg.nn.CircularPad1d((1, 2))(tg.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1., 2.]])
    """

    dims = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two axes with values from their other ends (left, right, top, bottom).

    >>> tg.nn.CircularPad2d(1)(tg.ones(1, 1, 2, 2)).shape
    (1, 1, 4, 4)
    """

    dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three axes with values from their other ends.

    >>> tg.nn.CircularPad3d(1)(tg.ones(1, 1, 2, 2, 2)).shape
    (1, 1, 4, 4, 4)
    """

    dims = 3


class Unflatten(Module):
    """Split axis `dim` into unflattened_size (Flatten's inverse; one size may be -1).

    >>> tg.nn.Unflatten(1, (2, 3))(tg.ones(4, 6)).shape
    (4, 2, 3)
    """

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if isinstance(dim, str):
            raise TypeError("Unflatten: named dimensions are not supported in tapegrad; use an int")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in unflattened_size
        ):
            raise TypeError(
                f"unflattened_size must be tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        self.dim, self.unflattened_size = int(dim), unflattened_size  # (kept as given: its repr)

    def forward(self, input: Tensor) -> Tensor:
        tensor_argument(input, "Unflatten")
        dim = self.dim + input.ndim if self.dim < 0 else self.dim
        if not 0 <= dim < input.ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-input.ndim}, "
                f"{input.ndim - 1}], but got {self.dim})"
            )
        sizes, n = [int(s) for s in self.unflattened_size], input.shape[dim]
        known = math.prod(s for s in sizes if s != -1)
        if sizes.count(-1) > 1 or (
            known * (n // known if known else 0) != n if -1 in sizes else known != n
        ):
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim "
                f"{self.dim} ({n}) in the input tensor"
            )
        shape: Any = input.shape[:dim] + tuple(sizes) + input.shape[dim + 1 :]
        return input.reshape(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
