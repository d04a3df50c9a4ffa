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
from ..primitives.registry import Primitive, SavePlan
from ..primitives.shape import reshape

FREED = object()  # marks `Node.saved` after a backward without retain_graph (the engine frees)
NUMBER_ONLY = (None, None)  # `Node.versions` of a binary op that saved only a Python number


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
    __init__ call: it runs once per recorded op):

    prim       the Primitive: forward, rules, formulas
    plan       its SavePlan for the inputs that need a gradient (what is saved, the rules to run)
    edges      per input: the input's Node, a leaf Tensor, or None (no gradient needed)
    saved      per input the value its rules read (a Tensor or a constant) or None; None for
               all when no rule reads an input; FREED after a backward without retain_graph
    versions   per saved Tensor its version when saved (None: a constant, or not saved); None
               for all: every input is saved, a Tensor at version 0 (the common case);
               NUMBER_ONLY: a binary op saved only its Python-number input (x * 2.0)
    params     non-tensor arguments (axis, shape, index, ...)
    shapes     per input its shape, for un-broadcasting; None: every input shaped as the output
    dtypes     per input its dtype, gradients are cast to it; None: as the output's
    out_data   the output's array, when a rule reads `out` (else None)
    out_vc     the output's version counter when out_data is kept (else None)
    pre_hooks  hooks on the output tensor's gradient (None: none)
    scope      the nn.Modules running when it was recorded, outermost first (None: none)
    constants  the Python numbers among its inputs, None elsewhere (for drawings; None: none)
    seq        its place in recording order: inputs are recorded before the ops that use them, so
               running nodes latest first is a reverse topological order (as PyTorch's sequence_nr)
    composite  on the node of a composite function's result only (F.cross_entropy, softmax...):
               the call (tape/composite.py), for the teaching tools. record() never sets it, so
               it costs nothing per op; read it with getattr(node, "composite", None)
    """

    __slots__ = (
        "prim",
        "plan",
        "edges",
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
    edges: tuple
    saved: Any
    versions: Any  # (these four: a tuple or list, or None; see above)
    params: dict
    shapes: Any
    dtypes: Any
    out_data: Any
    out_vc: Any
    pre_hooks: list | None
    scope: tuple | None
    constants: tuple | None
    seq: int
    composite: Any  # (a tape.composite.Composite; unset on most nodes)

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
        the tape, so create_graph records), checked for in-place changes; for an input no rule
        reads, something of its shape and dtype (g itself when the input looks like the output)."""
        saved = self.saved
        if saved is None:
            if self.shapes is None:
                return (g,) * len(self.edges)
            return tuple(map(Meta, self.shapes, self.dtypes))
        if saved is FREED:
            raise RuntimeError(
                f"Trying to backward through the graph a second time: the saved tensors of "
                f"{self.name} were freed by the previous backward. Pass retain_graph=True to the "
                f"first backward()/grad() call if you need to backward through it again."
            )
        versions = self.versions
        if versions is NUMBER_ONLY and self.shapes is None:  # (x * 2.0: 2.0, and g standing in
            a, b = saved  # for x; nothing to check)
            return (g, b) if a is None else (a, g)
        if versions is None:  # every input saved, each a Tensor at version 0 when saved: only a
            for x in saved:  # counter made since then can mean a change
                vc = x._vc
                if vc is not None and vc[0]:
                    i = next(k for k, y in enumerate(saved) if y is x)  # (identity: no ==)
                    self._version_error(f"input {i} ({self.name_of_input(i)})", vc[0], 0, x)
            return saved if not raw else [x._data for x in saved]
        seen: list = []
        shapes = self.shapes
        for i, x in enumerate(saved):
            if x is None:
                seen.append(g if shapes is None else Meta(shapes[i], self.dtypes[i]))
                continue
            v = versions[i]
            if v is None:  # a constant, as it is (a Python number stays weak: it never upcasts g)
                seen.append(x)
                continue
            vc = x._vc
            if vc is not None and vc[0] != v:
                self._version_error(f"input {i} ({self.name_of_input(i)})", vc[0], v, x)
            seen.append(x._data if raw else x)
        return seen

    def output(self, raw: bool) -> Any:
        """The output, for rules that read `out` (None when none does), checked for changes."""
        out = self.out_data
        if out is None:
            return None
        if self.out_vc[0]:  # the output was changed in place after it was recorded
            self._version_error("its output", self.out_vc[0], 0, None)
        return out if raw else registry.layer.wrap(out, self)

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

    def _version_error(self, what: str, now: int, expected: int, tensor: Any) -> None:
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


def fit(gi: Any, shape: tuple, dtype: Any, node: Node, i: int) -> Any:
    """A rule's gradient made its input's: summed back over broadcast axes, cast to its dtype."""
    gshape = gi.shape
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes, keep = unbroadcast_axes(gshape, shape) if lead >= 0 else ((), False)
        if lead < 0 or any(n != m and n != 1 for n, m in zip(shape, gshape[lead:])):
            raise RuntimeError(
                f"{node.name} returned a gradient of shape {tuple(gshape)} for its input {i} "
                f"({node.name_of_input(i)}), which has shape {tuple(shape)}: a gradient must "
                f"have the input's shape (or a shape that sums back to it)."
            )
        gi = sum_(gi, axis=axes, keepdims=keep)  # a primitive: recorded when gi is on the tape
        if keep and gi.shape != shape:
            gi = reshape(gi, shape=shape)
    if gi.dtype is not dtype and gi.dtype != dtype:
        gi = gi.astype(dtype)
    return gi
