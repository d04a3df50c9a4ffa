"""to_latex: a backward rule's text (a Python expression over g, out and the inputs) as LaTeX math.

In teach/, but standard library only, so tg.autograd.formula (L4) imports it too. What a rule
means on paper is decided once, in mathtree.py; this module only spells that notation in LaTeX
(mathml.py spells the same tree as MathML for notebooks).
Notation (adjoints): a bar means "gradient of the loss with respect to": x̄ = ∂L/∂x, and g, the
gradient arriving at a node's output, is out̄. Text that is not an expression becomes \\text{...}.
"""

from __future__ import annotations

import re

from . import mathtree
from .mathtree import Aligned, Bar, Cases, Fence, Frac, Math, Row, Space, Sqrt, Sub, Sup, Sym

__all__ = ["adjoint", "formula_latex", "latex", "rule_latex", "to_latex"]

_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
}
_FENCES = {"⌊": r"\lfloor ", "⌋": r"\rfloor"}
_SPACES = {"thin": r"\,", "word": "\\ ", "quad": r"\quad "}
_COMMAND_END = re.compile(r"\\[A-Za-z]+$")  # \cdot, \partial: a letter after one needs a space


def to_latex(expr: str) -> str:
    r"""A rule's text as LaTeX math; prose, or a note after two spaces, becomes \text{...}.

    >>> to_latex("-g * x / y ** 2")
    '-\\frac{\\overline{\\mathrm{out}} \\cdot x}{y^{2}}'
    """
    return latex(mathtree.tree(expr))


def adjoint(name: str) -> str:
    r"""The gradient of the loss with respect to `name`: adjoint("x") == "\\bar{x}"."""
    return latex(mathtree.adjoint_tree(name))


def rule_latex(input_name: str, text: str) -> str:
    r"""One rule as an equation: rule_latex("x", "g * y") gives "\\bar{x} = ... \\cdot y"."""
    return latex(mathtree.rule_tree(input_name, text))


def formula_latex(expr: str, rules: dict[str, str]) -> str:
    r"""A forward and its rules ({input: text}) as one aligned block of equations.

    >>> formula_latex("x * y", {"x": "g * y", "y": "g * x"})  # doctest: +ELLIPSIS
    '\\begin{aligned} \\mathrm{out} &= x \\cdot y \\\\ \\bar{x} &= ...'
    """
    return latex(mathtree.formula_tree(expr, rules))


def latex(m: Math) -> str:
    r"""A tree of notation (mathtree.py) in LaTeX: latex(mathtree.tree("x ** 2")) == "x^{2}"."""
    if isinstance(m, Sym):
        return _symbol(m)
    if isinstance(m, Row):
        return _row(m)
    if isinstance(m, Frac):
        return rf"\frac{{{latex(m.num)}}}{{{latex(m.den)}}}"
    if isinstance(m, Sup):
        exp = latex(m.exp)
        return latex(m.base) + (f"^{{{exp}}}" if m.braced else f"^{exp}")
    if isinstance(m, Sub):
        return f"{latex(m.base)}_{{{latex(m.sub)}}}"
    if isinstance(m, Sqrt):
        return rf"\sqrt{{{latex(m.body)}}}"
    if isinstance(m, Bar):
        return (r"\overline{" if m.wide else r"\bar{") + latex(m.body) + "}"
    if isinstance(m, Fence):
        left, right = _FENCES.get(m.open, m.open), _FENCES.get(m.close, m.close)
        if m.sized:
            return rf"\left{left}{latex(m.body)}\right{right}"
        return f"{left}{latex(m.body)}{right}"
    if isinstance(m, Space):
        return _SPACES[m.width]
    if isinstance(m, Cases):
        rows = [
            f"{latex(value)} & "
            + (rf"\text{{if }} {latex(cond)}" if cond is not None else r"\text{otherwise}")
            for value, cond in m.rows
        ]
        return r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}"
    if isinstance(m, Aligned):
        lines = [f"{latex(left)} &= {latex(right)}" for left, right in m.rows]
        return r"\begin{aligned} " + r" \\ ".join(lines) + r" \end{aligned}"
    raise TypeError(f"latex() got {type(m).__name__}, not a piece of mathtree notation")


def _symbol(s: Sym) -> str:
    if s.kind == "name":
        return r"\mathrm{" + s.text.replace("_", r"\_") + "}"
    if s.kind == "text":
        return r"\text{" + "".join(_TEXT_ESCAPES.get(c, c) for c in s.text) + "}"
    if s.kind == "fn" and not s.tex:
        return r"\operatorname{" + s.text.replace("_", r"\_") + "}"
    return s.tex or s.text


def _row(row: Row) -> str:
    text = ""
    for k, item in enumerate(row.items):
        part = latex(item)
        if k:
            sep = row.sep
            if not sep and _COMMAND_END.search(text) and part[:1].isalpha():
                sep = " "
            text += sep
        text += part
    return text
