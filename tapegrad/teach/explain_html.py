"""The notebook face of tg.explain: one HTML table, a row per step, the rules as LaTeX math.

Layer L5: imports explain's records, latex.py and the value formatter. The math is written between
\\( and \\), which Jupyter and nbconvert's pages typeset with MathJax; under each formula the rule's
own code (`dL/dx = g * y`) stays readable where no MathJax runs (an offline page, a plain viewer).
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from .latex import LEGEND, adjoint, rule_latex, to_latex
from .tapeinfo import format_values, shape_text

__all__ = ["to_html"]

_TABLE = (
    'style="border-collapse: collapse; font-size: 13px; line-height: 1.35; '
    'font-family: Helvetica, Arial, sans-serif"'
)
_CELL = (
    'style="text-align: left; vertical-align: top; padding: 4px 8px; border-top: 1px solid #ccc"'
)
_HEAD = 'style="text-align: left; padding: 4px 8px; border-bottom: 2px solid #888"'
_CODE = 'style="white-space: pre; font-family: Menlo, Consolas, monospace; font-size: 12px"'
_NOTE = 'style="color: #666; font-size: 11px"'
_RULE = (
    'style="display: block; margin-bottom: 6px; color: #555; '
    'font-family: Menlo, Consolas, monospace; font-size: 11px"'
)
_OUT = r"\overline{\mathrm{out}}"
PLAIN_LEGEND = (
    "dL/dv is the gradient of the loss L with respect to v; dL/dout (g in a rule's code) is the "
    "gradient arriving at the node's output. Under each rule is its code: * multiplies element "
    "by element, @ is the matrix product, .T transposes, (x > 0) is 1 where it holds, else 0."
)


def _math(latex: str, plain: str = "") -> str:
    """LaTeX for MathJax, and its plain form (hidden unless a page finds no MathJax: the docs
    pages add `tg-no-mathjax` to their body then, see docs/build_tutorials.py)."""
    tex = html.escape(rf"\({latex}\)", quote=False)
    text = f'<span class="tg-plain" style="display: none">{html.escape(plain)}</span>'
    return f'<span class="tg-math">{tex}</span>' + (text if plain else "")


def _code(text: str) -> str:
    return f"<code {_CODE}>{html.escape(text, quote=False)}</code>"


def _note(text: str) -> str:
    return f"<span {_NOTE}>{html.escape(text, quote=False)}</span>"


def _values(a: Any, max_values: int) -> str:
    """An array's values (a matrix on its own lines), or its shape and norm."""
    text = format_values(np.asarray(a), max_values)
    return ("<br>" if "\n" in text else "") + _code(text)


def _node_cell(step: Any) -> str:
    forward = step.forward.split("=", 1)[1].strip()
    parts = [f"<b>{html.escape(step.node)}</b>", _math(to_latex(forward), forward)]
    about = ([f"makes {step.output}"] if step.output else []) + (
        [f"in {step.module}"] if step.module else []
    )
    if about:
        parts.append(_note(", ".join(about)))
    return "<br>".join(parts)


def _rules_cell(step: Any) -> str:
    lines = []
    for name, text in step.rules.items():
        # the math, then the rule's code (all there is where no MathJax runs)
        math = _math(rule_latex(name, text)).replace("</span>", "<br></span>", 1)
        lines.append(f"{math}<code {_RULE}>{html.escape(step.formulas[name])}</code>")
    return "".join(lines)  # (each code line is a block: it ends its row)


def _reads_cell(step: Any, max_values: int) -> str:
    if step.grad_out is None or not step.reads:
        return ""
    return "<br>".join(
        f"{_math(to_latex(k), k)} = {_values(v, max_values)}" for k, v in step.reads.items()
    )


def _grad_in_cell(step: Any, max_values: int) -> str:
    if step.grad_out is None:
        return _note("no gradient reached this node")
    cell = _values(step.grad_out, max_values)
    if step.contributions > 1:
        cell += "<br>" + _note(f"sum of {step.contributions} incoming gradients")
    return cell


def _grads_out_cell(step: Any, max_values: int) -> str:
    lines = []
    for name, dest in step.sends_to.items():
        gi = step.grads_in.get(name)
        head = _math(adjoint(name), f"dL/d{name}")
        if dest == "constant":
            lines.append(f"{head} {_note(f'not computed: {name} is a constant')}")
        elif gi is None:
            lines.append(f"{head} {_note(f'no gradient (zero) for {dest}')}")
        else:
            value = _values(gi, max_values).removeprefix("<br>")
            line = f"{head} &rarr; {html.escape(dest)}<br>{value}"
            if name in step.broadcast_from:
                line += "<br>" + _note(
                    f"summed from broadcast shape {shape_text(step.broadcast_from[name])} "
                    f"to {shape_text(gi.shape)}"
                )
            lines.append(line)
    return "<br>".join(lines)


def to_html(explanation: Any, max_values: int = 8) -> str:
    """One <table>: a row per step (node, rules as math, values read, gradients in and out), then
    the gradient arriving at each leaf; the caption says what the notation means."""
    steps = list(explanation)
    head = explanation.text.split("\n", 1)[0]
    caption = (
        f'<caption style="caption-side: top; text-align: left; padding: 4px 8px">'
        f"<b>{html.escape(head)}</b> Seed: {_math(_OUT, 'dL/dout')} = "
        f"{_values(explanation.seed, max_values)}<br>{_note_math(LEGEND)}</caption>"
    )
    titles = ["step", "node", "rule", "forward values it reads", "gradient in", "gradients out"]
    header = "<tr>" + "".join(f"<th {_HEAD}>{t}</th>" for t in titles) + "</tr>"
    rows = []
    for s in steps:
        cells = [
            str(s.index),
            _node_cell(s),
            _rules_cell(s),
            _reads_cell(s, max_values),
            _grad_in_cell(s, max_values),
            _grads_out_cell(s, max_values),
        ]
        rows.append("<tr>" + "".join(f"<td {_CELL}>{c}</td>" for c in cells) + "</tr>")
    for lf in explanation.leaves:
        grad = _note("no gradient reached it") if lf.grad is None else _values(lf.grad, max_values)
        extra = f" {_note(f'(sum of {lf.contributions})')}" if lf.contributions > 1 else ""
        name = html.escape(lf.name)
        what = _note("the gradient arriving at this leaf: what backward() adds to its .grad")
        rows.append(
            f"<tr><td {_CELL}>leaf</td><td {_CELL}><b>{name}</b><br>"
            f"{_note(f'{shape_text(lf.tensor.shape)} {lf.tensor.dtype}')}</td>"
            f'<td {_CELL} colspan="3">{what}</td>'
            f"<td {_CELL}>{_math(adjoint(lf.name), f'dL/d{lf.name}')} = {grad}{extra}</td></tr>"
        )
    return (
        f'<table class="tapegrad-explain" {_TABLE}>{caption}<thead>{header}</thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _note_math(text: str) -> str:
    """The legend: text with \\( ... \\) math in it (escaped for HTML, math left for MathJax),
    and a plain-text legend shown where no MathJax runs."""
    return (
        f'<span class="tg-math" {_NOTE}>{html.escape(text, quote=False)}</span>'
        f'<span class="tg-plain" style="display: none; color: #666; font-size: 11px">'
        f"{html.escape(PLAIN_LEGEND)}</span>"
    )
