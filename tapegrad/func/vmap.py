"""vmap: a function of one example run on a batch, by batching rules (one vectorised call per op).

Layer L5: the Tensor layer (BatchedTensor), the L0 state and this package's pytrees and
randomness. `vmap(f)(xs)` starts a level: each batched input becomes a BatchedTensor (its batch
moved to axis 0), f runs once, every op it makes runs by its primitive's batching rule
(tensor/batched.py), and each output's batch axis goes where out_axes says. Nested vmaps are
levels inside levels; differentiation inside (tg.grad) records at the level it runs in.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import numpy as np

from .._state import pop_vmap_level, push_vmap_level, state
from ..primitives.batched_array import Level
from ..tensor import Tensor
from ..tensor.batched import batched, is_batched_at, level_of, physical
from . import randomness as random_ops
from .pytree import PrefixError, broadcast_prefix, flatten, unflatten

F = TypeVar("F", bound=Callable[..., Any])
RANDOMNESS = ("error", "different", "same")


def vmap(
    fn: F,
    in_axes: Any = 0,
    out_axes: Any = 0,
    *,
    randomness: str = "error",
    chunk_size: int | None = None,
) -> F:
    """`fn` of one example, run on a batch: inputs batched along `in_axes` (per argument: an int,
    None for unbatched, or nested tuples/lists/dicts of them), outputs' batch axes at `out_axes`
    (JAX's names; keyword arguments are never batched).

    >>> tg.vmap(lambda x, w: x @ w, in_axes=(0, None))(tg.ones(5, 3), tg.ones(3, 2)).shape
    (5, 2)
    """
    return _vmap(fn, in_axes, out_axes, randomness, chunk_size, ("in_axes", "out_axes"))


def _vmap(
    fn: Any, in_axes: Any, out_axes: Any, randomness: str, chunk_size: Any, names: tuple
) -> Any:
    if not callable(fn):
        raise TypeError(f"vmap: fn must be callable, got {type(fn).__name__}")
    if randomness not in RANDOMNESS:
        raise RuntimeError(
            f"vmap: randomness must be 'error', 'different' or 'same', got {randomness!r}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0, got {chunk_size!r}")

    @functools.wraps(fn)
    def batched_fn(*args: Any, **kwargs: Any) -> Any:
        what = f"vmap({_name(fn)}, {names[0]}={in_axes!r}, ...)(<inputs>)"
        leaves, spec, axes, size = _inputs(args, in_axes, what, names[0])
        run = functools.partial(_run, fn, spec, kwargs, out_axes, randomness, names[1])
        if chunk_size is None or chunk_size >= size:
            return run(leaves, axes, size)
        return _chunked(run, leaves, axes, size, chunk_size, out_axes, randomness)

    return batched_fn


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _inputs(args: tuple, in_axes: Any, what: str, name: str) -> tuple:
    """The inputs' leaves, their batch axes (None: unbatched) and the batch size, checked."""
    if not isinstance(in_axes, (int, tuple)) or isinstance(in_axes, bool):
        raise ValueError(
            f"{what}: expected `{name}` to be an int or a (potentially nested) tuple matching "
            f"the structure of the inputs, got {type(in_axes).__name__}"
        )
    if not args:
        raise ValueError(
            f"{what}: got no inputs; vmap maps over the inputs of the function, which needs at "
            f"least one"
        )
    leaves, spec = flatten(args)
    try:
        axes = broadcast_prefix(in_axes, spec)
    except PrefixError as e:
        raise ValueError(
            f"{what}: {name} is not compatible with the structure of the inputs: {name} has "
            f"structure {flatten(in_axes)[1]!r} but the inputs have {spec!r} ({e})"
        ) from None
    sizes = []
    for i, (leaf, axis) in enumerate(zip(leaves, axes)):
        if axis is None:
            continue
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise ValueError(f"{what}: {name} entries must be ints or None, got {axis!r}")
        if isinstance(leaf, np.ndarray):
            leaves[i] = leaf = Tensor(leaf)
        if not isinstance(leaf, Tensor):
            raise ValueError(
                f"{what}: got {name[:-1]}={axis} for an input of type {type(leaf).__name__}; vmap "
                f"maps over tensors only: give None as that input's {name[:-1]}"
            )
        n = leaf.ndim
        if not -n <= axis < n:
            raise ValueError(
                f"{what}: got {name[:-1]}={axis} for an input of {n} dimension(s) (shape "
                f"{list(leaf.shape)}), so it must satisfy {-n} <= {name[:-1]} < {n}"
            )
        sizes.append(leaf.shape[axis])
    if not sizes:
        raise ValueError(f"{what}: expected at least one tensor to vmap over ({name} all None)")
    if len(set(sizes)) > 1:
        raise ValueError(
            f"vmap: expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return leaves, spec, axes, sizes[0]


def _run(
    fn: Any,
    spec: Any,
    kwargs: dict,
    out_axes: Any,
    randomness: str,
    out_name: str,
    leaves: list,
    axes: list,
    size: int,
) -> Any:
    """One level: fn on BatchedTensors; its outputs as tensors of the whole batch."""
    level = Level(len(state.vmap_levels) + 1, size, randomness)
    push_vmap_level(level)
    random_ops.enter()
    try:
        inputs = [
            leaf if axis is None else batched(_moved(leaf, int(axis), 0), level)
            for leaf, axis in zip(leaves, axes)
        ]
        out = fn(*unflatten(spec, inputs), **kwargs)
        return _outputs(out, out_axes, level, fn, out_name)
    finally:
        level.active = False
        random_ops.leave()
        pop_vmap_level()


def _moved(t: Tensor, source: int, destination: int) -> Tensor:
    """t with axis `source` moved to `destination` (a view)."""
    n = t.ndim
    source, destination = source % n, destination % n
    if source == destination:
        return t
    order = [i for i in range(n) if i != source]
    order.insert(destination, source)
    return t.permute(*order)


def _outputs(out: Any, out_axes: Any, level: Level, fn: Any, name: str) -> Any:
    what = f"vmap({_name(fn)}, ..., {name}={out_axes!r})(<inputs>)"
    leaves, spec = flatten(out)
    try:
        axes = broadcast_prefix(out_axes, spec)
    except PrefixError as e:
        raise ValueError(
            f"{what}: {name} is not compatible with the structure of the outputs: {name} has "
            f"structure {flatten(out_axes)[1]!r} but the outputs have {spec!r} ({e})"
        ) from None
    return unflatten(spec, [_output(x, a, level, what, name) for x, a in zip(leaves, axes)])


def _output(x: Any, axis: Any, level: Level, what: str, name: str) -> Any:
    """One output of the vmapped function as a tensor of the whole batch (batch at `axis`)."""
    if axis is None:
        if is_batched_at(x, level):
            raise ValueError(f"{what}: an output is batched but its {name[:-1]} is None")
        return physical(x) if level_of(x) is level else x
    if not isinstance(x, Tensor):
        raise ValueError(
            f"{what}: the function must only return tensors, got {type(x).__name__}; give "
            f"{name[:-1]}=None for an output that is not a tensor"
        )
    own = level_of(x)
    if own is not None and not own.active:
        raise RuntimeError("vmap: an output comes from a vmap that already returned")
    if own is level:
        whole = physical(x)
        if not level_values_batched(x):  # (the batch shares it: one copy per example, as a view)
            whole = whole.expand(level.size, *whole.shape)
    else:
        whole = x.expand(level.size, *x.shape)
    n = whole.ndim
    if not isinstance(axis, (int, np.integer)) or not -n <= axis < n:
        raise IndexError(
            f"{what}: {name[:-1]}={axis!r} is out of range for an output of {n} dimension(s) "
            f"(batch included): expected {-n} <= {name[:-1]} < {n}"
        )
    return _moved(whole, 0, int(axis))


def level_values_batched(x: Tensor) -> bool:
    """Whether a tensor of a vmap level holds one value per example (else one the batch shares)."""
    values: Any = x._data
    return bool(values.batched)


def _chunked(
    run: Callable, leaves: list, axes: list, size: int, chunk: int, out_axes: Any, how: str
) -> Any:
    """vmap over the batch `chunk` examples at a time (a loop over chunks, each vectorised), the
    outputs concatenated; randomness='same' draws the same numbers for every chunk."""
    from ..math import concatenate  # (L5 -> L4)

    saved = random_ops.generator_state() if how == "same" else None
    results, specs = [], flatten(None)[1]
    for start in range(0, size, chunk):
        stop = min(start + chunk, size)
        part = [
            leaf if axis is None else _narrowed(leaf, int(axis), start, stop)
            for leaf, axis in zip(leaves, axes)
        ]
        if saved is not None:
            random_ops.set_generator_state(saved)
        flat, specs = flatten(run(part, axes, stop - start))
        results.append(flat)
    flat_axes = broadcast_prefix(out_axes, specs)
    joined = []
    for i, axis in enumerate(flat_axes):
        pieces = [r[i] for r in results]
        joined.append(pieces[0] if axis is None else concatenate(pieces, axis=int(axis)))
    return unflatten(specs, joined)


def _narrowed(t: Tensor, axis: int, start: int, stop: int) -> Tensor:
    index = [slice(None)] * t.ndim
    index[axis] = slice(start, stop)
    return t[tuple(index)]
