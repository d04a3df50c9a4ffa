"""tg.explain and backward(trace=True): the engine's own order, the rule table's formulas, the real
gradients (equal to backward's), no side effects on .grad or the tape, and readable output."""

from __future__ import annotations

import html
import io
import re

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.tape.plan import execution_order


def _example():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = tg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    return x, y, (x * y + tg.sin(x)).sum()


def test_steps_follow_the_engine_order_and_the_rule_table():
    x, y, z = _example()
    steps = tg.explain(z, show=False)
    order = execution_order([z.grad_fn])
    assert [s.node for s in steps] == [n.name for n in order]
    assert [s.index for s in steps] == list(range(1, len(order) + 1))
    for s in steps:
        table = tg.autograd.formula(s.op).splitlines()
        assert s.forward in table[0]
        for line in s.formulas.values():
            assert "  " + line in table, (line, table)
    mul = next(s for s in steps if s.node == "MulBackward")
    assert mul.formulas == {"x": "dL/dx = g * y", "y": "dL/dy = g * x"}


def test_values_are_the_real_gradients():
    x, y, z = _example()
    steps = tg.explain(z, show=False)
    mul = next(s for s in steps if s.node == "MulBackward")
    np.testing.assert_allclose(mul.grad_out, np.ones(3))
    np.testing.assert_allclose(mul.grads_in["x"], y.numpy())  # g * y
    np.testing.assert_allclose(mul.grads_in["y"], x.numpy())  # g * x
    sin = next(s for s in steps if s.node == "SinBackward")
    np.testing.assert_allclose(sin.grads_in["x"], np.cos(x.numpy()), rtol=1e-6)
    assert mul.sends_to == {"x": "leaf0", "y": "leaf1"}
    add = next(s for s in steps if s.node == "AddBackward")
    assert add.sends_to["x"] == f"[{mul.index}] MulBackward"


def test_leaf_gradients_equal_backward_and_nothing_is_touched():
    x, y, z = _example()
    steps = tg.explain(z, show=False)
    assert x.grad is None and y.grad is None  # explain never writes .grad
    assert [lf.name for lf in steps.leaves] == ["leaf0", "leaf1"]
    z.backward()  # the tape was not freed: a normal backward still works afterwards
    for lf, t in zip(steps.leaves, (x, y)):
        assert lf.tensor is t
        np.testing.assert_allclose(lf.grad, t.grad.numpy(), rtol=1e-6)


def test_explain_twice_and_then_explain_gives_the_same():
    x, y, z = _example()
    a = tg.explain(z, show=False)
    b = tg.explain(z, show=False)
    assert a.text == b.text
    assert all(np.array_equal(p.grad, q.grad) for p, q in zip(a.leaves, b.leaves))


def test_explain_after_a_backward_that_freed_the_tape():
    """A teacher runs backward() first (as micrograd's README does), then explains: the freed
    values are recomputed for the explanation, which equals the one before; the tape stays freed."""
    x, y, z = _example()
    before = tg.explain(z, show=False)
    w = (x * 2.0).exp().sum()  # exp reads `out`, mul reads the constant 2.0
    w_before = tg.explain(w, show=False)
    z.backward()
    w.backward()
    after = tg.explain(z, show=False)
    assert after.text == before.text
    for p, q in zip(after, before):
        assert p.reads.keys() == q.reads.keys()
        assert all(np.array_equal(p.reads[k], q.reads[k]) for k in p.reads)
    assert tg.explain(w, show=False).text == w_before.text
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()  # explain gave the values back only while it ran


def test_printed_output_is_aligned_and_readable(capsys):
    x, y, z = _example()
    steps = tg.explain(z)
    out = capsys.readouterr().out
    assert out == steps.text == str(steps)
    assert "[1] SumBackward" in out and "seed dL/dout  1." in out
    assert re.search(r"dL/dx = dL/dout \* y +\[ 0\.5 -1\.   2\. \] +-> leaf0", out)
    block = out.split("MulBackward    out = x * y\n")[1].split("\n\n")[0].splitlines()
    assert len(block) == 4 and block[0].split() == [
        "reads",
        "x",
        "=",
        "[1.",
        "2.",
        "3.]",
        "y",
        "=",
        "[",
        "0.5",
        "-1.",
        "2.",
        "]",
    ]
    starts = {line.index("[") for line in block[1:]}  # the value column lines up
    assert len(starts) == 1
    assert "gradients arriving at the leaves" in out
    leaf_lines = [ln for ln in out.splitlines() if ln.startswith("    leaf")]
    assert len({ln.index("float32") for ln in leaf_lines}) == 1


