"""tg.viz: DOT structure (nodes, edges in the gradient's direction, sharing, cut-off, labels) and real
rendering through Graphviz, plus the install message when Graphviz is missing."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.tape.plan import execution_order


def _nodes(dot: str) -> dict:
    """{id: label} of every DOT node statement."""
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r'^  (\w+) \[.*label="((?:[^"\\]|\\.)*)"\];$', dot, re.M)
    }


def _edges(dot: str) -> list:
    return re.findall(r"^  (\w+) -> (\w+)", dot, re.M)


def _param(values, name):
    """A named parameter; duck-typed so the test does not depend on nn's constructor details."""
    p = tg.nn.Parameter(np.asarray(values, dtype=np.float32))
    if not p.requires_grad:
        p.requires_grad_(True)
    p.name = name
    return p


def _example():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = _param([0.5, 1.0, 2.0], "w")
    return x, w, (x * w + tg.sin(x)).sum()


def test_nodes_in_engine_order_and_edges_follow_the_gradient():
    x, w, z = _example()
    dot = tg.viz.to_dot(z)
    nodes = _nodes(dot)
    order = execution_order([z.grad_fn])
    backward_ids = [k for k in nodes if k.startswith("n")]
    assert [nodes[k] for k in backward_ids] == [n.name for n in order]
    assert {"SumBackward", "AddBackward", "MulBackward", "SinBackward"} <= set(nodes.values())
    edges = _edges(dot)
    by_label = {v: k for k, v in nodes.items()}
    out = next(k for k, v in nodes.items() if v.startswith("output"))
    # output -> SumBackward -> AddBackward -> {MulBackward, SinBackward} -> leaves
    assert (out, by_label["SumBackward"]) in edges
    assert (by_label["SumBackward"], by_label["AddBackward"]) in edges
    assert (by_label["AddBackward"], by_label["MulBackward"]) in edges
    assert (by_label["AddBackward"], by_label["SinBackward"]) in edges
    assert (by_label["SumBackward"], out) not in edges  # never against the gradient
    leaf = next(k for k, v in nodes.items() if v.startswith("leaf0"))
    param = next(k for k, v in nodes.items() if v.startswith("w\\n"))
    assert (by_label["MulBackward"], leaf) in edges and (by_label["SinBackward"], leaf) in edges
    assert (by_label["MulBackward"], param) in edges
    assert dot.count(f"  {leaf} [") == 1  # x is used twice but drawn once


def test_leaf_param_and_output_styles_differ_and_show_shape_dtype():
    x, w, z = _example()
    dot = tg.viz.to_dot(z)
    lines = {
        v.split("\\n")[0]: line for line in dot.splitlines() for k, v in _nodes(line + "\n").items()
    }
    assert "(3,) float32" in lines["leaf0"] and "(3,) float32" in lines["w"]
    assert "bold" in lines["w"] and "bold" not in lines["leaf0"]
    styles = {re.search(r'fillcolor="(#\w+)"', lines[k]).group(1) for k in ("leaf0", "w", "output")}
    assert len(styles) == 3


def test_shared_subexpression_is_drawn_once():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    s = tg.exp(x)
    z = (s * s + s).sum()
    dot = tg.viz.to_dot(z)
    nodes = _nodes(dot)
    exp_ids = [k for k, v in nodes.items() if v == "ExpBackward"]
    assert len(exp_ids) == 1
    into_exp = [a for a, b in _edges(dot) if b == exp_ids[0]]
    assert len(into_exp) == 3  # two from the product, one from the sum: three gradients arrive
    assert len([k for k in nodes if k.startswith("n")]) == len(execution_order([z.grad_fn])) == 4


def test_max_nodes_cut_says_how_many_were_left_out():
    x = tg.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(10):
        y = tg.sin(y)
    dot = tg.viz.to_dot(y, max_nodes=4)
    nodes = _nodes(dot)
    assert len([k for k in nodes if k.startswith("n")]) == 4
    assert "6 more backward nodes not shown (max_nodes=4)" in nodes["cut"]
    assert ("n3", "cut") in _edges(dot)
    assert not any(v.startswith("leaf") for v in nodes.values())  # behind the cut
    full = tg.viz.to_dot(y)
    assert "cut" not in _nodes(full) and len([k for k in _nodes(full) if k.startswith("n")]) == 10


def test_show_values_and_show_grads():
    x, w, z = _example()
    plain = tg.viz.to_dot(z)
    assert "[1. 2. 3.]" not in plain and "grad" not in plain
    assert "[1. 2. 3.]" in tg.viz.to_dot(z, show_values=True)
    z.backward(retain_graph=True)
    dot = tg.viz.to_dot(z, show_grads=True)
    w_label = next(v for v in _nodes(dot).values() if v.startswith("w\\n"))
    assert "grad [1. 2. 3.]" in w_label  # d/dw sum(x*w) = x
    x_label = next(v for v in _nodes(dot).values() if v.startswith("leaf0"))
    expected = np.array2string(w.numpy() + np.cos(x.numpy()), precision=4, suppress_small=True)
    assert "grad " + expected in x_label


def test_big_values_are_summarised():
    x = tg.ones(100, 10, requires_grad=True)
    dot = tg.viz.to_dot((x * 2).sum(), show_values=True)
    assert "shape (100, 10), norm 31.62" in dot and "1. 1. 1. 1." not in dot


def test_constants_and_retained_tensors():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3.0
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    dot = tg.viz.to_dot(z, show_grads=True)
    nodes = _nodes(dot)
    ret = next(k for k, v in nodes.items() if v.startswith("retained"))
    assert "grad [ 6. 12.]" in nodes[ret]
    muls = [k for k, v in nodes.items() if v == "MulBackward"]
    # gradients for y gather in its box, which then feeds the node that made it
    assert (ret, muls[1]) in _edges(dot) and (muls[0], ret) in _edges(dot)
    assert any(v == "const 3." for v in nodes.values())


def test_leaf_and_constant_tensor_still_give_valid_graphs():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    dot = tg.viz.to_dot(x)
    assert dot.startswith("digraph tape {") and dot.rstrip().endswith("}")
    assert list(_nodes(dot).values()) == ["leaf0 (leaf, no backward nodes)\\n(2,) float32"]
    c = tg.tensor(1.0)
    assert "does not require grad" in tg.viz.to_dot(c)


def test_labels_are_escaped():
    p = _param([1.0], 'we"ird\\name\nx')
    dot = tg.viz.to_dot((p * 2).sum())
    assert r'label="we\"ird\\name\nx\n(1,) float32"' in dot


def test_output_is_deterministic():
    def build():
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        return (tg.exp(x) * x).sum()

    assert tg.viz.to_dot(build()) == tg.viz.to_dot(build())


def test_freed_graph_can_still_be_drawn():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    z = (x * 2.0).sum()
    z.backward()
    assert "MulBackward" in tg.viz.to_dot(z)


# ---- rendering ----------------------------------------------------------------------------------
def _graphviz_installed() -> bool:
    import importlib.util
    import shutil

    return importlib.util.find_spec("graphviz") is not None and shutil.which("dot") is not None


def test_draw_svg_and_png(tmp_path):
    if not _graphviz_installed():  # (.ci/run installs it; elsewhere the clear error is the feature)
        with pytest.raises(tg.viz.GraphvizNotAvailable, match="install"):
            tg.viz.draw(tg.tensor(1.0, requires_grad=True) * 2, tmp_path / "graph.svg")
        return
    p = _param([1.0, 2.0], 'w<"&>')  # characters that break naive SVG/DOT output
    z = (tg.sin(p) * p).sum()
    svg = tg.viz.draw(z, tmp_path / "sub" / "graph.svg", show_values=True)
    text = svg.read_text()
    assert svg == tmp_path / "sub" / "graph.svg"
    assert text.lstrip().startswith(("<?xml", "<svg")) and "SinBackward" in text
    assert "w&lt;&quot;&amp;&gt;" in text or 'w&lt;"&amp;&gt;' in text
    png = tg.viz.draw(z, str(tmp_path / "graph.png"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    other = tg.viz.draw(z, tmp_path / "noext", format="svg")
    assert other.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_draw_unknown_format(tmp_path):
    x = tg.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match=r"\.svg or \.png"):
        tg.viz.draw(x * x, tmp_path / "graph.txt")


def _assert_install_message(msg: str):
    assert "pip install tapegrad[viz]" in msg and "pip install graphviz" in msg
    assert "apt-get install graphviz" in msg and "brew install graphviz" in msg


def test_draw_without_dot_on_path_says_how_to_install(tmp_path, monkeypatch):
    import importlib.util

    if importlib.util.find_spec("graphviz") is None:  # then draw() stops at the package instead
        monkeypatch.setitem(sys.modules, "graphviz", __import__("types").ModuleType("graphviz"))
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    x = tg.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        tg.viz.draw(x * x, tmp_path / "g.svg")
    assert isinstance(info.value, tg.viz.GraphvizNotAvailable)
    assert "`dot` program" in str(info.value)
    _assert_install_message(str(info.value))
    assert not (tmp_path / "g.svg").exists()
    assert "MulBackward" in tg.viz.to_dot(x * x)  # to_dot needs nothing


def test_draw_without_graphviz_package_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # makes `import graphviz` raise ImportError
    x = tg.tensor(1.0, requires_grad=True)
    with pytest.raises(tg.viz.GraphvizNotAvailable) as info:
        tg.viz.draw(x * x, tmp_path / "g.png")
    assert "`graphviz` Python package" in str(info.value)
    _assert_install_message(str(info.value))
    assert isinstance(info.value.__cause__, ImportError)
