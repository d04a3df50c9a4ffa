"""How a drawn tape is arranged so that a big one stays readable in a notebook, at its own size.

Layer L5 (standard library only), used by viz.py. Graphviz puts every input of a node on the rank
below it, so a node with a hundred inputs (a `stack` of per-element results) becomes one row a
hundred boxes wide, drawn either far wider than a notebook or shrunk until its text is unreadable.
`fold` wraps such a row into rows that fit WIDTH, the way a long line of text wraps: each input
goes under the one a row before it (below all that hangs from it), in the same column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["GRAPH", "WIDTH", "Fold", "fold", "label_width"]

WIDTH = 720.0  # points: what a notebook shows without shrinking the drawing (10 inches)
# Spacing that keeps a long chain narrow and a wide graph as compact as its labels allow.
GRAPH = 'fontname="Helvetica", nodesep=0.2, ranksep=0.3'
_GAP = 0.2 * 72  # nodesep, in points


@dataclass
class Fold:
    """What wrapping adds to a drawing: invisible edges that stack the rows, the column each
    wrapped input is kept in, and the edges into later rows, which must not pull them up."""

    edges: list = field(default_factory=list)  # (upper, lower, [attributes])
    groups: dict = field(default_factory=dict)  # node id -> column name
    loose: set = field(default_factory=set)  # (node, input) edges drawn without ranking them
    wrapped: set = field(default_factory=set)  # the nodes whose inputs were wrapped

    def __bool__(self) -> bool:
        return bool(self.edges)


def label_width(label: str, ellipse: bool) -> float:
    """About how wide Graphviz draws a node with this label, in points (11 pt Helvetica)."""
    text = 6.2 * max(len(line) for line in label.split("\n")) + 12
    return text * 1.4 if ellipse else text


def fold(edges: list, widths: dict, width: float = WIDTH) -> Fold:
    """Wrap every node's inputs into rows at most `width` points wide.

    `edges` are (node, input, attributes) as drawn; `widths` the nodes' widths in points. An input
    goes under the one a row before it, `minlen` ranks lower: one more than the height of what
    hangs from that one, so rows never overlap. Inputs one of which leads to the other stay put.
    >>> f = fold([("s", f"x{i}", []) for i in range(3)], {}, width=2 * 72 + 30)
    >>> f.edges, f.groups["x2"] == f.groups["x0"], sorted(f.loose)
    ([('x0', 'x2', ['style=invis', 'minlen=1'])], True, [('s', 'x2')])
    """
    below: dict = {}
    for a, b, _ in edges:
        targets = below.setdefault(a, [])
        if b not in targets:
            targets.append(b)
    result = Fold()
    for node, targets in list(below.items()):
        step = max(widths.get(t, 72.0) for t in targets) + _GAP
        columns = max(2, int((width + _GAP) // step))
        if len(targets) > columns:
            _wrap(below, node, targets, columns, result)
    return result


def _wrap(below: dict, node: str, targets: list, columns: int, result: Fold) -> None:
    """Wrap one node's inputs. What several of them share (x in x[0], x[1], ...) goes under the
    last row: its edges from the rows above are drawn but do not rank it."""
    reach = [_descendants(below, t) for t in targets]
    seen: dict = {}
    for found in reach:
        for d in found:
            seen[d] = seen.get(d, 0) + 1
    shared = {d for d, n in seen.items() if n > 1}
    ranked = {a: [b for b in kids if b not in shared or a in shared] for a, kids in below.items()}
    for a, kids in below.items():
        result.loose.update((a, b) for b in kids if b in shared and a not in shared)
    height = _heights(ranked)
    result.wrapped.add(node)
    for j, lower in enumerate(targets):
        result.groups[lower] = f"fold_{node}_{j % columns}"
        if j < columns:
            continue
        upper = targets[j - columns]
        result.loose.add((node, lower))
        if lower not in reach[j - columns] and upper not in reach[j]:  # (no cycles)
            result.edges.append((upper, lower, ["style=invis", f"minlen={height[upper] + 1}"]))
    last = targets[-1]
    for top in sorted(shared - {d for a in shared for d in ranked.get(a, ())}):
        result.edges.append((last, top, ["style=invis", f"minlen={height.get(last, 0) + 1}"]))


def _heights(below: dict) -> dict:
    """{node: the longest path from it down to a node with no inputs}, without recursion (a chain
    may be thousands of nodes long)."""
    height: dict = {}
    entered: set = set()  # (a collapsed module can close a cycle: met again, it counts as 0)
    for start in below:
        stack = [(start, False)]
        while stack:
            node, done = stack.pop()
            kids = below.get(node, [])
            if done:
                height[node] = 1 + max((height.get(k, 0) for k in kids), default=-1)
            elif node not in entered:
                entered.add(node)
                stack.append((node, True))
                stack += [(k, False) for k in kids if k not in entered]
    return height


def _descendants(below: dict, start: str) -> set:
    """Every node `start` leads to (itself included)."""
    seen, todo = {start}, [start]
    while todo:
        for k in below.get(todo.pop(), ()):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen
