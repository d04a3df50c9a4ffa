"""Before and after the engine's loop: where it starts, pruning, hooks, delivery to the leaves.

Layer L2: duck typing over Nodes and gradients (Tensors or arrays); the rule table's registry for
wrapping arrays as Tensors. `execution_order` is the engine's order, shared by viz and explain.
"""

from __future__ import annotations

from heapq import heapify
from operator import attrgetter
from typing import Any, Iterable

import numpy as np

from .._state import no_grad
from ..primitives import registry
from ..primitives.scattered import PARTIAL, dense, summed
from .node import Node

_SEQ = attrgetter("seq")


def count_consumers(root_nodes: Iterable[Node]) -> dict:
    """For every node reachable from `root_nodes`: how many edges point at it."""
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
    return deps


def leaves_reached(root_nodes: Iterable[Node]) -> set:
    """The leaf tensors reachable from `root_nodes` (count_consumers' walk without the counting:
    a grad(..., inputs=leaves) call asks it once, to know whether anything needs pruning)."""
    seen: set = set(root_nodes)
    stack: list = list(seen)
    seen.add(None)  # (leaves and None join `seen` too: one membership test per edge)
    leaves: list = []
    while stack:
        node = stack.pop()  # (Node.edges inlined: its property call was a third of this walk)
        for e in node.all_edges or (node.first_edge, node.second_edge):
            if e not in seen:
                seen.add(e)
                (stack if e.__class__ is Node else leaves).append(e)
    return set(leaves)


def execution_order(root_nodes: Iterable[Node]) -> list:
    """Nodes in the order the engine runs them, latest recorded first (shared by viz, explain)."""
    return sorted(count_consumers(root_nodes), key=lambda node: -node.seq)


class Plan:
    """What the engine's loop works with: gradients waiting at nodes (`buffers`) and at leaves
    (`leaf_grads`), the edges worth following when targets are given (`pruned`, else None), the
    leaf targets reached, and the heap of nodes waiting to run, as (-seq, node) (`waiting`)."""

    def __init__(self, roots: list, seeds: list, targets: set | None, raw: bool) -> None:
        self.buffers: dict = {}
        self.leaf_grads: dict = {}
        for r, s in zip(roots, seeds):
            if raw:
                s = s._data
            store = self.buffers if r.__class__ is Node else self.leaf_grads
            store[r] = store[r] + s if r in store else s
        root_nodes = list(self.buffers)
        self.targets = targets
        self.pruned: dict | None = None
        self.reached_leaves: set = set()
        if targets is not None:
            # only leaves asked for, and every leaf reached is one: nothing to prune
            only_leaves = not any(t.__class__ is Node for t in targets)
            if only_leaves:
                self.reached_leaves = leaves_reached(root_nodes)
            if not only_leaves or not self.reached_leaves <= targets:  # only nodes on a path to a
                self.pruned, self.reached_leaves = _needed(root_nodes, targets)  # target run
                root_nodes = list(filter(self.pruned.__contains__, root_nodes))
        self.waiting = [(-node.seq, node) for node in root_nodes]
        heapify(self.waiting)

    def edges_to_targets(self, node: Node, g: Any, captured: dict) -> tuple:
        """With targets: the node's edges that lead to one (None for the others); a target
        node's own gradient is captured on the way."""
        if node in self.targets:  # type: ignore[operator]  # (pruned: targets given)
            captured[node] = dense(g)
        return self.pruned[node]  # type: ignore[index]

    def targets_gradients(self, captured: dict, targets: set, raw: bool) -> dict:
        """The targets' gradients as Tensors: a target reached only by zero rules (through sign)
        maps to None (a zero, not "unused"); one never reached is absent."""
        for t in targets:
            if (
                t in self.reached_leaves or self.pruned is not None and t in self.pruned
            ) and t not in captured:
                captured[t] = None
        if raw:
            wrap = registry.layer.wrap
            return {k: None if v is None else wrap(v) for k, v in captured.items()}
        return captured


class Cut(tuple):
    """A node's edges with some cut (None) because they lead to no target: the engine runs the
    rules of the others one by one, not the node's one-call backward for all it recorded."""

    __slots__ = ()


def _needed(root_nodes: list, targets: set) -> tuple[dict, set]:
    """For every node from which some target can be reached, its edges with the ones that lead
    nowhere asked for replaced by None (a target with no such edge maps to ()), and the leaf
    targets reached. Nodes are settled in recording order, so each after its inputs."""
    pruned: dict = {}
    reached_leaves: set = set()
    for node in sorted(count_consumers(root_nodes), key=_SEQ):
        edges = node.edges
        kept = [e if e in pruned or e in targets else None for e in edges]
        leading = [e for e in kept if e is not None]
        if leading:
            reached_leaves.update([e for e in leading if e.__class__ is not Node])
            same = all(k is e for k, e in zip(kept, edges))  # (all kept: the engine's one-call
            pruned[node] = edges if same else Cut(kept)  # rules)
        elif node in targets:
            pruned[node] = ()
    return pruned, reached_leaves


