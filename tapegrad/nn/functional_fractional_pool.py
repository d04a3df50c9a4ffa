"""Fractional max pooling (Graham, 2014): fractional_max_pool2d / 3d and their _with_indices forms.

Along each pooled axis of n entries pooled to o windows of k, PyTorch's interval sequence places
window i at int((i + u) * a) - int(u * a), a = (n - k) / (o - 1), the last at n - k, for one
sample u in [0, 1) per plane and axis (computed in the input's dtype, as PyTorch's kernel does),
so the same `_random_samples` give PyTorch's windows exactly; without them the samples are drawn
from tapegrad's generator (tg.manual_seed). Each window's maximum is PyTorch's pick (the first
maximum in row-major order, or the last NaN); the result is a gather of the input at the
winners, so the gradient reaches exactly those elements, to any order.

Layer L5: imports tensor.py, tapegrad's generator, composite marks and pool_winners' pick.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..random import numpy_generator
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_arguments import tensor_argument
from .pool_winners import flat_source, winner

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def intervals(sample: np.ndarray, n: int, out: int, k: int, dtype: Any) -> np.ndarray:
    """(planes, out) window starts along one axis: PyTorch's generate_intervals for each plane's
    sample, in `dtype`'s arithmetic.

    >>> intervals(np.array([0.5]), 10, 4, 3, np.float64)
    array([[0, 2, 4, 7]])
    """
    u = sample.astype(dtype)[:, None]
    starts = np.zeros((len(sample), out), np.int64)
    if out > 1:
        alpha = dtype(n - k) / dtype(out - 1)
        i = np.arange(out - 1).astype(dtype)
        starts[:, :-1] = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out > 0:
        starts[:, -1] = n - k
    return starts


def _sizes(value: Any, dims: int, name: str, fn: str) -> tuple:
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
    if len(items) != dims or not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
    ):
        what = "tuple of Ints" if dims == 2 else "tuple of three Ints"
        raise RuntimeError(f"{fn}: {name} must either be a single Int or {what}")
    return tuple(int(v) for v in items)


def _output_size(x: Tensor, output_size: Any, output_ratio: Any, dims: int, fn: str) -> tuple:
    """The pooled sizes, given or as int(n * ratio) (PyTorch's)."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _sizes(output_size, dims, "output_size", fn)
    ratios = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,)
    if len(ratios) == 1:
        ratios *= dims
    if len(ratios) != dims:
        raise ValueError(f"{fn} requires output_ratio to either be a single Int or tuple of Ints.")
    return tuple(int(n * r) for n, r in zip(x.shape[-dims:], ratios))


def _samples(x: Tensor, samples: Any, batch: int, dims: int, fn: str) -> np.ndarray:
    """(batch, C, dims) samples in [0, 1): the given ones, checked as PyTorch checks them, or
    drawn from tapegrad's generator."""
    channels = x.shape[-dims - 1]
    if samples is None:
        return numpy_generator(None, fn).random((batch, channels, dims)).astype(x.dtype)
    u = tensor_argument(samples, fn)
    if u.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if u.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {u.ndim}")
    if u.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if u.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if u.shape[2] != dims:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {dims}; got {u.shape[2]}.")
    return u.numpy()[:batch]


def _checked(x: Tensor, kernel: tuple, outs: tuple, dims: int, fn: str) -> None:
    """PyTorch's checks of the input's rank and sizes against the pool (3-D: the windows must
    leave room to move, as PyTorch's kernel requires)."""
    fn = fn if dims == 2 else f"{fn}_out"
    if x.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{fn}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(x.shape)}"
        )
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"{fn} is not implemented for {x.dtype}: the input must be floating point (e.g. "
            f"x.to(tg.float32))"
        )
    first = x.ndim - dims - 1
    for axis in range(first, x.ndim):
        if x.shape[axis] == 0:
            raise RuntimeError(
                f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"got{list(x.shape)} with dimension {axis} being empty."
            )
    if any(k < 1 for k in kernel):  # (PyTorch pools empty windows to -inf)
        raise RuntimeError(f"{fn}(): kernel_size must be positive, got {kernel}")
    if any(o < 0 for o in outs):
        raise RuntimeError(f"{fn}(): output_size must be non-negative, got {outs}")
    for name, n, k, o in zip(_AXES[dims], x.shape[-dims:], kernel, outs):
        if o + k - 1 > n or (dims == 3 and o + k - 1 == n):
            raise RuntimeError(f"{fn}(): pool {name} {k} too large relative to input {name} {n}")


