"""The notebook face of tg.explain: one HTML table, a row per step, the rules as MathML.

Layer L5: imports explain's records, the notation (mathtree.py, spelled by mathml.py) and the value
formatter. MathML is typeset by the browser itself (Jupyter, an nbconvert page opened offline, a
plain viewer): no script, no network. Under each rule its code (`dL/dx = g * y`) is shown too: that
is the text that runs.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from . import mathtree
from .mathml import element, legend_html
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
    'style="display: block; margin: 2px 0 6px 0; color: #555; '
    'font-family: Menlo, Consolas, monospace; font-size: 11px"'
)


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
    out = mathtree.Row((mathtree.Sym("name", "out"), mathtree.op("="), mathtree.tree(forward)))
    parts = [f"<b>{html.escape(step.node)}</b>", element(out)]
    about = ([f"makes {step.output}"] if step.output else []) + (
        [f"in {step.module}"] if step.module else []
    )
    if about:
        parts.append(_note(", ".join(about)))
    return "<br>".join(parts)


def _rules_cell(step: Any) -> str:
    lines = []
    for name, text in step.rules.items():  # the math, then the rule's code: the text that runs
        code = html.escape(step.formulas[name])
        lines.append(f"{element(mathtree.rule_tree(name, text))}<code {_RULE}>{code}</code>")
    return "".join(lines)  # (each code line is a block: it ends its row)


def _reads_cell(step: Any, max_values: int) -> str:
    if step.grad_out is None or not step.reads:
        return ""
    reads = step.reads.items()
    return "<br>".join(f"{element(mathtree.tree(k))} = {_values(v, max_values)}" for k, v in reads)


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
        head = element(mathtree.adjoint_tree(name))
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
    legend = legend_html()
    caption = (
        f'<caption style="caption-side: top; text-align: left; padding: 4px 8px">'
        f"<b>{html.escape(head)}</b> Seed: {element(mathtree.OUT)} = "
        f"{_values(explanation.seed, max_values)}<br><span {_NOTE}>{legend}</span></caption>"
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
        adjoint = element(mathtree.adjoint_tree(lf.name))
        rows.append(
            f"<tr><td {_CELL}>leaf</td><td {_CELL}><b>{name}</b><br>"
            f"{_note(f'{shape_text(lf.tensor.shape)} {lf.tensor.dtype}')}</td>"
            f'<td {_CELL} colspan="3">{what}</td>'
            f"<td {_CELL}>{adjoint} = {grad}{extra}</td></tr>"
        )
    return (
        f'<table class="tapegrad-explain" {_TABLE}>{caption}<thead>{header}</thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
