"""tg.explain: the backward pass step by step, as the engine runs it; also backward(trace=True).

Layer L5: may import anything below it. Never re-implements backprop: it runs the real engine once,
watching (tapeinfo.observe: retain_graph=True, the leaves as targets, so no .grad is written and the
tape stays usable). Formulas come from the rule table (Primitive.texts). The notebook's HTML
table lives in explain_html.py.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, Iterator, TextIO

import numpy as np

from . import grouping, tapeinfo
from .tapeinfo import Names, format_values, input_label, shape_text
from ..tape.plan import execution_order
from ..tensor import Tensor

__all__ = ["Explanation", "LeafGrad", "Step", "explain", "format_step", "rule_texts"]

WIDTH = 100  # printed lines fit a projector and a terminal


@dataclass
class Step:
    """One node run by the engine: what it read, the gradient it got, what each input received."""

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
    rules: dict[str, str] = field(default_factory=dict)  # input -> the rule's text: "g * y"
    reads: dict[str, np.ndarray] = field(default_factory=dict)  # forward values the rules read
    output: str | None = None  # the .name of the tensor this node made, when set
    module: str | None = None  # the nn.Module path the op ran in ("fc1"), when known

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


class Explanation:
    """The steps of one backward pass: printed as text, shown as a table in a notebook, iterable.

    >>> steps = tg.explain(loss, show=False); [s.node for s in steps]  # doctest: +SKIP
    """

    def __init__(self, steps: list, leaves: list, seed: np.ndarray, text: str) -> None:
        self.steps, self.leaves, self.seed, self.text = steps, leaves, seed, text

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: int) -> Step:
        return self.steps[i]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        first = f" from {self.steps[0].node}" if self.steps else ""
        return (
            f"<Explanation of a backward pass{first}: {len(self.steps)} steps, "
            f"{len(self.leaves)} leaves; print() it for the text>"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's text display
        printer.text(self.text.rstrip("\n"))

    def _repr_html_(self) -> str:
        from .explain_html import to_html  # (only a notebook asks)

        return to_html(self)


# ---- building one step (shared by explain and backward(trace=True)) --------------------------
_G = re.compile(r"\bg\b")


def readable(text: str) -> str:
    """Rules are written with g for the incoming gradient; the text output says dL/dout."""
    return _G.sub("dL/dout", text)


def rule_texts(node: Any) -> dict:
    """{input label: its rule's text} of a node (or of a composite call's stand-in); "0" where the
    table has no rule (None: a zero gradient), as tg.autograd.formula writes it."""
    texts, names = node.prim.texts, node.prim.input_names
    rules = {}
    for i in range(len(node.edges)):
        if i < len(texts) and i < len(names) and len(node.edges) <= len(names):
            text = texts[i]
        elif len(texts) == 1 and len(names) == 1:  # variadic: one rule for xs[0], xs[1], ...
            text = texts[0]
        else:
            text = "(no formula registered)"
        rules[input_label(node, i)] = "0" if text is None else text
    return rules


def _where(e: Any, names: Names, step_of: dict | None, alias: dict | None = None) -> str:
    if e is None:
        return "constant"
    if isinstance(e, Tensor):
        return names.leaf(e)
    e = alias.get(e, e) if alias else e  # (a node folded into a composite call's step)
    k = step_of.get(e) if step_of else None
    made = names.of_node(e)
    return (f"[{k}] {e.name}" if k else e.name) + (f" ({made})" if made else "")


def make_step(
    node: Any,
    index: int,
    seen: tapeinfo.Observation,
    names: Names,
    step_of: dict | None = None,
    module: str | None = None,
    alias: dict | None = None,
) -> Step:
    """The Step record of one node (or of a composite call's stand-in), from what the watched
    engine saw (None grads: not reached)."""
    rules = rule_texts(node)
    labels = list(rules)
    received = seen.grads_in.get(node) or [None] * len(labels)
    g = seen.grad_out.get(node)
    return Step(
        index=index,
        node=node.name,
        op=node.prim.name,
        forward=f"out = {node.prim.expr}",
        formulas={k: f"dL/d{k} = {v}" for k, v in rules.items()},
        grad_out=g,
        grads_in=dict(zip(labels, received)),
        sends_to={labels[i]: _where(e, names, step_of, alias) for i, e in enumerate(node.edges)},
        contributions=max(1, seen.arrivals.get(node, 0)) if g is not None else 1,
        broadcast_from={labels[i]: s for i, s in seen.broadcast_from.get(node, {}).items()},
        rules=rules,
        reads=seen.reads[node] if node in seen.reads else tapeinfo.read_values(node),
        output=names.of_node(node),
        module=module,
    )


# ---- text ------------------------------------------------------------------------------------
def _fit_lines(lines: list) -> list:
    """Any line past WIDTH is wrapped, its continuation indented under the line's own text."""
    out = []
    for line in lines:
        if len(line) <= WIDTH:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        out += textwrap.wrap(
            line, WIDTH, subsequent_indent=indent, break_long_words=True, break_on_hyphens=False
        )
    return out


def _row(label: str, value: str, note: str, width: int) -> list:
    """`label  value  note`, the value in its column; a label wider than the column, or a value
    too wide for the line, puts the value on the next lines; a note that does not fit follows."""
    rows = value.split("\n")
    vwidth = max(len(r) for r in rows)
    column = 4 + width + 2
    if column + vwidth > WIDTH:  # the value goes under the label, indented
        lines = [f"    {label}"] + [f"        {r}" for r in rows]
    elif len(label) > width:  # a long rule: the value goes under it, in the value column
        lines = [f"    {label}"] + [" " * column + r for r in rows]
    else:
        lines = [f"    {label:<{width}}  {rows[0]:<{vwidth}}"] + [
            " " * column + r for r in rows[1:]
        ]
    if note:
        if len(lines[0]) + 3 + len(note) <= WIDTH:
            lines[0] += f"   {note}"
        else:
            lines.append(" " * min(column, 40) + note)
    return _fit_lines([line.rstrip() for line in lines if line.strip()])


def _reads_rows(step: Step, width: int, max_values: int) -> list:
    if not step.reads:
        return []
    parts = []
    for k, v in step.reads.items():  # continuation lines of an array under its first row
        text = format_values(v, max_values).replace("\n", "\n" + " " * (len(k) + 3))
        parts.append(f"{k} = {text}")
    one_line = "   ".join(parts)
    if "\n" not in one_line and 4 + width + 2 + len(one_line) <= WIDTH:
        return _row("reads", one_line, "", width)
    return [
        line
        for k, part in enumerate(parts)
        for line in _row("reads" if k == 0 else "", part, "", width)
    ]


def format_step(step: Step, max_values: int = 8) -> str:
    """The lines explain prints for one step (aligned: rule, value, where the gradient goes)."""
    rules = {k: readable(v) for k, v in step.formulas.items()}
    # the value column: after the rules, but for rules so long that their values go under them
    width = max([len("dL/dout")] + [len(r) for r in rules.values() if len(r) <= 40])
    about = ", ".join(
        ([f"makes {step.output}"] if step.output else [])
        + ([f"in {step.module}"] if step.module else [])
    )
    lines = _fit_lines(
        [f"[{step.index}] {step.node}    {step.forward}" + (f"    ({about})" if about else "")]
    )
    if step.grad_out is None:
        lines.append("    no gradient reached this node: nothing to send on")
        return "\n".join(lines)
    lines += _reads_rows(step, width, max_values)
    note = f"(sum of {step.contributions} incoming gradients)" if step.contributions > 1 else ""
    lines += _row("dL/dout", format_values(step.grad_out, max_values), note, width)
    for name, rule in rules.items():
        dest, gi = step.sends_to[name], step.grads_in[name]
        if dest == "constant" or gi is None:
            note = f"not computed: {name} is a constant" if dest == "constant" else ""
            note = note or f"no gradient (zero) for {dest}"
            dash = "-" if len(rule) <= width else ""  # (a long rule: the note alone follows it)
            lines += _row(rule, dash, note, width)
        else:
            note = f"-> {dest}"
            if name in step.broadcast_from:
                note += (
                    f"   (summed from broadcast shape {shape_text(step.broadcast_from[name])}"
                    f" to {shape_text(gi.shape)})"
                )
            lines += _row(rule, format_values(gi, max_values), note, width)
    return "\n".join(lines)


def _format_leaves(leaves: list, max_values: int) -> list:
    lines = ["gradients arriving at the leaves (what backward() would add to .grad):"]
    heads = [(lf.name, shape_text(lf.tensor.shape), str(lf.tensor.dtype)) for lf in leaves]
    widths = [min(max(len(h[k]) for h in heads), 30) for k in range(3)]
    for lf, head in zip(leaves, heads):
        label = "  ".join(f"{part:<{w}}" for part, w in zip(head, widths))
        value = (
            "None (no gradient reached it)"
            if lf.grad is None
            else format_values(lf.grad, max_values, with_shape=False)
        )
        note = f"(sum of {lf.contributions} contributions)" if lf.contributions > 1 else ""
        lines += _row(label, value, note, len(label))
    return lines


def running_in_ipython() -> bool:
    """Inside IPython or Jupyter, whose display shows the returned Explanation (as HTML in a
    notebook): printing as well would show it twice.

    >>> running_in_ipython()  # in a script  # doctest: +SKIP
    False
    """
    ipython = sys.modules.get("IPython")
    try:
        return ipython is not None and ipython.get_ipython() is not None
    except Exception:  # noqa: BLE001 (an odd IPython: behave as a plain script)
        return False


def trace_observer() -> tapeinfo.Watcher:
    """What backward(trace=True) uses: prints each step as the engine runs it."""
    state: dict = {}

    def on_step(node: Any) -> None:
        if not state:  # the first node is the root: name leaves as explain does
            state["names"] = Names(execution_order([node]))
            print(
                "backward(trace=True): step by step; dL/dout is the gradient arriving at a node.\n"
            )
        state["count"] = state.get("count", 0) + 1
        step = make_step(node, state["count"], seen, state["names"])
        print(format_step(step) + "\n")

    seen = tapeinfo.Observation([], np.ones(()))
    return tapeinfo.Watcher(seen, on_step)


# ---- public ----------------------------------------------------------------------------------
def explain(
    t: Tensor,
    gradient: Any = None,
    file: TextIO | None = None,
    show: bool | None = None,
    max_values: int = 8,
    *,
    expand: grouping.Expand = False,
) -> Explanation:
    """The backward pass of `t` step by step, in the engine's order: printed (in a script), shown as
    a table (a notebook cell ending with it), and returned as Step records. A composite function
    (F.cross_entropy, softmax, layer_norm, ...) is one step with its textbook rule; `expand=True`
    shows the primitives of every call, `expand=["cross_entropy"]` those of the calls named.

    >>> x = tg.tensor([1.0, 2.0], requires_grad=True)
    >>> steps = tg.explain((x * x).sum())  # doctest: +SKIP
    `show=None` prints unless running in IPython/Jupyter, whose display shows the result instead.
    """
    seen = tapeinfo.observe(t, gradient)
    names = Names(seen.order, t)
    folding = grouping.fold(seen.order, expand)
    if folding.stand_ins:  # (the values their rules read: their inputs and results)
        wanted = {e for f in folding.stand_ins for e in (*f.edges, f.out) if tapeinfo.is_node(e)}
        folding.observe(seen, tapeinfo.node_values(seen.order, names.outputs, wanted))
        names.fold(folding.alias)
    order = folding.order
    step_of = {n: k for k, n in enumerate(order, 1)}
    step_of.update({n: step_of[f] for n, f in folding.alias.items()})
    scopes = tapeinfo.scope_paths(order)
    steps = [
        make_step(
            node,
            k,
            seen,
            names,
            step_of,
            scopes[node][-1][0] if node in scopes else None,
            folding.alias,
        )
        for k, node in enumerate(order, 1)
    ]
    leaves = [
        LeafGrad(names.leaf(leaf), leaf, g, seen.arrivals.get(leaf, 0))
        for leaf, g in seen.leaf_grads.items()
    ]
    n = len(order)
    maker = (  # the function the user called, when it was a composite one
        f"{steps[0].op} ({steps[0].node})" if n and order[0] in folding.stand_ins else None
    )
    head = [
        f"Backward pass of a {'scalar' if t.ndim == 0 else shape_text(t.shape)} {t.dtype} tensor"
        + (
            f" made by {maker or order[0].name}: {n} step{'s' * (n != 1)}, in the engine's order."
            if n
            else ": a leaf, so no steps; its gradient is the seed."
        ),
        "dL/dout is the gradient arriving at a node; its rules turn it into dL/d(input).",
        *_row("seed dL/dout", format_values(seen.seed, max_values), "", 12),
        "",
    ]
    body = [format_step(s, max_values) + "\n" for s in steps]
    text = "\n".join(_fit_lines(head) + body + _format_leaves(leaves, max_values)) + "\n"
    result = Explanation(steps, leaves, seen.seed, text)
    if show or (show is None and (file is not None or not running_in_ipython())):
        print(text, end="", file=file if file is not None else sys.stdout)
    return result