def run_hooks(hooks: list, g: Any, raw: bool) -> Any:
    """Tensor hooks in registration order; a hook may return a replacement of the same shape and
    dtype. Hooks always see Tensors, also when the engine runs on plain arrays; no gradient
    (None) runs none of them."""
    if g is None:
        return None
    g = dense(g)  # (getitem's pieces, summed: one array now)
    g_tensor = registry.layer.wrap(g) if raw else g
    for hook in list(hooks):
        if raw:
            with no_grad():
                replaced = hook(g_tensor)
        else:
            replaced = hook(g_tensor)
        if replaced is not None:
            name = getattr(hook, "__name__", hook)
            if getattr(replaced, "shape", None) != g_tensor.shape:
                raise RuntimeError(
                    f"hook {name!s} returned a gradient of shape "
                    f"{list(getattr(replaced, 'shape', ()))} for a tensor of shape "
                    f"{list(g.shape)}; a hook may replace the gradient, but with one of the same "
                    "shape"
                )
            if replaced.dtype != g_tensor.dtype:  # (the engine relies on it, as PyTorch does)
                raise RuntimeError(
                    f"hook {name!s} changed the gradient's dtype from {g_tensor.dtype} to "
                    f"{replaced.dtype}; return it in the same dtype (`new.astype(grad.dtype)`)"
                )
            g_tensor = replaced
    return getattr(g_tensor, "_data", g_tensor) if raw else g_tensor


ZERO = object()  # a leaf reached only by zero gradients (e.g. through sign): .grad gets zeros

# A leaf's gradients from many uses, if at most this many elements each, are gathered and summed
# at the end (gathered_sum: about twice as fast as one addition per use for small arrays).
GATHER_MAX = 4096


def collect(leaf_grads: dict, leaf: Any, g: Any, raw: bool) -> None:
    """Keep one more gradient (None: a zero) for a leaf until the end of the backward pass."""
    prev = leaf_grads.get(leaf)
    if prev is None or prev is ZERO:
        leaf_grads[leaf] = ZERO if g is None else g  # (zeros, as PyTorch gives)
    elif g is None:
        pass
    elif prev.__class__ is list:
        prev.append(g)
    elif raw and g.size <= GATHER_MAX:  # small arrays: summed in one call at the end
        leaf_grads[leaf] = [prev, g]
    else:  # (getitem's pieces added in place, primitives/scattered.py)
        leaf_grads[leaf] = summed(prev, g)


def gathered_sum(parts: list) -> np.ndarray:
    """A leaf's gathered gradients summed in order, as one addition at a time would (an array,
    also 0-d): a few added one by one into a fresh array, many in one NumPy call (it stacks
    them first, which only pays for many; measured; many scalars it sums pairwise)."""
    if len(parts) > 8:
        return np.asarray(np.add.reduce(parts))
    total = np.add(parts[0], parts[1])
    for p in parts[2:]:
        total = np.add(total, p, out=total) if total.ndim else total + p
    return np.asarray(total)


def deliver_to_leaves(
    plan: Plan, seeds: list, targets: set | None, captured: dict, raw: bool, create_graph: bool
) -> None:
    """After the loop: each leaf's gradient (gathered ones summed), through the leaf's hooks, into
    its `.grad` (no targets) or into `captured` (a leaf target)."""
    leaf_grads = plan.leaf_grads
    _settle(leaf_grads, raw)
    shared = _not_owned(leaf_grads, seeds) if targets is None and raw else set()
    for leaf, g in leaf_grads.items():
        try:  # (not getattr's default: on a slot never set it raises inside, ~4,000 instructions a
            hooks = leaf._hooks  # leaf per backward; None is written once instead)
        except AttributeError:
            hooks = leaf._hooks = None
        if hooks:
            g = run_hooks(hooks, g, raw)
        if targets is None:
            owned = raw and not hooks and id(g) not in shared and getattr(g, "base", 0) is None
            registry.layer.accumulate(leaf, g, create_graph, owned)
            if hooks is not None:  # (a leaf without hooks pays one `is` test)
                run_post_accumulate_hooks(hooks.post, leaf)
        elif leaf in targets:
            captured[leaf] = g


def _settle(leaf_grads: dict, raw: bool) -> None:
    """Each leaf's gradient as one value: gathered ones summed, a zero rule's ZERO as zeros."""
    for leaf, g in leaf_grads.items():
        if g.__class__ is list:
            leaf_grads[leaf] = gathered_sum(g)
        elif g is ZERO:
            zeros = np.zeros(leaf.shape, leaf.dtype)
            leaf_grads[leaf] = zeros if raw else registry.layer.wrap(zeros)
        elif g.__class__ in PARTIAL:  # (getitem's pieces, summed: one array now)
            leaf_grads[leaf] = g.dense()


def run_post_accumulate_hooks(hooks: list, leaf: Any) -> None:
    """register_post_accumulate_grad_hook's hooks, called with the leaf once its .grad holds the
    new gradient; they return nothing (as PyTorch's)."""
    for hook in list(hooks):
        returned = hook(leaf)
        if returned is not None:
            raise TypeError(
                f"post-accumulate-grad hook {getattr(hook, '__name__', hook)!s} returned "
                f"{type(returned).__name__}; such hooks act on the tensor (its .grad) and must "
                f"return None"
            )


def _not_owned(leaf_grads: dict, seeds: list) -> set:
    """The ids of leaf gradients the engine does not own alone, which must be copied to become a
    `.grad`: the caller's (a seed), and one given to two leaves (add's rules pass g to both)."""
    given = [id(g) for g in leaf_grads.values()]
    shared = {id(getattr(s, "_data", s)) for s in seeds}
    if len(set(given)) < len(given):
        shared.update([i for i in given if given.count(i) > 1])
    return shared
