"""The rule table's machinery: `primitive` registers a forward (NumPy) with its VJP rules (Tensors).

Layer L1: standard library only. A rule is written with tapegrad ops (calling a Primitive on Tensors
records it), so under create_graph=True the backward pass is itself recorded.
Rule signature: `rule(g, out, *inputs, **params)` -> the gradient for one input (or None = zero),
at the output's broadcast shape; the engine sums it back to the input's shape and dtype. g, out and
the inputs are Tensors under create_graph=True and plain arrays otherwise: read masks with `value(x)`.
"""

from __future__ import annotations

import difflib
import inspect
from typing import Any, Callable

REGISTRY: dict[str, "Primitive"] = {}

# Set by tensor.py at import: records one op (Tensor._apply), and the Tensor class. Calling a
# Primitive on Tensors records it; on plain arrays (the engine without create_graph) it is just the
# NumPy forward, so the same rule runs at NumPy speed when nothing needs recording.
apply: Any = None
tensor_type: Any = None


def value(x: Any) -> Any:
    """The array behind x, whether x is a Tensor or already an array (for constant masks in rules)."""
    return getattr(x, "_data", x)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


class Primitive:
    """One differentiable op: forward on arrays, a VJP per input, and the formula as text."""

    __slots__ = (
        "name",
        "forward",
        "vjps",
        "vjp_all",
        "expr",
        "grad_texts",
        "node_name",
        "saves",
        "needs_out",
        "view",
        "keeps_shape",
        "input_names",
        "__weakref__",
    )

    def __init__(
        self,
        name: str,
        forward: Callable,
        expr: str,
        grad_texts: tuple[str, ...],
        saves: bool,
        needs_out: bool,
        view: bool,
        keeps_shape: bool = False,
    ) -> None:
        self.name = name
        self.forward = forward
        self.expr = expr
        self.grad_texts = grad_texts
        self.node_name = _camel(name) + "Backward"
        self.saves = saves
        self.needs_out = needs_out
        self.view = view
        # One input, and the output (and so the gradient the rule returns) has its shape and dtype,
        # for every float input: nothing to un-broadcast or cast, so nothing for the tape to check.
        self.keeps_shape = keeps_shape
        self.vjps: tuple | None = None
        self.vjp_all: Callable | None = None
        nin = getattr(forward, "nin", None)  # a NumPy ufunc: its inputs are x (and y)
        if nin is not None:
            self.input_names = ("x", "y", "z")[:nin]
        else:
            params = inspect.signature(forward).parameters.values()
            self.input_names = tuple(
                p.name
                for p in params
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
            )

    def defvjp(self, *rules: Callable | None) -> "Primitive":
        """Register one rule per input (None: that input never gets a gradient)."""
        self.vjps = rules
        return self

    def defvjp_all(self, rule: Callable) -> "Primitive":
        """Register one rule returning the gradients of all inputs (variadic ops)."""
        self.vjp_all = rule
        return self

    def __call__(self, *args: Any, **params: Any) -> Any:
        for a in args:
            if isinstance(a, tensor_type):
                return apply(self, *args, **params)
        return self.forward(*args, **params) if params else self.forward(*args)

    def formula(self) -> str:
        lines = [f"{self.name}: out = {self.expr}    (backward node: {self.node_name})"]
        for input_name, text in zip(self.input_names, self.grad_texts):
            lines.append(f"  dL/d{input_name} = {text}")
        if "g" not in self.input_names:  # (the *_backward ops name their first input g)
            lines.append("  (g = dL/dout, the gradient arriving at the output)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


def primitive(
    name: str,
    expr: str,
    *grad_texts: str,
    saves: bool = True,
    needs_out: bool = False,
    view: bool = False,
    keeps_shape: bool = False,
) -> Callable[[Callable], Primitive]:
    """Register `forward` as primitive `name`; `grad_texts` are the readable rules, one per input."""

    def register(forward: Callable) -> Primitive:
        if name in REGISTRY:
            raise ValueError(f"primitive {name!r} is registered twice")
        prim = Primitive(name, forward, expr, grad_texts, saves, needs_out, view, keeps_shape)
        REGISTRY[name] = prim
        return prim

    return register


def lookup(name: str) -> Primitive:
    if not isinstance(name, str):
        raise TypeError(f'an op is named by a str (e.g. "sin" or "SinBackward"), got {name!r}')
    key = name.lower().strip()
    if key in REGISTRY:  # (before stripping "Backward": tanh_backward is an op of its own)
        return REGISTRY[key]
    if key.endswith("backward"):
        key = key[: -len("backward")]
    by_camel = {p.node_name.lower()[: -len("backward")]: p for p in REGISTRY.values()}
    if key in REGISTRY:
        return REGISTRY[key]
    if key in by_camel:
        return by_camel[key]
    close = difflib.get_close_matches(key, list(REGISTRY), n=5, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise KeyError(f"no primitive named {name!r}.{hint} tg.autograd.rules() lists them all.")
