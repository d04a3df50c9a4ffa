"""tg.autograd.Function: custom ops with a hand-written backward, recorded like built-in ones.

Layer L4. `apply` runs `forward` without recording, then records ONE node through Tensor._record
(the same path as built-in ops), whose rule calls the subclass's `backward`. Several outputs add
one small node per output that hands its gradient to that node.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..primitives.registry import Primitive
from ..tape.grad_mode import no_grad, state
from ..tensor import Tensor, _record


class FunctionCtx:
    """The `ctx` passed to forward and backward: save tensors, read needs_input_grad."""

    def __init__(self, needs_input_grad: tuple) -> None:
        self.needs_input_grad = needs_input_grad
        self._saved: tuple | None = ()
        self._versions: tuple = ()
        self._owner = "Function"
        self._non_differentiable: set = set()
        self._materialize = True
        self._outputs: list = []  # (shape, dtype) per output, for zeros where none got a gradient

    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward takes tensors (or None), got {type(t).__name__}; "
                    f"store other values as attributes of ctx"
                )
        self._saved = tensors
        self._versions = tuple(
            (t._version_counter(), t._version) if t is not None else None for t in tensors
        )

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError(
                f"the saved tensors of {self._owner}Backward were freed by a previous backward; pass "
                f"retain_graph=True to the first backward()/grad() to backward through it again"
            )
        for i, entry in enumerate(self._versions):
            if entry is not None and entry[0][0] != entry[1]:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an "
                    f"in-place operation: saved tensor {i} of {self._owner}Backward is at version "
                    f"{entry[0][0]}; expected version {entry[1]}. Compute the in-place change on a "
                    f"copy (or out of place: `x = x + 1` instead of `x += 1`), or do it after backward."
                )
        return self._saved

    def _free(self) -> None:
        self._saved = None

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Outputs (of forward) that get no gradient: they come out without a grad_fn."""
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward sees None (not zeros) for an output that got no gradient."""
        self._materialize = bool(value)


def _user_forward(*args: Any) -> Any:  # placeholder: Functions run their forward in apply()
    raise RuntimeError("a Function's forward runs through .apply()")


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

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise NotImplementedError("a Function subclass must define backward(ctx, *grads)")

    @classmethod
    def _primitive(cls) -> Primitive:
        prim = cls.__dict__.get("_prim")
        if prim is None:
            prim = Primitive(
                cls.__name__,
                _user_forward,
                f"{cls.__name__}.forward(...)",
                (f"{cls.__name__}.backward(ctx, g)",),
                saves=False,
                needs_out=False,
                view=False,
            )
            prim.node_name = cls.__name__ + "Backward"
            prim.defvjp_all(cls._run_backward)
            cls._prim = prim
        return prim

    @classmethod
    def _run_backward(cls, g: Any, out: Any, *inputs: Any, ctx: FunctionCtx) -> tuple:
        if g.__class__ is _OutputGrads:  # several outputs: one gradient (or zeros) for each
            raw = not any(isinstance(x, Tensor) for x in g.grads)
            out_grads = []
            for x, (shape, dtype) in zip(g.grads, ctx._outputs):
                if x is None and ctx._materialize:
                    x = np.zeros(shape, dtype)
                if x is not None and not isinstance(x, Tensor):
                    x = Tensor._make(np.asarray(x))
                out_grads.append(x)
            g = next(x for x in out_grads if x is not None)  # (its dtype, for numbers returned)
        else:
            raw = not isinstance(g, Tensor)  # a plain backward hands arrays; users see Tensors
            if raw:
                g = Tensor._make(np.asarray(g))
            out_grads = [g]
        try:
            inspect.signature(cls.backward).bind(ctx, *out_grads)
        except TypeError:
            raise TypeError(
                f"{cls.__name__}.backward cannot take {len(out_grads)} gradient(s): forward returned "
                f"{len(out_grads)} output(s), and backward gets one gradient per output after ctx "
                f"(as in PyTorch): def backward(ctx, {', '.join(f'g{i}' for i in range(len(out_grads)))})"
            ) from None
        grads = cls.backward(ctx, *out_grads)
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
        fixed = []
        for i, (gi, x) in enumerate(zip(grads, inputs)):
            if gi is None or not ctx.needs_input_grad[i]:
                fixed.append(None)
                continue
            if not isinstance(gi, Tensor):
                gi = Tensor._make(np.asarray(gi, dtype=g.dtype))
            if gi.shape != x.shape and not _sums_back(gi.shape, x.shape):
                raise RuntimeError(
                    f"{cls.__name__}.backward returned a gradient of shape {list(gi.shape)} for input "
                    f"{i}, which has shape {list(x.shape)}; they must match (or the input's shape "
                    f"must broadcast to the gradient's, which is then summed back, as in PyTorch)"
                )
            fixed.append(np.array(gi._data, copy=True) if raw else gi)  # may be a saved array
        return tuple(fixed)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Tensor:
        needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx = FunctionCtx(needs)
        ctx._owner = cls.__name__
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        if out is None:
            raise TypeError(
                f"{cls.__name__}.forward returned None; it must return the output tensor"
            )
        if isinstance(out, (tuple, list)):
            return cls._apply_several(ctx, args, tuple(out), needs)
        data = out._data if isinstance(out, Tensor) else np.asarray(out)
        if state.enabled and any(needs):
            if data.dtype.kind != "f":
                raise TypeError(
                    f"{cls.__name__}.forward returned dtype {data.dtype}; a differentiable "
                    f"Function must return a floating-point tensor"
                )
            return _record(cls._primitive(), data, args, {"ctx": ctx})
        return Tensor._make(data)

    @classmethod
    def _apply_several(cls, ctx: FunctionCtx, args: tuple, outs: tuple, needs: tuple) -> tuple:
        """Several outputs, as PyTorch allows: one node for the Function (its backward gets one
        gradient per output), and per differentiable output a node `<Name>OutputBackward` that hands
        its output's gradient to it. Non-tensor outputs pass through; outputs marked
        non-differentiable, and integer ones, come out without a grad_fn."""
        arrays = [o._data if isinstance(o, Tensor) else o for o in outs]
        ctx._outputs = [(np.shape(a), getattr(a, "dtype", None)) for a in arrays]
        recorded = state.enabled and any(needs)
        differentiable = [
            isinstance(a, np.ndarray)
            and a.dtype.kind == "f"
            and id(o) not in ctx._non_differentiable
            for o, a in zip(outs, arrays)
        ]
        if recorded and any(differentiable):
            dtype = next(a.dtype for a, d in zip(arrays, differentiable) if d)
            joined = _record(cls._primitive(), np.zeros((), dtype), args, {"ctx": ctx})
            select = cls._output_primitive()
        result = []
        for i, (o, a) in enumerate(zip(outs, arrays)):
            if not isinstance(a, np.ndarray):
                result.append(o)  # (a number or other non-tensor output: as it is)
            elif recorded and differentiable[i]:
                result.append(_record(select, a, (joined,), {"index": i, "count": len(outs)}))
            else:
                result.append(Tensor._make(a))
        return tuple(result)

    @classmethod
    def _output_primitive(cls) -> Primitive:
        prim = cls.__dict__.get("_output_prim")
        if prim is None:
            prim = Primitive(
                cls.__name__ + "_output",
                _user_forward,
                f"{cls.__name__}.forward(...)[i]",
                ("dL/doutput_i, handed to " + cls.__name__ + "Backward",),
                saves=False,
                needs_out=False,
                view=False,
                keeps_shape=True,
            )
            prim.node_name = cls.__name__ + "OutputBackward"
            prim.defvjp(lambda g, out, joined, *, index, count: _OutputGrads.one(index, count, g))
            cls._output_prim = prim
        return prim


def _sums_back(gshape: tuple, shape: tuple) -> bool:
    """Whether a gradient of shape `gshape` sums back to `shape` (shape broadcasts to gshape)."""
    try:
        return np.broadcast_shapes(gshape, shape) == tuple(gshape)
    except ValueError:
        return False


class _OutputGrads:
    """The gradients of a several-output Function's outputs, as they arrive (None: none yet). The
    engine adds these up like any gradient; the Function's backward unpacks them."""

    __slots__ = ("grads", "shape", "dtype")

    def __init__(self, grads: list) -> None:
        self.grads = grads
        first = next(x for x in grads if x is not None)
        self.shape, self.dtype = (), first.dtype  # (what the engine's checks read: nothing to fit)

    @staticmethod
    def one(index: int, count: int, g: Any) -> "_OutputGrads":
        grads: list = [None] * count
        grads[index] = g
        return _OutputGrads(grads)

    def __repr__(self) -> str:  # (as explain shows it)
        parts = [
            "none"
            if x is None
            else " ".join(np.array2string(np.asarray(getattr(x, "_data", x)), precision=4).split())
            for x in self.grads
        ]
        return "per output: " + "; ".join(f"[{i}] {p}" for i, p in enumerate(parts))

    def __add__(self, other: "_OutputGrads") -> "_OutputGrads":
        return _OutputGrads(
            [b if a is None else a if b is None else a + b for a, b in zip(self.grads, other.grads)]
        )
