"""What every masked operation shares: the canonical mask, the identity that fills masked-out
elements, and the canonical dims (torch.masked._ops' _input_mask, _reduction_identity,
_canonical_dim, with their error types).

Layer L4: on the Tensor layer's where and broadcast_to; masked-out elements are replaced by the
operation's identity, so every masked function is recorded (its gradient zero where masked out).
"""

from __future__ import annotations

import math
from typing import Any, Sequence, Union

import numpy as np

from .. import dtypes
from ..math import broadcast_to, where
from ..tensor import Tensor
from ..tensor.coerce import as_tensor

DimOrDims = Union[int, Sequence[int], None]


def resolve_dtype(dtype: Any, default: np.dtype) -> np.dtype:
    """The dtype= argument as a NumPy dtype (default when None)."""
    return default if dtype is None else dtypes.as_dtype(dtype)


def input_mask(input: Tensor, mask: Any) -> Tensor:
    """mask broadcast to input's shape, as bool (IndexError when it has more dims, as torch's)."""
    m = as_tensor(mask)
    if tuple(m.shape) != tuple(input.shape):
        if m.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of "
                "the input)"
            )
        try:
            np.broadcast_shapes(tuple(m.shape), tuple(input.shape))
        except ValueError:
            raise RuntimeError(
                f"masked: the mask of shape {list(m.shape)} does not broadcast to the input's "
                f"shape {list(input.shape)}; give a mask of the input's shape or one that "
                "broadcasts to it"
            ) from None
        m = broadcast_to(m, tuple(input.shape))
    return m.detach().to(dtype=dtypes.bool_)


def identity(op: str, input: Tensor, ord: float | None = None) -> float | int | None:
    """The value that leaves op's result unchanged (None when there is none, as torch's)."""
    dt = np.dtype(input.dtype)
    floating = dt.kind == "f"
    if op in {"sum", "cumsum"}:
        return 0
    if op in {"prod", "cumprod"}:
        return 1
    if op in {"amax", "argmax", "logaddexp", "logsumexp"}:
        if floating:
            return -math.inf
        if dt.kind == "i" or dt == np.uint8:
            return int(np.iinfo(dt).min)
    elif op in {"amin", "argmin"}:
        if floating:
            return math.inf
        if dt.kind == "i" or dt == np.uint8:
            return int(np.iinfo(dt).max)
    elif op == "norm":
        if ord == -math.inf:
            if not floating:
                raise AssertionError(f"input must be floating point, got {dt}")
            return math.inf
        return 0
    elif op == "median":
        return math.nan
    raise NotImplementedError(f"identity of {op} on {dt} input")


def combine(op: str, input: Tensor, mask: Any, ord: float | None = None) -> Tensor:
    """input with its masked-out elements replaced by op's identity (input itself without mask)."""
    if mask is None:
        return input
    m = input_mask(input, mask)
    fill = as_tensor(np.asarray(identity(op, input, ord), dtype=input.dtype))
    return where(m, input, fill)


def canonical_dim(dim: DimOrDims, ndim: int) -> tuple[int, ...]:
    """dim as a sorted tuple of non-negative dims (None and () mean all), checked as torch's."""
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    given = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    dims: list[int] = []
    for d in given:
        d = int(d)
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
                f"got {d})"
            )
        if d % ndim in dims:  # ((1, -1): torch's reduction then refuses the repeated dim)
            raise RuntimeError(f"dim {d % ndim} appears multiple times in the list of dims")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def check_strided(input: Tensor, name: str) -> None:
    """Refuse a sparse input as torch refuses other layouts (tapegrad's tensors are strided)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"masked {name}(): input must be a Tensor, got {type(input).__name__}")
