"""tg.viz: the tape behind a tensor as Graphviz DOT text, and a Drawing Jupyter shows inline.

Layer L5: may import anything below it (tensor, tape) and tapeinfo. Walks the same Nodes in the same
order as the engine (tape.plan.execution_order) and never changes the tape: intermediate gradients
come from one watched run of the real engine (tapeinfo.observe), which writes no .grad.
"""

from __future__ import annotations

import os
import shutil
from fnmatch import fnmatchcase
import textwrap
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from . import grouping, tapeinfo
from .layout import GRAPH, Fold, fold, label_width
from ..tape.plan import execution_order
from .tapeinfo import Names, format_values, input_label, shape_text
from ..tensor import Tensor

__all__ = ["Drawing", "GraphvizNotAvailable", "draw", "to_dot"]

INSTALL_HINT = (
    "install the `graphviz` Python package and the Graphviz `dot` program: "
    "`pip install tapegrad[viz]` (or `pip install graphviz`), then "
    "`apt-get install graphviz` (Debian/Ubuntu) or `brew install graphviz` (macOS). "
    "tg.viz.to_dot() and Drawing.source work without them."
)

_STYLE = {
    "output": 'shape=box, style="rounded,filled", fillcolor="#c8e6c9"',
    "leaf": 'shape=box, style="rounded,filled", fillcolor="#bbdefb"',
    "param": 'shape=box, style="rounded,filled,bold", fillcolor="#90caf9"',
    "retained": 'shape=box, style="rounded,filled,dashed", fillcolor="#fff9c4"',
    "named": 'shape=box, style="rounded,filled", fillcolor="#fff9c4"',
    "node": 'shape=ellipse, style=filled, fillcolor="#eeeeee"',
    "collapsed": 'shape=box3d, style=filled, fillcolor="#e1bee7"',
    "note": 'shape=note, style=filled, fillcolor="#ffe0b2"',
}
_CLUSTER = 'style="rounded,dashed"; color="#7986cb"; fontcolor="#3949ab"; fontsize=10;'
MAX_VALUES = 6  # values shown in a box; beyond that, shape and norm


class GraphvizNotAvailable(RuntimeError):
    """Rendering needs the `graphviz` package and the `dot` program; the message says how."""


def _q(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, newlines as DOT line breaks."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\r", "").replace("\n", "\\n") + '"'


def _node_label(node: Any) -> str:
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


def _one_line(a: Any) -> str:
    """A few values on one line (rows of a matrix side by side), else shape and norm."""
    return " ".join(row.strip() for row in format_values(a, MAX_VALUES).split("\n"))


def _const_line(name: str, text: str) -> str:
    """How a node shows a constant input: `y = 1.01`, `y = scale`, `y: constant (4, 2) float64`."""
    return f"{name}: {text}" if text.startswith("constant") else f"{name} = {text}"


def _const_label(node: Any, i: int) -> str:
    """A constant input, by its name or value (its shape when big or not kept)."""
    saved = node.kept_input(i)  # (a Python number is kept even once a backward released it)
    if isinstance(saved, Tensor) and saved.name:
        return saved.name
    value = saved.numpy() if isinstance(saved, Tensor) else saved
    if value is not None and np.size(value) <= MAX_VALUES:
        return _one_line(value)
    if value is not None:
        return f"constant {shape_text(np.shape(value))} {np.asarray(value).dtype}"
    meta = node.input_meta(i)
    if meta is None:  # inputs have the output's shape and dtype
        return "constant"
    return f"constant {shape_text(meta[0])} {meta[1]}"


class _Graph:
    """The DOT statements of one drawing, each placed in a cluster (a module path) or at the top."""

    def __init__(self) -> None:
        self.items: dict = {}  # id -> (cluster key or None, statement)
        self.edges: list = []  # (from id, to id, [attributes])
        self.widths: dict = {}  # id -> about how wide Graphviz will draw it, in points

    def add(self, item_id: str, style: str, label: str, key: tuple | None = None) -> str:
        self.items[item_id] = (key, f"{item_id} [{_STYLE[style]}, label={_q(label)}];")
        self.widths[item_id] = label_width(label, ellipse="ellipse" in _STYLE[style])
        return item_id

    def collapse(self, keys: set, labels: dict, counts: dict) -> None:
        """Each cluster in `keys` becomes one box; edges inside it vanish, edges across it merge."""
        rep: dict = {}
        for j, key in enumerate(sorted(keys, key=lambda k: (len(k), k))):  # (a stable order)
            if any(key[: len(k)] == k for k in keys if k != key and len(k) < len(key)):
                continue  # inside a cluster that collapses already
            box = f"k{j}"
            for item_id, (item_key, _) in list(self.items.items()):
                if item_key is not None and item_key[: len(key)] == key:
                    if item_id.startswith("t"):  # a tensor box stays, one level up
                        self.items[item_id] = (key[:-1] or None, self.items[item_id][1])
                    else:
                        rep[item_id] = box
                        del self.items[item_id]
            path, cls = labels[key]
            text = f"{path} ({cls})" if path != cls else path
            self.add(
                box, "collapsed", f"{text}\n{counts.get(key, 0)} ops, collapsed", key[:-1] or None
            )
        edges, seen = [], set()
        for a, b, attrs in self.edges:
            a, b = rep.get(a, a), rep.get(b, b)
            if a == b or a not in self.items or b not in self.items:
                continue  # inside one collapsed box (or a constant of it)
            if a in rep.values() or b in rep.values():
                attrs = [x for x in attrs if not x.startswith("label=")]
                if (a, b) in seen:
                    continue
                seen.add((a, b))
            edges.append((a, b, attrs))
        self.edges = edges

    def dot(self, rankdir: str, labels: dict) -> str:
        wrap = fold(self.edges, self.widths) if rankdir in ("TB", "BT") else Fold()
        for item_id, column in wrap.groups.items():  # a wrapped row's inputs keep their columns
            key, statement = self.items[item_id]
            self.items[item_id] = (key, statement.replace(" [", f" [group={column}, ", 1))
        # (merged edges: a wrapped node's many edges run down one trunk, not one lane each)
        lines = [
            "digraph tape {",
            f"  graph [rankdir={rankdir}, {GRAPH}{', concentrate=true' if wrap else ''}];",
            '  node [fontname="Helvetica", fontsize=11, margin="0.06,0.03"];',
            '  edge [fontname="Helvetica", fontsize=9, color="#555555", fontcolor="#555555"];',
        ]
        members: dict = {}
        for key, statement in self.items.values():
            members.setdefault(key, []).append(statement)
        children: dict = {}  # cluster -> its sub-clusters, in the order their ops were met
        for k in members:
            for n in range(1, len(k or ()) + 1):
                child = k[:n]
                siblings = children.setdefault(child[:-1] or None, [])
                if child not in siblings:
                    siblings.append(child)

        # clusters nest: an explicit stack (a recursive inner function would be a reference cycle)
        stack: list = [(None, 1, False)]
        while stack:
            key, depth, closing = stack.pop()
            pad = "  " * depth
            if closing:
                lines.append(pad[2:] + "}")
                continue
            if key is not None:
                path, cls = labels[key]
                text = f"{path} ({cls})" if path != cls else path
                number = sum(1 for line in lines if "subgraph cluster_" in line)
                lines.append(f"{pad[2:]}subgraph cluster_{number} {{")
                lines.append(f"{pad}label={_q(text)}; {_CLUSTER}")
                stack.append((key, depth, True))
            lines += [pad + statement for statement in members.get(key, [])]
            stack += [(child, depth + 1, False) for child in reversed(children.get(key, []))]
        for a, b, attrs in self.edges + wrap.edges:
            if a in wrap.wrapped:  # (too many to name: the columns keep their order)
                attrs = [x for x in attrs if not x.startswith("label=")]
            if (a, b) in wrap.loose:
                attrs = [*attrs, "constraint=false"]
            lines.append(f"  {a} -> {b}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
        lines.append("}")
        return "\n".join(lines) + "\n"


def to_dot(
    t: Tensor,
    show_values: bool = False,
    show_grads: bool = False,
    max_nodes: int = 100,
    *,
    rankdir: str = "TB",
    group_by_module: bool = True,
    collapse: Iterable[str] = (),
    expand: grouping.Expand = False,
    show_constants: bool = True,
) -> str:
    """The tape behind `t` as Graphviz DOT text; edges point the way gradients flow (gradients
    shown are those of `t`, seeded with ones when it is not a scalar). A composite function's
    call (F.cross_entropy, softmax, ...) is one node unless `expand` opens it (True: all).

    >>> x = tg.tensor(2.0, requires_grad=True); print(tg.viz.to_dot(x * x))  # doctest: +SKIP
    """
    if not isinstance(t, Tensor):
        raise TypeError(f"to_dot expects a tapegrad Tensor, got {type(t).__name__}")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes must be a positive int, got {max_nodes!r}")
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(
            f"rankdir must be 'TB' (top to bottom) or 'LR' (left to right), got {rankdir!r}"
        )
    collapse = {collapse} if isinstance(collapse, str) else set(collapse)
    order = execution_order([t.grad_fn]) if t.grad_fn is not None else []
    folding = grouping.fold(order, expand)  # (composite calls as one node each)
    shown, hidden = folding.order[:max_nodes], len(folding.order) - max_nodes
    names = Names(order, t)
    values: dict = {}
    if show_values:
        values = tapeinfo.node_values(order[: max_nodes + len(folding.alias)], names.outputs)
        values.update({f: values.get(f.out) for f in folding.stand_ins})
    names.fold(folding.alias)
    seen, grads_note = None, None
    if show_grads and t.requires_grad:
        try:
            seen = tapeinfo.observe(t, ones=True)
        except RuntimeError as error:  # e.g. a freed tape that cannot be recomputed
            grads_note = "gradients of intermediate nodes not shown:\n" + "\n".join(
                textwrap.wrap(str(error).split(";")[0], 60)
            )
        if seen is not None:
            folding.observe(seen)
    keys: dict = {}  # node -> its cluster: the paths of the modules it ran in, outermost first
    labels: dict = {}  # cluster -> (module path, class name)
    for node, chain in (tapeinfo.scope_paths(shown) if group_by_module else {}).items():
        keys[node] = tuple(path for path, _ in chain)
        for n in range(len(chain)):
            labels.setdefault(keys[node][: n + 1], chain[n])
    by_path = {key[-1]: key for key in labels}  # a Parameter `fc1.weight` goes in cluster `fc1`
    graph = _Graph()
    tensor_ids: dict = {}

    def tensor_id(x: Tensor) -> str:
        return tensor_ids.setdefault(x, f"t{len(tensor_ids)}")

    def data_and_grad(value: Any, grad: Any, has_grad: bool) -> list:
        lines = []
        if show_values:
            lines.append("data " + ("(not kept)" if value is None else _one_line(value)))
        if show_grads and has_grad:
            lines.append("grad " + ("None" if grad is None else _one_line(grad)))
        return lines

    def leaf_box(x: Tensor) -> str:
        tid = tensor_id(x)
        if tid in graph.items:
            return tid
        name = names.leaf(x)
        if seen is not None and x in seen.leaf_grads:
            grad = seen.leaf_grads[x]
        else:
            grad = None if x.grad is None else x.grad.numpy()
        label = [name, f"{shape_text(x.shape)} {x.dtype}"] + data_and_grad(x.numpy(), grad, True)
        key = by_path.get(name.rpartition(".")[0]) if "." in name else None
        return graph.add(tid, "param" if x.name else "leaf", "\n".join(label), key)

    # Tensors the user can see (the output, named ones, retain_grad() ones) get a box of their own,
    # fed by their consumers and feeding the node that made them; other results show on the node.
    entry = {node: f"n{k}" for k, node in enumerate(shown)}
    boxed = set()
    for node, out in names.outputs.items():
        if node not in entry or not (out is t or out.name or out.retains_grad):
            continue
        boxed.add(node)
        kept = out.grad if out.is_leaf or out.retains_grad else None  # (no warning for the rest)
        grad = seen.grad_out.get(node) if seen is not None else kept
        if grad is not None and not isinstance(grad, np.ndarray):
            grad = grad.numpy()
        title = out.name or ("output" if out is t else "retained")
        if out.retains_grad:
            title += " (retain_grad)"
        kind = "output" if out is t else "retained" if out.retains_grad else "named"
        label = [title, f"{shape_text(out.shape)} {out.dtype}"]
        label += data_and_grad(out.numpy(), grad, seen is not None or kept is not None)
        key = keys.get(node) if out is not t else None
        box = graph.add(tensor_id(out), kind, "\n".join(label), key)
        graph.edges.append((box, entry[node], []))
        entry[node] = box
    entry.update({n: entry[f] for n, f in folding.alias.items() if f in entry})
    if t.grad_fn is None:
        if t.requires_grad:
            grad = seen.leaf_grads.get(t) if seen is not None else None
            label = [
                f"{names.leaf(t)} (leaf, no backward nodes)",
                f"{shape_text(t.shape)} {t.dtype}",
            ]
            label += data_and_grad(t.numpy(), grad, True)
            graph.add(tensor_id(t), "param" if t.name else "leaf", "\n".join(label))
        else:
            graph.add("t0", "output", "does not require grad: no tape")
    for k, node in enumerate(shown):
        nid = f"n{k}"
        label = [_node_label(node)]
        if show_constants:  # a constant input is written inside the node that reads it
            label += [
                _const_line(input_label(node, i), _const_label(node, i))
                for i, e in enumerate(node.edges)
                if e is None
            ]
        if node not in boxed:  # its result has no box: show it here
            grad = seen.grad_out.get(node) if seen is not None else None
            label += data_and_grad(values.get(node), grad, seen is not None)
        graph.add(nid, "node", "\n".join(label), keys.get(node))
        inputs = [i for i, e in enumerate(node.edges) if e is not None]
        for i in inputs:
            e = node.edges[i]
            # name the input on the edge when it is ambiguous (x * y: which edge is x?)
            attrs = [f"label={_q(input_label(node, i))}"] if len(inputs) > 1 else []
            if isinstance(e, Tensor):
                target = leaf_box(e)
            elif e in entry:
                target = entry[e]
            else:  # beyond max_nodes: every cut edge goes to one note
                text = f"... {hidden} more backward nodes not shown (max_nodes={max_nodes})"
                target = graph.add("cut", "note", text) if "cut" not in graph.items else "cut"
            graph.edges.append((nid, target, attrs))
    if grads_note:
        graph.add("gradnote", "note", grads_note)
    if collapse:
        chosen = _collapsed(collapse, labels)
        counts = {  # (the ops that ran: a composite call's node counts its primitives)
            c: sum(len(getattr(n, "members", "1")) for n, key in keys.items() if key[: len(c)] == c)
            for c in chosen
        }
        graph.collapse(chosen, labels, counts)
    return graph.dot(rankdir, labels)


def _collapsed(patterns: set, labels: dict) -> set:
    """The module clusters a `collapse=` list names: by path or class name, with shell-style
    wildcards ("blocks.*" is every block); a pattern that names none is an error, not ignored."""
    chosen = set()
    for pattern in patterns:
        found = {k for k, (path, cls) in labels.items() if fnmatchcase(path, pattern)}
        found |= {k for k, (path, cls) in labels.items() if fnmatchcase(cls, pattern)}
        if not found:
            known = sorted({p for p, _ in labels.values()} | {c for _, c in labels.values()})
            raise ValueError(
                f"collapse={pattern!r} names no module of this drawing; its modules are "
                + (", ".join(repr(k) for k in known) if known else "none (no nn.Module ran)")
                + " (a pattern may use * and ?, as in 'blocks.*')"
            )
        chosen |= found
    return chosen


# ---- rendering -------------------------------------------------------------------------------
def _render(source: str, fmt: str) -> bytes:
    """DOT text rendered by the real Graphviz; GraphvizNotAvailable says how to install it."""
    try:
        import graphviz
    except ImportError as exc:
        raise GraphvizNotAvailable(
            f"drawing needs the `graphviz` Python package, which is not installed; {INSTALL_HINT}"
        ) from exc
    if shutil.which("dot") is None:
        raise GraphvizNotAvailable(
            f"drawing needs the Graphviz `dot` program, which is not on PATH; {INSTALL_HINT}"
        )
    try:
        return graphviz.Source(source).pipe(format=fmt)
    except graphviz.ExecutableNotFound as exc:
        raise GraphvizNotAvailable(f"drawing could not run Graphviz `dot`; {INSTALL_HINT}") from exc


def _format_of(path: Path, format: str | None) -> str:
    fmt = (format or path.suffix.lstrip(".")).lower()
    if fmt not in ("svg", "png", "pdf"):
        raise ValueError(
            f"cannot tell the image format from {str(path)!r}; use a .svg or .png path (or .pdf), "
            f"or pass format='svg'/'png'/'pdf'"
        )
    return fmt


class Drawing:
    """A drawn tape: Jupyter shows it inline (SVG); `.source` is the DOT text, `.save(path)` writes
    SVG, PNG or PDF. Rendering needs Graphviz; `.source` does not.

    >>> d = tg.viz.draw(loss); d.save("tape.svg")  # doctest: +SKIP
    """

    def __init__(self, source: str, path: Path | None = None) -> None:
        self.source = source
        self.path = path  # where draw(..., path) or the last save() wrote it
        self._svg: str | None = None

    def svg(self) -> str:
        """The drawing as SVG text (rendered once, then kept)."""
        if self._svg is None:
            self._svg = _render(self.source, "svg").decode("utf-8")
        return self._svg

    def save(self, path: str | os.PathLike, format: str | None = None) -> Path:
        """Write the drawing as SVG, PNG or PDF (from the suffix, or `format`); returns the path.

        >>> tg.viz.draw(loss).save("out/tape.png")  # doctest: +SKIP
        """
        path = Path(path)
        fmt = _format_of(path, format)
        data = self.svg().encode("utf-8") if fmt == "svg" else _render(self.source, fmt)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.path = path
        return path

    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except GraphvizNotAvailable:  # the text form says how to install it
            return None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        try:
            return {"image/svg+xml": self.svg(), "text/plain": repr(self)}
        except GraphvizNotAvailable as e:
            return {"text/plain": f"{self!r}\nnot rendered: {e}"}

    def __repr__(self) -> str:
        nodes = self.source.count("shape=ellipse")
        where = f", saved to {self.path}" if self.path is not None else ""
        noun = "backward node" if nodes == 1 else "backward nodes"
        return f"<tapegrad Drawing of {nodes} {noun}{where}; .source is its DOT text>"


def draw(
    t: Tensor,
    path: str | os.PathLike | None = None,
    *,
    rankdir: str = "TB",
    show_values: bool = False,
    show_grads: bool = False,
    max_nodes: int = 100,
    group_by_module: bool = True,
    collapse: Iterable[str] = (),
    expand: grouping.Expand = False,
    show_constants: bool = True,
    format: str | None = None,
) -> Drawing:
    """Draw the tape behind `t`: a Drawing shown inline by Jupyter, also written to `path` if given.

    >>> tg.viz.draw(loss, show_values=True, show_grads=True)  # doctest: +SKIP
    Nodes made inside an nn.Module are grouped in a box named after the module (`collapse=["loss"]`
    draws that box as one node); a composite function's call is one node (`expand=True` or
    `expand=["cross_entropy"]` draws its primitives). Writing needs Graphviz (GraphvizNotAvailable
    says how to get it).
    """
    if path is not None:
        _format_of(Path(path), format)  # a bad suffix is reported before any work
    source = to_dot(
        t,
        show_values,
        show_grads,
        max_nodes,
        rankdir=rankdir,
        group_by_module=group_by_module,
        collapse=collapse,
        expand=expand,
        show_constants=show_constants,
    )
    drawing = Drawing(source)
    if path is not None:
        drawing.save(path, format)
    return drawing
