"""torch.nn.utils.fusion: a convolution or Linear followed by batch norm in eval mode, folded
into one layer (fuse_conv_bn_eval, fuse_linear_bn_eval) or into its new weight and bias
(fuse_conv_bn_weights, fuse_linear_bn_weights), as PyTorch computes them.

Layer L5: imports tensor.py, creation's ones_like/zeros_like and the nn module and Parameter.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from ...creation import ones_like, zeros_like
from ...tensor import Tensor
from ..module import Module
from ..parameter import Parameter

ModuleT = TypeVar("ModuleT", bound=Module)


def _check_bn(bn: Any) -> None:
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """(weight, bias) of the convolution that computes bn(conv(x)) with bn's running statistics
    (transpose: a transposed convolution's weight, output channels on axis 1).

    >>> conv, bn = tg.nn.Conv2d(2, 3, 3), tg.nn.BatchNorm2d(3)
    >>> w, b = tg.nn.utils.fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean,
    ...     bn.running_var, bn.eps, bn.weight, bn.bias)
    """
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    rsqrt = (bn_rv + bn_eps).rsqrt()
    rest = [1] * (conv_w.ndim - 2)
    shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(weight_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(bias_dtype)
    return (
        Parameter(fused_w.detach(), requires_grad=conv_w.requires_grad),
        Parameter(fused_b.detach(), requires_grad=conv_b.requires_grad),
    )


def fuse_conv_bn_eval(conv: ModuleT, bn: Module, transpose: bool = False) -> ModuleT:
    """A copy of conv computing bn(conv(x)) (both in eval mode: bn's running statistics).

    >>> fused = tg.nn.utils.fuse_conv_bn_eval(conv.eval(), bn.eval())  # doctest: +SKIP
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    _check_bn(bn)
    layer: Any = fused
    layer.weight, layer.bias = fuse_conv_bn_weights(
        layer.weight,
        layer.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """(weight, bias) of the Linear that computes bn(linear(x)) with bn's running statistics.

    >>> lin, bn = tg.nn.Linear(2, 3), tg.nn.BatchNorm1d(3)
    >>> w, b = tg.nn.utils.fuse_linear_bn_weights(lin.weight, lin.bias, bn.running_mean,
    ...     bn.running_var, bn.eps, bn.weight, bn.bias)
    """
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(bias_dtype)
    return (
        Parameter(fused_w.detach(), requires_grad=linear_w.requires_grad),
        Parameter(fused_b.detach(), requires_grad=linear_b.requires_grad),
    )


def fuse_linear_bn_eval(linear: ModuleT, bn: Module) -> ModuleT:
    """A copy of linear computing bn(linear(x)) (both in eval mode; bn.num_features equal to
    out_features, or 1).

    >>> fused = tg.nn.utils.fuse_linear_bn_eval(lin.eval(), bn.eval())  # doctest: +SKIP
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    layer: Any = fused
    if layer.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            f"To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={layer.out_features} and bn.num_features={bn.num_features}"
        )
    _check_bn(bn)
    layer.weight, layer.bias = fuse_linear_bn_weights(
        layer.weight, layer.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]
