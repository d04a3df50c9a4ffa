"""Batching rules: how a primitive runs once for a whole vmap batch (the kinds most primitives
share; rules particular to one primitive sit beside it in its family file).

Layer L1: numpy, registry and the shape family. A rule is called as `rule(level, prim, inputs,
batched, params)`: each input is either batched, with the examples along axis 0, or shared by
every example (`batched` says which; at least one is batched); it returns the output for the whole
batch, examples along axis 0, computed by calling primitives (so it records on Tensors, and nested
vmaps batch it again). An op without a rule is an error naming it (tensor/batched.py).
"""

from __future__ import annotations

from typing import Any, Callable

from .registry import Primitive
from .shape import expand, reshape

BatchRule = Callable[[Any, Primitive, list, list, dict], Any]


def example_ndim(x: Any, batched: bool) -> int:
    """How many axes one example of input x has."""
    n = getattr(x, "ndim", 0)
    return n - 1 if batched else n


def padded(x: Any, batched: bool, ndim: int) -> Any:
    """A batched input with 1s added behind its batch axis up to `ndim` example axes, so that
    broadcasting pairs the batch axis with batch axes only (a shared input broadcasts from the
    right as it is)."""
    n = example_ndim(x, batched)
    if not batched or n == ndim:
        return x
    shape = tuple(x.shape)
    return reshape(x, shape=shape[:1] + (1,) * (ndim - n) + shape[1:])


def stacked(x: Any, batched: bool, size: int) -> Any:
    """An input shared by the batch as one batched along a new axis 0 (a broadcast view)."""
    return x if batched else expand(x, shape=(size,) + tuple(getattr(x, "shape", ())))


def shift(axis: Any, ndim: int) -> Any:
    """One example's axis (or tuple of axes; None: all of them) as the batch's."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(shift(a, ndim) for a in axis)
    return int(axis) % max(ndim, 1) + 1


def reads_batched_params(rule: BatchRule) -> BatchRule:
    """Mark a rule that takes batched values among its parameters (an index, the moments of
    normalize); for the others such a parameter is an error."""
    rule.reads_batched_params = True  # type: ignore[attr-defined]
    return rule


# ---- the kinds ----------------------------------------------------------------------------------
def pointwise(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """Elementwise ops: the batch axis broadcasts like any other (inputs padded to one rank)."""
    ndim = max(example_ndim(x, b) for x, b in zip(inputs, batched))
    return prim(*[padded(x, b, ndim) for x, b in zip(inputs, batched)], **params)


def reduction(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """sum, mean, max, ...: the reduced axes move past the batch axis (None: every example axis)."""
    (x,) = inputs
    return prim(x, **{**params, "axis": shift(params.get("axis"), x.ndim - 1)})


def along_axis(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """cumsum, cumprod: the axis moves past the batch axis (a 0-d example runs on a unit axis)."""
    (x,) = inputs
    if x.ndim == 1:
        out = prim(reshape(x, shape=(level.size, 1)), axis=1)
        return reshape(out, shape=(level.size,))
    return prim(x, axis=shift(params["axis"], x.ndim - 1))


@reads_batched_params
def normalization(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """normalize: its axes move past the batch axis; the moments a caller passed (`stats`, values
    of one example) are computed again for the batch."""
    (x,) = inputs
    rest = {k: v for k, v in params.items() if k not in ("axes", "stats")}
    return prim(x, axes=shift(params["axes"], x.ndim - 1), **rest)


def matrix_product(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """matmul and its transposed forms: the batch axis is one more batch axis of the product."""
    (x, y), (bx, by) = inputs, batched
    if bx and not by and x.ndim == 3 and y.ndim == 2 and prim.name in ("matmul", "matmul_nt"):
        # (one GEMM for the batch's rows: NumPy's matmul would run one per example)
        b, m, k = x.shape
        out = prim(reshape(x, shape=(b * m, k)), y)
        return reshape(out, shape=(b, m, out.shape[-1]))
    ndim = max(example_ndim(x, bx), example_ndim(y, by))
    return prim(padded(x, bx, ndim), padded(y, by, ndim))


def fold_into_n(level: Any, prim: Primitive, inputs: list, batched: list, params: dict) -> Any:
    """Pooling and its backward ops on NCHW arrays: the batch folds into N (a shape parameter
    `input_shape` with it)."""
    size = level.size
    full = [stacked(x, b, size) for x, b in zip(inputs, batched)]
    n = full[0].shape[1]
    folded = [reshape(x, shape=(size * x.shape[1],) + tuple(x.shape[2:])) for x in full]
    if "input_shape" in params:
        shape = params["input_shape"]
        params = {**params, "input_shape": (size * shape[0],) + tuple(shape[1:])}
    out = prim(*folded, **params)
    return reshape(out, shape=(size, n) + tuple(out.shape[1:]))
