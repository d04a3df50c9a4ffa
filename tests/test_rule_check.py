"""Rule strings are checked when a primitive is registered (every name a rule reads is an input, a
parameter, g, out, or a name of the module defining it), and a failing rule's traceback shows the
rule's own line (its compiled source is registered with linecache under a name saying whose rule
it is and where it was written)."""

from __future__ import annotations

import sys
import traceback

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.primitives.registry import REGISTRY, primitive
from tapegrad.primitives.rule_text import check_names, free_names


@pytest.fixture
def scratch():
    """Names of primitives a test registers, dropped from the table afterwards (the table-driven
    tests expect a test case for every registered primitive)."""
    names: list[str] = []
    yield names
    for name in names:
        REGISTRY.pop(name, None)


def double(a):
    return 2 * a


def test_a_misspelled_input_in_a_rule_raises_at_registration(scratch):
    scratch.append("twice_typo")
    with pytest.raises(ValueError) as info:
        primitive("twice_typo", "2 * x", x="g * 2 * xx")(lambda x: 2 * x)
    message = str(info.value)
    assert "'twice_typo'" in message and "the rule for x" in message and "'g * 2 * xx'" in message
    assert "reads 'xx'" in message and "did you mean 'x'?" in message
    assert "twice_typo" not in REGISTRY  # (nothing half-registered)


def test_a_misspelled_parameter_or_helper_names_its_closest_match(scratch):
    scratch += ["scaled_typo", "helper_typo"]

    def scaled(x, *, factor=2.0):
        return x * factor

    with pytest.raises(ValueError, match=r"reads 'fator'.*did you mean 'factor'\?"):
        primitive("scaled_typo", "x * factor", x="g * fator")(scaled)
    with pytest.raises(ValueError, match=r"reads 'duble'.*did you mean 'double'\?"):
        primitive("helper_typo", "2 * x", x="duble(g)")(lambda x: 2 * x)


def test_the_forward_text_is_checked_when_it_is_an_expression(scratch):
    scratch += ["forward_typo", "forward_prose"]
    with pytest.raises(ValueError, match=r"'forward_typo': the forward's text, 'sin\(xx\)'"):
        primitive("forward_typo", "sin(xx)", x="g")(np.sin)
    # prose is not an expression: it is documentation, left as it is; NumPy's names are known
    primitive("forward_prose", "max of x over each window", x="g")(np.sin)
    primitive("forward_numpy", "broadcast_to(x, x.shape)", x="g")(np.positive)
    scratch.append("forward_numpy")


def test_a_rule_that_is_not_an_expression_raises(scratch):
    scratch.append("statement_rule")
    with pytest.raises(ValueError, match=r"the rule for x, 'g =', is not a Python expression"):
        primitive("statement_rule", "x", x="g =")(np.positive)


def test_names_a_rule_binds_itself_and_helpers_defined_further_down_are_known(scratch):
    scratch.append("binds_names")
    prim = primitive(
        "binds_names",
        "x",
        x="defined_further_down(sum([g * k for k in (1, 2)]), lambda a: a)",
    )(np.positive)
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    prim(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_free_names_leave_out_what_the_expression_binds():
    assert free_names("sum(g * y for y in ys) + x") == ["sum", "g", "ys", "x"]
    assert free_names("(lambda a, *b, c=1, **d: a + c)(g) + (n := 2) * n") == ["g"]


def test_every_registered_primitive_passes_the_check():
    assert len(REGISTRY) > 30
    for name, prim in REGISTRY.items():
        check_names(
            name, prim.input_names, prim.params, prim.texts, prim.expr, prim._namespace
        )  # (raises on the first unknown name)


def _failing_backward(prim) -> str:
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = prim(x).sum()
    with pytest.raises(ZeroDivisionError) as info:
        y.backward()
    return "".join(traceback.format_exception(info.value))


def test_a_traceback_from_a_failing_rule_points_at_the_rule_where_it_is_written(scratch):
    scratch.append("explodes")
    line = sys._getframe().f_lineno + 1
    prim = primitive("explodes", "x", x="g * explode(x)")(np.positive)
    shown = _failing_backward(prim)
    assert f'File "{__file__}", line {line}, in rules_of_explodes' in shown
    lines = shown.splitlines()
    at = lines.index('    prim = primitive("explodes", "x", x="g * explode(x)")(np.positive)')
    carets = lines[at + 1]  # under the call that failed, inside the rule's text
    assert carets.strip() == "^" * len("explode(x)")
    assert carets.index("^") == lines[at].index("explode(x)")
    # the functions of single rules too (pruned backwards call them)
    with pytest.raises(ZeroDivisionError) as info:
        prim.compile()[0](np.ones(2), None, np.ones(2))
    shown = "".join(traceback.format_exception(info.value))
    assert f'File "{__file__}", line {line}, in rule_of_explodes_for_x' in shown


def test_a_rule_written_over_several_lines_points_at_the_line_that_failed(scratch):
    scratch.append("explodes_later")
    line = sys._getframe().f_lineno + 6
    prim = primitive(
        "explodes_later",
        "x",
        x=(
            "g * 2.0 + g * 3.0 + g * 4.0 + g * 5.0 + g * 6.0 + g * 7.0 + g * 8.0 + g * 9.0 + g"
            " * explode(x)"  # (the call that fails is on this line)
        ),
    )(np.positive)
    shown = _failing_backward(prim)
    assert f'File "{__file__}", line {line}, in rules_of_explodes_later' in shown


def test_rules_not_written_as_literals_are_shown_from_the_registered_source(scratch):
    scratch.append("explodes_from_dict")
    line = sys._getframe().f_lineno + 2
    rules = {"x": "g * explode(x)"}
    prim = primitive("explodes_from_dict", "x", **rules)(np.positive)
    shown = _failing_backward(prim)
    assert f"<rules of explodes_from_dict for x ({__file__}:{line})>" in shown
    assert "(g * explode(x))," in shown  # the rule's own line, from linecache


def explode(a):
    return 1 / 0


def defined_further_down(a, identity):
    return identity(a)
