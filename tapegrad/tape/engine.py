"""The backward engine.

Algorithm: count, for every node reachable from the outputs, how many edges point at it; then run
nodes with an explicit stack, a node becoming ready when all its consumers have delivered (Kahn's
algorithm, so reverse topological order, no recursion). When targets are given, only nodes on a
path to a target run (pruning), so a freed branch that leads nowhere asked for is never entered.

Layer L2: duck typing over Node and the gradients (Tensors or arrays); imports the rule table for
un-broadcasting, never tensor.py.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .._utils import unbroadcast_axes
from ..primitives.reduction import sum as _sum
from ..primitives.shape import reshape as _reshape
from . import anomaly
from .grad_mode import no_grad, state
from .node import FREED, Node
from . import node as _node


def make_tensor(data: Any, grad_fn: Any) -> Any:
    return _node.make_tensor(data, grad_fn)


# A leaf's gradients from many uses, if at most this many elements each, are summed at the end in one
# NumPy call (about twice as fast as one addition per use for small arrays; equal results).
_GATHER_MAX = 4096


def count_consumers(root_nodes: Iterable[Node], leaves: set | None = None) -> dict:
    """For every node reachable from `root_nodes`: the number of edges that point at it. The leaf
    tensors reached are added to `leaves` when it is given."""
    deps: dict = {}
    stack = []
    for r in root_nodes:
        if r not in deps:
            deps[r] = 0
            stack.append(r)
    while stack:
        node = stack.pop()
        for e in node.edges:
            if e.__class__ is Node:
                if e in deps:
                    deps[e] += 1
                else:
                    deps[e] = 1
                    stack.append(e)
            elif leaves is not None and e is not None:
                leaves.add(e)
    return deps


def execution_order(root_nodes: Iterable[Node]) -> list:
    """Nodes in the order the engine runs them (outputs first); shared by viz and explain."""
    root_nodes = list(dict.fromkeys(root_nodes))
    deps = count_consumers(root_nodes)
    ready = _ready_roots(root_nodes, deps)
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for e in node.edges:
            if e.__class__ is Node:
                deps[e] -= 1
                if deps[e] == 0:
                    ready.append(e)
    return order


def _consumers_and_needed(root_nodes: list, targets: set) -> tuple[dict, dict, set]:
    """count_consumers, plus, for every node from which some target can be reached, its edges with
    the ones that lead nowhere asked for replaced by None (a target with no such edge maps to ()).
    Also the leaf targets reached. One depth-first walk: a node is settled after all of its inputs
    (post-order)."""
    deps: dict = {r: 0 for r in root_nodes}
    pruned: dict = {}
    reached_leaves: set = set()
    visit: dict = {}  # node -> 1 once its inputs are queued, 2 once it is settled
    stack = list(reversed(root_nodes))
    while stack:
        node = stack.pop()
        seen = visit.get(node)
        if seen is None:  # first visit: come back to it after its inputs
            visit[node] = 1
            stack.append(node)
            for e in node.edges:
                if e.__class__ is Node:
                    deps[e] = deps.get(e, 0) + 1
                    if e not in visit:
                        stack.append(e)
            continue
        if seen == 2:
            continue
        visit[node] = 2  # second visit: every input is settled (a DAG has no way back up)
        hit = dropped = False
        for e in node.edges:
            if e is None:
                continue
            if e in pruned or e in targets:
                hit = True
                if e.__class__ is not Node:
                    reached_leaves.add(e)
            else:
                dropped = True
        if hit:
            pruned[node] = node.edges if not dropped else _keep_needed(node.edges, pruned, targets)
        elif node in targets:
            pruned[node] = ()
    return deps, pruned, reached_leaves


def _keep_needed(edges: tuple, pruned: dict, targets: set) -> tuple:
    """edges with the ones leading to no target replaced by None."""
    return tuple([e if e is not None and (e in pruned or e in targets) else None for e in edges])


def _ready_roots(root_nodes: list, deps: dict) -> list:
    """The roots nothing else in the graph feeds into, as a stack (the first root on top).
    (Helpers like this keep comprehensions out of the engine's loops: a comprehension would turn
    the locals it reads into slower cell variables.)"""
    return [r for r in reversed(root_nodes) if deps[r] == 0]


def _fit(gi: Any, shape: tuple, dtype: Any, node: Node, i: int) -> Any:
    """A rule's gradient made the input's: summed back over broadcast axes, cast to its dtype."""
    gshape = gi.shape
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes, keep = unbroadcast_axes(gshape, shape) if lead >= 0 else ((), False)
        if lead < 0 or any(n != m and n != 1 for n, m in zip(shape, gshape[lead:])):
            raise RuntimeError(
                f"{node.name} returned a gradient of shape {tuple(gshape)} for its input {i} "
                f"({node.name_of_input(i)}), which has shape {tuple(shape)}: a gradient must have the "
                f"input's shape (or a shape that sums back to it)."
            )
        gi = _sum(gi, axis=axes, keepdims=keep)  # a primitive: recorded when gi is on the tape
        if keep and gi.shape != shape:
            gi = _reshape(gi, shape=shape)
    if gi.dtype is not dtype and gi.dtype != dtype:
        gi = gi.astype(dtype)
    return gi


def _run_hooks(hooks: list, g: Any, raw: bool) -> Any:
    """Tensor hooks in registration order; a hook may return a replacement of the same shape.
    Hooks always see Tensors, also when the engine runs on plain arrays."""
    g_tensor = make_tensor(g, None) if raw else g
    for hook in list(hooks):
        if raw:
            with no_grad():
                replaced = hook(g_tensor)
        else:
            replaced = hook(g_tensor)
        if replaced is not None:
            if getattr(replaced, "shape", None) != g_tensor.shape:
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!s} returned a gradient of shape "
                    f"{list(getattr(replaced, 'shape', ()))} for a tensor of shape {list(g.shape)}; "
                    f"a hook may replace the gradient, but with one of the same shape"
                )
            if replaced.dtype != g_tensor.dtype:  # (the engine relies on it, as PyTorch does)
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!s} changed the gradient's dtype from "
                    f"{g_tensor.dtype} to {replaced.dtype}; return it in the same dtype "
                    f"(e.g. `return new_grad.astype(grad.dtype)`)"
                )
            g_tensor = replaced
    return getattr(g_tensor, "_data", g_tensor) if raw else g_tensor


def run_backward(
    roots: list,
    seeds: list,
    targets: set | None = None,
    retain_graph: bool = False,
    create_graph: bool = False,
    observer: Callable[[Node, Any, list], None] | None = None,
) -> dict:
    """Propagate `seeds` (one gradient Tensor per root: a Node, or a leaf tensor) back through the tape.

    With `targets` None, leaf gradients are accumulated into `.grad`; otherwise the gradients of the
    targets (Nodes for non-leaf tensors, leaf tensors) are returned in a dict (as Tensors) and
    nothing else is touched; a target that is reached but gets no gradient (only None rules on the
    way) maps to None, and a target that cannot be reached is absent. `observer(node, grad_out,
    grads_in)` sees every step (explain uses it). Without create_graph nothing is recorded, so the
    rules run on plain arrays (`raw`), at NumPy speed.
    """
    raw = not create_graph
    buffers, leaf_grads, deps, pruned, reached_leaves, ready = _plan(roots, seeds, targets, raw)
    captured: dict = {}
    check_nan = state.anomaly
    watch = check_nan or observer is not None
    # Recording is on exactly when create_graph is. A raw backward records nothing by construction
    # (its rules see arrays), so it only switches grad mode off around user code: hooks and
    # custom Functions.
    previous_mode = state.enabled
    if create_graph:
        state.enabled = True
    try:
        while ready:
            node = ready.pop()
            g = buffers.pop(node, None)
            if g is not None and node.pre_hooks:
                g = _run_hooks(node.pre_hooks, g, raw)
            if pruned is None:
                edges = node.edges
            else:  # pruning: only edges leading to a target
                if node in targets:
                    captured[node] = g
                edges = pruned[node]
            if g is None or not edges:  # nothing to compute: just pass the turn on
                for e in edges:
                    if e.__class__ is Node:
                        deps[e] -= 1
                        if deps[e] == 0:
                            ready.append(e)
                continue
            if node.saved is None and node.shapes is None:  # (Node.unpack_inputs, inlined for
                inputs: Any = (g,) * len(edges)  # its most common case)
            else:
                inputs = node.unpack_inputs(g, raw)
            out = node.out_data
            if out is not None and (not raw or node.out_vc[0]):  # (a plain array: as it is,
                out = node.unpack_output(raw)  # unless changed in place)
            params = node.params
            prim = node.prim
            vjps = prim.vjps
            if vjps is None:  # one rule for all inputs (variadic ops, custom Functions): run it
                vjps = _vjp_all(node, g, out, inputs, raw, edges)  # now, hand out its results
            arity = len(inputs)  # rules are called with the inputs spelled out for one or two
            if arity == 1:  # (no list and tuple built per call, as `*inputs` would)
                x0 = inputs[0]
            elif arity == 2:
                x0, x1 = inputs
            shapes = node.shapes
            fits = prim.keeps_shape  # (an elementwise rule's result has g's shape and dtype)
            if not fits:
                gshape, gdtype = g.shape, g.dtype
            if watch:  # the rules' own results, for explain's observer and anomaly mode
                seen = [None] * len(edges)
            i = -1
            for e in edges:
                i += 1
                if e is None:
                    continue
                rule = vjps[i]
                if rule is None:
                    gi = None
                elif params:
                    gi = rule(g, out, *inputs, **params)
                elif arity == 2:
                    gi = rule(g, out, x0, x1)
                elif arity == 1:
                    gi = rule(g, out, x0)
                else:
                    gi = rule(g, out, *inputs)
                if gi is not None:
                    if watch:
                        seen[i] = gi
                    if shapes is not None:
                        if gi.shape != shapes[i] or gi.dtype is not node.dtypes[i]:
                            gi = _fit(gi, shapes[i], node.dtypes[i], node, i)
                    elif (
                        not fits
                        and gi is not g
                        and (  # (g passed on fits as it is)
                            gi.shape != gshape or gi.dtype is not gdtype and gi.dtype != gdtype
                        )
                    ):
                        gi = _fit(gi, gshape, gdtype, node, i)  # inputs are shaped like the output
                    if e.__class__ is not Node:  # a leaf: its gradient is needed only at the end
                        prev = leaf_grads.get(e)
                        if prev is None:
                            leaf_grads[e] = gi
                        elif prev.__class__ is list:
                            prev.append(gi)
                        elif raw and gi.size <= _GATHER_MAX:  # small arrays: gathered, then summed
                            leaf_grads[e] = [prev, gi]  # in one NumPy call
                        else:
                            leaf_grads[e] = prev + gi
                        continue
                    prev = buffers.get(e)
                    buffers[e] = gi if prev is None else prev + gi
                elif e.__class__ is not Node:
                    continue
                left = deps[e] - 1
                if left:
                    deps[e] = left
                else:  # (its count is never read again)
                    ready.append(e)
            if watch:
                _watch(node, g, seen, raw, check_nan, observer)
            if not retain_graph:
                if params:
                    node.release()  # (a custom Function frees its ctx too)
                elif node.saved is not None or node.out_data is not None:
                    node.saved = FREED  # (Node.release, inlined: this runs for every node)
                    node.out_data = node.versions = None
        _deliver_to_leaves(leaf_grads, seeds, targets, captured, raw, create_graph)
    finally:
        if create_graph:
            state.enabled = previous_mode
    if targets is None:
        return captured
    for t in targets:  # reached but given no gradient (e.g. through sign): a zero, not unused
        if (t in reached_leaves or pruned is not None and t in pruned) and t not in captured:
            captured[t] = None
    return _as_tensor_dict(captured) if raw else captured


def _plan(roots: list, seeds: list, targets: set | None, raw: bool) -> tuple:
    """Before the loop: the seeds in their buffers (nodes) or as leaf gradients, every node's
    consumer count, the pruned edges (None: no pruning), the leaf targets reached, and the roots
    ready to run."""
    buffers: dict = {}
    leaf_grads: dict = {}
    for r, s in zip(roots, seeds):
        if raw:
            s = s._data
        store = buffers if r.__class__ is Node else leaf_grads
        store[r] = store[r] + s if r in store else s
    root_nodes = list(buffers)
    pruned: dict | None = None
    reached_leaves: set | None = None
    deps: dict | None = None
    if targets is None:
        deps = count_consumers(root_nodes)
    else:
        if not any(t.__class__ is Node for t in targets):  # only leaves asked for: when every leaf
            reached_leaves = set()  # reached is one, nothing is to be pruned
            counted = count_consumers(root_nodes, reached_leaves)
            if reached_leaves <= targets:
                deps = counted
        if deps is None:  # only nodes on a path to a target run (their parents all are on one too)
            deps, pruned, reached_leaves = _consumers_and_needed(root_nodes, targets)
            root_nodes = list(filter(pruned.__contains__, root_nodes))
    assert deps is not None  # (for the type checker: both branches set it)
    return buffers, leaf_grads, deps, pruned, reached_leaves, _ready_roots(root_nodes, deps)


def _deliver_to_leaves(
    leaf_grads: dict,
    seeds: list,
    targets: set | None,
    captured: dict,
    raw: bool,
    create_graph: bool,
) -> None:
    """After the loop: each leaf's gradient (gathered ones summed), through the leaf's hooks, into
    its `.grad` (no targets) or into `captured` (a leaf target)."""
    for leaf, g in leaf_grads.items():
        if g.__class__ is list:
            leaf_grads[leaf] = np.asarray(np.add.reduce(g))  # (in order, as one addition at a time
            #                                                   would; 0-d stays an array)
    if targets is None and raw:  # arrays only the engine holds can become .grad uncopied
        holders: dict = {}  # how many places hold each array
        for g in leaf_grads.values():
            holders[id(g)] = holders.get(id(g), 0) + 1
        for s in seeds:  # the caller's arrays
            holders[id(getattr(s, "_data", s))] = 2
    for leaf, g in leaf_grads.items():
        hooks = getattr(leaf, "_hooks", None)
        if hooks:
            g = _run_hooks(hooks, g, raw)
        if targets is None:
            owned = raw and not hooks and holders[id(g)] == 1 and getattr(g, "base", 0) is None
            leaf._accumulate_grad(g, create_graph, owned)
        elif leaf in targets:
            captured[leaf] = g


def _as_tensor_dict(captured: dict) -> dict:
    return {k: None if v is None else make_tensor(v, None) for k, v in captured.items()}


class _Given:
    """A rule that returns a gradient computed already (by a node's one rule for all inputs)."""

    __slots__ = ("grad",)

    def __init__(self, grad: Any) -> None:
        self.grad = grad

    def __call__(self, *args: Any, **params: Any) -> Any:
        return self.grad


def _vjp_all(node: Node, g: Any, out: Any, inputs: Any, raw: bool, edges: tuple) -> tuple:
    """Run a node's one rule for all inputs; its results, as rules the engine can call per input."""
    params = node.params
    if raw:  # user code (custom Functions) runs with grad mode off, as PyTorch's backward does
        with no_grad():
            grads = list(node.prim.vjp_all(g, out, *inputs, **params))
    else:
        grads = list(node.prim.vjp_all(g, out, *inputs, **params))
    if len(grads) != len(edges):
        raise RuntimeError(
            f"{node.name}: backward returned {len(grads)} gradients, but the forward had "
            f"{len(edges)} inputs; return one per input (None where there is none)."
        )
    return tuple(None if gi is None else _Given(gi) for gi in grads)


def _watch(node: Node, g: Any, grads: list, raw: bool, check_nan: bool, observer: Any) -> None:
    """Anomaly mode's NaN/Inf check and explain's observer, after a node has run."""
    if check_nan:
        for i, gi in enumerate(grads):
            if gi is not None:
                anomaly.check(node, i, gi)
    if observer is not None:
        observer(node, _as_tensor(g, raw), _as_tensors(grads, raw))


def _as_tensors(xs: list, raw: bool) -> list:
    return [_as_tensor(x, raw) for x in xs]


def _as_tensor(x: Any, raw: bool) -> Any:
    return make_tensor(x, None) if raw and x is not None else x
