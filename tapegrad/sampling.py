"""Random factories with PyTorch's signatures: randn, rand, randint, randperm, normal, bernoulli,
multinomial and the `*_like` ones. Each draws from `generator=` when given (a tg.Generator), else
from the default generator (tg.manual_seed): see random.py for what reproducible means here.

Layer L4: imports the Tensor class, creation (shapes, the result's dtype and keywords), random,
devices and tg.autograd.Function (the zero gradient of a sample).
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from . import dtypes as _dt
from .autograd.function import Function
from .creation import DTypeLike, Number, Size, finish, shape_of
from .devices import DeviceLike, check_placement, layout as Layout, memory_format as MemoryFormat
from .random import Generator, numpy_generator
from .tensor import Tensor


def _float_dtype(dtype: DTypeLike, who: str) -> np.dtype:
    """The floating dtype a real-valued sampler makes (the default float dtype unless given)."""
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.default_float
    if kind.kind != "f":
        raise TypeError(
            f"{who} samples real numbers: dtype must be a float dtype (tg.float32, ...), got "
            f"{kind}; use tg.randint for integers"
        )
    return kind


def randn(
    *shape: Size,
    size: Sequence[int] | None = None,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    name: str | None = None,
) -> Tensor:
    """Samples of the standard normal distribution: `tg.randn(3, 5, requires_grad=True)`."""
    dims = shape_of(shape, size, "randn")
    kind = _float_dtype(dtype, "randn")
    check_placement("randn", device, layout, pin_memory)
    values = numpy_generator(generator, "randn").standard_normal(dims, dtype=kind)
    return finish(values, None, requires_grad, name, kind)


def rand(
    *shape: Size,
    size: Sequence[int] | None = None,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    name: str | None = None,
) -> Tensor:
    """Samples of the uniform distribution on [0, 1): `tg.rand(2, 3)`."""
    dims = shape_of(shape, size, "rand")
    kind = _float_dtype(dtype, "rand")
    check_placement("rand", device, layout, pin_memory)
    values = numpy_generator(generator, "rand").random(dims, dtype=kind)
    return finish(values, None, requires_grad, name, kind)


def _bound(value: Any, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"randint(): argument '{label}' must be int, not {type(value).__name__} ({value!r})"
        )
    return int(value)


def _integers(
    low: int, high: int, dims: tuple, generator: Any, kind: np.dtype, who: str
) -> np.ndarray:
    """Uniform integers in [low, high), checked to fit `kind` (as PyTorch's random_)."""
    if low >= high:
        raise RuntimeError(
            f"{who}: random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if kind.kind in "iub":
        info: Any = np.iinfo(kind) if kind.kind != "b" else np.iinfo(np.uint8)
        top = 1 if kind.kind == "b" else info.max
        if high - 1 > top:
            raise RuntimeError(f"{who}: to - 1 is out of bounds for {kind} (at most {top})")
        if low < info.min:
            raise RuntimeError(f"{who}: from is out of bounds for {kind} (at least {info.min})")
    return numpy_generator(generator, who).integers(low, high, size=dims)


def randint(
    *args: Any,
    low: int | None = None,
    high: int | None = None,
    size: Sequence[int] | None = None,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    name: str | None = None,
) -> Tensor:
    """Uniform integers in [low, high) (low defaults to 0), int64 unless `dtype` says otherwise;
    both PyTorch forms: `tg.randint(high, size)` and `tg.randint(low, high, size)`.

    >>> tg.randint(0, 10, (2, 3)).shape
    (2, 3)
    """
    given = {"low": low, "high": high, "size": size}
    if len(args) > 3:
        raise TypeError(f"randint() takes (high, size) or (low, high, size), got {len(args)} args")
    # which arguments the positional ones are: PyTorch's two forms, with the rest as keywords
    slots = {
        3: ("low", "high", "size"),
        2: ("low", "high") if size is not None else ("high", "size"),
        1: ("low",) if high is not None else ("high",),
        0: (),
    }[len(args)]
    for label, value in zip(slots, args):
        if given[label] is not None:
            raise TypeError(f"randint() got multiple values for argument '{label}'")
        given[label] = value
    if given["high"] is None or given["size"] is None:
        raise TypeError(
            "randint() needs high and size: tg.randint(high, size) or tg.randint(low, high, "
            "size), e.g. tg.randint(0, 10, (3,))"
        )
    if not isinstance(given["size"], (tuple, list)) and not hasattr(given["size"], "tolist"):
        raise TypeError(
            f"randint(): argument 'size' must be tuple of ints, not "
            f"{type(given['size']).__name__} (write (3,) for a vector of 3)"
        )
    dims = shape_of((given["size"],), None, "randint")
    check_placement("randint", device, layout)
    kind = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
    first = _bound(given["low"] if given["low"] is not None else 0, "low")
    values = _integers(first, _bound(given["high"], "high"), dims, generator, kind, "randint")
    return finish(values, None, requires_grad, name, kind)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    name: str | None = None,
) -> Tensor:
    """A random permutation of 0..n-1 (int64 by default).

    >>> sorted(tg.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"randperm(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"randperm: Trying to create tensor with negative dimension {n}: [{n}]")
    check_placement("randperm", device, layout, pin_memory)
    values = numpy_generator(generator, "randperm").permutation(int(n))
    return finish(values, dtype, requires_grad, name, _dt.int64)


# ---- samplers of a distribution given by tensors: their gradients are zero, as PyTorch's ----


class _Sample(Function):
    """The values a sampler drew, with zero gradients for the tensors that parametrised it (as
    PyTorch's NormalBackward and BernoulliBackward): a sample is not reparametrised; write
    mean + std * tg.randn(...) for that."""

    @staticmethod
    def forward(ctx: Any, sample: np.ndarray, *parameters: Any) -> Tensor:
        ctx.shapes = [np.shape(v) if isinstance(v, Tensor) else None for v in parameters]
        return Tensor(sample)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        zeros = [None if s is None else Tensor(np.zeros(s, g.dtype)) for s in ctx.shapes]
        return (None, *zeros)


class Normal(_Sample):
    """normal's node: NormalBackward, whose gradients are zeros."""


class Bernoulli(_Sample):
    """bernoulli's node: BernoulliBackward, whose gradients are zeros."""


def _sampled(function: type, sample: np.ndarray, parameters: tuple, requires_grad: bool) -> Tensor:
    if any(isinstance(p, Tensor) and p.requires_grad for p in parameters):
        return function.apply(sample, *parameters)  # type: ignore[attr-defined]
    return Tensor(sample, requires_grad=requires_grad)


def normal(
    mean: Number,
    std: Number = 1.0,
    size: Sequence[int] | None = None,
    *,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    name: str | None = None,
) -> Tensor:
    """Samples of N(mean, std^2), with torch.normal's overloads: `normal(mean_tensor,
    std_tensor)` (broadcast shapes), `normal(mean_tensor, std=1.0)`, `normal(mean, std_tensor)`,
    `normal(mean, std, size)` (numbers and a shape).

    >>> tg.normal(0.0, 1.0, (2, 3)).shape
    (2, 3)
    """
    check_placement("normal", device, layout, pin_memory)
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    for label, v in (("mean", mean), ("std", std)):
        if not isinstance(v, (Tensor, int, float, np.integer, np.floating)) or isinstance(v, bool):
            raise TypeError(f"normal: {label} must be a tensor or a number, got {v!r}")
        if isinstance(v, Tensor) and v.dtype.kind != "f":
            raise TypeError(f"normal: {label} must be a floating-point tensor, got {v.dtype}")
    if tensors and size is not None:
        raise TypeError(
            "normal: size= goes with float mean and std only; with a tensor mean or std the "
            "output takes their (broadcast) shape"
        )
    if not tensors and size is None:
        raise TypeError(
            "normal(mean, std) with two numbers needs a size: tg.normal(0.0, 1.0, (2, 3)), "
            "or pass a tensor mean/std"
        )
    m = mean.numpy() if isinstance(mean, Tensor) else mean
    s = std.numpy() if isinstance(std, Tensor) else std
    if np.any(np.asarray(s) < 0):
        raise ValueError("normal expects all elements of std >= 0.0")
    try:
        dims = (
            shape_of((size,), None, "normal")
            if size is not None
            else np.broadcast_shapes(np.shape(m), np.shape(s))
        )
    except ValueError:
        raise RuntimeError(
            f"normal: the shapes of mean {np.shape(m)} and std {np.shape(s)} do not broadcast"
        ) from None
    if dtype is None:
        kind = np.result_type(*(t.dtype for t in tensors)) if tensors else _dt.default_float
    else:
        kind = _dt.as_dtype(dtype)
    sample = _normal_sample(m, s, dims, kind, numpy_generator(generator, "normal"))
    out = _sampled(Normal, sample, (mean, std), requires_grad)
    if name is not None:
        out.name = name
    return out


def bernoulli(
    input: Tensor, p: float | None = None, *, generator: Generator | None = None
) -> Tensor:
    """0 or 1 at each position, 1 with probability input (or `p` everywhere), of input's dtype.

    >>> tg.bernoulli(tg.full((3,), 0.5)).shape
    (3,)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype.kind != "f":
        raise TypeError(
            f"bernoulli: input must hold floating-point probabilities, got {input.dtype}"
        )
    chance = input.numpy() if p is None else np.full(input.shape, float(p))
    if not np.all((chance >= 0) & (chance <= 1)):  # (NaN fails both)
        raise RuntimeError(
            "bernoulli: every probability must be in [0, 1] (p_in >= 0 && p_in <= 1)"
        )
    drawn = numpy_generator(generator, "bernoulli").bernoulli(chance, input.shape)
    return _sampled(Bernoulli, drawn.astype(input.dtype), (input,), False)


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Indices drawn from the categories of each row of `input` (weights, not necessarily summing
    to 1), int64, shaped (num_samples,) for a vector and (rows, num_samples) for a matrix. Without
    replacement each category is drawn at most once.

    >>> tg.multinomial(tg.tensor([0.1, 0.0, 0.9]), 2, replacement=True).shape
    (2,)
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"multinomial(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if input.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got {input.ndim} dims")
    if input.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {input.dtype}"
        )
    try:
        if isinstance(num_samples, bool):
            raise TypeError
        count = operator.index(num_samples)
    except TypeError:
        raise TypeError(f"multinomial: num_samples must be an int, got {num_samples!r}") from None
    if count <= 0:
        raise RuntimeError(f"multinomial: cannot sample n_sample <= 0 samples (got {count})")
    weights = np.atleast_2d(input.numpy())
    if not replacement and count > weights.shape[1]:
        raise RuntimeError(
            f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without "
            f"replacement ({count} > {weights.shape[1]}); pass replacement=True to draw with "
            f"replacement"
        )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise RuntimeError(
            "multinomial: probability tensor contains either `inf`, `nan` or element < 0"
        )
    if np.any(weights.sum(axis=1) <= 0):
        raise RuntimeError(
            "multinomial: invalid multinomial distribution (sum of probabilities <= 0)"
        )
    draws = numpy_generator(generator, "multinomial")
    if replacement and count > 1:
        drawn = _with_replacement(weights, count, draws)
    else:
        drawn = _exponential_race(weights, count, draws)
    return Tensor(drawn if input.ndim == 2 else drawn[0])


def _normal_sample(mean: Any, std: Any, dims: tuple, kind: np.dtype, draws: Any) -> np.ndarray:
    """torch.normal's values, as PyTorch computes each overload: numbers fill by
    normal_(mean, std); a tensor mean with a number std is normal_(0, std) then + mean; a tensor
    std is normal_(0, 1) * std + mean (each step in the output's dtype)."""
    mean_is_array, std_is_array = isinstance(mean, np.ndarray), isinstance(std, np.ndarray)
    if not mean_is_array and not std_is_array:
        return draws.normal(float(mean), float(std), dims, dtype=kind)
    if not std_is_array:
        sample = draws.normal(0.0, float(std), dims, dtype=kind)
    else:
        sample = draws.normal(0.0, 1.0, dims, dtype=kind) * std.astype(kind)
    return (sample + np.asarray(mean, kind)).astype(kind)


def _with_replacement(weights: np.ndarray, count: int, draws: Any) -> np.ndarray:
    """PyTorch's sampler with replacement: per row, the cumulative weights (summed in the
    weights' dtype, one after another) over their total, the last set to 1; each draw is a 53-bit
    uniform u and the first category whose cumulative weight is not below u (rows in order)."""
    rows, n = weights.shape
    cdf = np.cumsum(weights, axis=1, dtype=weights.dtype)
    cdf = (cdf / cdf[:, -1:]).astype(np.float64)
    cdf[:, -1] = 1.0
    u = draws.random((rows, count), dtype=np.float64)
    found = [np.searchsorted(cdf[r], u[r], side="left") for r in range(rows)]
    return np.minimum(np.array(found, np.int64).reshape(rows, count), n - 1)


def _exponential_race(weights: np.ndarray, count: int, draws: Any) -> np.ndarray:
    """PyTorch's sampler without replacement (and of one sample): q ~ Exp(1) in the weights'
    dtype, then the categories of the `count` largest w / q, largest first (argmax for one)."""
    q = draws.exponential_rate(1.0, weights.shape, dtype=weights.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (weights / q).astype(weights.dtype)
    if count == 1:
        return np.argmax(score, axis=1)[:, None].astype(np.int64)
    return np.argsort(-score, axis=1, kind="stable")[:, :count].astype(np.int64)


# ---- the *_like samplers -----------------------------------------------------------------------


def _like_shape(input: Any, who: str, placement: dict) -> tuple[tuple, np.dtype]:
    source = input if isinstance(input, Tensor) else Tensor(input)
    check_placement(who, ndim=source.ndim, **placement)
    return source.shape, source.dtype


def rand_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """Uniform [0, 1) samples shaped like `input`, of its dtype: `tg.rand_like(x)`."""
    dims, own = _like_shape(
        input, "rand_like", dict(device=device, layout=layout, memory_format=memory_format)
    )
    kind = _float_dtype(dtype if dtype is not None else own, "rand_like")
    values = numpy_generator(generator, "rand_like").random(dims, dtype=kind)
    return finish(values, None, requires_grad, name, kind)


def randn_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """Standard normal samples shaped like `input`, of its dtype: `tg.randn_like(x)`."""
    dims, own = _like_shape(
        input, "randn_like", dict(device=device, layout=layout, memory_format=memory_format)
    )
    kind = _float_dtype(dtype if dtype is not None else own, "randn_like")
    values = numpy_generator(generator, "randn_like").standard_normal(dims, dtype=kind)
    return finish(values, None, requires_grad, name, kind)


def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    generator: Generator | None = None,
    dtype: DTypeLike = None,
    layout: Layout | None = None,
    device: DeviceLike = None,
    requires_grad: bool = False,
    memory_format: MemoryFormat | None = None,
    name: str | None = None,
) -> Tensor:
    """Uniform integers in [low, high) shaped like `input`, of its dtype: `tg.randint_like(x, 10)`
    (one bound is `high`, as PyTorch)."""
    if high is None:
        low, high = 0, low
    dims, own = _like_shape(
        input, "randint_like", dict(device=device, layout=layout, memory_format=memory_format)
    )
    kind = _dt.as_dtype(dtype) if dtype is not None else own
    first, last = _bound(low, "low"), _bound(high, "high")
    values = _integers(first, last, dims, generator, kind, "randint_like")
    return finish(values, None, requires_grad, name, kind)


__all__ = [
    "bernoulli",
    "multinomial",
    "normal",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
]
