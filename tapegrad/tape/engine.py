"""The backward engine.

Algorithm: run the nodes that gradients reach latest-recorded first, from a heap on Node.seq. An op
is recorded after its inputs, so every consumer of a node runs, and delivers, before the node does
(a reverse topological order, PyTorch's; no recursion, no counting pass over the graph). With
targets, only nodes on a path to one run.

Layer L2: the L0 state, tape/node.py and tape/plan.py; it never imports tensor/. Without
create_graph nothing is recorded, so the rules run on plain arrays (`raw`), at NumPy speed. The
loop runs once per node: its speed tricks (marked) save Python calls, about 360 instructions each.
"""

from __future__ import annotations

from functools import partial
from heapq import heappop, heappush
from typing import Any, Callable

import numpy as np


from .._state import no_grad, state
from ..primitives import registry
from ..primitives.scattered import dense, summed
from . import anomaly
from .node import FREED, Node, fit

from .plan import Cut, Plan, collect, deliver_to_leaves, run_hooks

_ndarray = np.ndarray


def run_backward(
    roots: list,
    seeds: list,
    targets: set | None = None,
    retain_graph: bool = False,
    create_graph: bool = False,
    observer: Callable[[Node, Any, list], None] | None = None,
) -> dict:
    """Propagate `seeds` (one gradient Tensor per root: a Node, or a leaf tensor) back through the
    tape. Without `targets`, leaf gradients go into `.grad`; with them, the targets' gradients
    (Nodes for non-leaf tensors, leaf tensors) are returned as Tensors and nothing else is touched
    (a target reached only by zero gradients maps to None; one not reached is absent).
    `observer(node, grad_out, grads_in)` sees every step (explain uses it)."""
    raw = not create_graph
    plan = Plan(roots, seeds, targets, raw)
    captured: dict = {}
    previous_mode = state.enabled  # a raw backward records nothing by construction (its rules
    state.enabled = create_graph or previous_mode  # see arrays); create_graph records it all
    previous_raw, state.raw_backward = state.raw_backward, raw  # (getitem's rule reads it)
    try:
        watched = state.anomaly or observer is not None  # (anomaly mode, or explain's observer)
        grads_of = partial(_watched_grads, observer=observer) if watched else node_grads
        run_nodes(plan, raw, retain_graph, captured, grads_of)
        deliver_to_leaves(plan, seeds, targets, captured, raw, create_graph)
    finally:
        state.enabled, state.raw_backward = previous_mode, previous_raw
    return captured if targets is None else plan.targets_gradients(captured, targets, raw)


def run_nodes(
    plan: Plan, raw: bool, retain_graph: bool, captured: dict, grads_of: Callable
) -> None:
    """The loop: run the waiting node recorded last, hand each input its gradient (a node's are
    summed in its buffer, a leaf's are collected for the end), push a node reached first.
    `grads_of` is node_grads (or, watched, _watched_grads with its observer)."""
    buffers, leaf_grads, pruned, waiting = plan.buffers, plan.leaf_grads, plan.pruned, plan.waiting
    while waiting:
        node = heappop(waiting)[1]
        g = buffers.pop(node)
        if node.pre_hooks:  # (hooks see only gradients that arrived: run_hooks passes None on)
            g = run_hooks(node.pre_hooks, g, raw)
        if pruned is None:  # (Node.edges inlined, a call less per node)
            edges = node.all_edges or (node.first_edge, node.second_edge)
        else:
            edges = plan.edges_to_targets(node, g, captured)
        grads = grads_of(node, g, edges, raw)
        i = -1
        for e in edges:  # (i by hand: zip() would cost 3% of the chain's instructions)
            i += 1
            gi = grads[i]
            if e.__class__ is not Node:  # a leaf (or None): its gradient is needed at the end
                if e is None:
                    continue
                gathered = leaf_grads.get(e)  # (collect's commonest case inlined, a call less
                if gathered.__class__ is list and gi is not None:  # per use of a leaf used
                    gathered.append(gi)  # many times: its gradients gathered, summed at the end)
                else:
                    collect(leaf_grads, e, gi, raw)
            elif e not in buffers:  # (the first to deliver: e waits for the rest, recorded
                buffers[e] = gi  # after it, so it runs after them)
                heappush(waiting, (-e.seq, e))
            elif gi is not None:  # (a node with several consumers: their gradients summed)
                buffers[e] = _added(buffers[e], gi)
        if not retain_graph and node.plan.keeps:  # the tape is used up: drop what was saved
            if node.prim.rule_for_all is None:  # (Node.release inlined, a call less per node;
                node.saved, node.versions, node.out_data = FREED, None, None  # a custom
            else:  # Function's ctx needs the call)
                node.release()


