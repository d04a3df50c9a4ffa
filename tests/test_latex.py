"""tapegrad.teach.latex.to_latex and tg.autograd.formula(op, latex=True): rule texts (Python
expressions over g, out and the inputs) become the LaTeX a teacher would write; prose never crashes
it."""

from __future__ import annotations

import re

import pytest

import tapegrad as tg
from tapegrad.teach.latex import adjoint, rule_latex, to_latex
from tapegrad.primitives.registry import REGISTRY

OUT = r"\overline{\mathrm{out}}"  # g, the gradient arriving at the output

# (rule text, the LaTeX a person would write for it)
CASES = [
    ("g", OUT),
    ("-g", "-" + OUT),
    ("g * y", OUT + r" \cdot y"),
    ("g / y", r"\frac{" + OUT + "}{y}"),
    ("-g * x / y ** 2", r"-\frac{" + OUT + r" \cdot x}{y^{2}}"),
    ("g * (1 - out ** 2)", OUT + r" \cdot \left(1 - \mathrm{out}^{2}\right)"),
    ("g @ y.T", OUT + r"\,y^\top"),
    ("x.T @ g", r"x^\top\," + OUT),
    ("g / (2 * sqrt(x))", r"\frac{" + OUT + r"}{2 \cdot \sqrt{x}}"),
    ("g * exp(x)", OUT + r" \cdot \exp\left(x\right)"),
    ("-g * sin(x)", "-" + OUT + r" \cdot \sin\left(x\right)"),
    ("g * cos(x)", OUT + r" \cdot \cos\left(x\right)"),
    ("g / x", r"\frac{" + OUT + "}{x}"),
    ("g * tanh(x)", OUT + r" \cdot \tanh\left(x\right)"),
    ("g * log(x)", OUT + r" \cdot \log\left(x\right)"),
    (
        "where(x > 0, g, 0)",
        r"\begin{cases} " + OUT + r" & \text{if } x > 0 \\ 0 & \text{otherwise} \end{cases}",
    ),
    ("g * (x > 0)", OUT + r" \cdot [x > 0]"),
    ("g * (x >= y)", OUT + r" \cdot [x \geq y]"),
    (
        "where(x != y, g, 0)",
        r"\begin{cases} " + OUT + r" & \text{if } x \neq y \\ "
        r"0 & \text{otherwise} \end{cases}",
    ),
    ("0 <= x <= 1", r"0 \leq x \leq 1"),
    ("x ** (y - 1)", "x^{y - 1}"),
    ("(a * b) ** 2", r"\left(a \cdot b\right)^{2}"),
    ("-(a + b)", r"-\left(a + b\right)"),
    ("a - (b - c)", r"a - \left(b - c\right)"),
    ("a - b + c", "a - b + c"),
    ("x_i * alpha", r"x_{i} \cdot \alpha"),
    (
        "expand_back(g, x.shape, axis, keepdims)",
        r"\operatorname{expand\_back}\left(" + OUT + r", x.\mathrm{shape}, \mathrm{axis}, "
        r"\mathrm{keepdims}\right)",
    ),
    ("1e-8 * g", r"10^{-8} \cdot " + OUT),
    ("abs(x)", r"\left|x\right|"),
    # older texts: x^T is a transpose, dL/dout a gradient, and a note may follow two spaces
    ("g @ y^T", OUT + r"\,y^\top"),
    ("g * y   (0 at 0**0)", OUT + r" \cdot y\quad \text{(0 at 0**0)}"),
    ("(1 - y**2) * dL/dout", r"\left(1 - y^{2}\right) \cdot " + OUT),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_rule_texts_become_latex(text: str, expected: str) -> None:
    assert to_latex(text) == expected


def _balanced(latex: str) -> bool:
    depth = 0
    for k, ch in enumerate(latex):
        escaped = k > 0 and latex[k - 1] == "\\"
        if ch == "{" and not escaped:
            depth += 1
        elif ch == "}" and not escaped:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and latex.count(r"\left") == latex.count(r"\right")


def test_prose_is_text_and_never_crashes() -> None:
    text = "g / (number of ties) at the maxima, 0 elsewhere"
    latex = to_latex(text)
    assert latex == OUT + r" \text{ / (number of ties) at the maxima, 0 elsewhere}"
    weird = to_latex("a {b} \\ $ _ % & # ^ ~ 2y")
    assert weird.startswith(r"\text{") and _balanced(weird)
    assert r"\{b\}" in weird and r"\$" in weird and r"\_" in weird and r"\&" in weird
    assert to_latex("") == r"\text{}"


def test_every_registered_rule_and_forward_converts() -> None:
    for prim in REGISTRY.values():
        for text in (prim.expr, *prim.texts):
            latex = to_latex(text)
            assert latex and _balanced(latex), (prim.name, text, latex)
            assert "dL_d" not in latex  # (the older spelling is read as a gradient)


def test_adjoint_names() -> None:
    assert adjoint("x") == r"\bar{x}"
    assert adjoint("xs[1]") == r"\overline{\mathrm{xs}[1]}"
    assert adjoint("fc1.weight") == r"\overline{\mathrm{fc1.weight}}"
    assert rule_latex("y", "g * x") == r"\bar{y} = " + OUT + r" \cdot x"


def test_formula_latex_is_an_aligned_block() -> None:
    text = tg.autograd.formula("mul")
    assert "dL/dx = g * y" in text  # the text form is unchanged
    latex = tg.autograd.formula("mul", latex=True)
    assert latex.startswith(r"\begin{aligned}") and latex.endswith(r"\end{aligned}")
    rows = re.split(r" \\\\ ", latex[len(r"\begin{aligned} ") : -len(r" \end{aligned}")])
    assert rows == [
        r"\mathrm{out} &= x \cdot y",
        r"\bar{x} &= " + OUT + r" \cdot y",
        r"\bar{y} &= " + OUT + r" \cdot x",
    ]
    assert tg.autograd.formula("MulBackward", latex=True) == latex
    for name in REGISTRY:
        assert _balanced(tg.autograd.formula(name, latex=True))
    with pytest.raises(KeyError, match="no primitive or function named"):
        tg.autograd.formula("nope", latex=True)