def _winners(values: np.ndarray, starts: list, kernel: tuple) -> np.ndarray:
    """(B, *outs) flat index over the pooled axes of each window's maximum; `values` is
    (B, *spatial), starts[a] is (B, outs[a])."""
    batch, spatial = values.shape[0], values.shape[1:]
    dims = len(spatial)
    flat: np.ndarray = np.zeros((batch,) + (1,) * (2 * dims), np.int64)
    for a in range(dims):
        positions = starts[a][:, :, None] + np.arange(kernel[a])  # (B, o_a, k_a)
        shape = [batch] + [1] * (2 * dims)
        shape[1 + a], shape[1 + dims + a] = positions.shape[1], kernel[a]
        flat = flat * spatial[a] + positions.reshape(shape)
    outs = flat.shape[1 : 1 + dims]
    flat = flat.reshape(batch, math.prod(outs), math.prod(kernel))
    rows = values.reshape(batch, math.prod(spatial))
    keys = np.take_along_axis(rows, flat.reshape(batch, math.prod(flat.shape[1:])), 1).reshape(
        flat.shape
    )
    pick = winner(keys, -1)[..., None]
    return np.take_along_axis(flat, pick, -1).reshape((batch,) + outs)


def fractional_max_pool_nd(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    _random_samples: Any = None,
    *,
    dims: int,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling over the last `dims` axes: (values, int64 indices flat over them).

    >>> out, idx = fractional_max_pool_nd(tg.ones(1, 1, 5, 5), 2, 3, dims=2)
    >>> out.shape, idx.dtype
    ((1, 1, 3, 3), dtype('int64'))
    """
    fn = f"fractional_max_pool{dims}d"
    x = tensor_argument(input, fn)
    kernel = _sizes(kernel_size, dims, "kernel_size", fn)
    if x.ndim < dims + 1:  # (PyTorch reads the channel count first)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{x.ndim}, {x.ndim - 1}], but "
            f"got {-dims - 1})"
        )
    outs = _output_size(x, output_size, output_ratio, dims, fn)
    _checked(x, kernel, outs, dims, fn)
    batched = x.ndim == dims + 2
    xb = x if batched else x.unsqueeze(0)
    spatial = xb.shape[2:]
    samples = _samples(x, _random_samples, xb.shape[0], dims, fn)
    planes = samples.reshape(-1, dims)  # (one row per (n, c) plane)
    # (PyTorch's sample order: 2-D (W, H), 3-D (T, H, W))
    order = (1, 0) if dims == 2 else (0, 1, 2)
    starts = [
        intervals(planes[:, order[a]], spatial[a], outs[a], kernel[a], x.dtype.type)
        for a in range(dims)
    ]
    values = xb.numpy().reshape((-1,) + spatial)
    indices = _winners(values, starts, kernel).reshape(xb.shape[:2] + outs)
    lead = xb.shape[:2]
    picked = xb.reshape(*lead, math.prod(spatial)).gather(
        -1, indices.reshape(*lead, math.prod(outs))
    )
    out = picked.reshape(*lead, *outs)
    if not batched:
        out, indices = out.squeeze(0), indices[0]
    out = mark(
        out,
        fn,
        ("x",),
        (x,),
        {"source": lambda: flat_source(indices, x.shape[-dims:])},
    )
    return out, Tensor(indices)


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool2d's values and their indices (flat over H*W), always both.

    >>> out, idx = F.fractional_max_pool2d_with_indices(tg.ones(1, 1, 5, 5), 2, 3)
    >>> idx.shape
    (1, 1, 3, 3)
    """
    return fractional_max_pool_nd(
        input, kernel_size, output_size, output_ratio, _random_samples, dims=2
    )


def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Max over kH x kW windows at pseudo-random steps, so H and W shrink by any ratio
    (output_size or output_ratio); `_random_samples` (N, C, 2) fix the steps (PyTorch's).

    >>> x = tg.arange(25.0).reshape(1, 1, 5, 5)
    >>> F.fractional_max_pool2d(x, 2, 2, _random_samples=tg.tensor([[[0.5, 0.5]]]))
    tensor([[[[ 6.,  9.],
              [21., 24.]]]])
    """
    out, indices = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return (out, indices) if return_indices else out


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """fractional_max_pool3d's values and their indices (flat over T*H*W), always both.

    >>> out, idx = F.fractional_max_pool3d_with_indices(tg.ones(1, 1, 4, 4, 4), 2, 2)
    >>> idx.shape
    (1, 1, 2, 2, 2)
    """
    return fractional_max_pool_nd(
        input, kernel_size, output_size, output_ratio, _random_samples, dims=3
    )


def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Max over kT x kH x kW windows at pseudo-random steps (output_size or output_ratio);
    `_random_samples` (N, C, 3) fix the steps (PyTorch's).

    >>> F.fractional_max_pool3d(tg.ones(1, 1, 4, 4, 4), 2, output_ratio=0.5).shape
    (1, 1, 2, 2, 2)
    """
    out, indices = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return (out, indices) if return_indices else out
