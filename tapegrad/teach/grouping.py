"""Composite calls as one step: the nodes a function such as F.cross_entropy recorded, folded into
one stand-in that tg.explain and tg.viz.draw walk like a node, with the function's textbook rule,
the gradient arriving at its result and the gradient each of its inputs receives.

Layer L5: reads the marks calls leave (tape/composite.py) and the composites' rules
(primitives/composites.py); never changes the tape. `fold(order, expand)` gives the order the tools
walk (a stand-in where its call's nodes were) and `alias` (each folded node -> its stand-in);
`Folding.observe` adds the stand-ins' gradients and values to a watched backward's Observation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from ..primitives import composites
from ..primitives.registry import REGISTRY
from ..tensor import Tensor
from .tapeinfo import Observation, input_label

__all__ = ["Folded", "Folding", "call_params", "fold", "rule_of"]

Expand = bool | Iterable[str]

# The parameters a drawing shows on a call's node (those a user passes: not the counts).
SHOWN = ("reduction", "dim", "p", "approximate", "alpha", "beta", "threshold", "delta", "mode")


def call_params(mark: Any) -> dict:
    """The params of one marked call, with what its constant inputs tell (composites.Refine)."""
    constants = {k: c for k, c in zip(mark.labels, mark.constants) if c is not None}
    return composites.call_params(mark.name, mark.params, constants)


def rule_of(mark: Any) -> composites.Rule:
    """The textbook rule of one marked call, for the way it was called."""
    if mark.name in composites.COMPOSITES:
        return composites.rule(mark.name, call_params(mark))
    return composites.wrapped(mark.name, REGISTRY[composites.WRAPPERS[mark.name]], mark.labels)


class Folded:
    """Stands in for the nodes of one composite call: its edges lead to the call's inputs (and to
    anything else its nodes read), its `prim` is the call's rule."""

    out_data = None  # (what the tools read of a Node: no saved output, no shapes to fit)
    constants = None
    shapes = dtypes = None
    released = False  # (nothing of its own to release: its members keep what they saved)

    def __init__(self, out: Any, mark: Any, members: set) -> None:
        self.out, self.mark, self.members = out, mark, members
        self.seq, self.scope, self.params = out.seq, getattr(out, "scope", None), {}
        present = [  # (an absent input, such as a missing bias, has neither)
            (k, e, c)
            for k, e, c in zip(mark.labels, mark.edges, mark.constants)
            if e is not None or c is not None
        ]
        labels, edges = [k for k, _, _ in present], [e for _, e, _ in present]
        declared = {id(e) for e in edges if e is not None}
        for m in sorted(members, key=lambda n: -n.seq):  # edges leaving the call undeclared
            for i, e in enumerate(m.edges):
                if e is not None and e not in members and id(e) not in declared:
                    declared.add(id(e))
                    edges.append(e)
                    labels.append(input_label(m, i))
        self.labels, self.edges = tuple(labels), tuple(edges)
        # constant inputs by value, for drawings (None for the others)
        self.saved = tuple(c for _, _, c in present) + (None,) * (len(edges) - len(present))
        rule = rule_of(mark)
        inside = f"(the gradient of an input read inside {mark.name})"
        texts = {k: rule.rules.get(k, inside) for k in self.labels}
        self.prim = composites.Rule(rule.name, rule.expr, texts, rule.notes, rule.node)
        for k, v in mark.params.items():  # what the user chose, for the drawing's label
            if k in SHOWN and v is not None and not isinstance(v, bool):
                self.params[k] = v

    @property
    def name(self) -> str:
        return self.prim.node_name

    def name_of_input(self, i: int) -> str:
        return self.labels[i]

    def read_values(self) -> dict:
        return {}

    def kept_input(self, i: int) -> Any:
        """A constant input's value (as a Node's kept_input gives it); None for the others."""
        return self.saved[i]

    def input_meta(self, i: int) -> None:
        return None  # (the tools then read the shape off the gradient, as for a Node)

    def __repr__(self) -> str:
        return f"<{self.name} (folds {len(self.members)} nodes)>"