def _added(prev: Any, gi: Any) -> Any:
    """A node's buffered gradient plus one more (None: nothing buffered yet); getitem's pieces
    are added in place into an array of the engine's own (primitives/scattered.py)."""
    return gi if prev is None else summed(prev, gi)


def node_grads(node: Node, g: Any, edges: tuple, raw: bool, given: list | None = None) -> Any:
    """Run a node's rules for the edges that need a gradient; each result fit to its input's shape
    and dtype (None: a zero gradient). `given`, when passed, gets the rules' results unfitted."""
    if g.__class__ is not _ndarray:  # (None, a Tensor under create_graph, or getitem's pieces:
        g = dense(g)  # summed, one array now)
    if g is None or not edges:  # no gradient arrived: its inputs get none (leaves reached get
        return (None,) * len(edges)  # zeros); or no edge needs one
    if node.saved is None and (node.shapes is None or not node.plan.shape_only):  # (Node.inputs'
        inputs: Any = (g,) * len(edges)  # commonest case, inlined: a call less per node)
    else:
        inputs = node.inputs(g, raw)
    out = node.out_data  # (a plain array as it is, no call, unless an in-place op reached it)
    if out is not None and (not raw or node.out_vc is not None):
        out = node.output(raw)
    backward = node.plan.by_raw[raw]  # (raw_backward in a raw backward, else backward)
    if backward is not None and edges.__class__ is not Cut:  # the needed rules, in one call
        grads = backward(g, out, inputs, node.params)
    else:
        grads = _other_rules(node, g, out, inputs, edges, raw)
    if given is not None:
        given.extend(grads)
    if node.shapes is None and node.prim.elementwise:  # (elementwise rules give g's shape, dtype)
        return grads
    return fitted(node, g, grads, raw)


def _other_rules(node: Node, g: Any, out: Any, inputs: Any, edges: tuple, raw: bool) -> Any:
    """A node's rules when they are not one compiled call: a custom Function's or a variadic op's
    one rule for all inputs, or (edges pruned to targets) the rules of the edges left."""
    if node.prim.rule_for_all is not None:
        return _rule_for_all(node, g, out, inputs, raw)
    rules = node.prim.rules or node.prim.compile()
    return [
        None if e is None or rule is None else rule(g, out, *inputs, **node.params)
        for e, rule in zip(edges, rules)
    ]


def fitted(node: Node, g: Any, grads: Any, raw: bool) -> Any:
    """The rules' gradients, each summed back to its input's shape and cast to its dtype."""
    shapes = node.shapes or (g.shape,) * len(grads)  # (None: every input shaped as the output)
    dtypes = node.dtypes or (g.dtype,) * len(grads)
    result = None  # (a new list only when some gradient changes)
    i = -1
    for gi in grads:  # (i by hand: enumerate() costs about as much as a call)
        i += 1
        if gi is None or gi.shape == shapes[i] and gi.dtype is dtypes[i]:
            continue
        if result is None:
            result = list(grads)
        result[i] = fit(gi, shapes[i], dtypes[i], node, i, raw)
    return grads if result is None else result


def _watched_grads(node: Node, g: Any, edges: tuple, raw: bool, observer: Any) -> Any:
    """node_grads, and after it anomaly mode's NaN/Inf check and explain's observer, which see the
    rules' own results (before fitting)."""
    results: list = []
    g = dense(g)  # (getitem's pieces, summed: one array, as the observer shows it)
    grads = node_grads(node, g, edges, raw, results)
    if g is None or not edges:
        return grads
    results = [dense(x) for x in results]  # (they see arrays, not getitem's pieces)
    if state.anomaly:
        for i, gi in enumerate(results):
            if gi is not None:
                anomaly.check(node, i, gi)
    if observer is not None:
        wrap = registry.layer.wrap
        tensors = [None if x is None else wrap(x) for x in results] if raw else results
        observer(node, wrap(g) if raw else g, tensors)
    return grads


def _rule_for_all(node: Node, g: Any, out: Any, inputs: Any, raw: bool) -> tuple:
    """A node's one rule for all its inputs, checked to give one gradient per input."""
    rule: Any = node.prim.rule_for_all
    if raw:  # user code (custom Functions) runs with grad mode off, as PyTorch's backward does
        with no_grad():
            grads = rule(g, out, *inputs, **node.params)
    else:
        grads = rule(g, out, *inputs, **node.params)
    if len(grads) != len(node.edges):
        raise RuntimeError(
            f"{node.name}: backward returned {len(grads)} gradients, but the forward had "
            f"{len(node.edges)} inputs; return one per input (None where there is none)."
        )
    return grads
