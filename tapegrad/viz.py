"""tg.viz: draw the tape behind a tensor (Graphviz DOT text, and SVG/PNG through the real Graphviz).

Layer L5: may import anything below it (tensor, tape). Walks the same Nodes in the same order as the
engine (tape.engine.execution_order) and never changes the tape. Also home of the small formatting
helpers that explain.py shares (array summaries, leaf names).
"""

from __future__ import annotations

import os
import shutil
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from .tape.plan import execution_order
from .tape.node import Node
from .tensor import Tensor

__all__ = ["GraphvizNotAvailable", "draw", "to_dot"]

INSTALL_HINT = (
    "install the `graphviz` Python package and the Graphviz `dot` program: "
    "`pip install tapegrad[viz]` (or `pip install graphviz`), then "
    "`apt-get install graphviz` (Debian/Ubuntu) or `brew install graphviz` (macOS). "
    "tg.viz.to_dot() works without them."
)

_STYLE = {
    "output": 'shape=box, style="rounded,filled", fillcolor="#c8e6c9"',
    "leaf": 'shape=box, style="rounded,filled", fillcolor="#bbdefb"',
    "param": 'shape=box, style="rounded,filled,bold", fillcolor="#90caf9"',
    "retained": 'shape=box, style="rounded,filled,dashed", fillcolor="#fff9c4"',
    "node": 'shape=ellipse, style=filled, fillcolor="#eeeeee"',
    "const": 'shape=plaintext, fontsize=8, fontcolor="#777777"',
    "note": 'shape=note, style=filled, fillcolor="#ffe0b2"',
}


class GraphvizNotAvailable(RuntimeError):
    """draw() needs the `graphviz` package and the `dot` program; the message says how to install."""


# ---- formatting shared with explain.py -------------------------------------------------------
def format_values(a: Any, max_values: int = 8, with_shape: bool = True) -> str:
    """Values of a small array (4 digits), else `shape (..), norm ..`: format_values([1/3]) == '[0.3333]'."""
    a = np.asarray(a)
    if a.size <= max_values:
        return np.array2string(a, precision=4, suppress_small=True)
    norm = float(np.linalg.norm(a.astype(np.float64).ravel()))
    return (f"shape {shape_text(a.shape)}, " if with_shape else "") + f"norm {norm:.4g}"


def shape_text(shape: tuple) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


class LeafNames:
    """Readable names for leaf tensors: a Parameter's .name, else leaf0, leaf1, ... in order seen."""

    def __init__(self) -> None:
        self._names: dict = {}
        self._unnamed = 0

    def __call__(self, leaf: Any) -> str:
        name = self._names.get(leaf)
        if name is None:
            name = getattr(leaf, "name", None)
            if not name:
                name, self._unnamed = f"leaf{self._unnamed}", self._unnamed + 1
            name = self._names[leaf] = str(name)
        return name


def leaves_of(order: list) -> list:
    """The leaf tensors the given nodes point at, each once, in the order the engine meets them."""
    seen: dict = {}
    for node in order:
        for e in node.edges:
            if e is not None and e.__class__ is not Node:
                seen.setdefault(e, None)
    return list(seen)


def input_label(node: Node, i: int) -> str:
    """Name of input i of a node; variadic ops (concatenate) get xs[0], xs[1], ..."""
    names = node.prim.input_names
    if len(names) == 1 and len(node.edges) > 1:
        return f"{names[0]}[{i}]"
    return node.name_of_input(i)


# ---- DOT -------------------------------------------------------------------------------------
def _q(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, newlines as DOT line breaks."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\r", "").replace("\n", "\\n") + '"'


def _retained_outputs(order: list, t: Tensor) -> dict:
    """{node: its output tensor} for outputs the user can see: `t` and tensors with retain_grad()."""
    found = {t._grad_fn: t} if t._grad_fn is not None else {}
    in_graph = set(order)
    for node in order:
        saved = node.saved if isinstance(node.saved, tuple) else ()
        for s in saved:  # a rule's saved inputs are the very tensor objects the user holds
            if isinstance(s, Tensor) and s._grad_fn in in_graph and s.retains_grad:
                found.setdefault(s._grad_fn, s)
        # retain_grad() registers a hook holding a weakref to its tensor; find those not saved.
        for hook in node.pre_hooks or ():
            for cell in getattr(hook, "__closure__", None) or ():
                try:
                    ref = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                obj = ref() if isinstance(ref, weakref.ref) else None
                if isinstance(obj, Tensor) and obj._grad_fn is node and obj.retains_grad:
                    found.setdefault(node, obj)
    return found


def _node_label(node: Node) -> str:
    parts = [node.name]
    for k, v in (node.params or {}).items():
        # short, meaningful parameters only (axis=0, shape=(2, 3)); not contexts or index arrays
        if (
            k != "ctx"
            and v is not None
            and v is not False
            and isinstance(v, (int, float, tuple, str))
        ):
            text = f"{k}={v!r}"
            if len(text) <= 24:
                parts.append(text)
    return "\n".join(parts)


def _const_label(node: Node, i: int, show_values: bool) -> str:
    saved = node.saved[i] if isinstance(node.saved, tuple) else None
    value = saved._data if isinstance(saved, Tensor) else saved
    if value is not None and (np.size(value) == 1 or show_values):
        return "const " + format_values(value, 16)
    if node.shapes is None:  # inputs have the output's shape and dtype
        return "const"
    return f"const {shape_text(node.shapes[i])} {node.dtypes[i]}"


def to_dot(
    t: Tensor, show_values: bool = False, show_grads: bool = False, max_nodes: int = 200
) -> str:
    """The tape behind `t` as Graphviz DOT text; edges point the way gradients flow.

    >>> x = tg.tensor(2.0, requires_grad=True); print(tg.viz.to_dot(x * x))  # doctest: +SKIP
    """
    if not isinstance(t, Tensor):
        raise TypeError(f"to_dot expects a tapegrad Tensor, got {type(t).__name__}")
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    order = execution_order([t._grad_fn]) if t._grad_fn is not None else []
    shown, hidden = order[:max_nodes], len(order) - max_nodes
    node_ids = {node: f"n{k}" for k, node in enumerate(shown)}
    names = LeafNames()
    lines = [
        "digraph tape {",
        '  graph [rankdir=TB, fontname="Helvetica", nodesep=0.3, ranksep=0.35];',
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, color="#555555", fontcolor="#555555"];',
    ]
    tensor_ids: dict = {}

    def tensor_box(x: Tensor, kind: str, title: str) -> str:
        if x in tensor_ids:
            return tensor_ids[x]
        tid = tensor_ids[x] = f"t{len(tensor_ids)}"
        label = [title, f"{shape_text(x.shape)} {x.dtype}"]
        if show_values:
            label.append(format_values(x._data, 16))
        if show_grads and (x._grad_fn is None or x.retains_grad):  # others never get a .grad
            g = x.grad
            label.append("grad " + ("None" if g is None else format_values(g._data, 16)))
        lines.append(f"  {tid} [{_STYLE[kind]}, label={_q(chr(10).join(label))}];")
        return tid

    # Which box stands for each node's output: gradients for a visible output gather in its box first.
    entry = dict(node_ids)
    for node, out in _retained_outputs(shown, t).items():
        if node in node_ids:
            kind, title = (
                ("output", "output") if out is t else ("retained", "retained (retain_grad)")
            )
            entry[node] = tensor_box(out, kind, title)
            lines.append(f"  {entry[node]} -> {node_ids[node]};")
    if t._grad_fn is None:
        if t._requires_grad:
            kind = "param" if getattr(t, "name", None) else "leaf"
            tensor_box(t, kind, f"{names(t)} (leaf, no backward nodes)")
        else:
            tensor_box(t, "output", "does not require grad: no tape")
    cut_drawn = False
    consts = 0
    for node in shown:
        nid = node_ids[node]
        lines.append(f"  {nid} [{_STYLE['node']}, label={_q(_node_label(node))}];")
        for i, e in enumerate(node.edges):
            # name the input on the edge when it is ambiguous (x * y: which edge is x?)
            attrs = [f"label={_q(input_label(node, i))}"] if len(node.edges) > 1 else []
            if e is None:  # a constant: no gradient flows, drawn small for context
                target = f"c{consts}"
                consts += 1
                text = _const_label(node, i, show_values)
                lines.append(f"  {target} [{_STYLE['const']}, label={_q(text)}];")
                attrs += ["style=dotted", "arrowhead=none"]
            elif e.__class__ is Node:
                target = entry.get(e)
                if target is None:  # beyond max_nodes: every cut edge goes to one note
                    target = "cut"
                    if not cut_drawn:
                        cut_drawn = True
                        text = f"... {hidden} more backward nodes not shown (max_nodes={max_nodes})"
                        lines.append(f"  cut [{_STYLE['note']}, label={_q(text)}];")
            else:
                kind = "param" if getattr(e, "name", None) else "leaf"
                target = tensor_box(e, kind, names(e))
            lines.append(f"  {nid} -> {target}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def draw(
    t: Tensor, path: str | os.PathLike, format: str | None = None, **to_dot_kwargs: Any
) -> Path:
    """Render the tape behind `t` to SVG or PNG (format from the suffix); returns the path written.

    >>> tg.viz.draw(loss, "out/graph.svg")  # doctest: +SKIP
    Raises GraphvizNotAvailable (a RuntimeError) saying how to install when Graphviz is missing.
    """
    path = Path(path)
    fmt = (format or path.suffix.lstrip(".")).lower()
    if fmt not in ("svg", "png", "pdf"):
        raise ValueError(
            f"cannot tell the image format from {str(path)!r}; use a .svg or .png "
            f"path (or pass format='svg'/'png'/'pdf')"
        )
    source = to_dot(t, **to_dot_kwargs)
    try:
        import graphviz
    except ImportError as exc:
        raise GraphvizNotAvailable(
            f"draw() needs the `graphviz` Python package, which is not installed; {INSTALL_HINT}"
        ) from exc
    if shutil.which("dot") is None:
        raise GraphvizNotAvailable(
            f"draw() needs the Graphviz `dot` program, which is not on PATH; {INSTALL_HINT}"
        )
    try:
        data = graphviz.Source(source).pipe(format=fmt)
    except graphviz.ExecutableNotFound as exc:
        raise GraphvizNotAvailable(f"draw() could not run Graphviz `dot`; {INSTALL_HINT}") from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
