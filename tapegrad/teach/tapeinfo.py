"""What the teaching tools read from a tape: names, forward values, module scopes, and the gradient
every node receives (the real engine run once, watching, with nothing written to .grad).

Layer L5, shared by viz.py and explain.py: imports the Tensor, the engine and L0 helpers. Never
changes the tape: the backward it runs keeps the graph (retain_graph=True) and targets the leaves.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from .._utils import unbroadcast_axes
from ..tape.engine import run_backward
from ..tape.plan import execution_order
from ..tensor import Tensor

__all__ = [
    "Names",
    "Observation",
    "format_values",
    "input_label",
    "input_values",
    "is_node",
    "leaves_of",
    "node_scope",
    "node_values",
    "observe",
    "read_values",
    "refilled",
    "scope_paths",
    "shape_text",
]


# ---- formatting --------------------------------------------------------------------------------
def format_values(a: Any, max_values: int = 8, with_shape: bool = True) -> str:
    """A small array's values (4 digits), else shape and norm: format_values([0.5]) == '[0.5]'."""
    a = np.asarray(a)
    if a.size <= max_values:
        return np.array2string(a, precision=4, suppress_small=True)
    norm = float(np.linalg.norm(a.astype(np.float64).ravel()))
    return (f"shape {shape_text(a.shape)}, " if with_shape else "") + f"norm {norm:.4g}"


def shape_text(shape: tuple) -> str:
    """A shape as Python writes a tuple: shape_text((3,)) == '(3,)'."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


# ---- the tape's structure ------------------------------------------------------------------
def is_node(edge: Any) -> bool:
    """An edge leads to a backward node (not to a leaf tensor, not a constant's None)."""
    return edge is not None and not isinstance(edge, Tensor)


def input_label(node: Any, i: int) -> str:
    """Name of input i of a node; variadic ops (concatenate) get xs[0], xs[1], ..."""
    names = node.prim.input_names
    if len(names) == 1 and len(node.edges) > 1:
        return f"{names[0]}[{i}]"
    return node.name_of_input(i)


def leaves_of(order: list) -> list:
    """The leaf tensors the given nodes point at, each once, in the order the engine meets them."""
    seen: dict = {}
    for node in order:
        for e in node.edges:
            if isinstance(e, Tensor):
                seen.setdefault(e, None)
    return list(seen)


def node_scope(node: Any) -> tuple | None:
    """The nn.Modules whose __call__ was running when the node was recorded (outermost first)."""
    return getattr(node, "scope", None)


def read_values(node: Any) -> dict:
    """{name: array} of the forward values a node's rules read: its saved inputs, and `out`."""
    return dict(node.read_values())


def scope_paths(order: list) -> dict:
    """{node: ((module path, class name), ...)} for nodes recorded inside nn.Modules, outermost
    first. A path is the module's dotted name in the outermost module that was running (`fc1`,
    `blocks.0.fc`); a module called on its own (a loss) is named by its path in another module of
    the same graph that holds it (`loss_fn`), else by its class name."""
    # (a composite call's stand-in, teach/grouping.py, is in the scope of its result's node)
    scopes = {n: s for n in order if (s := node_scope(getattr(n, "out", n)))}
    tops = list(dict.fromkeys(s[0] for s in scopes.values()))
    held_by_other: dict = {}  # id(module) -> its path in some top module other than itself
    inner: dict = {}  # (id(top), id(module)) -> the module's path in that top module
    for top in tops:
        for path, module in top.named_modules():
            if path:
                held_by_other.setdefault(id(module), path)
                inner.setdefault((id(top), id(module)), path)
    result = {}
    for node, scope in scopes.items():
        top = scope[0]
        prefix = held_by_other.get(id(top))
        labels = [(prefix or type(top).__name__, type(top).__name__)]
        for module in scope[1:]:
            path = inner.get((id(top), id(module)), type(module).__name__)
            labels.append((f"{prefix}.{path}" if prefix else path, type(module).__name__))
        result[node] = tuple(labels)
    return result


# ---- names ----------------------------------------------------------------------------------
def output_tensors(order: list) -> dict:
    """{node: the live Tensor it made}: the tape keeps no link from a node to its output (that would
    be a reference cycle), so Python's garbage collector says which live tensors point at each node.
    A tensor changed in place since points at a later node, and so is found for that one."""
    wanted = set(order)
    found: dict = {}
    for obj in gc.get_referrers(*order) if order else ():
        if isinstance(obj, Tensor):
            node = obj.grad_fn
            if node in wanted and (node not in found or obj.name and not found[node].name):
                found[node] = obj
    return found


class Names:
    """Names for the tensors of a drawing or an explanation: `.name` where set (Parameters carry
    their module path), else leaf0, leaf1, ... in the order the engine meets the leaves."""

    def __init__(self, order: list, root: Tensor | None = None) -> None:
        self.outputs = output_tensors(order)
        if root is not None and root.grad_fn is not None:
            self.outputs[root.grad_fn] = root
        self._leaves: dict = {}
        self._unnamed = 0
        for leaf in leaves_of(order) or ([root] if root is not None else []):
            self.leaf(leaf)

    def leaf(self, leaf: Tensor) -> str:
        """The leaf's .name, else leaf0, leaf1, ... (numbered when first met)."""
        name = self._leaves.get(leaf)
        if name is None:
            name = leaf.name
            if not name:
                name, self._unnamed = f"leaf{self._unnamed}", self._unnamed + 1
            self._leaves[leaf] = name
        return name

    def fold(self, alias: dict) -> None:
        """Name composite calls' stand-ins by their result (alias: folded node -> stand-in)."""
        for node, stand_in in alias.items():
            out = self.outputs.pop(node, None)
            if out is not None and node is stand_in.out:
                self.outputs[stand_in] = out

    def of_node(self, node: Any) -> str | None:
        """The name of the tensor a node made, when that tensor is alive and named."""
        t = self.outputs.get(node)
        return t.name if t is not None else None


# ---- values ---------------------------------------------------------------------------------
def input_values(node: Any, values: dict) -> list | None:
    """The arrays a node was computed from: saved ones, the Python numbers it kept, leaves' data
    and other nodes' results in `values`; None when one of them is not known."""
    inputs = []
    for i, e in enumerate(node.edges):
        x: Any = node.kept_input(i)
        if x is not None:
            x = x.numpy() if isinstance(x, Tensor) else x
        elif e is None:
            return None  # a constant the op did not keep
        elif isinstance(e, Tensor):
            x = e.numpy()
        else:
            x = values.get(e)
            if x is None:
                return None
        inputs.append(x)
    return inputs


def node_values(order: list, outputs: dict, wanted: Any = None) -> dict:
    """{node: the array it made}: from its live output tensor or the tape, else recomputed from its
    inputs with the primitive's (pure, NumPy) forward. Nodes whose inputs are gone are absent.
    With `wanted` (nodes), only those and what recomputing them needs."""
    values = {node: t.numpy() for node, t in outputs.items()}
    needed = None if wanted is None else _needed(wanted, values)
    for node in reversed(order):  # inputs before the nodes that use them
        if node in values or needed is not None and node not in needed:
            continue
        kept = node.read_values().get("out")  # (the output, when a rule reads it)
        if kept is not None:
            values[node] = np.asarray(kept)
            continue
        if "ctx" in (node.params or {}):  # a user Function's forward is user code: not re-run
            continue
        inputs = input_values(node, values)
        if inputs is not None:
            try:
                with np.errstate(all="ignore"):
                    values[node] = np.asarray(node.prim.forward(*inputs, **(node.params or {})))
            except Exception:  # noqa: BLE001 (a value we cannot show is left out, never an error)
                pass
    return values


def _needed(wanted: Any, known: dict) -> set:
    """The nodes to compute for the `wanted` ones: they, and the inputs they did not save."""
    needed: set = set()
    stack = list(wanted)
    while stack:
        node = stack.pop()
        if node in needed or node in known:
            continue
        needed.add(node)
        if node.out_data is not None:
            continue
        saved = node.saved if isinstance(node.saved, tuple) else None
        for i, e in enumerate(node.edges):
            kept = saved is not None and saved[i] is not None
            kept = kept or node.constants is not None and node.constants[i] is not None
            if is_node(e) and not kept:
                stack.append(e)
    return needed


@contextmanager
def refilled(order: list, root: Tensor) -> Iterator[None]:
    """Inside the block, nodes whose saved values a backward() without retain_graph freed hold
    them again, recomputed (micrograd draws after `g.backward()`); after it, they are freed again.
    A node whose values cannot be recomputed (a custom Function, a constant not kept) stays freed.
    """
    freed = [node for node in order if node.released]
    if not freed:
        yield
        return
    outputs = output_tensors(order)
    if root.grad_fn is not None:
        outputs[root.grad_fn] = root
    values = node_values(order, outputs)
    refilled = []
    try:
        for node in freed:
            inputs = input_values(node, values)
            if inputs is None or "ctx" in (node.params or {}) or node not in values:
                continue
            node.refill(inputs, values[node])
            refilled.append(node)
        yield
    finally:
        for node in refilled:
            node.release()


# ---- gradients: the engine, watched --------------------------------------------------------
@dataclass
class Observation:
    """What one watched backward saw: per node, the gradient arriving and what each input got."""

    order: list
    seed: np.ndarray
    grad_out: dict = field(default_factory=dict)  # node -> array (absent: no gradient reached)
    grads_in: dict = field(default_factory=dict)  # node -> [array or None per input]
    broadcast_from: dict = field(default_factory=dict)  # node -> {input index: shape before sum}
    arrivals: dict = field(default_factory=dict)  # node or leaf -> gradients delivered to it
    leaf_grads: dict = field(default_factory=dict)  # leaf -> array or None
    reads: dict = field(default_factory=dict)  # node -> its read_values (a refilled tape's too)


class Watcher:
    """The engine's observer: fills an Observation; `on_step(node)` runs after each node."""

    def __init__(self, seen: Observation, on_step: Callable[[Any], None] | None = None) -> None:
        self.seen, self.on_step = seen, on_step

    def __call__(self, node: Any, g: Any, grads: list) -> None:
        seen = self.seen
        received: list = []
        for i, e in enumerate(node.edges):
            gi = grads[i] if grads is not None else None
            if gi is None or e is None:
                received.append(None)
                continue
            gi = gi.numpy()
            shape, dtype = node.input_meta(i) or (g.shape, g.dtype)
            if gi.shape != tuple(shape):  # what the input receives: summed back to its shape
                seen.broadcast_from.setdefault(node, {})[i] = gi.shape
                axes, keep = unbroadcast_axes(gi.shape, tuple(shape)) or ((), False)
                gi = gi.sum(axis=axes, keepdims=keep).reshape(shape)
            received.append(np.array(gi, dtype=dtype, copy=True))
            seen.arrivals[e] = seen.arrivals.get(e, 0) + 1
        seen.grad_out[node] = None if g is None else np.array(g.numpy(), copy=True)
        seen.grads_in[node] = received
        if self.on_step is not None:
            self.on_step(node)


def seed_for(t: Any, gradient: Any = None, ones: bool = False) -> Tensor:
    """dL/dt to start a backward from: `gradient`, or 1 for a scalar (ones for any shape if `ones`).
    The errors say what backward() would say, naming explain's parameter `gradient`."""
    if not isinstance(t, Tensor):
        raise TypeError(f"expected a tapegrad Tensor, got {type(t).__name__}")
    if not t.requires_grad:
        raise RuntimeError(
            "the tensor does not require grad and has no grad_fn: nothing it was computed from "
            "requires grad (or it was computed under tg.no_grad()); create the inputs with "
            "requires_grad=True"
        )
    if gradient is None:
        if t.numel() != 1 and not ones:
            raise RuntimeError(
                f"grad can be implicitly created only for scalar outputs, but the tensor has shape "
                f"{list(t.shape)}; pass gradient= with a tensor of that shape (e.g. "
                f"tg.ones_like(t)), or reduce it first (.sum())"
            )
        return Tensor(np.ones(t.shape, dtype=t.dtype))
    g = np.asarray(gradient.numpy() if isinstance(gradient, Tensor) else gradient)
    if g.shape != tuple(t.shape):
        raise RuntimeError(
            f"mismatch in shape: gradient has shape {list(g.shape)} but the tensor has shape "
            f"{list(t.shape)}; they must be equal"
        )
    return Tensor(g.astype(t.dtype, copy=True))


def observe(
    t: Tensor,
    gradient: Any = None,
    ones: bool = False,
    on_step: Callable[[Any], None] | None = None,
) -> Observation:
    """Run the real engine once from `t`, watching every step; no .grad is written, the tape stays
    (a tape a backward() freed is refilled with recomputed values while the engine runs).

    >>> x = tg.tensor(2.0, requires_grad=True)
    >>> tapeinfo.observe(x * x).leaf_grads[x]  # doctest: +SKIP
    array(4., dtype=float32)
    """
    seed = seed_for(t, gradient, ones)
    root = t.grad_fn if t.grad_fn is not None else t
    order = execution_order([t.grad_fn]) if t.grad_fn is not None else []
    leaves = leaves_of(order) if order else [t]
    seen = Observation(order, seed.numpy())
    # Hooks still run, as in any backward (a retain_grad() tensor's hook writes its .grad).
    with refilled(order, t):
        captured = run_backward(
            [root], [seed], set(leaves), retain_graph=True, observer=Watcher(seen, on_step)
        )
        seen.reads = {node: read_values(node) for node in order}
    if not order:
        seen.arrivals[t] = 1
    for leaf in leaves:
        g = captured.get(leaf)
        seen.leaf_grads[leaf] = None if g is None else np.array(g.numpy(), copy=True)
    return seen
