"""Fractional max pooling layers: FractionalMaxPool2d and FractionalMaxPool3d, with PyTorch's
signatures, checks, `_random_samples` buffer and repr.

Layer L5: imports tensor.py and the nn package's module and functional_fractional_pool (the math).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .functional_fractional_pool import fractional_max_pool2d, fractional_max_pool3d
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _tuple(value: Any, dims: int) -> Any:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class _FractionalMaxPoolNd(Module):
    """The checks and state both layers share."""

    dims = 2

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        name, dims = type(self).__name__, self.dims
        self.kernel_size = _tuple(kernel_size, dims)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, dims) if output_size is not None else None
        self.output_ratio = _tuple(output_ratio, dims) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max over kH x kW windows at pseudo-random steps, shrinking H and W to output_size or by
    output_ratio (Graham's fractional max pooling).

    >>> tg.nn.FractionalMaxPool2d(3, output_ratio=0.5)(tg.ones(2, 4, 10, 8)).shape
    (2, 4, 5, 4)
    """

    dims = 2

    def forward(self, input: Tensor) -> Any:
        return fractional_max_pool2d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max over kT x kH x kW windows at pseudo-random steps, shrinking T, H and W to output_size
    or by output_ratio.

    >>> tg.nn.FractionalMaxPool3d(2, output_size=(3, 2, 2))(tg.ones(1, 2, 6, 5, 4)).shape
    (1, 2, 3, 2, 2)
    """

    dims = 3

    def forward(self, input: Tensor) -> Any:
        return fractional_max_pool3d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )
