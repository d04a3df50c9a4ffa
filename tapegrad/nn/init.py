"""Weight initialisation (PyTorch's nn.init names, MindSpore's initializer names): fill a tensor
in place from tapegrad's generator.

Layer L5: imports tensor.py, random (the default generator: tg.manual_seed makes layers
reproducible) and the tape's grad mode. Every helper writes through `_fill`, off the tape.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable, TypeVar, cast

import numpy as np

from ..random import Generator, numpy_generator
from .._state import no_grad
from ..tensor import Tensor


_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def _tensor_first(fn: _Fn) -> _Fn:
    """Every initialiser takes the tensor to fill first: say so clearly when it is not one."""

    @functools.wraps(fn)
    def checked(tensor: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"{fn.__name__} takes a tapegrad Tensor (e.g. layer.weight), got "
                f"{type(tensor).__name__}"
            )
        return fn(tensor, *args, **kwargs)

    return cast(_Fn, checked)


def _fill(tensor: Tensor, values: Any) -> Tensor:
    """Write values into tensor in place, unrecorded (and version-bumped, via copy_)."""
    with no_grad():
        tensor.copy_(np.asarray(values, dtype=tensor.dtype))
    return tensor


@_tensor_first
def calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel), as PyTorch computes them."""
    if tensor.ndim < 2:
        raise ValueError(
            f"fan in and fan out need a tensor with at least 2 dimensions, got shape "
            f"{tensor.shape}; use uniform_/normal_/zeros_ for biases"
        )
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (linear, sigmoid, tanh, relu, leaky_relu)."""
    if nonlinearity in ("linear", "sigmoid", "identity"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(
        f"unknown nonlinearity {nonlinearity!r}; use linear, sigmoid, tanh, relu or leaky_relu"
    )


@_tensor_first
def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with U(a, b) (from `generator`, else the default generator), as PyTorch's
    `tensor.uniform_(a, b)`: the same numbers after the same seed.

    >>> init.uniform_(tg.empty(2, 3), -0.1, 0.1).shape
    (2, 3)
    """
    with no_grad():
        tensor.uniform_(a, b, generator=generator)
    return tensor


@_tensor_first
def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with N(mean, std^2) (from `generator`, else the default generator), as PyTorch's
    `tensor.normal_(mean, std)`.

    >>> init.normal_(tg.empty(2, 3), 0.0, 0.02).shape
    (2, 3)
    """
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
    return tensor


@_tensor_first
def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with `val`."""
    return _fill(tensor, np.full(tensor.shape, val))


@_tensor_first
def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    return constant_(tensor, 0.0)


@_tensor_first
def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return constant_(tensor, 1.0)


@_tensor_first
def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Glorot: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # (rounded as PyTorch rounds it)
    return uniform_(tensor, -bound, bound, generator)


@_tensor_first
def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He: U(-b, b) with b = gain * sqrt(3 / fan). a=sqrt(5) is the Linear/Dense default
    (b = 1/sqrt(fan_in))."""
    if _no_elements(tensor):
        return tensor
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan = calculate_fan_in_and_fan_out(tensor)[0 if mode == "fan_in" else 1]
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std  # (rounded as PyTorch rounds it)
    return uniform_(tensor, -bound, bound, generator)


def _no_elements(tensor: Tensor) -> bool:
    """Whether tensor is empty, warning as PyTorch's Kaiming inits do (they leave it as it is:
    an empty Linear(0, n) has no fan to divide by)."""
    if tensor.numel():
        return False
    warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=4)
    return True


@_tensor_first
def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


@_tensor_first
def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He: N(0, std^2) with std = gain / sqrt(fan)."""
    if _no_elements(tensor):
        return tensor
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan = calculate_fan_in_and_fan_out(tensor)[0 if mode == "fan_in" else 1]
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


@_tensor_first
def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """N(mean, std^2) restricted to [a, b], drawn as PyTorch 2.13 draws it: when [a, b] holds
    more than 30% of the mass, normal samples with every one outside redrawn (a whole tensor of
    draws a round); otherwise uniform candidates on [a, b] accepted with probability
    pdf / peak (rejected ones redrawn the same way).

    >>> bool((init.trunc_normal_(tg.empty(50), 0.0, 1.0, -0.5, 0.5).abs() <= 0.5).all())
    True
    """
    if not a < b:
        raise ValueError(f"trunc_normal_ needs a < b, got a={a}, b={b}")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
            "values may be incorrect.",
            stacklevel=3,
        )
    values = _truncated_normal(
        numpy_generator(generator), tensor.shape, tensor.dtype, mean, std, a, b
    )
    return _fill(tensor, values)


def _cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _truncated_normal(
    draws: Any, shape: tuple, kind: np.dtype, mean: float, std: float, a: float, b: float
) -> np.ndarray:
    """trunc_normal_'s values (see there), each step in the tensor's dtype as PyTorch's."""
    one = kind.type
    if _cdf((b - mean) / std) - _cdf((a - mean) / std) > 0.3:
        low, high = one(a), one(b)
        result = draws.normal(mean, std, shape, dtype=kind)
        while True:
            outside = (result < low) | (result > high)
            if not outside.any():
                return result
            result = np.where(outside, draws.normal(mean, std, shape, dtype=kind), result)
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_pdf(candidates: np.ndarray) -> np.ndarray:  # -(((c - mean) / std)^2) / 2 - log_peak
        scaled = (candidates - one(mean)) / one(std)
        return (scaled * scaled) * one(-0.5) - one(log_peak)

    def rejected(candidates: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(draws.uniform(0.0, 1.0, shape, dtype=kind)) > log_pdf(candidates)

    result = draws.uniform(a, b, shape, dtype=kind)
    pending = rejected(result)
    while pending.any():
        candidates = draws.uniform(a, b, shape, dtype=kind)
        result = np.where(pending, candidates, result)
        pending = np.where(pending, rejected(candidates), pending)
    return result


@_tensor_first
def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (2-D tensors only)."""
    if tensor.ndim != 2:
        raise ValueError(f"eye_ fills 2-D tensors only, got shape {tensor.shape}")
    rows, cols = tensor.shape
    return _fill(tensor, np.eye(rows, cols))


@_tensor_first
def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """A (semi-)orthogonal matrix (trailing axes flattened), times gain."""
    if tensor.ndim < 2:
        raise ValueError(f"orthogonal_ needs at least 2 dimensions, got shape {tensor.shape}")
    rows = tensor.shape[0]
    cols = tensor.size // rows
    flat = numpy_generator(generator).normal(0.0, 1.0, (rows, cols), dtype=tensor.dtype)
    q, r = np.linalg.qr(flat.T if rows < cols else flat)
    q = q * np.sign(np.diag(r))  # a unique (Haar-distributed) choice of signs
    return _fill(tensor, gain * (q.T if rows < cols else q).reshape(tensor.shape))


# MindSpore's initializer names (weight_init="normal" etc., looked up lower-cased as MindSpore
# does, so "HeUniform" and "truncatedNormal" work) -> how to fill, with MindSpore's defaults.
_BY_NAME = {
    "zeros": zeros_,
    "zero": zeros_,
    "ones": ones_,
    "one": ones_,
    "normal": lambda t: normal_(t, 0.0, 0.01),  # MindSpore Normal(sigma=0.01)
    "uniform": lambda t: uniform_(t, -0.07, 0.07),  # MindSpore Uniform(scale=0.07)
    "truncatednormal": lambda t: trunc_normal_(t, 0.0, 0.01, -0.02, 0.02),  # sigma=0.01, 2 sigma
    "xavier_uniform": xavier_uniform_,
    "xavieruniform": xavier_uniform_,
    "xavier_normal": xavier_normal_,
    "xaviernormal": xavier_normal_,
    "he_uniform": lambda t: kaiming_uniform_(t, 0.0, nonlinearity="relu"),  # negative_slope=0
    "heuniform": lambda t: kaiming_uniform_(t, 0.0, nonlinearity="relu"),
    "he_normal": lambda t: kaiming_normal_(t, 0.0, nonlinearity="relu"),
    "henormal": lambda t: kaiming_normal_(t, 0.0, nonlinearity="relu"),
    "identity": eye_,
    "orthogonal": orthogonal_,
}


def initialize(tensor: Tensor, init: Any) -> Tensor:
    """Fill `tensor` from an init spec: a MindSpore initializer name ('normal', 'zeros',
    'he_uniform', 'XavierNormal', 'truncatedNormal', ...), a callable, a number or values.

    >>> tg.nn.init.initialize(tg.zeros(2), "ones")
    tensor([1., 1.])
    """
    if isinstance(init, str):
        key = init.lower()
        if key not in _BY_NAME:
            raise ValueError(
                f"unknown initializer {init!r}; use one of {sorted(_BY_NAME)}, a number or values"
            )
        return _BY_NAME[key](tensor)
    if callable(init):
        init(tensor)
        return tensor
    values = np.asarray(init.numpy() if isinstance(init, Tensor) else init)
    if values.ndim and values.shape != tensor.shape:
        raise ValueError(
            f"initial values have shape {values.shape}, but the parameter has shape {tensor.shape}"
        )
    return _fill(tensor, np.broadcast_to(values, tensor.shape))
