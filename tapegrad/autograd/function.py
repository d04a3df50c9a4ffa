"""tg.autograd.Function: custom ops with a hand-written backward, recorded like built-in ones.

Layer L4. `apply` runs `forward` without recording, then records ONE node through the Tensor
layer's `record` (the same path as built-in ops), whose rule calls the subclass's `backward`.
Several outputs add one small node per output that hands its gradient to that node. As in
PyTorch, saved inputs and outputs come back connected to the tape, so create_graph=True
differentiates the backward itself (double backward).
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

import numpy as np

from .._state import no_grad, overrides, state, strict_backward
from ..primitives.batched_array import BatchedArray
from ..primitives.registry import Primitive
from ..tensor import Tensor, record, wrap
from ..tensor.batched import BatchedTensor, differentiated_below, from_values, level_of


class FunctionCtx:
    """The `ctx` passed to forward and backward: save tensors, read needs_input_grad."""

    def __init__(self, needs_input_grad: tuple, function: type, inputs: tuple) -> None:
        self.needs_input_grad = needs_input_grad
        self._function: Any = function
        self._owner = function.__name__
        self._inputs = inputs  # (identity checks only: which saved tensors are inputs)
        self._saved: tuple | None = ()
        self._versions: tuple = ()
        self._non_differentiable: set = set()
        self._materialize = True
        self._outputs: list = []  # the forward's outputs as it returned them (identity checks)
        self._node: Any = None  # a weak reference to this Function's node, once recorded

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if name[0] != "_" and isinstance(value, Tensor) and state.strict_backward:
            # a tensor kept as a ctx attribute, read by a backward being recorded: on the tape
            # if it is an input or an output, else a clear error (see _connected)
            return object.__getattribute__(self, "_connected")(value)
        return value

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (inputs, outputs, or others) for backward: `ctx.saved_tensors`."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward takes tensors (or None), got {type(t).__name__}; store "
                    f"other values as attributes of ctx"
                )
        self._saved = tensors
        self._versions = tuple(
            (t._version_counter(), t._version) if t is not None else None for t in tensors
        )

    @property
    def saved_tensors(self) -> tuple:
        """What save_for_backward kept, checked for in-place changes since; when backward is being
        recorded (create_graph=True), inputs and outputs come back on the tape."""
        if self._saved is None:
            raise RuntimeError(
                f"the saved tensors of {self._owner}Backward were freed by a previous backward; "
                "pass retain_graph=True to the first backward()/grad() to backward through it "
                "again"
            )
        for i, entry in enumerate(self._versions):
            if entry is not None and entry[0][0] != entry[1]:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by "
                    f"an in-place operation: saved tensor {i} of {self._owner}Backward is at "
                    f"version {entry[0][0]}; expected version {entry[1]}. Compute the in-place "
                    f"change on a copy (or out of place), or do it after backward."
                )
        if not state.enabled or self._node is None:  # a plain backward: values are enough
            return self._saved
        return tuple(self._connected(t) for t in self._saved)

    def _connected(self, t: Any) -> Any:
        """A saved tensor as the recorded backward must see it: on the tape."""
        if t is None or any(t is x for x in self._inputs):
            return t  # an input: already on the tape (or a constant)
        for k, o in enumerate(self._outputs):
            if t is o:  # an output: made by this Function's node
                node = self._node()
                if len(self._outputs) == 1:
                    return wrap(t._data, node)
                joined = wrap(np.zeros((), t.dtype), node)
                return record(
                    self._function._output_primitive(),
                    t._data,
                    (joined,),
                    {"index": k, "count": len(self._outputs)},
                    1,
                )
        if t.dtype.kind != "f":
            return t  # a mask or indices: a constant either way
        raise RuntimeError(
            f"{self._owner}.backward reads a tensor kept in forward that is neither an input nor "
            f"an output. create_graph=True records backward to differentiate it again, but "
            f"forward ran without recording, so how that tensor depends on the inputs is unknown "
            f"and the result would be silently wrong. Return it from forward as an extra output "
            f"(as PyTorch's double-backward tutorial does), or recompute it in backward from the "
            f"saved inputs."
        )

    def release(self) -> None:
        """Drop the saved tensors (after a backward without retain_graph)."""
        self._saved = None

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Outputs (of forward) that get no gradient: they come out without a grad_fn."""
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward sees None (not zeros) for an output that got no gradient."""
        self._materialize = bool(value)


def _user_forward(*args: Any) -> Any:  # (a Function's forward runs in apply(), not through here)
    raise RuntimeError("a Function's forward runs through .apply()")


def _select_forward(joined: Any, *, index: int, count: int) -> Any:
    raise RuntimeError("a Function's outputs are made by .apply()")


class Function:
    """Subclass with `@staticmethod forward(ctx, *args)` and `@staticmethod backward(ctx, *grads)`;
    call `MyFn.apply(*args)`. forward may return several outputs (a tuple): backward then gets one
    gradient per output, and returns one per input.

    >>> class Square(tg.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x): ctx.save_for_backward(x); return x * x
    ...     @staticmethod
    ...     def backward(ctx, g): (x,) = ctx.saved_tensors; return 2 * x * g
    """

    _prim: Primitive | None = None
    _output_prim: Primitive | None = None
    # Inside vmap a Function runs only if this is set (as torch.func's): its forward and backward
    # then run on the batched tensors, so they must use tapegrad ops (not NumPy on the values)
    generate_vmap_rule: bool = False

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the inputs (nothing in here is recorded)."""
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        """One gradient per input from one gradient per output."""
        raise NotImplementedError("a Function subclass must define backward(ctx, *grads)")

    @classmethod
    def _primitive(cls) -> Primitive:
        prim = cls.__dict__.get("_prim")
        if prim is None:
            prim = Primitive(
                cls.__name__,
                _user_forward,
                f"{cls.__name__}.forward(...)",
                {"args": f"{cls.__name__}.backward(ctx, g)"},
                {},
                rule_for_all=cls._run_backward,
            )
            prim.node_name = cls.__name__ + "Backward"
            cls._prim = prim
        return prim

    @classmethod
    def _output_primitive(cls) -> Primitive:
        """The small op handing one output's gradient to the Function's node (several outputs)."""
        prim = cls.__dict__.get("_output_prim")
        if prim is None:
            prim = Primitive(
                f"{cls.__name__}_output",
                _select_forward,
                f"{cls.__name__}.forward(...)[index]",
                {"joined": "OutputGrads.one(index, count, g)"},
                globals(),
                elementwise=True,
            )
            prim.node_name = cls.__name__ + "OutputBackward"
            cls._output_prim = prim
        return prim

    @classmethod
    def _run_backward(cls, g: Any, out: Any, *inputs: Any, ctx: FunctionCtx) -> tuple:
        recorded = state.enabled  # (the engine turns grad mode on exactly for create_graph)
        out_grads = cls._output_grads(g, ctx)
        try:
            inspect.signature(cls.backward).bind(ctx, *out_grads)
        except TypeError:
            names = ", ".join(f"g{i}" for i in range(len(out_grads)))
            raise TypeError(
                f"{cls.__name__}.backward cannot take {len(out_grads)} gradient(s): forward "
                f"returned {len(out_grads)} output(s), and backward gets one gradient per output "
                f"after ctx (as in PyTorch): def backward(ctx, {names})"
            ) from None
        if recorded:
            with strict_backward(cls.__name__):
                grads = cls.backward(ctx, *out_grads)
        else:
            grads = cls.backward(ctx, *out_grads)
        return cls._input_grads(grads, inputs, ctx, out_grads, recorded)

    @staticmethod
    def _output_grads(g: Any, ctx: FunctionCtx) -> list:
        """The gradients of the outputs as backward sees them: Tensors (zeros where none came,
        unless set_materialize_grads(False))."""
        if g.__class__ is not OutputGrads:
            return [g if isinstance(g, Tensor) else Tensor._make(np.asarray(g))]
        grads = []
        for x, o in zip(g.grads, ctx._outputs):
            if x is None and ctx._materialize and o is not None:
                x = np.zeros(o.shape, o.dtype)
            grads.append(x if x is None or isinstance(x, Tensor) else Tensor._make(np.asarray(x)))
        return grads

    @classmethod
    def _input_grads(
        cls, grads: Any, inputs: tuple, ctx: FunctionCtx, out_grads: list, recorded: bool
    ) -> tuple:
        """backward's result checked: one gradient per input, of the input's shape (or one that
        sums back to it); on the tape when backward was recorded."""
        if not isinstance(grads, tuple):
            grads = (grads,)
        n = len(inputs)
        if len(grads) > n and all(x is None for x in grads[n:]):
            grads = grads[:n]
        if len(grads) != n:
            raise RuntimeError(
                f"{cls.__name__}.backward returned {len(grads)} gradient(s), but forward took {n} "
                f"input(s); return exactly one per forward input (None for non-tensors)"
            )
        dtype = next((x.dtype for x in out_grads if x is not None), None)
        fixed: list = []
        for i, (gi, x) in enumerate(zip(grads, inputs)):
            if gi is None or not ctx.needs_input_grad[i]:
                fixed.append(None)
                continue
            if not isinstance(gi, Tensor):
                if recorded:
                    raise RuntimeError(
                        f"{cls.__name__}.backward returned a {type(gi).__name__} for input {i}; "
                        f"with create_graph=True the backward is differentiated again, which "
                        f"needs a tapegrad Tensor computed with tapegrad ops"
                    )
                gi = Tensor._make(np.asarray(gi, dtype=dtype))
            if gi.shape != x.shape and not _sums_back(gi.shape, x.shape):
                raise RuntimeError(
                    f"{cls.__name__}.backward returned a gradient of shape {list(gi.shape)} for "
                    f"input {i}, which has shape {list(x.shape)}; they must match (or the input's "
                    f"shape must broadcast to the gradient's, which is then summed back)"
                )
            fixed.append(gi if recorded else np.array(gi._data, copy=True))  # (may be saved)
        return tuple(fixed)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run forward and record one node whose backward is this class's backward."""
        if overrides[0] and state.vmap_levels:
            _check_vmap(cls, args)
        needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx = FunctionCtx(needs, cls, args)
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        if out is None:
            raise TypeError(
                f"{cls.__name__}.forward returned None; it must return the output tensor"
            )
        several = isinstance(out, (tuple, list))
        outs = tuple(out) if several else (out,)
        ctx._outputs = [o for o in outs if isinstance(o, Tensor)]
        recorded = state.enabled and any(needs)
        arrays = [o._data if isinstance(o, Tensor) else o for o in outs]
        differentiable = [
            _is_values(a) and a.dtype.kind == "f" and id(o) not in ctx._non_differentiable
            for o, a in zip(outs, arrays)
        ]
        if not several:
            data: Any = arrays[0]
            if data.__class__ is not BatchedArray:  # (inside vmap: a batched tensor's values)
                data = np.asarray(data)
            if recorded and not differentiable[0]:
                raise TypeError(
                    f"{cls.__name__}.forward returned dtype {data.dtype}; a "
                    f"differentiable Function must return a floating-point tensor"
                )
            if not recorded:
                return from_values(data)
            result = _batched_if(record(cls._primitive(), data, args, {"ctx": ctx}, _mask(needs)))
            ctx._node = weakref.ref(result._grad_fn)
            if isinstance(out, Tensor):  # the same memory: an in-place change of the output is
                result._vc = out._version_counter()  # seen by what ctx saved of it
            return result
        return cls._several(ctx, args, outs, arrays, differentiable, recorded, needs)

    @classmethod
    def _several(
        cls,
        ctx: FunctionCtx,
        args: tuple,
        outs: tuple,
        arrays: list,
        differentiable: list,
        recorded: bool,
        needs: tuple,
    ) -> tuple:
        """Several outputs, as PyTorch allows: one node for the Function, and per differentiable
        output a small node handing its gradient to it. Non-tensor outputs pass through; outputs
        marked non-differentiable, and integer ones, come out without a grad_fn."""
        ctx._outputs = [o if isinstance(o, Tensor) else None for o in outs]
        result: list = []
        joined = None
        if recorded and any(differentiable):
            dtype = next(a.dtype for a, d in zip(arrays, differentiable) if d)
            joined = record(cls._primitive(), np.zeros((), dtype), args, {"ctx": ctx}, _mask(needs))
            ctx._node = weakref.ref(joined._grad_fn)
        for i, (o, a) in enumerate(zip(outs, arrays)):
            if not _is_values(a):
                result.append(o)  # (a number or other non-tensor output: as it is)
            elif joined is not None and differentiable[i]:
                made = _batched_if(
                    record(
                        cls._output_primitive(), a, (joined,), {"index": i, "count": len(outs)}, 1
                    )
                )
                made._vc = o._version_counter()  # (the output's changes reach what ctx saved)
                result.append(made)
            else:
                result.append(from_values(a))
        return tuple(result)