def test_file_and_show():
    x, y, z = _example()
    buf = io.StringIO()
    steps = tg.explain(z, file=buf)
    assert buf.getvalue() == steps.text and "MulBackward" in buf.getvalue()


def test_show_false_prints_nothing(capsys):
    x, y, z = _example()
    tg.explain(z, show=False)
    assert capsys.readouterr().out == ""


def test_fan_out_sums_contributions():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    s = tg.exp(x)
    z = (s * s + s).sum()  # s reaches the output along three edges
    steps = tg.explain(z, show=False)
    exp = next(st for st in steps if st.node == "ExpBackward")
    assert exp.contributions == 3
    np.testing.assert_allclose(exp.grad_out, 2 * np.exp(x.numpy()) + 1, rtol=1e-6)
    assert "(sum of 3 incoming gradients)" in steps.text
    w = tg.tensor([3.0], requires_grad=True)
    steps = tg.explain((w * w).sum(), show=False)  # a leaf used twice
    assert steps.leaves[0].contributions == 2 and "(sum of 2 contributions)" in steps.text
    np.testing.assert_allclose(steps.leaves[0].grad, [6.0])


def test_broadcasting_shows_the_reduced_gradient():
    a = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = tg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    steps = tg.explain((a * b).sum(), show=False)
    mul = next(s for s in steps if s.node == "MulBackward")
    assert mul.grads_in["y"].shape == (3,) and mul.broadcast_from == {"y": (2, 3)}
    np.testing.assert_allclose(mul.grads_in["y"], [5.0, 7.0, 9.0])
    assert "summed from broadcast shape (2, 3) to (3,)" in steps.text
    np.testing.assert_allclose(steps.leaves[1].grad, [5.0, 7.0, 9.0])


def test_big_tensors_are_summarised_by_shape_and_norm():
    x = tg.ones(40, 30, requires_grad=True)
    steps = tg.explain((x * 3.0).sum(), show=False)
    mul = steps[1]
    assert mul.grads_in["x"].shape == (40, 30)
    norm = np.linalg.norm(np.full(1200, 3.0))
    assert f"shape (40, 30), norm {norm:.4g}" in steps.text
    assert "3. 3. 3." not in steps.text
    assert "not computed: y is a constant" in steps.text
    small = tg.explain((x[:2, 0] * 3.0).sum(), show=False)  # small gradients show their values
    assert "dL/dx = dL/dout * y  [3. 3.]" in small.text and "norm 4.243" in small.text


def test_non_scalar_needs_a_gradient():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        tg.explain(x * 2.0, show=False)
    with pytest.raises(RuntimeError, match="mismatch in shape"):
        tg.explain(x * 2.0, gradient=tg.ones(3), show=False)
    steps = tg.explain(x * 2.0, gradient=tg.tensor([1.0, -1.0]), show=False)
    np.testing.assert_allclose(steps.leaves[0].grad, [2.0, -2.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.explain(tg.tensor(1.0))


def test_a_leaf_has_no_steps():
    x = tg.tensor(3.0, requires_grad=True)
    steps = tg.explain(x, show=False)
    assert list(steps) == [] and steps.leaves[0].tensor is x
    np.testing.assert_allclose(steps.leaves[0].grad, 1.0)
    assert "a leaf, so no steps" in steps.text


def test_nodes_no_gradient_reaches_are_listed():
    x = tg.tensor([1.0, -2.0], requires_grad=True)
    z = tg.sin(tg.sign(tg.exp(x))).sum()
    steps = tg.explain(z, show=False)
    assert [s.node for s in steps] == [n.name for n in execution_order([z.grad_fn])]
    assert steps[-1].node == "ExpBackward" and steps[-1].grad_out is None
    assert "no gradient reached this node" in steps.text
    assert steps.leaves[0].grad.tolist() == [0.0, 0.0]  # reached: zeros, as backward() gives


def test_a_rule_the_table_leaves_out_reads_zero_everywhere():
    # floor has no rule in the table (None: a zero gradient): text, HTML and compare all say 0
    x = tg.tensor([1.5, -2.0], requires_grad=True)
    loss = (x.floor() * x).sum()
    steps = tg.explain(loss, show=False)
    floor = next(s for s in steps if s.node == "FloorBackward")
    assert floor.rules == {"x": "0"} and floor.formulas == {"x": "dL/dx = 0"}
    assert "dL/dx = 0" in tg.autograd.formula("floor")
    assert "None" not in steps.text and "None" not in steps._repr_html_()
    checks = tg.autograd.compare(loss, {x: x.floor().numpy()})
    assert checks.first_wrong is None
    assert next(iter(checks)).rule.endswith("FloorBackward: dL/dx = 0")


def test_variadic_ops_name_each_input():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0], requires_grad=True)
    steps = tg.explain((tg.cat([a, b]) * tg.tensor([1.0, 2.0, 3.0])).sum(), show=False)
    cat = next(s for s in steps if s.node == "ConcatenateBackward")
    assert set(cat.grads_in) == {"xs[0]", "xs[1]"}
    np.testing.assert_allclose(cat.grads_in["xs[1]"], [3.0])
    assert cat.formulas["xs[1]"].startswith("dL/dxs[1] = ")


