"""The textbook rules of the functions users call that run as several primitives (F.cross_entropy,
softmax, layer_norm, gelu, ...): what tg.autograd.formula prints for them, and what tg.explain and
tg.viz.draw show as ONE step (CrossEntropyBackward) with the gradient in and the gradients out.

Layer L1: numpy only. These rules never run in the engine: the primitives the function recorded
do. Each rule is a Python expression over g, out and the function's inputs, evaluated on arrays by
`evaluate` with the symbols its notes define (N, onehot, softmax along the class axis, ...), and
the tests hold every one equal to the gradients the tape computes. A rule's variant follows the
call: `rule("cross_entropy", {"reduction": "sum"})` drops the / N. The rules themselves live by
topic in composite_layers.py (softmax, activations, normalisations, layers' functions),
composite_activations.py (the other activations), composite_losses.py and composite_margins.py
(margin and likelihood losses, distances); this module is their
machinery (the package imports them all).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._erf import erf
from .registry import plain

__all__ = [
    "COMPOSITES",
    "Rule",
    "call_params",
    "composite",
    "evaluate",
    "lookup_composite",
    "rule",
    "wrapped",
]


@dataclass(frozen=True)
class Rule:
    """One composite function's rule, as a textbook writes it, for one way of calling it."""

    name: str  # "cross_entropy"
    expr: str  # the forward: "-mean(log_softmax(x)[y])"
    rules: dict[str, str | None]  # input -> rule text (None: no gradient, a constant)
    notes: tuple[str, ...] = ()  # what the rule's symbols mean, one line each
    node: str = ""  # the node's name, when not the name in CamelCase + "Backward"
    variants: tuple[tuple[str, "Rule"], ...] = field(default=(), compare=False)

    @property
    def node_name(self) -> str:
        return self.node or "".join(p.capitalize() for p in self.name.split("_")) + "Backward"

    # (the face a Primitive shows the teaching tools: they draw and explain either)
    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(self.rules)

    @property
    def texts(self) -> tuple[str | None, ...]:
        return tuple(self.rules.values())

    @property
    def kernels(self) -> tuple[None, ...]:
        return (None,) * len(self.rules)

    variadic = False

    def formula(self, detail: bool = False) -> str:
        """The forward, each input's rule and what its symbols mean (and the other variants)."""
        lines = [f"{self.name}: out = {self.expr}    (backward node: {self.node_name})"]
        for name, text in self.rules.items():
            lines.append(
                f"  dL/d{name} = {'0    (a constant: no gradient)' if text is None else text}"
            )
        lines += [f"  {note}" for note in self.notes]
        for label, other in self.variants:
            for name, text in other.rules.items():
                if text is not None and text != self.rules.get(name):
                    lines.append(f"  with {label}: dL/d{name} = {text}")
        lines.append("  (g = dL/dout, the gradient arriving at the output)")
        lines.append(
            f"  (several primitives run; tg.explain shows them as this one step, "
            f"expand=[{self.name!r}] shows each)"
        )
        return "\n".join(lines)


Builder = Callable[[dict], Rule]
Symbols = Callable[[dict, dict], dict]
Refine = Callable[[dict, dict], dict]


@dataclass(frozen=True)
class Composite:
    """A registered composite: how its rule is built for a call, and its symbols' values."""

    name: str
    build: Builder
    symbols: Symbols | None
    variants: tuple[tuple[str, dict], ...]  # (label, params) shown by formula()
    # what a call's constant inputs add to its params (read when a tool looks, never at the
    # call: whether a target is ignore_index, a weighted mean's divisor)
    refine: Refine | None = None


COMPOSITES: dict[str, Composite] = {}


def composite(
    name: str,
    symbols: Symbols | None = None,
    variants: tuple[tuple[str, dict], ...] = (),
    refine: Refine | None = None,
) -> Callable[[Builder], Builder]:
    """Register `build(params) -> Rule` as the rule of composite `name`.

    >>> @composite("silu")
    ... def silu(p): return Rule("silu", "x * sigmoid(x)", {"x": "..."})
    """

    def register(build: Builder) -> Builder:
        if name in COMPOSITES:
            raise ValueError(f"composite {name!r} is registered twice")
        COMPOSITES[name] = Composite(name, build, symbols, variants, refine)
        return build

    return register


def call_params(name: str, params: dict, constants: dict) -> dict:
    """A call's params with what its constant inputs ({name: array}) tell (see Composite)."""
    refine = COMPOSITES[name].refine if name in COMPOSITES else None
    return refine(dict(params), constants) if refine is not None else dict(params)


def rule(name: str, params: dict | None = None) -> Rule:
    """The rule of composite `name` for a call with `params` (the textbook's default without)."""
    spec = COMPOSITES[name]
    made = spec.build(dict(params or {}))
    if params is None and spec.variants:
        others = tuple((label, spec.build(dict(p))) for label, p in spec.variants)
        made = Rule(made.name, made.expr, made.rules, made.notes, made.node, others)
    return made


