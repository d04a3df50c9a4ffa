"""Layers: Dense (MindSpore) and Linear (PyTorch), Dropout, Flatten, Identity.

Layer L5: imports tensor.py, dtypes and the nn package's parameter, module, init, activation and
functional. All math is tapegrad ops, so every layer is recorded on the tape.
"""

from __future__ import annotations

import math
import types
from typing import Any, Callable, TypeVar, cast

import numpy as np

from .. import dtypes as _dt
from .. import primitives as P
from ..tensor import Tensor, apply
from . import init as _init
from .activation import ReLU, Sigmoid, Tanh
from .functional import dropout, linear
from .module import Module
from .parameter import Parameter

_F = TypeVar("_F", bound=Callable[..., Any])


def _method_named(function: _F, owner: str) -> _F:
    """`function` (a method) as a copy whose name in tracebacks and errors is owner's."""
    copy = types.FunctionType(
        function.__code__, function.__globals__, function.__name__, function.__defaults__
    )
    copy.__qualname__, copy.__doc__ = f"{owner}.{function.__name__}", function.__doc__
    copy.__annotations__ = dict(function.__annotations__)
    copy.__module__ = function.__module__
    return cast(_F, copy)


class Identity(Module):
    """Returns its input (a placeholder layer); any constructor arguments are ignored, as PyTorch.

    >>> tg.nn.Identity(54, unused="x")(tg.ones(2))
    tensor([1., 1.])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Flatten(Module):
    """Flatten axes start_dim..end_dim into one (the default keeps the batch axis: (N, -1))."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _DropoutNd(Module):
    """PyTorch's base of the dropout layers (Dropout, Dropout1d/2d/3d, AlphaDropout,
    FeatureAlphaDropout): p checked and kept with inplace, and their repr. None of them is a
    Dropout, as in PyTorch."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(
                f"dropout probability has to be between 0 and 1 (p in [0, 1]), but got {p!r}"
            )
        self.p, self.inplace = float(p), inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """While training, zero each element with probability p and scale the rest by 1/(1-p) (so the
    expected value is unchanged); in eval() mode, the identity. Draws from tg.manual_seed's
    generator.

    >>> drop = tg.nn.Dropout(0.5).eval(); drop(tg.ones(3))
    tensor([1., 1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout(input, self.p, self.training, self.inplace)


class _Lambda(Module):
    """A plain function used as a layer (e.g. Dense(..., activation=tg.tanh))."""

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, input: Tensor) -> Tensor:
        return self.fn(input)

    def extra_repr(self) -> str:
        return getattr(self.fn, "__name__", repr(self.fn))


_ACTIVATIONS = {"relu": ReLU, "tanh": Tanh, "sigmoid": Sigmoid}


def _activation(activation: Any) -> Module | None:
    """Dense's `activation`: None, a name ('relu', 'tanh', 'sigmoid'), a Module or a callable."""
    if activation is None or isinstance(activation, Module):
        return activation
    if isinstance(activation, str):
        if activation.lower() not in _ACTIVATIONS:
            raise ValueError(
                f"unknown activation {activation!r}; use one of {sorted(_ACTIVATIONS)}, "
                f"a Module or None"
            )
        return _ACTIVATIONS[activation.lower()]()
    if callable(activation):
        return _Lambda(activation)
    raise TypeError(
        f"activation must be a name, a Module, a callable or None, got {type(activation).__name__}"
    )


class Dense(Module):
    """y = activation(x @ weight.T + bias), weight of shape (out_channels, in_channels) (MindSpore).

    Default init as MindSpore 2.x (and PyTorch's Linear): weight HeUniform(sqrt(5)), i.e.
    U(-1/sqrt(in), 1/sqrt(in)), bias U(-1/sqrt(in), 1/sqrt(in)). MindSpore's weight_init/bias_init
    are keyword-only here; they take a name ('normal', 'zeros', ...), a number or values.

    >>> fc = tg.nn.Dense(3, 1, has_bias=False); fc(tg.ones(2, 3)).shape
    (2, 1)
    """

    _sizes = ("in_channels", "out_channels")  # (what errors call the sizes: Linear's differ)
    _empty_allowed = False  # (MindSpore checks for positive sizes; PyTorch builds empty layers)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        has_bias: bool = True,
        activation: Any = None,
        *,
        weight_init: Any = None,
        bias_init: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        least = 0 if self._empty_allowed else 1
        for name, n in zip(self._sizes, (in_channels, out_channels)):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
                raise TypeError(f"{type(self).__name__}: {name} must be an int, got {n!r}")
            if n < least:
                kind = "a non-negative" if least == 0 else "a positive"
                error = RuntimeError if least == 0 else TypeError  # (PyTorch's type; MindSpore's)
                raise error(f"{type(self).__name__}: {name} must be {kind} int, got {n!r}")
        if not isinstance(has_bias, bool):
            raise TypeError(
                f"has_bias must be a bool, got {type(has_bias).__name__}; MindSpore's positional "
                f"weight_init/bias_init are keyword-only here (Dense(3, 1, weight_init='normal'))"
            )
        dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
        self.in_channels, self.out_channels, self.has_bias = (
            int(in_channels),
            int(out_channels),
            has_bias,
        )
        self.weight = Parameter(np.empty((out_channels, in_channels), dtype))
        if weight_init is None:
            self._default_weight()
        else:
            _init.initialize(self.weight, weight_init)
        if has_bias:
            self.bias = Parameter(np.empty((out_channels,), dtype))
            if bias_init is None:
                self._default_bias()
            else:
                _init.initialize(self.bias, bias_init)
        else:
            self.register_parameter("bias", None)
        self.activation = _activation(activation)

    def reset_parameters(self) -> None:
        """Draw the default init again (PyTorch's Linear.reset_parameters): weight
        kaiming_uniform_(a=sqrt(5)), i.e. U(+-1/sqrt(in)), and bias U(+-1/sqrt(in)).

        >>> tg.nn.Linear(3, 2).reset_parameters()
        """
        self._default_weight()
        if self.bias is not None:
            self._default_bias()

    def _default_weight(self) -> None:
        _init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # (an empty one: a warning, as torch)

    def _default_bias(self) -> None:
        fan_in = self.weight.shape[1]
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        _init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        """input @ weight.T + bias, then the activation if the layer has one (MindSpore's Dense).

        >>> tg.nn.Dense(3, 2, activation="relu")(tg.ones(4, 3)).shape
        (4, 2)
        """
        params = self._parameters
        weight, bias = params.get("weight"), params.get("bias")
        if input.__class__ is Tensor and weight is not None and bias is not None:
            data = input._data
            if data.ndim == 2 and data.shape[1] == self.in_channels:
                # (a batch of rows, the layer's own parameters: F.linear's last line without its
                # checks and frame, which cost a model call ~1% of a 784-512-512-10 MLP step)
                y = apply(P.fused.linear, input, weight, bias)
                return y if self.activation is None else self.activation(y)
        shape = input.shape if isinstance(input, Tensor) else np.shape(input)
        if not shape or shape[-1] != self.in_channels:
            size = self._sizes[0]
            raise ValueError(
                f"{type(self).__name__} expects inputs whose last axis has size {self.in_channels} "
                f"(its {size}), got shape {tuple(shape)}; reshape the input or build the layer "
                f"with {size}={shape[-1] if shape else '...'}"
            )
        # (the registry read directly: `self.weight` is found only after a failed lookup, which
        # raises and catches an AttributeError inside Python, ~4,000 instructions)
        if "weight" in params and "bias" in params:
            y = linear(input, params["weight"], params["bias"])
        else:  # (a name bound to a plain attribute instead, as weight-norm style code does)
            y = linear(input, self.weight, self.bias)
        return self.activation(y) if self.activation is not None else y

    def extra_repr(self) -> str:
        return (
            f"in_channels={self.in_channels}, out_channels={self.out_channels}, "
            f"has_bias={self.has_bias}"
        )


class Linear(Dense):
    """PyTorch's y = x @ weight.T + bias, weight (out_features, in_features); same init as Dense.

    >>> tg.nn.Linear(3, 2)(tg.ones(4, 3)).shape
    (4, 2)
    """

    _sizes = ("in_features", "out_features")
    _empty_allowed = True  # (Linear(0, n): an empty weight, output the bias, as PyTorch's)

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(in_features, out_features, has_bias=bool(bias), dtype=dtype)
        self.in_features, self.out_features = self.in_channels, self.out_channels
        self.to(device=device)  # (only the CPU exists: anything else is a clear error)

    # Dense's forward under Linear's name (errors say Linear.forward, as PyTorch's), not a method
    # of its own calling it: that frame would cost every layer of every model a Python call
    forward = _method_named(Dense.forward, "Linear")

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.has_bias}"
        )
