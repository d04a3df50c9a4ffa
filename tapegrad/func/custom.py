"""custom_vjp and custom_jvp: a function with a derivative rule of its own, with JAX's semantics.

Layer L5: tg.autograd.Function (the one custom node of the tape), the Tensor layer's batched
tensors, vmap and this package's pytrees. Called without differentiation, the function runs as it
is. Differentiated, `custom_vjp` runs `fwd` (its residuals recorded, so that differentiating the
backward again sees how they depend on the inputs) and records one node whose backward is `bwd`;
`custom_jvp` is a custom_vjp whose backward is the VJP of its (linear in the tangents) JVP rule.
Under vmap, differentiation at the vmap's level runs the rule on the batched tensors; a
differentiation outside the vmap gets the rules vmapped (the batch's cotangents summed where an
input is shared by the batch), as JAX batches them.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any, Callable, Generic, Iterator, TypeVar

from .._state import state
from ..autograd.function import Function
from ..tensor import Tensor
from ..tensor.batched import (
    batched,
    batched_levels,
    differentiated_below,
    is_batched_at,
    level_of,
    physical,
)
from .pytree import flatten, unflatten
from .vmap import _vmap

R = TypeVar("R")


class custom_vjp(Generic[R]):
    """`fun` with a reverse-mode rule of its own: `f.defvjp(fwd, bwd)`, where `fwd(*args)` returns
    `(output, residuals)` and `bwd(*nondiff_args, residuals, g)` one cotangent per other argument
    (a tuple; None for a zero). Arguments at `nondiff_argnums` are not differentiated.

    >>> @tg.custom_vjp
    ... def clip_gradient(x): return x
    >>> clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (g.clip(-1.0, 1.0),))
    >>> tg.grad(lambda x: (clip_gradient(x) * 5.0).sum())(tg.tensor([1.0]))
    tensor([1.])
    """

    def __init__(self, fun: Callable[..., R], nondiff_argnums: tuple = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(sorted(int(i) for i in nondiff_argnums))
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self._in_fwd = threading.local()  # (fwd may call the function itself: then it is plain)

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
        """Set the rule: fwd(*args) -> (output, residuals); bwd(*nondiff, residuals, g)."""
        if symbolic_zeros:
            raise NotImplementedError("custom_vjp: symbolic_zeros=True is not supported")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any) -> R:
        if self.fwd is None or self.bwd is None:
            raise AttributeError(
                f"no VJP defined for custom_vjp function {_name(self.fun)}: call "
                f"{_name(self.fun)}.defvjp(fwd, bwd) first"
            )
        for i in self.nondiff_argnums:
            if not -len(args) <= i < len(args):
                raise ValueError(
                    f"custom_vjp {_name(self.fun)}: nondiff_argnums has {i}, but it was called "
                    f"with {len(args)} argument(s)"
                )
        return _call(self, args)


def _name(fun: Any) -> str:
    return getattr(fun, "__name__", type(fun).__name__)


def _call(f: Any, args: tuple) -> Any:
    if getattr(f._in_fwd, "depth", 0):
        return f.fun(*args)
    diff = [i for i in range(len(args)) if i not in f.nondiff_argnums]
    tensors = [t for i in diff for t in flatten(args[i])[0] if isinstance(t, Tensor)]
    levels = [lv for lv in map(level_of, flatten(args)[0]) if lv is not None]
    level = max(levels, key=lambda lv: lv.depth) if levels else None
    here = state.enabled and any(t.requires_grad for t in tensors if level_of(t) is level)
    below = (
        level is not None and state.enabled and any(differentiated_below(t, level) for t in tensors)
    )
    if not here and not below:
        return f.fun(*args)  # (nothing differentiates it: the function as it is)
    if level is not None and below:
        if here:
            raise RuntimeError(
                f"custom_vjp {_name(f.fun)}: differentiated both inside a vmap and outside it at "
                f"once; this is not supported"
            )
        return _batched_call(f, args, level)
    return _recorded_call(f, args, diff)


@contextlib.contextmanager
def _running_fwd(f: Any) -> Iterator[None]:
    """While f's fwd runs, f called inside it is the plain function (its output is what fwd
    returns; the node comes from the call that runs fwd)."""
    f._in_fwd.depth = getattr(f._in_fwd, "depth", 0) + 1
    try:
        yield
    finally:
        f._in_fwd.depth -= 1


class _CustomVJP(Function):
    """The tape's node of a custom_vjp call: its forward hands over what `fwd` computed, its
    backward runs `bwd`. (The call's rule and values travel in the first argument.)"""

    generate_vmap_rule = True  # (its forward and backward are tapegrad ops on whatever comes)

    @staticmethod
    def forward(ctx: Any, call: Any, *inputs: Tensor) -> Any:
        ctx.call = call
        outs = [o.detach() if isinstance(o, Tensor) else o for o in call.outputs]
        return tuple(outs) if call.several else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        call = ctx.call
        g = unflatten(call.out_spec, list(grads))
        cts = call.bwd(*call.nondiff, call.residuals, g)
        if not isinstance(cts, (tuple, list)) or len(cts) != len(call.diff):
            raise TypeError(
                f"custom_vjp {call.name}: bwd must return a tuple with one cotangent per "
                f"differentiated argument ({len(call.diff)}), got "
                f"{type(cts).__name__}" + (f" of {len(cts)}" if isinstance(cts, tuple) else "")
            )
        flat: list = [None]  # (none for `call`)
        for i, ct in zip(call.diff, cts):
            arg_leaves, spec = call.arg_trees[i]
            ct_leaves = [None] * len(arg_leaves) if ct is None else flatten(ct)[0]
            if ct is not None and flatten(ct)[1] != spec:
                raise TypeError(
                    f"custom_vjp {call.name}: bwd's cotangent for argument {i} must be "
                    f"structured like it ({spec!r}), got {flatten(ct)[1]!r}"
                )
            flat += [c for c, a in zip(ct_leaves, arg_leaves) if isinstance(a, Tensor)]
        return tuple(flat)


class _Call:
    """One differentiated call: fwd's outputs and residuals, and what bwd is given."""

    def __init__(self, f: Any, args: tuple, diff: list) -> None:
        self.name, self.bwd, self.diff = _name(f.fun), f.bwd, diff
        self.nondiff = tuple(args[i] for i in f.nondiff_argnums)
        self.arg_trees = [flatten(a) for a in args]
        with _running_fwd(f):  # (recorded: the residuals depend on the inputs, for higher orders)
            result = f.fwd(*args)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(
                f"custom_vjp {self.name}: fwd must return a pair (output, residuals), got "
                f"{type(result).__name__}"
            )
        out, self.residuals = result
        self.outputs, self.out_spec = flatten(out)
        self.several = len(self.outputs) != 1 or self.out_spec.kind is not None


def _recorded_call(f: Any, args: tuple, diff: list) -> Any:
    call = _Call(f, args, diff)
    inputs = [t for i in diff for t in call.arg_trees[i][0] if isinstance(t, Tensor)]
    out = _CustomVJP.apply(call, *inputs)
    return unflatten(call.out_spec, list(out) if call.several else [out])


def _batched_call(f: Any, args: tuple, level: Any) -> Any:
    """The call at the level below `level` (where it is differentiated): a custom_vjp of the
    whole batch, whose fwd and bwd are f's vmapped; the outputs back as batched tensors."""
    leaves, spec = flatten(args)
    flags = [is_batched_at(x, level) for x in leaves]
    for i in f.nondiff_argnums:
        if any(is_batched_at(x, level) for x in flatten(args[i])[0]):
            raise ValueError(
                f"custom_vjp {_name(f.fun)}: argument {i} is in nondiff_argnums but differs "
                f"between the examples of the vmap; make it a differentiated argument"
            )
    in_axes = unflatten(spec, [0 if b else None for b in flags])
    outer = [physical(x) if level_of(x) is level else x for x in leaves]
    names = ("in_axes", "out_axes")

    def fwd(*a: Any) -> Any:
        with _running_fwd(f):
            return _vmap(f.fwd, in_axes, 0, "error", None, names)(*a)

    def bwd(*rest: Any) -> Any:
        *nondiff, res, g = rest
        axes = (None,) * len(nondiff) + (0, 0)
        cts = _vmap(lambda *r: f.bwd(*r), axes, 0, "error", None, names)(*nondiff, res, g)
        return tuple(
            None if ct is None else _summed_where_shared(ct, args[i], level)
            for i, ct in zip([i for i in range(len(args)) if i not in f.nondiff_argnums], cts)
        )

    whole = custom_vjp(lambda *a: _vmap(f.fun, in_axes, 0, "error", None, names)(*a))
    whole.nondiff_argnums = f.nondiff_argnums
    whole.defvjp(fwd, bwd)
    out = whole(*unflatten(spec, outer))
    return unflatten(flatten(out)[1], [batched(o, level) for o in flatten(out)[0]])


def _summed_where_shared(ct: Any, arg: Any, level: Any) -> Any:
    """A batch of cotangents for an argument: summed over the batch where the batch shares it."""
    leaves, spec = flatten(ct)
    shared = [level not in batched_levels(a) for a in flatten(arg)[0]]
    return unflatten(spec, [c.sum(0) if s and c is not None else c for c, s in zip(leaves, shared)])


class custom_jvp(Generic[R]):
    """`fun` with a forward-mode rule of its own: `f.defjvp(jvp)`, where
    `jvp(*nondiff_args, primals, tangents)` returns `(output, tangent_out)`, linear in the
    tangents. Reverse mode (tg.grad) uses the rule transposed: the VJP of tangents -> tangent_out.

    >>> @tg.custom_jvp
    ... def f(x): return x.sin()
    >>> _ = f.defjvp(lambda primals, tangents: (f(*primals), primals[0].cos() * tangents[0]))
    >>> tg.grad(lambda x: f(x).sum())(tg.tensor([0.0]))
    tensor([1.])
    """

    def __init__(self, fun: Callable[..., R], nondiff_argnums: tuple = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(sorted(int(i) for i in nondiff_argnums))
        self.jvp: Callable | None = None
        self._as_vjp: custom_vjp | None = None

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the rule: jvp(*nondiff, primals, tangents) -> (output, tangent_out)."""
        if symbolic_zeros:
            raise NotImplementedError("custom_jvp: symbolic_zeros=True is not supported")
        self.jvp, self._as_vjp = jvp, None
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per differentiated argument: `jvps[i](tangent_i, output, *primals)`; the
        tangent of the output is their sum (None: that argument contributes nothing)."""
        f = self

        def rule(*rest: Any) -> tuple:
            *nondiff, primals, tangents = rest
            out = f.fun(*_merge(f.nondiff_argnums, nondiff, primals))
            parts = [r(t, out, *primals) for r, t in zip(jvps, tangents) if r is not None]
            total = parts[0]
            for p in parts[1:]:
                total = total + p
            return out, total

        self.defjvp(rule)

    def __call__(self, *args: Any) -> R:
        if self.jvp is None:
            raise AttributeError(
                f"no JVP defined for custom_jvp function {_name(self.fun)}: call "
                f"{_name(self.fun)}.defjvp(jvp) first"
            )
        if self._as_vjp is None:
            self._as_vjp = self._reverse_mode()
        return self._as_vjp(*args)

    def _reverse_mode(self) -> custom_vjp:
        """The same function as a custom_vjp: residuals are the primals; the backward is the VJP
        of the (linear) map tangents -> tangent_out, i.e. the JVP rule transposed."""
        from .transforms import vjp  # (the VJP machinery, used by the rule)

        nondiff, rule = self.nondiff_argnums, self.jvp
        if rule is None:
            raise AttributeError(f"no JVP defined for custom_jvp function {_name(self.fun)}")
        as_vjp: custom_vjp = custom_vjp(self.fun, nondiff)

        def fwd(*args: Any) -> tuple:
            primals = tuple(a for i, a in enumerate(args) if i not in nondiff)
            return self.fun(*args), primals

        def bwd(*rest: Any) -> tuple:
            *fixed, primals, g = rest
            zeros = tuple(_zeros_like(p) for p in primals)
            _, linear_vjp = vjp(lambda *t: rule(*fixed, primals, t)[1], *zeros)
            return linear_vjp(g)

        as_vjp.defvjp(fwd, bwd)
        return as_vjp


def _merge(nondiff_argnums: tuple, nondiff: list, primals: tuple) -> list:
    args, it_n, it_p = [], iter(nondiff), iter(primals)
    for i in range(len(nondiff) + len(primals)):
        args.append(next(it_n) if i in nondiff_argnums else next(it_p))
    return args


def _zeros_like(tree: Any) -> Any:
    leaves, spec = flatten(tree)
    return unflatten(spec, [x * 0.0 if isinstance(x, Tensor) else x for x in leaves])
