"""The backward engine.

Algorithm: run the nodes that gradients reach latest-recorded first, from a heap on Node.seq. An op
is recorded after its inputs, so every consumer of a node runs, and delivers, before the node does
(a reverse topological order, PyTorch's; no recursion, no counting pass over the graph). With
targets, only nodes on a path to one run.

Layer L2: the L0 state, tape/node.py and tape/plan.py; it never imports tensor/. Without
create_graph nothing is recorded, so the rules run on plain arrays (`raw`), at NumPy speed.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any, Callable

from .._state import no_grad, state
from ..primitives import registry
from . import anomaly
from .node import FREED, Node, fit
from .plan import Plan, collect, deliver_to_leaves, run_hooks

NEW = object()  # (buffers.get's default: a node no gradient has reached yet)


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
    buffers, leaf_grads, pruned, waiting = plan.buffers, plan.leaf_grads, plan.pruned, plan.waiting
    captured: dict = {}
    watch = state.anomaly or observer is not None
    previous_mode = state.enabled  # a raw backward records nothing by construction (its rules
    state.enabled = create_graph or previous_mode  # see arrays); create_graph records it all
    try:
        while waiting:
            node = heappop(waiting)[1]
            g = buffers.pop(node)
            if g is not None and node.pre_hooks:
                g = run_hooks(node.pre_hooks, g, raw)
            if pruned is None:
                edges = node.edges
            else:  # only the edges leading to a target
                if node in targets:  # type: ignore[operator]  # (pruned: targets given)
                    captured[node] = g
                edges = pruned[node]
            results: Any = [] if watch else None  # the rules' own results (for explain)
            if g is not None and edges:
                grads = node_grads(node, g, edges, raw, results)
            else:  # (no gradient arrived: its inputs get none, so leaves reached get zeros)
                grads = (None,) * len(edges)
            i = -1
            for e in edges:
                i += 1
                if e is None:
                    continue
                gi = grads[i]
                if e.__class__ is not Node:  # a leaf: its gradient is needed only at the end
                    collect(leaf_grads, e, gi, raw)
                    continue
                prev = buffers.get(e, NEW)
                if prev is NEW:  # (the first to deliver: e waits for the rest, recorded after it)
                    buffers[e] = gi
                    heappush(waiting, (-e.seq, e))
                elif gi is not None:
                    buffers[e] = gi if prev is None else prev + gi
            if watch and g is not None and edges:
                _watch(node, g, results, raw, observer)
            if not retain_graph:  # drop what was saved for backward (the tape is used up)
                if node.saved is not None or node.out_data is not None:
                    node.saved, node.out_data, node.versions = FREED, None, None
                if node.params and "ctx" in node.params:  # a custom Function's saved tensors
                    node.params["ctx"].release()
        deliver_to_leaves(plan, seeds, targets, captured, raw, create_graph)
    finally:
        state.enabled = previous_mode
    return captured if targets is None else plan.targets_gradients(captured, targets, raw)


def node_grads(node: Node, g: Any, edges: tuple, raw: bool, given: list | None = None) -> Any:
    """Run a node's rules for the edges that need a gradient; each result fit to its input's shape
    and dtype (None: a zero gradient). `given`, when passed, gets the rules' results unfitted."""
    if node.saved is None and node.shapes is None:  # (Node.inputs' commonest case, inlined)
        inputs: Any = (g,) * len(edges)
    else:
        inputs = node.inputs(g, raw)
    out = node.out_data
    if out is not None and (not raw or node.out_vc[0]):  # (a plain array: as it is, unless
        out = node.output(raw)  # changed in place)
    prim, params, shapes = node.prim, node.params, node.shapes
    backward = node.plan.backward
    if backward is not None and edges is node.edges:  # the needed rules, in one call
        grads: Any = backward(g, out, inputs, params)
    elif prim.rule_for_all is not None:  # variadic ops and custom Functions: one rule for all
        grads = list(_rule_for_all(node, g, out, inputs, raw))
    else:  # pruned edges: only the rules of the edges that lead to a target
        rules = prim.rules or prim.compile()
        grads = [None] * len(edges)
        i = -1
        for e in edges:
            i += 1
            if e is not None and rules[i] is not None:
                grads[i] = (
                    rules[i](g, out, *inputs, **params) if params else rules[i](g, out, *inputs)
                )
    if given is not None:
        given.extend(grads)
    if shapes is None and prim.elementwise:  # (an elementwise rule gives g's shape and dtype)
        return grads
    fitted, dtypes = None, node.dtypes
    i = -1
    for gi in grads:
        i += 1
        if gi is None:
            continue
        if shapes is not None:
            if gi.shape == shapes[i] and gi.dtype is dtypes[i]:
                continue
            gi = fit(gi, shapes[i], dtypes[i], node, i)
        elif gi is g or gi.shape == g.shape and gi.dtype == g.dtype:
            continue
        else:
            gi = fit(gi, g.shape, g.dtype, node, i)  # (inputs shaped as the output)
        if fitted is None:
            fitted = list(grads)
        fitted[i] = gi
    return grads if fitted is None else fitted


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


def _watch(node: Node, g: Any, grads: list, raw: bool, observer: Any) -> None:
    """Anomaly mode's NaN/Inf check and explain's observer, after a node has run."""
    if state.anomaly:
        for i, gi in enumerate(grads):
            if gi is not None:
                anomaly.check(node, i, gi)
    if observer is not None:
        wrap = registry.layer.wrap
        tensors = [None if x is None else wrap(x) for x in grads] if raw else grads
        observer(node, wrap(g) if raw else g, tensors)
