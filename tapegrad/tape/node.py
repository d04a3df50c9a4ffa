"""Node: one recorded op on the tape.

Layer L1: numpy, no tapegrad imports beyond L0. A Node holds the op's rule (its Primitive), edges to the
nodes (or leaf tensors) of its inputs, what the rule needs saved, and the versions of saved tensors.
It never holds its own output tensor (that would be a reference cycle): only the output's array.
"""

from __future__ import annotations

from typing import Any


# Set by tensor.py at import: wraps an array as a Tensor (optionally with a grad_fn). Injected so that
# the tape never imports tensor.py (DESIGN rule 1).
make_tensor: Any = None

FREED = object()  # marks `Node.saved` after a backward without retain_graph


class Meta:
    """Stands in for an input a rule did not save: only its shape and dtype are known."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)


class Node:
    """One recorded op. Made only by `tensor._record`, which sets every field directly (no
    __init__ call: it runs once per recorded op):

    prim       the Primitive: forward, rules, formula
    edges      per input: the input's Node, a leaf Tensor, or None (no gradient needed)
    saved      the inputs the rules need (Tensors or constants), None, or FREED after backward
    versions   per saved input: its version when saved (None: a constant); None for all: every
               saved input was a Tensor at version 0
    params     non-tensor arguments (axis, shape, index, ...)
    shapes     input shapes for un-broadcasting; None: all as the output's
    dtypes     input dtypes gradients are cast to; None: all as the output's
    out_data   the output's array, for rules that use `out` (else None)
    out_vc     the output's version counter, [0] when recorded (else None)
    pre_hooks  hooks on the output tensor's gradient (None: none)
    stack      the creation stack, in anomaly mode (else None)
    """

    __slots__ = (
        "prim",
        "edges",
        "saved",
        "versions",
        "params",
        "shapes",
        "dtypes",
        "out_data",
        "out_vc",
        "pre_hooks",
        "stack",
        "__weakref__",
    )
    prim: Any
    edges: tuple
    saved: Any
    versions: tuple | None
    params: dict
    shapes: tuple | None
    dtypes: tuple | None
    out_data: Any
    out_vc: list | None
    pre_hooks: list | None
    stack: list | None

    @property
    def name(self) -> str:
        return self.prim.node_name

    def name_of_input(self, i: int) -> str:
        names = self.prim.input_names
        return names[i] if i < len(names) else f"input{i}"

    def __repr__(self) -> str:
        return f"<{self.name}>"

    @property
    def next_functions(self) -> tuple:
        """PyTorch-style view of the edges: (Node or 'AccumulateGrad' leaf or None, 0) per input."""
        return tuple((e, 0) for e in self.edges)

    def register_hook(self, hook: Any) -> None:
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)

    def unpack_inputs(self, g: Any, raw: bool) -> Any:
        """The inputs a rule sees: Tensors tied to the graph (so create_graph works), or, when
        `raw` (nothing is being recorded), plain arrays. (The engine skips this call for a node
        that saved nothing and whose inputs are shaped as its output: g stands in for them.)"""
        saved = self.saved
        if saved.__class__ is tuple:
            versions = self.versions
            if versions is None:  # all Tensors, at version 0 when saved: only a counter made since
                for x in saved:  # then can mean a change (the common case: no counter at all)
                    vc = x._vc
                    if vc is not None and vc[0]:
                        self._saved_changed(x, vc[0], 0)
                if not raw:
                    return saved
                if len(saved) == 1:  # (tuples, built without a list: the engine unpacks them)
                    return (saved[0]._data,)
                if len(saved) == 2:
                    return (saved[0]._data, saved[1]._data)
                return tuple([x._data for x in saved])
            inputs: Any = []
            for x, v in zip(saved, versions):
                if v is None:  # a constant (Python numbers stay weak in raw mode: never upcast g)
                    inputs.append(x if raw else make_tensor(x, None, g.dtype))
                else:
                    vc = x._vc
                    if vc is not None and vc[0] != v:
                        self._saved_changed(x, vc[0], v)
                    inputs.append(x._data if raw else x)
            return inputs
        if saved is None:
            if self.shapes is None:  # inputs look like the output, so g can stand in for them
                return (g,) * len(self.edges)
            return tuple(map(Meta, self.shapes, self.dtypes))
        raise RuntimeError(
            f"Trying to backward through the graph a second time: the saved tensors of "
            f"{self.name} were freed by the previous backward. Pass retain_graph=True to the "
            f"first backward()/grad() call if you need to backward through it again."
        )

    def unpack_output(self, raw: bool) -> Any:
        """The output a rule sees (for rules written with `out`), checked for in-place changes."""
        if self.out_vc[0]:  # the output was changed in place after it was recorded
            self._version_error("its output", self.out_vc[0], 0, None)
        return self.out_data if raw else make_tensor(self.out_data, self)

    def _saved_changed(self, x: Any, now: int, expected: int) -> None:
        i = next(k for k, y in enumerate(self.saved) if y is x)
        self._version_error(f"input {i} ({self.name_of_input(i)})", now, expected, x)

    def _version_error(self, what: str, now: int, expected: int, tensor: Any) -> None:
        detail = ""
        if tensor is not None:
            op = getattr(tensor, "_inplace_op", None)
            detail = f" of shape {list(tensor.shape)}" + (
                f", last modified in place by `{op}`" if op else ""
            )
        raise RuntimeError(
            f"one of the variables needed for gradient computation has been modified by an in-place "
            f"operation: {what}{detail} of {self.name} is at version {now}; expected version "
            f"{expected}. Compute the in-place change on a copy (or out of place: `x = x + 1` instead "
            f"of `x += 1`), or do it after backward."
        )

    def release(self) -> None:
        """Drop saved tensors after backward (retain_graph=False)."""
        if self.saved is not None or self.out_data is not None:
            self.saved = FREED
            self.out_data = None
            self.versions = None
        ctx = self.params.get("ctx") if self.params else None
        if ctx is not None:  # a user autograd.Function keeps its saved tensors on its ctx
            ctx._free()
