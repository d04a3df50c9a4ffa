"""Lazy layers, PyTorch's: LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d. Their input size (in_features, in_channels,
num_features) is read off the first input: until then the weights are UninitializedParameters
(and a norm's running statistics UninitializedBuffers); the first forward gives them their shapes
and initial values, and the module becomes the ordinary class (`cls_to_become`), as in PyTorch.

Layer L5: imports the nn package's module, parameter and the layer classes. A lazy layer is built
as its ordinary class with an input size of 1 (so the constructor's checks run now), its tensors
then swapped for uninitialized ones; the first forward builds the ordinary layer at the real size
and moves its values into those same tensor objects (an optimizer made before keeps them).
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .group_norms import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .layers import Linear
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .parameter import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin

_MODULE_KEYS: set[str] = set()  # what Module.__init__ sets (the registries, hooks, flags)


class LazyModuleMixin:
    """PyTorch's LazyModuleMixin: a forward pre-hook that, at the first call, infers the input
    size (`initialize_parameters`), materialises the uninitialized tensors and turns the module
    into `cls_to_become`.

    >>> m = tg.nn.LazyLinear(4); _ = m(tg.ones(2, 3)); type(m).__name__, m.weight.shape
    ('Linear', (4, 3))
    """

    cls_to_become: type | None = None
    _inferred = ""  # the constructor argument read off the input ("in_features", ...)

    def _lazy_setup(self, **kwargs: Any) -> None:
        """Build as cls_to_become with an input size that passes its checks, then swap the
        tensors whose shape depends on the input size for uninitialized ones."""
        module: Any = self
        kind: Any = self.cls_to_become
        kind.__init__(module, kwargs.get("groups", 1), **kwargs)
        for name, p in list(module._parameters.items()):
            if p is not None:
                module._parameters[name] = UninitializedParameter(p.requires_grad, dtype=p.dtype)
        for name, b in list(module._buffers.items()):
            if b is not None and b.dtype.kind == "f":
                module._buffers[name] = UninitializedBuffer(dtype=b.dtype)
        setattr(module, self._inferred, 0)
        module._lazy_kwargs = kwargs
        module._initialize_hook = module.register_forward_pre_hook(
            LazyModuleMixin._infer_parameters, with_kwargs=True
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer still waits for its shape.

        >>> tg.nn.LazyLinear(4).has_uninitialized_params()
        True
        """
        module: Any = self
        tensors = [*module._parameters.values(), *module._buffers.values()]
        return any(isinstance(t, UninitializedTensorMixin) for t in tensors)

    def _input_size(self, input: Tensor) -> int:
        """The input size this layer reads off its first input."""
        raise NotImplementedError

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Read the input size off the first input and give every uninitialized tensor its shape
        and the ordinary layer's initial values (PyTorch's reset_parameters).

        >>> m = tg.nn.LazyConv2d(8, 3); m.initialize_parameters(tg.ones(1, 3, 5, 5)); m.in_channels
        3
        """
        if not args or not isinstance(args[0], Tensor):
            raise TypeError(
                f"{type(self).__name__} reads its input size off its first input, a tapegrad "
                f"Tensor; got {type(args[0]).__name__ if args else 'no input'}"
            )
        module: Any = self
        size = self._input_size(args[0])
        kwargs = dict(module._lazy_kwargs)
        weight = next(
            (p for p in module._parameters.values() if isinstance(p, UninitializedTensorMixin)),
            None,
        )
        if weight is not None:
            kwargs["dtype"] = weight.dtype  # (the dtype a .to() before the first call chose)
        kind: Any = self.cls_to_become
        made = kind(size, **kwargs)
        for registry in ("_parameters", "_buffers"):  # (tensors a state_dict filled stay)
            mine, theirs = getattr(module, registry), getattr(made, registry)
            for name, t in theirs.items():
                waiting = mine.get(name)
                if isinstance(waiting, UninitializedTensorMixin) and t is not None:
                    waiting.materialize(t.shape, dtype=t.dtype)
                    ready: Any = waiting  # (now a Parameter or Tensor)
                    ready._data = t._data
        if not _MODULE_KEYS:
            _MODULE_KEYS.update(vars(Module()))
        for key, value in vars(made).items():  # in_channels, the checks' results, ...
            if key not in _MODULE_KEYS:
                module.__dict__[key] = value

    @staticmethod
    def _infer_parameters(module: Any, args: tuple, kwargs: dict | None = None) -> None:
        """The pre-hook: initialize, then become the ordinary class (PyTorch's)."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
        module._initialize_hook.remove()
        for key in ("_initialize_hook", "_lazy_kwargs"):
            module.__dict__.pop(key, None)
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


# ---- Linear -------------------------------------------------------------------------------------
class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last axis of its first input.

    >>> tg.nn.LazyLinear(4)(tg.ones(2, 3)).shape
    (2, 4)
    """

    cls_to_become = Linear
    _inferred = "in_features"

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        self._lazy_setup(out_features=out_features, bias=bias, device=device, dtype=dtype)

    def _input_size(self, input: Tensor) -> int:
        if input.ndim == 0:
            raise RuntimeError(f"{type(self).__name__}: a 0-D input has no feature axis")
        return int(input.shape[-1])


# ---- convolutions --------------------------------------------------------------------------------
class _LazyConv(LazyModuleMixin):
    """in_channels: axis 1 of a batched input, axis 0 of an unbatched one (PyTorch's)."""

    _inferred = "in_channels"
    _spatial = 0

    def _input_size(self, input: Tensor) -> int:
        plain, batched = self._spatial + 1, self._spatial + 2
        if input.ndim not in (plain, batched):
            raise RuntimeError(
                f"Expected {plain}D (unbatched) or {batched}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {list(input.shape)}"
            )
        channels = int(input.shape[1] if input.ndim == batched else input.shape[0])
        if channels % self._lazy_kwargs["groups"] != 0:  # type: ignore[attr-defined]
            raise ValueError("in_channels must be divisible by groups")
        return channels


class _LazyConvNd(_LazyConv):
    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self._lazy_setup(
            out_channels=out_channels,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            groups=groups,
            bias=bias,
            padding_mode=padding_mode,
            device=device,
            dtype=dtype,
        )


class _LazyConvTransposeNd(_LazyConv):
    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        self._lazy_setup(
            out_channels=out_channels,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            output_padding=output_padding,
            groups=groups,
            bias=bias,
            dilation=dilation,
            padding_mode=padding_mode,
            device=device,
            dtype=dtype,
        )


class LazyConv1d(_LazyConvNd, Conv1d):
    """A Conv1d whose in_channels is read off its first input.

    >>> tg.nn.LazyConv1d(4, 3)(tg.ones(2, 5, 8)).shape
    (2, 4, 6)
    """

    cls_to_become = Conv1d
    _spatial = 1


class LazyConv2d(_LazyConvNd, Conv2d):
    """A Conv2d whose in_channels is read off its first input.

    >>> tg.nn.LazyConv2d(4, 3)(tg.ones(2, 5, 8, 8)).shape
    (2, 4, 6, 6)
    """

    cls_to_become = Conv2d
    _spatial = 2


class LazyConv3d(_LazyConvNd, Conv3d):
    """A Conv3d whose in_channels is read off its first input.

    >>> tg.nn.LazyConv3d(4, 3)(tg.ones(1, 2, 5, 5, 5)).shape
    (1, 4, 3, 3, 3)
    """

    cls_to_become = Conv3d
    _spatial = 3


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is read off its first input.

    >>> tg.nn.LazyConvTranspose1d(4, 3)(tg.ones(2, 5, 8)).shape
    (2, 4, 10)
    """

    cls_to_become = ConvTranspose1d
    _spatial = 1


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is read off its first input.

    >>> tg.nn.LazyConvTranspose2d(4, 3)(tg.ones(2, 5, 8, 8)).shape
    (2, 4, 10, 10)
    """

    cls_to_become = ConvTranspose2d
    _spatial = 2


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels is read off its first input.

    >>> tg.nn.LazyConvTranspose3d(4, 3)(tg.ones(1, 2, 3, 3, 3)).shape
    (1, 4, 5, 5, 5)
    """

    cls_to_become = ConvTranspose3d
    _spatial = 3


# ---- normalisation -------------------------------------------------------------------------------
class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features: axis 1 of the first input (PyTorch's, for batch and instance norms alike);
    PyTorch's defaults: affine and running statistics on (also for the instance norms). As
    PyTorch's, a lazy norm is a _BatchNorm or _InstanceNorm, not yet its cls_to_become."""

    _inferred = "num_features"

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        self._lazy_setup(
            eps=eps,
            momentum=momentum,
            affine=affine,
            track_running_stats=track_running_stats,
            device=device,
            dtype=dtype,
            bias=bias,
        )

    def _input_size(self, input: Tensor) -> int:
        if input.ndim < 2:
            raise ValueError(
                f"{type(self).__name__} reads num_features off axis 1 of its first input, which "
                f"is {input.ndim}-D; give it a batch (N, C, ...)"
            )
        return int(input.shape[1])


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose num_features is read off its first input.

    >>> tg.nn.LazyBatchNorm1d()(tg.randn(4, 3)).shape
    (4, 3)
    """

    cls_to_become = BatchNorm1d
    _ranks, _layout = BatchNorm1d._ranks, BatchNorm1d._layout


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose num_features is read off its first input.

    >>> tg.nn.LazyBatchNorm2d()(tg.randn(2, 3, 4, 4)).shape
    (2, 3, 4, 4)
    """

    cls_to_become = BatchNorm2d
    _ranks, _layout = BatchNorm2d._ranks, BatchNorm2d._layout


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose num_features is read off its first input.

    >>> tg.nn.LazyBatchNorm3d()(tg.randn(2, 3, 2, 2, 2)).shape
    (2, 3, 2, 2, 2)
    """

    cls_to_become = BatchNorm3d
    _ranks, _layout = BatchNorm3d._ranks, BatchNorm3d._layout


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm1d whose num_features is read off its first input (affine and running
    statistics on by default, as PyTorch's lazy one).

    >>> tg.nn.LazyInstanceNorm1d()(tg.randn(2, 3, 5)).shape
    (2, 3, 5)
    """

    cls_to_become = InstanceNorm1d
    _batched = InstanceNorm1d._batched


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm2d whose num_features is read off its first input.

    >>> tg.nn.LazyInstanceNorm2d()(tg.randn(2, 3, 4, 4)).shape
    (2, 3, 4, 4)
    """

    cls_to_become = InstanceNorm2d
    _batched = InstanceNorm2d._batched


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An InstanceNorm3d whose num_features is read off its first input.

    >>> tg.nn.LazyInstanceNorm3d()(tg.randn(2, 3, 2, 2, 2)).shape
    (2, 3, 2, 2, 2)
    """

    cls_to_become = InstanceNorm3d
    _batched = InstanceNorm3d._batched


__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "LazyLinear",
    "LazyModuleMixin",
]