def _is_values(a: Any) -> bool:
    """An array of values: an ndarray, or inside vmap a batched tensor's values."""
    return isinstance(a, np.ndarray) or a.__class__ is BatchedArray


def _batched_if(t: Tensor) -> Tensor:
    """A recorded output holding a batched tensor's values is a BatchedTensor (inside vmap)."""
    if t._data.__class__ is BatchedArray:
        t.__class__ = BatchedTensor  # (record makes a Tensor; the slots are the same)
    return t


def _check_vmap(cls: type, args: tuple) -> None:
    """A Function called on batched tensors runs only if it says it can (generate_vmap_rule), and
    only differentiated inside the vmap."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    levels = [lv for lv in map(level_of, tensors) if lv is not None]
    if not levels:
        return
    if not getattr(cls, "generate_vmap_rule", False):
        raise RuntimeError(
            f"vmap: {cls.__name__} is a tg.autograd.Function without a batching rule, so it "
            f"cannot run inside vmap. If its forward and backward use tapegrad ops only (no "
            f"NumPy on the values), set `generate_vmap_rule = True` on the class: they then run "
            f"on the batched tensors"
        )
    level = max(levels, key=lambda lv: lv.depth)
    if state.enabled and any(differentiated_below(t, level) for t in tensors):
        raise RuntimeError(
            f"vmap: {cls.__name__} is differentiated from outside the vmap it runs in; a "
            f"tg.autograd.Function supports differentiation inside vmap only"
        )


def _mask(needs: tuple) -> int:
    """The inputs needing a gradient, as the bitmask `record` takes."""
    return sum(1 << i for i, n in enumerate(needs) if n)


def _sums_back(gshape: tuple, shape: tuple) -> bool:
    """Whether a gradient of shape `gshape` sums back to `shape` (shape broadcasts to gshape)."""
    try:
        return np.broadcast_shapes(gshape, shape) == tuple(gshape)
    except ValueError:
        return False


class OutputGrads:
    """The gradients of a several-output Function's outputs, as they arrive (None: none yet). The
    engine adds these up like any gradient; the Function's backward unpacks them."""

    __slots__ = ("grads", "shape", "dtype")

    def __init__(self, grads: list) -> None:
        self.grads = grads
        first = next(x for x in grads if x is not None)
        self.shape, self.dtype = (), first.dtype  # (what the engine's checks read: nothing to fit)

    @staticmethod
    def one(index: int, count: int, g: Any) -> "OutputGrads":
        """The gradient of output `index` alone."""
        grads: list = [None] * count
        grads[index] = g
        return OutputGrads(grads)

    def __repr__(self) -> str:  # (as explain shows it)
        parts = [
            "none"
            if x is None
            else " ".join(np.array2string(np.asarray(getattr(x, "_data", x)), precision=4).split())
            for x in self.grads
        ]
        return "per output: " + "; ".join(f"[{i}] {p}" for i, p in enumerate(parts))

    def __add__(self, other: "OutputGrads") -> "OutputGrads":
        return OutputGrads(
            [b if a is None else a if b is None else a + b for a, b in zip(self.grads, other.grads)]
        )
