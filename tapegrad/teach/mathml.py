"""to_mathml: a backward rule's text as MathML, which browsers and Jupyter typeset with no script.

In teach/, standard library only. What a rule means on paper is decided once, in mathtree.py;
this module spells that tree in MathML Core (the part every current browser renders natively), as
latex.py spells it in LaTeX, so the notebook table and the LaTeX formula always agree.
"""

from __future__ import annotations

from html import escape

from . import mathtree
from .mathtree import Aligned, Bar, Cases, Fence, Frac, Math, Row, Space, Sqrt, Sub, Sup, Sym

__all__ = [
    "MATH_STYLE",
    "adjoint_mathml",
    "element",
    "formula_mathml",
    "legend_html",
    "mathml",
    "rule_mathml",
    "to_mathml",
]

# A math font where there is one (for stretchy brackets); the browser's own `math` family else.
MATH_STYLE = (
    "font-family: 'STIX Two Math', 'Cambria Math', 'Latin Modern Math', "
    "'DejaVu Math TeX Gyre', math; font-size: 1.1em"
)
# A long name's adjoint bar: browsers stretch an accent over a word only with some fonts, so the
# overline is drawn as a border (short names keep the font's own bar accent, x̄).
_OVERLINE = 'style="border-top: 0.06em solid currentColor; padding-top: 0.06em"'
_SPACES = {"thin": "0.1667em", "word": "0.25em", "quad": "1em"}
_APPLY = "<mo>&#x2061;</mo>"  # (function application: invisible, tells readers exp is applied)
_LEFT = 'style="text-align: left; padding: 0.1em 0.4em"'


def to_mathml(expr: str, display: bool = False) -> str:
    """A rule's text as one <math> element (inline, or a block with `display=True`).

    >>> to_mathml("x ** 2")  # doctest: +ELLIPSIS
    '<math style="..."><msup><mi>x</mi><mn>2</mn></msup></math>'
    """
    return element(mathtree.tree(expr), display)


def adjoint_mathml(name: str) -> str:
    """The gradient of the loss with respect to `name` (x̄) as a <math> element."""
    return element(mathtree.adjoint_tree(name))


def rule_mathml(input_name: str, text: str) -> str:
    """One rule as an equation in a <math> element: x̄ = out̄ · y for ("x", "g * y")."""
    return element(mathtree.rule_tree(input_name, text))


def formula_mathml(expr: str, rules: dict[str, str]) -> str:
    """A forward and its rules as equations aligned at their = signs, in a block <math>."""
    return element(mathtree.formula_tree(expr, rules), display=True)


def legend_html() -> str:
    """The explain table's legend (what x̄, out̄, ⋅ and [c] mean) as HTML with inline MathML."""
    return "".join(escape(p) if isinstance(p, str) else element(p) for p in mathtree.LEGEND)


def mathml(m: Math) -> str:
    """A tree of notation (mathtree.py) as MathML, without the enclosing <math> element."""
    if isinstance(m, Sym):
        return _symbol(m)
    if isinstance(m, Row):
        return _row(m)
    if isinstance(m, Frac):
        return f"<mfrac>{mathml(m.num)}{mathml(m.den)}</mfrac>"
    if isinstance(m, Sup):
        return f"<msup>{mathml(m.base)}{mathml(m.exp)}</msup>"
    if isinstance(m, Sub):
        return f"<msub>{mathml(m.base)}{mathml(m.sub)}</msub>"
    if isinstance(m, Sqrt):
        return f"<msqrt>{mathml(m.body)}</msqrt>"
    if isinstance(m, Bar):
        if m.wide:
            return f"<mrow {_OVERLINE}>{mathml(m.body)}</mrow>"
        return f'<mover accent="true">{mathml(m.body)}<mo>&#xAF;</mo></mover>'
    if isinstance(m, Fence):
        stretch = "" if m.sized else ' stretchy="false"'
        left, right = (f"<mo{stretch}>{escape(c)}</mo>" for c in (m.open, m.close))
        return f"<mrow>{left}{mathml(m.body)}{right}</mrow>"
    if isinstance(m, Space):
        return f'<mspace width="{_SPACES[m.width]}"/>'
    if isinstance(m, Cases):
        rows = "".join(
            f"<mtr><mtd {_LEFT}>{mathml(value)}</mtd><mtd {_LEFT}>{_condition(c)}</mtd></mtr>"
            for value, c in m.rows
        )
        return f"<mrow><mo>{{</mo><mtable>{rows}</mtable></mrow>"
    if isinstance(m, Aligned):
        rows = "".join(
            f'<mtr><mtd style="text-align: right">{mathml(left)}</mtd>'
            f'<mtd style="text-align: left"><mo>=</mo>{mathml(right)}</mtd></mtr>'
            for left, right in m.rows
        )
        return f"<mtable>{rows}</mtable>"
    raise TypeError(f"mathml() got {type(m).__name__}, not a piece of mathtree notation")


def _condition(c: Math | None) -> str:
    return "<mtext>otherwise</mtext>" if c is None else f"<mtext>if&#xA0;</mtext>{mathml(c)}"


def element(m: Math, display: bool = False) -> str:
    """A tree of notation as a <math> element, in a math font where there is one: what an HTML
    table (explain's, compare's) puts in a cell."""
    block = ' display="block"' if display else ""
    return f'<math{block} style="{MATH_STYLE}">{mathml(m)}</math>'


def _symbol(s: Sym) -> str:
    text = escape(s.text, quote=False)
    if s.kind == "num":
        return f"<mn>{text}</mn>"
    if s.kind == "op":
        if s.tex in (".", "/", "{=}"):  # tight, as written: x.shape, ∂L/∂v, k=v
            return f'<mo lspace="0" rspace="0">{text}</mo>'
        return f"<mo>{text}</mo>"
    if s.kind == "text":  # (spaces at its ends would be dropped: kept as no-break spaces)
        inner = text.strip(" ")
        ends = len(text) - len(text.lstrip(" ")), len(text) - len(text.rstrip(" "))
        return f"<mtext>{'&#xA0;' * ends[0]}{inner}{'&#xA0;' * ends[1]}</mtext>"
    if s.kind == "name" and len(s.text) == 1:  # (a longer name is upright by default)
        return f'<mi mathvariant="normal">{text}</mi>'
    return f"<mi>{text}</mi>"


def _row(row: Row) -> str:
    if not row.items:
        return "<mrow></mrow>"
    mark = row.sep.strip()
    glue = f'<mo separator="true" rspace="0.3em">{escape(mark)}</mo>' if mark else ""
    items = [
        mathml(item) + (_APPLY if isinstance(item, Sym) and item.kind == "fn" else "")
        for item in row.items
    ]
    return "<mrow>" + glue.join(items) + "</mrow>"