# Functions that only call a composite under another name (PyTorch's deprecated spellings)
ALIASES = {
    "upsample": "interpolate",
    "upsample_nearest": "interpolate",
    "upsample_bilinear": "interpolate",
    "feature_alpha_dropout": "alpha_dropout",  # (its mask drawn per channel)
    # (PyTorch's spellings that always return the indices too)
    "fractional_max_pool2d_with_indices": "fractional_max_pool2d",
    "fractional_max_pool3d_with_indices": "fractional_max_pool3d",
    "adaptive_max_pool1d_with_indices": "adaptive_max_pool1d",
    "adaptive_max_pool2d_with_indices": "adaptive_max_pool2d",
    "adaptive_max_pool3d_with_indices": "adaptive_max_pool3d",
    "max_pool3d_with_indices": "max_pool3d",
    "max_pool1d_with_indices": "max_pool1d",  # (WRAPPERS': a primitive's rule)
    "max_pool2d_with_indices": "max_pool2d",
}


def lookup_composite(name: str) -> str | None:
    """The composite called `name` ("cross_entropy", "CrossEntropyBackward", an alias such as
    "upsample"), or None."""
    key = name.strip()
    if key in COMPOSITES:
        return key
    if ALIASES.get(key) in COMPOSITES:
        return ALIASES[key]
    for spec in COMPOSITES.values():
        if rule(spec.name).node_name.lower() == key.lower():
            return spec.name
    return None


# ---- evaluation: the rules as NumPy, for the tests ---------------------------------------------
def sigmoid(v: Any) -> Any:
    return 0.5 * (1 + np.tanh(0.5 * np.asarray(v)))  # (no overflow for large |v|)


def softplus(v: Any) -> Any:
    return np.logaddexp(0, v)


BASE = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sign": np.sign,
    "abs": np.abs,
    "where": np.where,
    "erf": erf,
    "sigmoid": sigmoid,
    "softplus": softplus,
    "pi": math.pi,
    "T": lambda m: np.swapaxes(m, -1, -2),
}


def evaluate(name: str, params: dict, values: dict) -> dict[str, np.ndarray]:
    """Each input's gradient by the rule's text, on arrays: `values` holds g, out and the inputs
    by the rule's names. (What the tests compare with the tape's gradients.)"""
    spec = COMPOSITES[name]
    made = spec.build(dict(params))
    namespace = dict(BASE)
    namespace.update(values)
    if spec.symbols is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            namespace.update(spec.symbols(dict(params), namespace))
    return {k: eval(text, namespace) for k, text in made.rules.items() if text is not None}


def along(axis: Any) -> dict:
    """Sums and means over `axis`, kept as size-1 axes (so they broadcast back)."""
    return {
        "sum": lambda v, axis=axis: np.sum(v, axis=axis, keepdims=True),
        "avg": lambda v: np.mean(v, axis=axis, keepdims=True),
        "mean": lambda v: np.mean(v, axis=axis, keepdims=True),
        "var": lambda v: np.var(v, axis=axis, keepdims=True),
    }


def normalised(x: np.ndarray, axis: Any) -> np.ndarray:
    """exp(x) / sum(exp(x)) over axis, shifted by the max (stable)."""
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def scatter_add(g: np.ndarray, index: np.ndarray, shape: tuple) -> np.ndarray:
    """g added into zeros of `shape`: at rows `index` (one per leading position of g), or, for an
    index shaped as g, at those flat positions (-1: nowhere)."""
    z = np.zeros(shape, np.asarray(g).dtype)
    if np.shape(index) == np.shape(g):
        keep = index >= 0
        np.add.at(z.reshape(-1), index[keep], g[keep])
    else:
        np.add.at(z, index, g)
    return z


# Functions whose rule is a primitive's (wrapped in reshapes): the primitive's table text, for the
# inputs the call had (a linear layer without bias has no b).
WRAPPERS = {
    "linear": "linear",
    "conv1d": "conv2d",
    "conv2d": "conv2d",
    "conv3d": "conv2d",  # (per kernel depth tap, over depth slices folded into the batch)
    "max_pool1d": "max_pool2d",
    "max_pool2d": "max_pool2d",
    "avg_pool1d": "avg_pool2d",
    "avg_pool2d": "avg_pool2d",
}


def wrapped(name: str, prim: Any, present: tuple[str, ...] | None = None) -> Rule:
    """The rule of a function that runs primitive `prim` between reshapes."""
    texts = dict(zip(prim.input_names, prim.texts))
    if present is not None:
        texts = {k: t for k, t in texts.items() if k in present}
    return Rule(
        name,
        prim.expr,
        {k: None if t is None else plain(t) for k, t in texts.items()},
        (f"(the {prim.name} primitive's rule, on the input seen as 2-D)",)
        if name != prim.name
        else (),
    )


_NAME = re.compile(r"[A-Za-z_]\w*")


def names_read(text: str | None) -> set[str]:
    """The names a rule's text mentions (what explain shows the values of)."""
    return set(_NAME.findall(text or ""))