def _members(out: Any, mark: Any) -> set:
    """The nodes the call recorded that its result depends on: from the result back to the
    call's inputs (never past a node recorded before the newest of them)."""
    edges = mark.edges
    stop = {id(e) for e in edges if e is not None}
    floor = max((e.seq for e in edges if e is not None and not isinstance(e, Tensor)), default=-1)
    members, stack = {out}, [out]
    while stack:
        for e in stack.pop().edges:
            if e is None or isinstance(e, Tensor) or id(e) in stop or e in members:
                continue
            if e.seq > floor:
                members.add(e)
                stack.append(e)
    return members


@dataclass
class Folding:
    """The order the tools walk, with each folded call's stand-in in place of its nodes."""

    order: list
    alias: dict = field(default_factory=dict)  # folded node -> its stand-in
    stand_ins: list = field(default_factory=list)

    def observe(self, seen: Observation, values: dict | None = None) -> None:
        """Add the stand-ins to a watched backward: the gradient at the call's result, what each
        input receives (summed over the call's nodes), how many gradients each target got, and
        the values the rule reads."""
        for f in self.stand_ins:
            seen.grad_out[f] = seen.grad_out.get(f.out)
            received: list = [None] * len(f.edges)
            where = {id(e): j for j, e in enumerate(f.edges) if e is not None}
            for m in f.members:
                for i, gi in enumerate(seen.grads_in.get(m) or ()):
                    j = where.get(id(m.edges[i]))
                    if gi is not None and j is not None:
                        received[j] = gi if received[j] is None else np.add(received[j], gi)
            seen.grads_in[f] = received
            if values is not None:
                seen.reads[f] = self._reads(f, values)
        arrivals: dict = {}
        for item in self.order:  # counted anew: a call's several edges to one input are one
            grads = seen.grads_in.get(item) or ()
            for e, gi in zip(item.edges, grads):
                if gi is not None and e is not None:
                    target = self.alias.get(e, e)
                    arrivals[target] = arrivals.get(target, 0) + 1
        seen.arrivals = arrivals

    @staticmethod
    def inputs(f: Folded, values: dict) -> dict:
        """{label: array} of a call's inputs and `out`, from the nodes' values (known ones)."""
        found: dict = {}
        for label, e, const in zip(f.labels, f.edges, f.saved):
            value = const if e is None else e.numpy() if isinstance(e, Tensor) else values.get(e)
            if value is not None:
                found[label] = np.asarray(value)
        if f.out in values:
            found["out"] = np.asarray(values[f.out])
        return found

    def _reads(self, f: Folded, values: dict) -> dict:
        """The forward values the call's rule reads: its inputs, out and numbers such as N."""
        read = set().union(*(composites.names_read(t) for t in f.prim.texts))
        found = {k: v for k, v in self.inputs(f, values).items() if k in read}
        for k, v in call_params(f.mark).items():
            if k in read and isinstance(v, (int, float)) and not isinstance(v, bool):
                found[k] = np.asarray(v)
        return found


def fold(order: list, expand: Expand = False) -> Folding:
    """The engine's order with every composite call folded into one stand-in, except those
    `expand` opens: True opens all, a list of names the calls of those functions (a call inside
    one stays folded unless named too).

    >>> fold(order, expand=["cross_entropy"]).order  # doctest: +SKIP
    """
    if expand is True:
        return Folding(list(order))
    opened = {expand} if isinstance(expand, str) else set(expand or ())
    marked = [n for n in order if getattr(n, "composite", None) is not None]
    unknown = opened - set(composites.COMPOSITES) - set(composites.WRAPPERS)
    if unknown:
        calls = [n.composite.name for n in marked]
        raise ValueError(
            f"expand: no composite function named {sorted(unknown)}; the calls on this graph: "
            f"{', '.join(sorted(set(calls))) or 'none'} (expand=True opens every call)"
        )
    alias: dict = {}
    stand_ins = []
    for node in sorted(marked, key=lambda n: -n.seq):  # outer calls first: recorded last
        if node in alias:
            continue  # inside a call already folded
        mark = node.composite
        if mark.name in opened or any(link is node for link in mark.links):
            continue  # (opened; or the call returned an input: it recorded nothing of its own)
        members = _members(node, mark)
        if len(members) == 1 and node.prim.name == mark.name:
            continue  # already one node of that name (conv2d on a batch)
        f = Folded(node, mark, members)
        stand_ins.append(f)
        for m in members:
            alias.setdefault(m, f)
    walked = [alias.get(n, n) for n in order if n not in alias or alias[n].out is n]
    return Folding(walked, alias, stand_ins)
