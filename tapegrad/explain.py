"""tg.explain: the backward pass step by step, exactly as the engine runs it; also backward(trace=True).

Layer L5: may import anything below it. Never re-implements backprop: it runs the real engine
(tape.engine.run_backward) with an observer, retain_graph=True and the leaves as targets, so no
.grad is written and the tape stays usable. Formulas come from the rule table (Primitive.grad_texts).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

import numpy as np

from .autograd.functions import roots_and_seeds
from .tape.engine import run_backward
from .tape.node import fit
from .tape.plan import execution_order
from .tape.node import Node
from .tensor import Tensor
from .viz import LeafNames, format_values, input_label, leaves_of, shape_text

__all__ = ["Explanation", "LeafGrad", "Step", "explain", "format_step"]


@dataclass
class Step:
    """One node run by the engine: the gradient it got and what it sent to each input."""

    index: int  # 1-based position in the engine's order
    node: str  # "MulBackward"
    op: str  # the primitive: "mul"
    forward: str  # "out = x * y"
    formulas: dict[str, str]  # input -> "dL/dx = g * y" (as tg.autograd.formula)
    grad_out: np.ndarray | None  # dL/dout arriving here (None: no gradient reached it)
    grads_in: dict[str, np.ndarray | None]  # input -> gradient it receives (after un-broadcasting)
    sends_to: dict[str, str]  # input -> "[3] MulBackward", "leaf0" or "constant"
    contributions: int = 1  # gradients summed into grad_out (fan-out makes > 1)
    broadcast_from: dict[str, tuple] = field(default_factory=dict)  # input -> shape before summing

    @property
    def formula(self) -> str:
        return "\n".join(self.formulas.values())


@dataclass
class LeafGrad:
    """The gradient arriving at one leaf: what backward() would add to its .grad."""

    name: str
    tensor: Tensor
    grad: np.ndarray | None
    contributions: int


class Explanation(list):
    """The list of Steps, plus `.leaves` (LeafGrads) and `.text` (what explain printed)."""

    leaves: list
    text: str

    def __str__(self) -> str:
        return self.text


# ---- building and formatting one step (shared by explain and backward(trace=True)) -----------
_G = re.compile(r"\bg\b")


def _readable(text: str) -> str:
    """Rules are written with g for the incoming gradient; students read it as dL/dout."""
    return _G.sub("dL/dout", text)


def _rule_text(node: Node, i: int) -> str:
    texts, names = node.prim.texts, node.prim.input_names
    if i < len(texts) and i < len(names) and len(node.edges) <= len(names):
        return f"dL/d{names[i]} = {texts[i]}"
    if len(texts) == 1 and len(names) == 1:  # variadic: one rule for xs[0], xs[1], ...
        return f"dL/d{input_label(node, i)} = {texts[0]}"
    return f"dL/d{input_label(node, i)} = (no formula registered)"


def _formulas(node: Node) -> dict:
    return {input_label(node, i): _rule_text(node, i) for i in range(len(node.edges))}


class _Observer:
    """The engine's observer: turns each step into a Step (and prints it when asked)."""

    def __init__(
        self,
        names: LeafNames,
        step_of: dict | None,
        max_values: int,
        out: Callable[[str], None] | None,
    ) -> None:
        self.names, self.step_of, self.max_values, self.out = names, step_of, max_values, out
        self.steps: list = []
        self.nodes: list = []  # the node of each step
        self.arrivals: dict = {}  # node or leaf -> number of non-None gradients delivered to it

    def where(self, e: Any) -> str:
        if e is None:
            return "constant"
        if e.__class__ is Node:
            k = self.step_of.get(e) if self.step_of else None
            return f"[{k}] {e.name}" if k else e.name
        return self.names(e)

    def __call__(self, node: Node, g: Any, grads: list) -> None:
        grads_in, sends_to, broadcast = {}, {}, {}
        for i, e in enumerate(node.edges):
            label, gi = input_label(node, i), grads[i] if grads is not None else None
            sends_to[label] = self.where(e)
            if gi is not None and e is not None and node.shapes is not None:
                # (node.shapes is None when every input has the output's shape and dtype)
                if tuple(gi.shape) != tuple(node.shapes[i]):
                    broadcast[label] = tuple(gi.shape)
                # what the input really receives: the engine's own un-broadcasting, not a copy of it
                gi = fit(gi, node.shapes[i], node.dtypes[i], node, i)
            if gi is not None and e is not None:
                self.arrivals[e] = self.arrivals.get(e, 0) + 1
            grads_in[label] = None if gi is None or e is None else np.array(gi._data, copy=True)
        step = Step(
            index=len(self.steps) + 1,
            node=node.name,
            op=node.prim.name,
            forward=f"out = {node.prim.expr}",
            formulas=_formulas(node),
            grad_out=None if g is None else np.array(g._data, copy=True),
            grads_in=grads_in,
            sends_to=sends_to,
            contributions=max(1, self.arrivals.get(node, 0)),
            broadcast_from=broadcast,
        )
        self.steps.append(step)
        self.nodes.append(node)
        if self.out is not None:
            self.out(format_step(step, self.max_values))


def _block(label: str, value: str, note: str, width: int) -> list:
    """Rows `label  value  note`, with a multi-line value kept in its column."""
    rows = value.split("\n")
    vwidth = max(len(r) for r in rows)
    lines = [f"    {label:<{width}}  {rows[0]:<{vwidth}}" + (f"   {note}" if note else "")]
    lines += [f"    {'':<{width}}  {r}" for r in rows[1:]]
    return [line.rstrip() for line in lines]


def format_step(step: Step, max_values: int = 8) -> str:
    """The lines explain prints for one step (aligned: rule, value, where the gradient goes)."""
    rules = {k: _readable(v) for k, v in step.formulas.items()}
    width = max([len("dL/dout")] + [len(r) for r in rules.values()])
    lines = [f"[{step.index}] {step.node}    {step.forward}"]
    if step.grad_out is None:
        lines.append("    no gradient reached this node: nothing to send on")
        return "\n".join(lines)
    note = f"(sum of {step.contributions} incoming gradients)" if step.contributions > 1 else ""
    lines += _block("dL/dout", format_values(step.grad_out, max_values), note, width)
    for name, rule in rules.items():
        dest, gi = step.sends_to[name], step.grads_in[name]
        if dest == "constant":
            lines += _block(rule, "-", f"not computed: {name} is a constant", width)
        elif gi is None:
            lines += _block(rule, "-", f"no gradient (zero) for {dest}", width)
        else:
            note = f"-> {dest}"
            if name in step.broadcast_from:
                note += (
                    f"   (summed from broadcast shape {shape_text(step.broadcast_from[name])}"
                    f" to {shape_text(gi.shape)})"
                )
            lines += _block(rule, format_values(gi, max_values), note, width)
    return "\n".join(lines)


def _format_leaves(leaves: list, max_values: int) -> list:
    lines = ["gradients arriving at the leaves (what backward() would add to .grad):"]
    heads = [(lf.name, shape_text(lf.tensor.shape), str(lf.tensor.dtype)) for lf in leaves]
    widths = [max(len(h[k]) for h in heads) for k in range(3)]
    for lf, head in zip(leaves, heads):
        head = "  ".join(f"{part:<{w}}" for part, w in zip(head, widths))
        value = (
            "None (no gradient reached it)"
            if lf.grad is None
            else format_values(lf.grad, max_values, with_shape=False)
        )
        note = f"(sum of {lf.contributions} contributions)" if lf.contributions > 1 else ""
        lines += _block(head, value, note, len(head))
    return lines


def _align(order: list, observer: _Observer) -> list:
    """One Step per node of execution_order; the engine skips (never observes) nodes no gradient reached."""
    by_node = dict(zip(observer.nodes, observer.steps))
    steps = []
    for k, node in enumerate(order, 1):
        step = by_node.get(node)
        if step is None:
            formulas = _formulas(node)
            step = Step(
                k,
                node.name,
                node.prim.name,
                f"out = {node.prim.expr}",
                formulas,
                None,
                dict.fromkeys(formulas),
                {input_label(node, i): observer.where(e) for i, e in enumerate(node.edges)},
            )
        step.index = k
        steps.append(step)
    return steps


def trace_observer() -> _Observer:
    """What backward(trace=True) uses: prints each step as the engine runs it."""

    def out(text: str) -> None:
        if len(observer.steps) == 1:  # first step: say what the lines mean
            print(
                "backward(trace=True): step by step; dL/dout is the gradient arriving at a node.\n"
            )
        print(text + "\n")

    observer = _Observer(LeafNames(), None, 8, out)
    return observer


# ---- public ----------------------------------------------------------------------------------
def explain(
    t: Tensor,
    gradient: Any = None,
    file: TextIO | None = None,
    show: bool = True,
    max_values: int = 8,
) -> Explanation:
    """Print the backward pass of `t` step by step, in the engine's order; return the Steps.

    >>> x = tg.tensor([1.0, 2.0], requires_grad=True); steps = tg.explain((x * x).sum())  # doctest: +SKIP
    """
    roots, seeds = roots_and_seeds(t, gradient, "the tensor", "gradient", single=True)
    order = execution_order(roots if t._grad_fn is not None else [])
    names = LeafNames()
    leaves = leaves_of(order) if order else [t]
    for (
        leaf
    ) in leaves:  # name leaves in the order the engine meets them (matches the printed steps)
        names(leaf)
    observer = _Observer(names, {n: k for k, n in enumerate(order, 1)}, max_values, None)
    # Hooks still run, as in any backward: a retain_grad() tensor's hook writes its .grad (core issue).
    captured = run_backward(
        roots, seeds, set(leaves), retain_graph=True, create_graph=False, observer=observer
    )
    steps = Explanation(_align(order, observer))
    if not order:
        observer.arrivals[t] = 1
    steps.leaves = [
        LeafGrad(
            names(leaf),
            leaf,
            None if captured.get(leaf) is None else np.array(captured[leaf]._data),
            observer.arrivals.get(leaf, 0),
        )
        for leaf in leaves
    ]
    seed = seeds[0]
    n = len(order)
    head = [
        f"Backward pass of a {shape_text(t.shape)} {t.dtype} tensor"
        + (
            f" made by {t._grad_fn.name}: {n} step{'s' * (n != 1)}, in the order the engine runs "
            f"them."
            if n
            else ": a leaf, so no steps; its gradient is the seed."
        ),
        "dL/dout is the gradient arriving at a node; its rules turn it into dL/d(input).",
        *_block("seed dL/dout", format_values(seed._data, max_values), "", 12),
        "",
    ]
    body = [format_step(s, max_values) + "\n" for s in steps]
    steps.text = "\n".join(head + body + _format_leaves(steps.leaves, max_values)) + "\n"
    if show:
        print(steps.text, end="", file=file if file is not None else sys.stdout)
    return steps