def test_backward_trace_prints_and_accumulates(capsys):
    x, y, z = _example()
    expected = tg.explain(z, show=False)
    z.backward(trace=True)
    out = capsys.readouterr().out
    assert out.startswith("backward(trace=True)")
    names = re.findall(r"^\[(\d+)\] (\w+)", out, re.M)
    assert [n for _, n in names] == [s.node for s in expected]
    assert "dL/dx = dL/dout * y" in out
    for lf, t in zip(expected.leaves, (x, y)):
        np.testing.assert_allclose(t.grad.numpy(), lf.grad, rtol=1e-6)
    with pytest.raises(RuntimeError, match="second time"):  # a normal backward: the tape is freed
        z.backward()


def test_trace_and_explain_share_the_step_format(capsys):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    z = (x * x).sum()
    text = tg.explain(z, show=False).text
    z.backward(trace=True)
    out = capsys.readouterr().out
    # same lines, except that explain can point at later steps by number
    step_lines = [
        ln.replace("-> [2] ", "-> ") for ln in text.splitlines() if ln.startswith(("[", "    dL"))
    ]
    assert all(ln in out.splitlines() for ln in step_lines)


def test_leaf_names_match_the_drawn_graph():
    x, y, z = _example()
    steps = tg.explain(z, show=False)
    dot = tg.viz.to_dot(z)
    for lf in steps.leaves:
        assert f'label="{lf.name}\\n(3,) float32"' in dot


# ---- what each step reads, names, width, the notebook table -----------------------------------
def test_each_step_shows_the_forward_values_its_rule_reads():
    x = tg.tensor(2.0, requires_grad=True, name="x")
    out = x**3.0
    steps = tg.explain(out, show=False)
    (pow_step,) = steps
    assert float(pow_step.reads["x"]) == 2.0 and float(pow_step.reads["y"]) == 3.0
    assert "out" not in pow_step.reads  # (only y's rule reads out, and y needs no gradient)
    assert re.search(r"reads +x = 2\. +y = 3\.", steps.text)
    e = tg.tensor(3.0, requires_grad=True, name="e")
    both = tg.explain(x**e, show=False)[0]
    assert float(both.reads["out"]) == 8.0  # y's rule reads out once y needs a gradient
    np.testing.assert_allclose(pow_step.grads_in["x"], 3 * 2.0**2)
    add = tg.explain((x + 1.0) * 1.0, show=False)[1]
    assert add.node == "AddBackward" and add.reads == {}  # add's rules read nothing
    assert "reads" not in tg.explain(x + x, show=False).text


def test_names_where_set():
    a = tg.tensor([1.0, 2.0], requires_grad=True, name="a")
    b = tg.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    c.name = "c"
    steps = tg.explain((c + b).sum(), show=False)
    add = next(s for s in steps if s.node == "AddBackward")
    mul = next(s for s in steps if s.node == "MulBackward")
    assert add.sends_to == {"x": f"[{mul.index}] MulBackward (c)", "y": "leaf0"}
    assert mul.output == "c" and mul.sends_to == {"x": "a", "y": "leaf0"}
    assert "(makes c)" in steps.text and [lf.name for lf in steps.leaves] == ["leaf0", "a"]


