"""Normalisation layers (PyTorch's signatures, parameters and buffers): BatchNorm1d, BatchNorm2d
and LayerNorm. Each keeps its state and calls its functional form.

Layer L5: imports tensor.py, dtypes, tg.autograd.no_grad and the nn package's module, parameter,
init and functional_norm (where the math lives).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import dtypes as _dt
from ..autograd import no_grad
from ..tensor import Tensor
from . import init as _init
from .functional_norm import batch_norm, check_batch_norm_input, check_layer_norm_input
from .functional_norm import layer_norm, normalized_shape_tuple
from .module import Module
from .parameter import Parameter


def _float_dtype(dtype: Any) -> np.dtype:
    return _dt.as_dtype(dtype) if dtype is not None else _dt.default_float


def positive_int(value: Any, name: str, who: str) -> int:
    """value as an int if it is a positive integer (bools refused), else a clear error naming who.

    >>> positive_int(3, "num_groups", "GroupNorm")
    3
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{who}: {name} must be an int, got {value!r}")
    if value <= 0:
        raise ValueError(f"{who}: {name} must be positive, got {value}")
    return int(value)


class _AffineNorm(Module):
    """What the normalisation layers share: weight (ones) and bias (zeros) of one shape, None
    where the layer is not affine or has no bias, and reset_parameters for them."""

    def _affine_parameters(
        self, shape: tuple[int, ...], affine: bool, bias: bool | None, dtype: Any
    ) -> None:
        # bias None: the layer has no bias slot at all (RMSNorm, as PyTorch's)
        dtype = _float_dtype(dtype)
        self.register_parameter("weight", Parameter(np.ones(shape, dtype)) if affine else None)
        if bias is not None:
            self.register_parameter(
                "bias", Parameter(np.zeros(shape, dtype)) if affine and bias else None
            )

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0 (PyTorch's initial state), those the layer has."""
        if self.weight is not None:
            _init.ones_(self.weight)
        if getattr(self, "bias", None) is not None:
            _init.zeros_(self.bias)


class _NormBase(_AffineNorm):
    """PyTorch's base of the batch and instance norms: weight (ones) and bias (zeros) if affine;
    buffers running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0) if
    track_running_stats; their resets and repr."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = positive_int(num_features, "num_features", type(self).__name__)
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        shape = (self.num_features,)
        self._affine_parameters(shape, affine, bias, dtype)
        dtype = _float_dtype(dtype)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(shape, dtype)))
            self.register_buffer("running_var", Tensor(np.ones(shape, dtype)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.to(device=device)  # (only the CPU exists: anything else is a clear error)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """reset_running_stats(), weight 1 and bias 0 (PyTorch's initial state)."""
        self.reset_running_stats()
        super().reset_parameters()

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class _BatchNorm(_NormBase):
    """Shared by BatchNorm1d/2d/3d: batch statistics while training (the running ones updated),
    the running ones in eval(); an input of a rank in _ranks."""

    _ranks: tuple = ()
    _layout = ""

    def forward(self, input: Tensor) -> Tensor:
        name = type(self).__name__
        if not isinstance(input, Tensor) or input.ndim not in self._ranks:
            got = (
                f"{input.ndim}D input of shape {input.shape}"
                if isinstance(input, Tensor)
                else (type(input).__name__)
            )
            ranks = " or ".join(f"{r}D" for r in self._ranks)
            raise ValueError(f"{name}: expected {ranks} input {self._layout}, got {got}")
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        check_batch_norm_input(input, self.num_features, use_batch_stats, name)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average: the mean of all batches
                factor = 1.0 / float(self.num_batches_tracked.item())
        keep = not self.training or self.track_running_stats  # else the buffers must not change
        return batch_norm(
            input,
            self.running_mean if keep else None,
            self.running_var if keep else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Normalise each channel over the batch (and length): input (N, C) or (N, C, L). In train()
    mode with batch statistics, updating running_mean/running_var by `momentum` (None: the
    cumulative average); in eval() mode with the running statistics.

    >>> bn = tg.nn.BatchNorm1d(2); bn(tg.tensor([[1.0, 2.0], [3.0, 6.0]]))
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]], grad_fn=<AddBackward>)
    """

    _ranks = (2, 3)
    _layout = "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Normalise each channel of (N, C, H, W) images over the batch and the pixels; running
    statistics as BatchNorm1d's.

    >>> tg.nn.BatchNorm2d(3)(tg.randn(4, 3, 5, 5)).shape
    (4, 3, 5, 5)
    """

    _ranks = (4,)
    _layout = "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    """Normalise each channel of (N, C, D, H, W) volumes over the batch and the voxels; running
    statistics as BatchNorm1d's.

    >>> tg.nn.BatchNorm3d(3)(tg.randn(2, 3, 2, 4, 4)).shape
    (2, 3, 2, 4, 4)
    """

    _ranks = (5,)
    _layout = "(N, C, D, H, W)"


class LayerNorm(_AffineNorm):
    """Normalise each sample over its last len(normalized_shape) dimensions, then scale by weight
    (ones) and shift by bias (zeros), both of shape normalized_shape (if elementwise_affine).

    >>> tg.nn.LayerNorm(2)(tg.tensor([[1.0, 3.0]]))
    tensor([[-1.0000,  1.0000]], grad_fn=<AddBackward>)
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = normalized_shape_tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self._affine_parameters(self.normalized_shape, elementwise_affine, bias, dtype)
        self.to(device=device)

    def forward(self, input: Tensor) -> Tensor:
        check_layer_norm_input(input, self.normalized_shape, "LayerNorm")
        params = self._parameters  # (read there, not by a failed lookup first: see Dense.forward)
        if "weight" in params and "bias" in params:
            weight, bias = params["weight"], params["bias"]
            return layer_norm(input, self.normalized_shape, weight, bias, self.eps)
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )
