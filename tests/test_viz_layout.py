"""tg.viz on long chains and big graphs: constants drawn inside the node that reads them, a long
chain as narrow as a chain of unary ops, a node with many inputs wrapped into rows that fit a
notebook at their own size (rendered sizes measured with Graphviz), and module clusters folded
by pattern (`collapse=["blocks.*"]`)."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.teach.layout import WIDTH, fold


def _nodes(dot: str) -> dict:
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r'^ +(\w+) \[.*label="((?:[^"\\]|\\.)*)"\];$', dot, re.M)
    }


def _edges(dot: str) -> list:
    return re.findall(r"^  (\w+) -> (\w+)(?: \[([^\]]*)\])?;", dot, re.M)


needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's `dot` is not installed (.ci/run installs it)"
)


def _size(dot: str) -> tuple[float, float, float]:
    """(width, height) in points of the SVG Graphviz draws, and the scale it drew at."""
    svg = tg.viz.Drawing(dot).svg()
    width, height = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    scale = re.search(r'transform="scale\(([\d.]+)', svg).group(1)
    return float(width), float(height), float(scale)


def _chain(step, n: int = 150) -> tg.Tensor:
    y = tg.tensor(1.0, requires_grad=True)
    for _ in range(n):
        y = step(y)
    return y


def _stack(n: int) -> tg.Tensor:
    """A node with n inputs, each a product with its own leaf: 2n + 2 backward nodes, n leaves."""
    xs = [tg.tensor(float(i), requires_grad=True) for i in range(n)]
    return tg.stack([x * 2.0 for x in xs]).sum()


# ---- constants ---------------------------------------------------------------------------------
def test_a_constant_is_written_inside_the_node_that_reads_it():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    dot = tg.viz.to_dot((x * 1.01).sum())
    nodes, edges = _nodes(dot), _edges(dot)
    mul = next(k for k, v in nodes.items() if v.startswith("MulBackward"))
    assert nodes[mul] == "MulBackward\\ny = 1.01"
    assert len(nodes) == 4  # output, SumBackward, MulBackward, the leaf: no box for 1.01
    assert [e for e in edges if e[0] == mul] == [(mul, "t1", "")]  # one input left: no label
    hidden = _nodes(tg.viz.to_dot((x * 1.01).sum(), show_constants=False))
    assert "MulBackward" in hidden.values() and "1.01" not in "".join(hidden.values())
    both = _nodes(tg.viz.to_dot(tg.tensor(2.0) * tg.tensor(3.0, requires_grad=True)))
    assert "MulBackward\\nx = 2." in both.values()  # the constant's input by its own name
    drawn = tg.viz.draw((x * 1.01).sum(), show_constants=False).source  # draw() passes it on
    assert "1.01" not in drawn and "MulBackward" in drawn


def test_a_long_chain_with_constants_has_one_node_per_op():
    dot = tg.viz.to_dot(_chain(lambda y: y * 1.01), max_nodes=200)
    assert dot.count("shape=ellipse") == 150 and dot.count("\\ny = 1.01") == 150
    assert len(_edges(dot)) == 151  # a straight line: output -> 150 nodes -> the leaf


@needs_dot
def test_a_long_chain_with_constants_draws_like_a_chain_of_unary_ops():
    mul = _size(tg.viz.to_dot(_chain(lambda y: y * 1.01), max_nodes=200))
    tanh = _size(tg.viz.to_dot(_chain(lambda y: y.tanh()), max_nodes=200))
    assert mul[2] == tanh[2] == 1.0  # drawn at their own size
    assert mul[0] <= 1.5 * tanh[0] and mul[1] <= 1.5 * tanh[1], (mul, tanh)
    assert mul[0] < 200  # one column (it was a 10,000 pt staircase with a box per constant)


# ---- wide graphs -------------------------------------------------------------------------------
def test_many_inputs_wrap_into_rows_that_keep_their_columns():
    dot = tg.viz.to_dot(_stack(40), max_nodes=300)
    nodes, edges = _nodes(dot), _edges(dot)
    concat = next(k for k, v in nodes.items() if v.startswith("ConcatenateBackward"))
    fan = [(b, attrs) for a, b, attrs in edges if a == concat]
    assert len(fan) == 40
    assert all("label=" not in attrs for _, attrs in fan)  # (40 names: the columns say the order)
    loose = [b for b, attrs in fan if "constraint=false" in attrs]
    invisible = [(a, b) for a, b, attrs in edges if "style=invis" in attrs]
    assert 0 < len(loose) < 40 and len(invisible) == len(loose)  # every later row hangs below
    columns = dict(re.findall(r"^ +(\w+) \[group=(\w+),", dot, re.M))
    assert len(set(columns.values())) == 40 - len(loose)  # the first row sets the columns
    for upper, lower in invisible:
        assert columns[upper] == columns[lower]
    assert "concentrate=true" in dot
    lr = tg.viz.to_dot(_stack(40), max_nodes=300, rankdir="LR")  # (rows are already columns)
    assert "style=invis" not in lr and "group=" not in lr


def test_fold_leaves_narrow_nodes_alone_and_never_makes_a_cycle():
    edges = [("s", f"x{i}", []) for i in range(4)]
    assert not fold(edges, {}, width=WIDTH)  # four fit side by side
    assert fold(edges, {f"x{i}": 300.0 for i in range(4)}, width=WIDTH)  # four wide ones do not
    chain = edges + [("x0", "x2", [])]  # x2 is also x0's input: no edge may point back up
    result = fold(chain, {}, width=2 * 72 + 30)
    assert ("x2", "x0") not in [(a, b) for a, b, _ in result.edges]


@needs_dot
def test_a_200_node_wide_graph_fits_a_notebook_at_its_own_size():
    t = _stack(99)  # 200 backward nodes and 99 leaves, the widest rank 99 nodes
    dot = tg.viz.to_dot(t, max_nodes=300)
    assert dot.count("shape=ellipse") == 200
    width, height, scale = _size(dot)
    assert scale == 1.0 and width <= WIDTH + 100, (width, height)  # readable without zooming
    assert height <= 8000, (width, height)  # (13 rows of 8; one row was 18,000 pt wide)


@needs_dot
def test_inputs_sharing_a_leaf_wrap_too_with_the_leaf_under_them():
    x = tg.tensor(np.arange(60, dtype=np.float32), requires_grad=True)
    t = tg.stack([x[i].sin() for i in range(60)]).sum()  # 60 items of one leaf: 182 nodes
    dot = tg.viz.to_dot(t, max_nodes=300)
    width, height, scale = _size(dot)
    assert scale == 1.0 and width <= WIDTH + 250, (width, height)
    leaf = next(k for k, v in _nodes(dot).items() if v.startswith("leaf0"))
    into_leaf = [attrs for a, b, attrs in _edges(dot) if b == leaf and "invis" not in attrs]
    assert len(into_leaf) == 60 and sum("constraint=false" in a for a in into_leaf) == 60


# ---- collapsing repeated modules ----------------------------------------------------------------
class _Block(tg.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tg.nn.Linear(3, 3)

    def forward(self, x):
        return tg.tanh(self.fc(x)) + x


class _Net(tg.nn.Module):
    def __init__(self, n: int = 3):
        super().__init__()
        self.blocks = tg.nn.ModuleList([_Block() for _ in range(n)])
        self.head = tg.nn.Linear(3, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x).sum()


def test_collapse_by_pattern_draws_each_block_as_one_box():
    tg.manual_seed(0)
    loss = _Net()(tg.randn(2, 3))
    full = _nodes(tg.viz.to_dot(loss))
    dot = tg.viz.to_dot(loss, collapse=["blocks.*"])
    nodes, edges = _nodes(dot), _edges(dot)
    boxes = {v.split("\\n")[0]: k for k, v in nodes.items() if "collapsed" in v}
    assert set(boxes) == {"blocks.0 (_Block)", "blocks.1 (_Block)", "blocks.2 (_Block)"}
    for k in boxes.values():
        assert nodes[k].endswith("\\n3 ops, collapsed")  # linear, tanh, add
    arrows = {(a, b) for a, b, _ in edges}
    b0, b1, b2 = (boxes[f"blocks.{i} (_Block)"] for i in range(3))
    assert (b2, b1) in arrows and (b1, b0) in arrows  # the gradient flows block to block
    heads = {v.split("\\n")[0] for v in nodes.values()}
    assert {"blocks.0.fc.weight", "blocks.2.fc.bias", "head.weight", "LinearBackward"} <= heads
    assert sum(v.startswith("LinearBackward") for v in nodes.values()) == 1  # the head's only
    assert len(nodes) < len(full)
    assert tg.viz.to_dot(loss, collapse=["blocks.?"]) == dot  # ? and * as in a shell
    assert "collapsed" in "".join(_nodes(tg.viz.to_dot(loss, collapse=["_Block"])).values())


def test_collapse_pattern_that_names_no_module_says_which_there_are():
    tg.manual_seed(0)
    loss = _Net(1)(tg.randn(2, 3))
    with pytest.raises(ValueError, match=r"collapse='block\.\*' names no module.*'blocks\.0'"):
        tg.viz.to_dot(loss, collapse=["block.*"])
    x = tg.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="no nn.Module"):
        tg.viz.to_dot(x * 2, collapse=["fc"])