def test_text_fits_100_columns_on_an_mlp():
    tg.manual_seed(0)
    net = tg.nn.Sequential(tg.nn.Linear(6, 16), tg.nn.Tanh(), tg.nn.Linear(16, 3))
    x = tg.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
    loss = tg.nn.CrossEntropyLoss()(net(x), tg.tensor([0, 1, 2, 1]))
    steps = tg.explain(loss, show=False, max_values=16)
    assert max(len(line) for line in steps.text.splitlines()) <= 100
    assert "2.weight" in steps.text and "0.bias" in steps.text  # parameters by their path
    net.zero_grad()
    loss.backward()
    for lf in steps.leaves:
        np.testing.assert_allclose(lf.grad, lf.tensor.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_explanation_is_a_sequence_of_steps_with_a_short_repr():
    x, y, z = _example()
    steps = tg.explain(z, show=False)
    assert len(steps) == 4 and [s.index for s in steps] == [1, 2, 3, 4]
    assert steps[0].node == "SumBackward" and steps[-1] is list(steps)[-1]
    assert len(repr(steps)) < 120 and "4 steps" in repr(steps)
    printed = []

    class Printer:
        def text(self, t):
            printed.append(t)

    steps._repr_pretty_(Printer(), False)  # IPython's text form is the whole text
    assert printed == [steps.text.rstrip("\n")]


def test_html_is_one_table_with_math_values_and_gradients():
    from tapegrad.teach import mathtree
    from tapegrad.teach.mathml import mathml

    x, y, z = _example()
    steps = tg.explain(z, show=False)
    page = steps._repr_html_()
    assert page.startswith("<table") and page.endswith("</table>")
    assert page.count("<table") == 1 and page.count("<tr>") == 1 + len(steps) + len(steps.leaves)
    # the rules as MathML (typeset by the browser: no script, no LaTeX left for MathJax)
    assert mathml(mathtree.rule_tree("x", "g * y")) in page
    assert "\\(" not in page and "<script" not in page and "$" not in page
    assert "dL/dx = g * y" in page  # and the rule's code, the text that runs
    # what MulBackward reads: x as math, then its values
    assert re.search(r"<mi>x</mi></math> = <code[^>]*>\[1\. 2\. 3\.\]", page)
    assert re.search(r"<mi>x</mi><mo>&#xAF;</mo></mover></math> &rarr; leaf0", page)
    assert "the gradient of the loss" in page  # the legend
    assert "&rarr; leaf0" in page and "&rarr; [2] AddBackward" in page
    cos = np.array2string(np.cos(x.numpy()), precision=4, suppress_small=True)
    assert cos in page  # SinBackward's gradient out
    assert "&lt;" not in tg.explain((x * y).sum(), show=False)._repr_html_().split("<caption")[0]
    assert page.count("<math") == page.count("</math>") > 3 * len(steps)


def test_html_escapes_names_and_comparisons():
    x = tg.tensor([1.0, -1.0], requires_grad=True, name="<x&>")
    page = tg.explain(tg.relu(x).sum(), show=False)._repr_html_()
    assert "<x&>" not in page and "&lt;x&amp;&gt;" in page
    rule = tg.autograd.formula("relu").splitlines()[1].strip()  # dL/dx = where(out <= 0, 0, g)
    assert "<=" in rule and html.escape(rule) in page  # the rule's code, escaped
    assert "<mo>≤</mo>" in page  # and as math


def test_in_a_notebook_explain_prints_nothing_and_displays_instead(capsys, monkeypatch):
    import sys

    explain_module = sys.modules["tapegrad.teach.explain"]  # (tg.explain is the function)
    x, y, z = _example()
    monkeypatch.setattr(explain_module, "running_in_ipython", lambda: True)
    steps = tg.explain(z)
    assert capsys.readouterr().out == ""  # Jupyter shows the returned table instead
    tg.explain(z, show=True)
    assert capsys.readouterr().out == steps.text


def test_steps_say_which_module_they_ran_in(monkeypatch):
    # The tape will record each node's running modules (node.scope); until it does, the test tells
    # explain the scopes by hand, from the nodes each module call added.
    from tapegrad.teach import tapeinfo

    class Net(tg.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tg.nn.Linear(2, 2)

    net = Net()
    h = net.fc1(tg.ones(3, 2))
    fc1_nodes = set(execution_order([h.grad_fn]))
    loss = (h * h).sum()
    scopes = dict.fromkeys(fc1_nodes, (net, net.fc1))
    monkeypatch.setattr(tapeinfo, "node_scope", scopes.get)
    steps = tg.explain(loss, show=False)
    assert [s.module for s in steps] == [None, None, "fc1"]
    assert "LinearBackward    out = x @ T(w) + b    (in fc1)" in steps.text
    assert "in fc1" in steps._repr_html_()
