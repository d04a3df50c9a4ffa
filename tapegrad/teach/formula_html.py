"""What tg.autograd.formula returns: its text (a str, printed as ever), which a notebook shows as
typeset equations, the forward and each rule aligned at their = signs, with the notes under them.

Layer L5, standard library only (tg.autograd imports it when formula() is called): the equations
are mathml.py's, from the same notation tree as formula(latex=True), so the two always agree.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .mathml import formula_mathml, legend_html

__all__ = ["Formula"]

_BOX = 'style="font-family: Helvetica, Arial, sans-serif; font-size: 13px; line-height: 1.35"'
_NOTES = (
    'style="white-space: pre; font-family: Menlo, Consolas, monospace; font-size: 12px; '
    'color: #555; margin: 4px 0"'
)
_LEGEND = 'style="color: #666; font-size: 11px"'
_RULE_LINE = re.compile(r"  dL/d(\S+) = ")
_KERNEL_LINE = "      runs as: "
_G_LINE = "  (g = dL/dout, the gradient arriving at the output)"  # (the legend says it in math)


class Formula(str):
    """formula()'s text; in a notebook, its equations typeset as MathML (no script needed).

    >>> tg.autograd.formula("pow")._repr_html_()  # doctest: +ELLIPSIS
    '<div class="tapegrad-formula" ...><b>pow</b> (backward node: PowBackward)<math ...'
    """

    name: str
    node: str
    expr: str
    rules: dict[str, str]

    def __new__(cls, text: str, name: str, node: str, expr: str, rules: dict[str, str]) -> Formula:
        made = super().__new__(cls, text)
        made.name, made.node, made.expr, made.rules = name, node, expr, rules
        return made

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython: the text, not its repr
        printer.text(str(self))

    def _repr_html_(self) -> str:
        return (
            f'<div class="tapegrad-formula" {_BOX}><b>{html.escape(self.name)}</b> '
            f"(backward node: {html.escape(self.node)})"
            f"{formula_mathml(self.expr, self.rules)}{_notes(str(self))}"
            f"<div {_LEGEND}>{legend_html()}</div></div>"
        )


def _notes(text: str) -> str:
    """The text's lines the equations do not already show: what the symbols mean, the variants,
    and (with detail=True) the kernel each rule runs as."""
    notes, rule_of = [], ""
    for line in text.split("\n")[1:]:
        found = _RULE_LINE.match(line)
        if found:
            rule_of = found.group(1)
            if "    (" in line:  # a remark after the rule: "0    (a constant: no gradient)"
                notes.append(f"dL/d{rule_of} ({line.split('    (', 1)[1]}")
        elif line.startswith(_KERNEL_LINE):
            notes.append(f"dL/d{rule_of} runs as: {line[len(_KERNEL_LINE) :]}")
        elif line != _G_LINE:
            notes.append(line.strip())
    if not notes:
        return ""
    return f"<div {_NOTES}>{html.escape(chr(10).join(notes), quote=False)}</div>"
