"""tg.autograd.compare: gradients derived by hand checked against the tape's, in backward order,
each with the rule that made the tape's gradient, and the first wrong one named (the exercise of
"becoming a backprop ninja": derive every gradient by hand, then let the tape say where the
derivation first went wrong).

Layer L5: runs the real engine once, watching (tapeinfo.observe: the graph is kept, no .grad is
written, retain_grad()'s hooks are held back for that run), so intermediate tensors' gradients come
without retain_grad(). Names and rules are tg.explain's (a composite call is one step).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import numpy as np

from ..tape.plan import execution_order
from ..tensor import Tensor
from . import grouping, mathtree, tapeinfo
from .explain import rule_texts
from .mathml import element, legend_html
from .tapeinfo import Names, shape_text

__all__ = ["Check", "Comparison", "compare"]

WIDTH = 100  # printed lines fit a projector and a terminal


@dataclass(frozen=True)
class Check:
    """One tensor's gradient: derived by hand (`given`) against the tape's (`tape`)."""

    name: str
    exact: bool  # every element equal
    approximate: bool  # np.allclose(given, tape, rtol, atol), as torch.allclose
    maxdiff: float  # the largest |given - tape|
    rule: str  # the rule that made the tape's gradient: "TanhBackward: dL/dx = g * (1 - out * out)"
    given: np.ndarray = field(repr=False)
    tape: np.ndarray = field(repr=False)
    # the same rule in parts, (node, input, rule text) per step that sent a gradient: the HTML's
    rule_parts: tuple[tuple[str, str, str], ...] = field(default=(), repr=False)


class Comparison:
    """The checks of compare(), in backward order: printed as a table, shown as HTML in a
    notebook, iterable as Check records; `first_wrong` is the first that is not approximate.

    >>> result = tg.autograd.compare(loss, {"W1": dW1}); result.first_wrong  # doctest: +SKIP
    """

    def __init__(self, checks: list[Check], rtol: float, atol: float) -> None:
        self.checks, self.rtol, self.atol = checks, rtol, atol

    @property
    def first_wrong(self) -> Check | None:
        """The first check, in backward order, whose gradient is not even approximately right."""
        return next((c for c in self.checks if not c.approximate), None)

    def __iter__(self) -> Iterator[Check]:
        return iter(self.checks)

    def __len__(self) -> int:
        return len(self.checks)

    def __getitem__(self, i: int) -> Check:
        return self.checks[i]

    def __str__(self) -> str:
        return _text(self)

    def __repr__(self) -> str:
        wrong = self.first_wrong
        verdict = "all approximately right" if wrong is None else f"first wrong: {wrong.name}"
        return f"<Comparison of {len(self.checks)} gradients: {verdict}; print() it for the table>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's text display
        printer.text(_text(self).rstrip("\n"))

    def _repr_html_(self) -> str:
        return _html(self)


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def _number(x: float) -> str:
    return "0" if x == 0 else f"{x:.2g}"


def _text(result: Comparison) -> str:
    checks = result.checks
    head = (
        f"compare: {len(checks)} gradient{'s' * (len(checks) != 1)} derived by hand against the "
        f"tape's, in backward order (rtol={result.rtol:g}, atol={result.atol:g})"
    )
    width = min(max([4] + [len(c.name) for c in checks]), 24)
    titles = f"  {'name':<{width}}  exact  approx  maxdiff  rule that made the tape's gradient"
    lines = [head, titles]
    for c in checks:
        row = f"  {c.name[:width]:<{width}}  {_yes(c.exact):<5}  {_yes(c.approximate):<6}  "
        row += f"{_number(c.maxdiff):<7}  "
        room = WIDTH - len(row)
        rule = c.rule if len(c.rule) <= room else c.rule[: room - 3] + "..."
        lines.append(row + rule)
    wrong = result.first_wrong
    if wrong is None:
        lines.append("every gradient is approximately right" if checks else "nothing to compare")
    else:
        k = checks.index(wrong) + 1
        lines.append(
            f"first wrong: {wrong.name} (check {k} of {len(checks)}), maxdiff "
            f"{_number(wrong.maxdiff)}; the tape made it by"
        )
        lines.append(f"    {wrong.rule}"[:WIDTH])
    return "\n".join(line.rstrip() for line in lines) + "\n"


_CELL = 'style="text-align: left; padding: 3px 8px; border-top: 1px solid #ccc"'
_BAD = 'style="text-align: left; padding: 3px 8px; border-top: 1px solid #ccc; color: #b71c1c"'
_CODE = 'style="font-family: Menlo, Consolas, monospace; font-size: 11px; color: #555"'


def _rule_cell(check: Check) -> str:
    """Each rule that sent the tape's gradient as math (summed where several did), its code under
    it, as in tg.explain's table; the seed and an unknown rule as their text."""
    if not check.rule_parts:
        return f"<code {_CODE}>{html.escape(check.rule)}</code>"
    parts = []
    for k, (node, label, text) in enumerate(check.rule_parts):
        math = element(mathtree.rule_tree(label, text))
        code = html.escape(f"dL/d{label} = {text}")
        parts.append(f"{'+ ' * (k > 0)}{html.escape(node)}: {math}<br><code {_CODE}>{code}</code>")
    return "<br>".join(parts)


