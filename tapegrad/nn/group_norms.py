"""Normalisation layers over parts of each sample (PyTorch's signatures, parameters, buffers and
reprs): GroupNorm, InstanceNorm1d/2d, RMSNorm and LocalResponseNorm. Each keeps its state and
calls its functional form.

Layer L5: imports tensor/ and the nn package's module, functional_arguments, normalization (the
affine parameters every normalisation layer shares; InstanceNorm's parameters and buffers are
BatchNorm's) and functional_group_norm (the math).
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from ..tensor import Tensor
from .functional_arguments import tensor_argument
from .functional_group_norm import group_norm, instance_norm, local_response_norm, rms_norm
from .functional_norm import check_layer_norm_input, normalized_shape_tuple
from .module import Module
from .normalization import _AffineNorm, _NormBase, positive_int


class GroupNorm(_AffineNorm):
    """Normalise each of num_groups groups of channels of each sample (input (N, C, ...)), then
    scale by weight (ones) and shift by bias (zeros), both (num_channels,) if affine.

    >>> tg.nn.GroupNorm(2, 4)(tg.tensor([[1.0, 3.0, 0.0, 4.0]]))
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]], grad_fn=<AddBackward>)
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_groups = positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = positive_int(num_channels, "num_channels", "GroupNorm")
        if self.num_channels % self.num_groups:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.eps, self.affine = eps, affine
        self._affine_parameters((self.num_channels,), affine, bias, dtype)
        self.to(device=device)

    def forward(self, input: Tensor) -> Tensor:
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class _InstanceNorm(_NormBase):
    """Shared by InstanceNorm1d/2d/3d: batch norm's parameters and buffers (_NormBase, as
    PyTorch's; not a _BatchNorm), other defaults (no affine, no running statistics) and
    per-sample statistics; an unbatched input is one sample."""

    _batched = 0  # the rank of a batched input

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def forward(self, input: Tensor) -> Tensor:
        name = type(self).__name__
        tensor_argument(input, name)
        if input.ndim not in (self._batched - 1, self._batched):
            raise ValueError(
                f"{name}: expected {self._batched - 1}D or {self._batched}D input (got "
                f"{input.ndim}D input of shape {input.shape})"
            )
        unbatched = input.ndim == self._batched - 1
        axis = 0 if unbatched else 1
        if input.shape[axis] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={axis} to match num_features "
                    f"({self.num_features}), but got: {input.shape[axis]}."
                )
            warnings.warn(
                f"input's size at dim={axis} does not match num_features. You can silence this "
                f"warning by not passing in num_features, which is not used because affine=False",
                UserWarning,
                stacklevel=2,
            )
        x = input.unsqueeze(0) if unbatched else input
        use_input_stats = self.training or not self.track_running_stats
        # (as PyTorch's: num_batches_tracked is never counted, and momentum None means 0)
        factor = 0.0 if self.momentum is None else self.momentum
        out = instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            use_input_stats,
            factor,
            self.eps,
        )
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Normalise each channel of each sample over its length: input (N, C, L) or (C, L).

    >>> tg.nn.InstanceNorm1d(2)(tg.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
    """

    _batched = 3


class InstanceNorm2d(_InstanceNorm):
    """Normalise each channel of each image over its pixels: input (N, C, H, W) or (C, H, W).

    >>> tg.nn.InstanceNorm2d(3)(tg.randn(2, 3, 4, 4)).shape
    (2, 3, 4, 4)
    """

    _batched = 4


class InstanceNorm3d(_InstanceNorm):
    """Normalise each channel of each volume over its voxels: input (N, C, D, H, W) or (C, D, H, W).

    >>> tg.nn.InstanceNorm3d(3)(tg.randn(2, 3, 2, 4, 4)).shape
    (2, 3, 2, 4, 4)
    """

    _batched = 5


class RMSNorm(_AffineNorm):
    """x / sqrt(mean(x ** 2) + eps) * weight over the last len(normalized_shape) axes; weight
    (ones, of normalized_shape) if elementwise_affine; eps None: the dtype's machine epsilon.

    >>> tg.nn.RMSNorm(2, eps=0.0)(tg.tensor([[3.0, 4.0]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward>)
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.normalized_shape = normalized_shape_tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self._affine_parameters(self.normalized_shape, elementwise_affine, None, dtype)
        self.to(device=device)

    def forward(self, input: Tensor) -> Tensor:
        check_layer_norm_input(input, self.normalized_shape, "RMSNorm")
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class LocalResponseNorm(Module):
    """x / (k + alpha * avg(x ** 2 over `size` neighbouring channels)) ** beta, over axis 1.

    >>> tg.nn.LocalResponseNorm(2)(tg.ones(1, 3, 4)).shape
    (1, 3, 4)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
