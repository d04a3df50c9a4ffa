"""Node: one recorded op on the tape, and what its rules need at backward time.

Layer L2: numpy and the rule table's registry (for the Tensor layer it binds). A Node holds its
primitive, edges to its inputs' nodes (or leaf tensors), the inputs its rules read (with their
versions, checked at backward) and its parameters. It never holds its own output Tensor (that
would be a reference cycle): only the output's array, when a rule reads `out`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils import unbroadcast_axes
from ..primitives import registry
from ..primitives.reduction import sum as sum_
from ..primitives.registry import Primitive
from ..primitives.save_plan import SavePlan
from ..primitives.shape import reshape

FREED = object()  # `Node.saved` once a backward without retain_graph released the saved values
# Node.versions of one or two saved Tensors that had no version counter when saved (version 0):
# record uses these very tuples, so inputs() knows the case by identity
UNCHANGED_SINGLE, UNCHANGED_PAIR = (0,), (0, 0)


class Meta:
    """Stands in for an input whose value no rule reads: only its shape and dtype are known."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Node:
    """One recorded op. Made only by tapegrad.tensor.record, which sets every field directly (no
    __init__ call: it runs once per recorded op). None in a field always means "nothing here":

    prim       the Primitive: forward, rules, formulas
    plan       its SavePlan for the inputs that need a gradient (what is saved, the rules to run)
    edges      per input: the input's Node, a leaf Tensor, or None (no gradient needed). A property:
               a two-input op keeps its two in first_edge and second_edge (all_edges None),
               any other op the tuple in all_edges. Why: a tuple per op is one more object for
               the cyclic GC, whose passes over a long tape of `x * a + b` are a fifth of its
               time (measured: 2 tracked objects an op -> 1 halves them)
    saved      per input the value its rules read (a Tensor, or a constant as it is), None where
               they read none; None: they read no input's value. FREED once released
    versions   per input the version its saved Tensor had when saved (None: no Tensor saved
               there); None: no Tensor saved at all (x * 2.0 saves only 2.0)
    params     non-tensor arguments (axis, shape, index, ...)
    shapes     per input its shape, for un-broadcasting; None: every input shaped as the output
    dtypes     per input its dtype, gradients are cast to it; None: as the output's
    out_data   the output's array, when a rule reads `out`
    out_vc     the output's version counter, when out_data is kept and an in-place op reached
               the output (None until then: made by the output tensor's _version_counter)
    pre_hooks  hooks on the output tensor's gradient
    scope      the nn.Modules running when it was recorded, outermost first (None: none)
    constants  per input the Python number it was (None: not a number); None: no number. They
               cost nothing to keep, so drawings can show every value, also once released
    seq        its place in recording order: inputs are recorded before the ops that use them, so
               running nodes latest first is a reverse topological order (as PyTorch's sequence_nr)
    composite  on the node of a composite function's result only (F.cross_entropy, softmax...):
               the call (tape/composite.py), for the teaching tools. record() never sets it, so
               it costs nothing per op; read it with getattr(node, "composite", None)
    """

    __slots__ = (
        "prim",
        "plan",
        "all_edges",
        "first_edge",
        "second_edge",
        "saved",
        "versions",
        "params",
        "shapes",
        "dtypes",
        "out_data",
        "out_vc",
        "pre_hooks",
        "scope",
        "constants",
        "seq",
        "composite",
        "__weakref__",
    )
    prim: Primitive
    plan: SavePlan
    all_edges: tuple | None
    first_edge: Any
    second_edge: Any
    saved: Any  # (a tuple, None or FREED)
    versions: tuple | None
    params: dict
    shapes: tuple | None
    dtypes: tuple | None
    out_data: Any
    out_vc: list | None
    pre_hooks: list | None
    scope: tuple | None
    constants: tuple | None
    seq: int
    composite: Any  # (a tape.composite.Composite; unset on most nodes)

    @property
    def edges(self) -> tuple:
        """Per input: its Node, a leaf Tensor, or None (no gradient needed)."""
        return self.all_edges or (self.first_edge, self.second_edge)

    @property
    def name(self) -> str:
        """`MulBackward`, as PyTorch names its nodes."""
        return self.prim.node_name

    def name_of_input(self, i: int) -> str:
        """The forward's name for input i (`x`, `y`, ...; `xs[2]` for a list of inputs)."""
        names = self.prim.input_names
        if self.prim.variadic:
            return f"{names[0]}[{i}]"
        return names[i] if i < len(names) else f"input{i}"

    def __repr__(self) -> str:
        return f"<{self.name}>"

    @property
    def next_functions(self) -> tuple:
        """PyTorch-style view of the edges: (Node, leaf tensor or None, 0) per input."""
        return tuple((e, 0) for e in self.edges)

    def register_hook(self, hook: Any) -> None:
        """Call hook(grad) on the gradient of this node's output (it may return a replacement)."""
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)

    # ---- what the rules see ----------------------------------------------------------------
    def inputs(self, g: Any, raw: bool) -> Any:
        """Per input what its rules read: the saved value (an array when `raw`, else a Tensor on
        the tape, so create_graph records), checked for in-place changes; for an input whose
        shape a rule reads, something of its shape and dtype (g itself when it looks like the
        output); None for an input no rule reads."""
        saved, versions = self.saved, self.versions
        # (the commonest cases first, without a loop: one or two Tensors saved, none with a
        # version counter then or now, so none changed in place since; x * w, sin(x))
        if versions is UNCHANGED_PAIR:
            a, b = saved
            if a._vc is None and b._vc is None:
                return (a._data, b._data) if raw else saved
        elif versions is UNCHANGED_SINGLE and saved[0]._vc is None:
            return (saved[0]._data,) if raw else saved
        if saved is None:  # no rule reads an input's value
            if self.shapes is None or not self.plan.shape_only:  # (nor its shape: no stand-ins)
                return (g,) * len(self.edges)
            return tuple(map(Meta, self.shapes, self.dtypes))  # type: ignore[arg-type]
        if saved is FREED:
            raise self._freed_error()
        if versions is None:  # no Tensor saved (x * 2.0 saves 2.0): nothing to check or unwrap
            if not self.plan.shape_only:  # (and no rule reads an input's shape: as they are)
                return saved
            versions = (None,) * len(saved)
        return self._checked_inputs(saved, versions, g, raw)

    def _checked_inputs(self, saved: tuple, versions: tuple, g: Any, raw: bool) -> list:
        """inputs() for the general case: each saved Tensor checked against its version, an
        input no rule reads as a stand-in of its shape and dtype, constants as they are."""
        seen = []
        i = -1
        for x in saved:  # (i by hand: enumerate() costs about as much as a call, per node)
            i += 1
            v = versions[i]
            if v is not None:  # a saved Tensor: changed in place since it was saved?
                vc = x._vc
                if vc is not None and vc[0] != v:
                    self._version_error(i, vc[0], v, x)
                seen.append(x._data if raw else x)
            elif x is None:  # (no rule reads its value: a stand-in of its shape and dtype)
                shapes, dtypes = self.shapes, self.dtypes
                seen.append(g if shapes is None else Meta(shapes[i], dtypes[i]))  # type: ignore[index]
            else:  # a constant, as it is
                seen.append(x)
        return seen

    def output(self, raw: bool) -> Any:
        """The output, for rules that read `out` (None when none does), checked for changes."""
        out = self.out_data
        if out is None:
            return None
        vc = self.out_vc
        if vc is not None and vc[0]:  # the output was changed in place since
            self._version_error("its output", vc[0], 0, None)
        return out if raw else registry.layer.wrap(out, self)

    # ---- what a backward leaves, and what the teaching tools read ---------------------------
    @property
    def released(self) -> bool:
        """Whether a backward without retain_graph has released what this node saved."""
        return self.saved is FREED

    def release(self) -> None:
        """Drop what was saved for backward (a backward without retain_graph used it up)."""
        if self.saved is not None or self.out_data is not None:
            self.saved, self.versions, self.out_data = FREED, None, None
        if "ctx" in self.params:  # a custom Function keeps its saved tensors on its ctx
            self.params["ctx"].release()

    def refill(self, inputs: list, out: Any) -> None:
        """Hold recomputed values again, as record would have saved them (the teaching tools
        draw a tape a backward released); `release()` drops them again."""
        read = self.plan.saved
        self.saved = (
            tuple([x if i in read else None for i, x in enumerate(inputs)]) if read else None
        )
        self.versions = None  # (plain arrays: nothing to check)
        self.out_data, self.out_vc = (out, [0]) if self.plan.out else (None, None)

    def kept_input(self, i: int) -> Any:
        """The value of input i, when the node kept it (saved, or a Python number); else None."""
        saved = self.saved
        x = saved[i] if saved is not None and saved is not FREED else None
        if x is None and self.constants is not None:
            x = self.constants[i]
        return x

    def input_meta(self, i: int) -> tuple | None:
        """Input i's (shape, dtype), or None when it has the output's (none is kept then)."""
        if self.shapes is None:
            return None
        return self.shapes[i], self.dtypes[i]  # type: ignore[index]

    def read_values(self) -> dict:
        """{name: array} of the forward values this node's rules read (inputs and `out`)."""
        values = {}
        if self.saved is not None and self.saved is not FREED:
            for i, x in enumerate(self.saved):
                if x is not None:
                    values[self.name_of_input(i)] = np.asarray(getattr(x, "_data", x))
        if self.out_data is not None:
            values["out"] = self.out_data
        return values

    def _freed_error(self) -> RuntimeError:
        return RuntimeError(
            f"Trying to backward through the graph a second time: the saved tensors of "
            f"{self.name} were freed by the previous backward. Pass retain_graph=True to the "
            f"first backward()/grad() call if you need to backward through it again."
        )

    def _version_error(self, what: int | str, now: int, expected: int, tensor: Any) -> None:
        """Raise: input `what` (an index) or `what` (the output) changed in place since saved."""
        if isinstance(what, int):
            what = f"input {what} ({self.name_of_input(what)})"
        detail = ""
        if tensor is not None:
            op = getattr(tensor, "_inplace_op", None)
            detail = f" of shape {list(tensor.shape)}"
            detail += f", last modified in place by `{op}`" if op else ""
        raise RuntimeError(
            f"one of the variables needed for gradient computation has been modified by an "
            f"in-place operation: {what}{detail} of {self.name} is at version {now}; expected "
            f"version {expected}. Compute the in-place change on a copy (or out of place: "
            f"`x = x + 1` instead of `x += 1`), or do it after backward."
        )


def fit(gi: Any, shape: tuple, dtype: Any, node: Node, i: int, raw: bool) -> Any:
    """A rule's gradient made its input's: summed back over broadcast axes, cast to its dtype
    (`raw`: gi is an array, summed by the primitives' NumPy forwards; else they record)."""
    gshape = gi.shape
    if gshape != shape:
        how = unbroadcast_axes(gshape, shape)
        if how is None:
            raise RuntimeError(
                f"{node.name} returned a gradient of shape {tuple(gshape)} for its input {i} "
                f"({node.name_of_input(i)}), which has shape {tuple(shape)}: a gradient must "
                f"have the input's shape (or a shape that sums back to it)."
            )
        axes, keep = how
        summing, reshaping = (sum_.forward, reshape.forward) if raw else (sum_, reshape)
        gi = summing(gi, axis=axes, keepdims=keep)
        if keep and gi.shape != shape:
            gi = reshaping(gi, shape=shape)
    if gi.dtype is not dtype and gi.dtype != dtype:
        gi = gi.astype(dtype)
    return gi
