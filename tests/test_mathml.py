"""tapegrad.teach.mathml: rule texts as MathML Core (what browsers typeset with no script), spelled
from the same notation tree as the LaTeX, so the two always say the same thing."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tapegrad.primitives.registry import REGISTRY
from tapegrad.teach import mathtree
from tapegrad.teach.latex import to_latex
from tapegrad.teach.mathml import adjoint_mathml, formula_mathml, legend_html, rule_mathml
from tapegrad.teach.mathml import to_mathml

# MathML Core: the elements Chromium, Firefox and Safari all lay out (no mfenced, no menclose)
CORE = set(
    "math mi mn mo mtext mspace mrow mfrac msqrt mroot msub msup msubsup mover munder "
    "munderover mtable mtr mtd mpadded mphantom mstyle semantics annotation".split()
)


def _tree(markup: str) -> ET.Element:
    """The MathML as an element tree (it must be well-formed XML: it is embedded in HTML)."""
    return ET.fromstring(markup)


def _shape(e: ET.Element) -> str:
    """A compact picture of the structure: tags, with the text of leaves: mfrac(mi:x,mn:2)."""
    kids = list(e)
    if not kids:
        return f"{e.tag}:{(e.text or '').strip()}" if (e.text or "").strip() else e.tag
    inner = ",".join(_shape(k) for k in kids)
    return f"{e.tag}({inner})"


OUT = "mrow(mi:out)"  # g, the gradient arriving at the output: "out" under a bar (see below)


@pytest.mark.parametrize(
    "text, shape",
    [
        ("x ** 2", "math(msup(mi:x,mn:2))"),
        ("g * y", f"math(mrow({OUT},mo:⋅,mi:y))"),
        ("-g * x / y ** 2", f"math(mrow(mo:−,mfrac(mrow({OUT},mo:⋅,mi:x),msup(mi:y,mn:2))))"),
        ("g @ w.T", f"math(mrow({OUT},mspace,msup(mi:w,mo:⊤)))"),
        ("g / (2 * sqrt(x))", f"math(mfrac({OUT},mrow(mn:2,mo:⋅,msqrt(mi:x))))"),
        ("g * (x > 0)", f"math(mrow({OUT},mo:⋅,mrow(mo:[,mrow(mi:x,mo:>,mn:0),mo:])))"),
        ("x_i * alpha", "math(mrow(msub(mi:x,mi:i),mo:⋅,mi:α))"),
        ("g * exp(x)", f"math(mrow({OUT},mo:⋅,mrow(mi:exp,mo:\u2061,mrow(mo:(,mrow(mi:x),mo:)))))"),
    ],
)
def test_rule_texts_become_mathml(text: str, shape: str) -> None:
    assert _shape(_tree(to_mathml(text))) == shape


def test_the_adjoint_bar_and_cases() -> None:
    x_bar = _tree(adjoint_mathml("x"))
    assert _shape(x_bar) == "math(mover(mi:x,mo:¯))" and x_bar[0].get("accent") == "true"
    # a longer name gets an overline drawn by the browser (fonts stretch accents unevenly)
    wide = _tree(adjoint_mathml("fc1.weight"))
    assert _shape(wide) == "math(mrow(mi:fc1.weight))" and "border-top" in wide[0].get("style")
    cases = _tree(to_mathml("where(x > 0, g, 0)"))
    rows = cases.findall(".//mtr")
    assert _shape(cases).startswith("math(mrow(mo:{,mtable(") and len(rows) == 2
    assert "".join(rows[0][1].itertext()).replace("\xa0", " ") == "if x>0"
    assert "".join(rows[1][1].itertext()) == "otherwise"
    rule = _tree(rule_mathml("x", "g * y"))
    assert _shape(rule) == f"math(mrow(mover(mi:x,mo:¯),mo:=,mrow({OUT},mo:⋅,mi:y)))"
    block = _tree(formula_mathml("x * y", {"x": "g * y", "y": "g * x"}))
    assert block.get("display") == "block" and len(block.findall(".//mtr")) == 3


def test_text_is_escaped_and_prose_is_mtext() -> None:
    markup = to_mathml("g / (number of ties) at the maxima, 0 elsewhere")
    tree = _tree(markup)
    assert tree[0][1].tag == "mtext" and "number of ties" in tree[0][1].text
    assert _tree(to_mathml("a < b & c"))  # comparisons and & stay well-formed XML
    assert "&lt;" in to_mathml("x < y") and "<x" not in to_mathml("x < y").replace("<math", "")
    assert _tree(to_mathml("a {b} \\ $ _ % & # ^ ~ 2y")).find(".//mtext") is not None


def _count(latex: str, command: str) -> int:
    return len(re.findall(re.escape(command) + r"(?![A-Za-z])", latex))


def test_every_registered_rule_is_core_mathml_and_says_what_the_latex_says() -> None:
    """One translator: for every rule and forward in the table, the MathML has exactly the
    fractions, powers, roots, subscripts and case splits the LaTeX has, in MathML Core only."""
    for prim in REGISTRY.values():
        for text in (prim.expr, *prim.texts):
            root = _tree(to_mathml(text))
            tags = [e.tag for e in root.iter()]
            assert set(tags) <= CORE, (prim.name, text, set(tags) - CORE)
            latex = to_latex(text)
            assert tags.count("mfrac") == _count(latex, r"\frac"), (prim.name, text)
            assert tags.count("msqrt") == _count(latex, r"\sqrt"), (prim.name, text)
            assert tags.count("msup") == latex.count("^") - latex.count(r"\^{}"), (prim.name, text)
            assert tags.count("msub") == latex.count("_{"), (prim.name, text)
            assert tags.count("mtable") == _count(latex, r"\begin{cases}"), (prim.name, text)
            assert "\\" not in "".join(e.text or "" for e in root.iter() if e.tag != "mtext")


def test_the_legend_is_words_and_inline_math() -> None:
    legend = legend_html()
    assert "the gradient of the loss" in legend and "\\(" not in legend
    pieces = re.findall(r"<math[ >].*?</math>", legend)
    assert len(pieces) == sum(1 for p in mathtree.LEGEND if not isinstance(p, str))
    for piece in pieces:
        assert set(e.tag for e in _tree(piece).iter()) <= CORE