def _html(result: Comparison) -> str:
    titles = ["name", "exact", "approximate", "maxdiff", "the rule that made the tape's gradient"]
    head = "".join(f"<th {_CELL}>{t}</th>" for t in titles)
    wrong = result.first_wrong
    rows = []
    for c in result.checks:
        cell = _CELL if c.approximate else _BAD
        name = f"<b>{html.escape(c.name)}</b>" + (" &larr; first wrong" if c is wrong else "")
        values = [name, _yes(c.exact), _yes(c.approximate), _number(c.maxdiff)]
        values.append(_rule_cell(c))
        rows.append("<tr>" + "".join(f"<td {cell}>{v}</td>" for v in values) + "</tr>")
    caption = html.escape(_text(result).split("\n", 1)[0])
    return (
        f'<table class="tapegrad-compare" style="border-collapse: collapse; font-size: 13px; '
        f'font-family: Helvetica, Arial, sans-serif">'
        f'<caption style="caption-side: top; text-align: left">{caption}<br>'
        f'<span style="color: #666; font-size: 11px">{legend_html()}</span></caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


# ---- the check ---------------------------------------------------------------------------------
def _targets(manual: Any, names: dict) -> list[tuple[str, Tensor, Any]]:
    """(label, tensor, hand-derived gradient) for each entry of `manual`: a tensor, its .name, or
    a name of the user's own with (tensor, gradient) as the value."""
    if not isinstance(manual, Mapping):
        raise TypeError(
            f"compare: manual must map tensors (or their names) to gradients, got "
            f"{type(manual).__name__}; e.g. {{W1: dW1, 'h': dh}}"
        )
    found = []
    for key, value in manual.items():
        if isinstance(key, Tensor):
            found.append((key.name or names.get(key) or "tensor", key, value))
        elif (
            isinstance(key, str)
            and isinstance(value, tuple)
            and len(value) == 2
            and (isinstance(value[0], Tensor))
        ):  # a name of the user's own: (tensor, gradient)
            found.append((key, value[0], value[1]))
        elif isinstance(key, str):
            tensor = next((t for t, n in names.items() if n == key), None)
            if tensor is None:
                known = ", ".join(sorted(set(names.values()))) or "none"
                raise ValueError(
                    f"compare: no tensor named {key!r} on the graph of the loss (named ones: "
                    f"{known}); set its .name, pass the tensor itself as the key, or give "
                    f"{key!r}: (tensor, gradient)"
                )
            found.append((key, tensor, value))
        else:
            raise TypeError(
                f"compare: a key of manual is a tensor or a name, got {type(key).__name__}"
            )
    return found


def _rules(order: list) -> dict:
    """{id(edge): [(node, input, rule text), ...]}: the rules that send a gradient down each edge
    (a tensor's node, or a leaf), in the engine's order."""
    found: dict = {}
    for item in order:
        for (label, text), e in zip(rule_texts(item).items(), item.edges):
            if e is not None:
                found.setdefault(id(e), []).append((item.name, label, text))
    return found


def _rule_text(parts: tuple) -> str:
    """The rules as text ("TanhBackward: dL/dx = g * (1 - out * out)"), + between several."""
    return " + ".join(f"{node}: dL/d{label} = {text}" for node, label, text in parts)


def compare(
    loss: Tensor, manual: Mapping[Any, Any], *, rtol: float = 1e-5, atol: float = 1e-8
) -> Comparison:
    """Check gradients derived by hand against the tape's (see tg.autograd.compare)."""
    if not isinstance(loss, Tensor):
        raise TypeError(f"compare: the loss must be a tapegrad Tensor, got {type(loss).__name__}")
    order = execution_order([loss.grad_fn]) if loss.grad_fn is not None else []
    labels = Names(order, loss)
    names = {t: n for n, t in _named(order, labels).items()}
    targets = _targets(manual, names)
    held = _hold_retained_grads(order)
    try:
        seen = tapeinfo.observe(loss)  # (raises as backward() would for a non-scalar loss)
    finally:
        _restore(held)
    folding = grouping.fold(order)
    rules, plain = _rules(folding.order), _rules(order)
    position: dict = {}
    for k, item in enumerate(folding.order):
        for e in item.edges:
            if e is not None:
                position[id(e)] = k  # (the last consumer: when the gradient is complete)
    on_graph = {id(e) for node in order for e in node.edges}
    checks = []
    for label, tensor, value in targets:
        edge = tensor.grad_fn if tensor.grad_fn is not None else tensor
        tape: Any
        parts: tuple = ()
        if tensor is loss:
            tape, rule, at = seen.seed, "the seed: dL/dL = 1", -1
        elif id(edge) not in on_graph:
            raise ValueError(
                f"compare: {label} is not on the graph of the loss (the loss was not computed from "
                f"it by recorded ops{'' if tensor.requires_grad else '; it does not require grad'})"
            )
        else:
            tape = seen.grad_out.get(edge) if tensor.grad_fn else seen.leaf_grads.get(tensor)
            parts = tuple(rules.get(id(edge)) or plain.get(id(edge)) or ())
            rule = _rule_text(parts) if parts else "(no rule)"
            at = position.get(id(edge), len(folding.order))
        tape = np.zeros(tensor.shape, tensor.dtype) if tape is None else np.asarray(tape)
        given = _as_array(value, label)
        if given.shape != tape.shape:
            raise ValueError(
                f"compare: the gradient given for {label} has shape {shape_text(given.shape)}, but "
                f"{label} has shape {shape_text(tape.shape)}; a gradient has its tensor's shape"
            )
        with np.errstate(invalid="ignore"):
            diff = np.abs(given.astype(np.float64) - tape.astype(np.float64))
        checks.append(
            (
                at,
                Check(
                    label,
                    bool(np.array_equal(given, tape)),
                    bool(np.allclose(given, tape, rtol=rtol, atol=atol)),
                    float(diff.max()) if diff.size else 0.0,
                    rule,
                    given,
                    tape,
                    parts,
                ),
            )
        )
    checks.sort(key=lambda pair: pair[0])  # (stable: one step's inputs keep the order given)
    return Comparison([c for _, c in checks], rtol, atol)


def _named(order: list, names: Names) -> dict:
    """{name: tensor} of every tensor of the graph a name can reach: leaves, named results."""
    found = {names.leaf(leaf): leaf for leaf in tapeinfo.leaves_of(order)}
    for out in names.outputs.values():
        if out.name:
            found.setdefault(out.name, out)
    return found


def _as_array(value: Any, label: str) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.numpy()
    try:
        return np.asarray(value)
    except Exception as e:  # noqa: BLE001 (say which entry)
        raise TypeError(f"compare: the gradient given for {label} is not an array: {e}") from None


def _hold_retained_grads(order: list) -> list:
    """Take retain_grad()'s hooks off the nodes for the watched run (they would write .grad)."""
    held = []
    for node in order:
        hooks = node.pre_hooks
        if hooks and any(getattr(h, "_retains_grad", False) for h in hooks):
            held.append((node, hooks))
            node.pre_hooks = [h for h in hooks if not getattr(h, "_retains_grad", False)] or None
    return held


def _restore(held: list) -> None:
    for node, hooks in held:
        node.pre_hooks = hooks
