"""Activation checkpointing (PyTorch's torch.utils.checkpoint): a segment of the forward keeps
only its inputs on the tape and is run again in backward, trading compute for memory.

Layer L5: tg.autograd (Function, grad), random (the default generator). `checkpoint(fn, *args)`
runs fn once recording, to find every tensor outside it that its result depends on (its arguments
and the parameters it reads), then drops that recording and puts ONE node on the tape, with
those tensors as its inputs. Its backward runs fn again (random numbers replayed) and takes the
gradients of that run: recorded when the backward is (create_graph), so higher orders hold.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, Iterable

import numpy as np

from ..random import numpy_generator
from .._state import enable_grad, state
from ..autograd.function import Function
from ..autograd.functions import grad as tape_grad
from ..func.pytree import flatten, unflatten
from ..tape.node import Node
from ..tensor import Tensor


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = False,
    context_fn: Callable[[], tuple[Any, Any]] | None = None,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """`function(*args, **kwargs)`, keeping only its inputs for backward, which runs it again:
    the same gradients (to any order) for less memory. `preserve_rng_state=False` (a keyword, as
    PyTorch's) skips replaying the random numbers.

    >>> layer = tg.nn.Linear(3, 3); x = tg.randn(2, 3, requires_grad=True)
    >>> tg.utils.checkpoint.checkpoint(layer, x).sum().backward()
    """
    preserve_rng_state = bool(kwargs.pop("preserve_rng_state", True))
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    if use_reentrant is None:
        warnings.warn(
            "tg.utils.checkpoint: pass use_reentrant explicitly (as PyTorch asks); tapegrad has "
            "one implementation, which supports tg.autograd.grad either way",
            UserWarning,
            stacklevel=2,
        )
    outer, inner = context_fn() if context_fn is not None else (_nothing(), _nothing())
    if not state.enabled or state.vmap_levels:  # (nothing recorded: nothing to save; inside vmap
        with outer:  # the batch's tape is kept as it is: the same values and gradients)
            return function(*args, **kwargs)
    rng = _rng_state() if preserve_rng_state else None
    start = _next_node_seq()
    with outer:
        out = function(*args, **kwargs)
    outs, spec = flatten(out)
    inputs = _inputs_reached(outs, start, args, kwargs)
    segment = _Segment(function, args, kwargs, inputs, outs, rng, inner, determinism_check)
    results = _Recompute.apply(segment, *inputs) if inputs else tuple(outs)
    results = results if isinstance(results, tuple) else (results,)
    return unflatten(spec, list(results))


def _nothing() -> Any:
    return contextlib.nullcontext()


def _rng_state() -> Any:
    gen = numpy_generator()
    return getattr(gen, "inner", gen).bit_generator.state


def _set_rng_state(saved: Any) -> None:
    gen = numpy_generator()
    getattr(gen, "inner", gen).bit_generator.state = saved


def _next_node_seq() -> int:
    """Where the tape is now: every node recorded from here on has a `seq` at least this."""
    probe = Tensor(np.zeros(()), requires_grad=True)
    return (probe * 1.0)._grad_fn.seq + 1  # (a recorded op: its node is there)


def _inputs_reached(outs: list, start: int, args: tuple, kwargs: dict) -> list:
    """The tensors from outside the segment its outputs depend on: its tensor arguments that
    require grad, and every leaf it reached (parameters). A tensor computed outside that is not
    an argument cannot be run again from: a clear error."""
    given = [t for t in flatten((args, kwargs))[0] if isinstance(t, Tensor) and t.requires_grad]
    by_node = {id(t._grad_fn): t for t in given if t._grad_fn is not None}
    found: dict = {id(t): t for t in given}
    seen: set = set()
    stack = [o._grad_fn for o in outs if isinstance(o, Tensor) and o._grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.seq < start:  # (recorded before the segment: it must be an argument's)
            if id(node) not in by_node:
                raise RuntimeError(
                    "checkpoint: the function uses a tensor computed outside it (and requiring "
                    "grad) that is not one of its arguments, so backward cannot run it again "
                    "from its inputs; pass that tensor as an argument"
                )
            continue
        for e in node.edges:
            if e.__class__ is Node:
                stack.append(e)
            elif e is not None:
                found.setdefault(id(e), e)  # a leaf: an argument or a parameter
    return list(found.values())


class _Segment:
    """What a checkpointed call needs in backward to run again."""

    def __init__(
        self,
        function: Callable,
        args: tuple,
        kwargs: dict,
        inputs: list,
        outs: list,
        rng: Any,
        context: Any,
        check: str,
    ) -> None:
        self.function, self.args, self.kwargs, self.rng, self.context = (
            function,
            args,
            kwargs,
            rng,
            context,
        )
        self.inputs = inputs
        self.outputs = [o.detach() if isinstance(o, Tensor) else o for o in outs]
        self.shapes = [tuple(o.shape) if isinstance(o, Tensor) else None for o in outs]
        self.check = check


class _Recompute(Function):
    """The tape's node of a checkpointed segment: forward hands over the values computed,
    backward runs the segment again and differentiates that run."""

    @staticmethod
    def forward(ctx: Any, segment: _Segment, *inputs: Tensor) -> Any:
        ctx.segment = segment
        ctx.save_for_backward(*inputs)
        outs = tuple(segment.outputs)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        segment: _Segment = ctx.segment
        saved = ctx.saved_tensors  # (on the tape when this backward is recorded)
        recorded = state.enabled
        inputs = list(saved) if recorded else [_fresh(t) for t in saved]
        swap = {id(old): new for old, new in zip(segment.inputs, inputs)}
        args, kwargs = _substituted((segment.args, segment.kwargs), swap)
        now = _rng_state() if segment.rng is not None else None
        try:
            if segment.rng is not None:
                _set_rng_state(segment.rng)
            with enable_grad(), segment.context:
                outs = flatten(segment.function(*args, **kwargs))[0]
        finally:
            if now is not None:
                _set_rng_state(now)
        if segment.check == "default":
            shapes = [tuple(o.shape) if isinstance(o, Tensor) else None for o in outs]
            if shapes != segment.shapes:
                raise RuntimeError(
                    f"checkpoint: running the function again in backward gave outputs of shapes "
                    f"{shapes}, not {segment.shapes} as in forward; the function must compute the "
                    f"same thing each time (determinism_check='none' turns this check off)"
                )
        pairs = [
            (o, g)
            for o, g in zip(outs, grads)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        wanted = [t for t in inputs if t.requires_grad]
        found = iter(
            tape_grad(
                [o for o, _ in pairs],
                wanted,
                [g for _, g in pairs],
                allow_unused=True,
                create_graph=recorded,
            )
            if pairs and wanted
            else [None] * len(wanted)
        )
        return (None,) + tuple(next(found) if t.requires_grad else None for t in inputs)


def _fresh(t: Tensor) -> Tensor:
    """A saved input as a new leaf to differentiate a plain backward's rerun with respect to
    (leaves are themselves: a parameter's rerun reads the parameter)."""
    if t._grad_fn is None:
        return t
    return t.detach().requires_grad_(t.requires_grad)


def _substituted(tree: Any, swap: dict) -> Any:
    leaves, spec = flatten(tree)
    return unflatten(spec, [swap.get(id(x), x) for x in leaves])


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = False,
    **kwargs: Any,
) -> Any:
    """A Sequential (or list of modules) run in `segments` chunks, each but the last one
    checkpointed (as PyTorch's): only the chunks' inputs are kept for backward.

    >>> net = tg.nn.Sequential(*[tg.nn.Linear(4, 4) for _ in range(6)])
    >>> tg.utils.checkpoint.checkpoint_sequential(net, 3, tg.randn(2, 4)).shape
    (2, 4)
    """
    layers = list(functions.children() if hasattr(functions, "children") else functions)
    if not isinstance(segments, int) or segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be an int >= 1, got {segments!r}")
    size = len(layers) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            _chain(layers[start : end + 1]), input, use_reentrant=use_reentrant, **kwargs
        )
    return _chain(layers[end + 1 :])(input)


def _chain(layers: Iterable[Callable]) -> Callable:
    chosen = list(layers)

    def run(x: Any) -> Any:
        for layer in chosen:
            x = layer(x)
        return x

    return run
