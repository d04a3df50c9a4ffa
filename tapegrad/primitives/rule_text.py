"""What a rule's text reads: its free names, checked when a primitive is registered, and which
inputs it reads by value or only by shape (which decides what the tape saves).

Layer L1: standard library and numpy only (registry.py uses it).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import itertools
import linecache
import tokenize
from typing import Any

import numpy as np

SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})
_BUILTINS = frozenset(dir(builtins))
_NUMPY = frozenset(n for n in dir(np) if not n.startswith("_"))
_module_names: dict[str, frozenset] = {}  # module file -> the names it binds at top level
_trees: dict[str, ast.Module | None] = {}  # module file -> its syntax tree (None: no source)


def free_names(text: str) -> list[str]:
    """The names an expression reads that it does not bind itself (lambda arguments, the
    targets of comprehensions and of `:=`), in order of appearance.

    >>> free_names("sum(g * y for y in ys) + x")
    ['sum', 'g', 'ys', 'x']
    """
    tree = ast.parse(text, mode="eval")
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            a = node.args
            args = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
            bound.update(arg.arg for arg in args)
        elif isinstance(node, (ast.comprehension, ast.NamedExpr)):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
    read = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in bound]
    read.sort(key=lambda n: (n.lineno, n.col_offset))  # (walk goes breadth first)
    return list(dict.fromkeys(n.id for n in read))


def check_names(
    primitive: str,
    inputs: tuple,
    params: dict,
    texts: tuple,
    expr: str | None,
    namespace: dict,
    what: str = "rule",
) -> None:
    """Raise a ValueError naming the rule and the name when a rule reads a name that is none of:
    an input, a parameter, `g`, `out`, a name of the module defining the rules (also one it
    defines further down), a builtin. The forward's text, when it is a Python expression, may
    also use NumPy's names (it is the forward written as NumPy). Kernels (`what="kernel"`, no
    forward) are checked against the module declaring them (fused.py)."""
    own = ("g", "out", *inputs, *params)
    known = set(own) | _defined_in(namespace) | _BUILTINS
    for input_name, text in zip(inputs, texts):
        if text is not None:
            _check(primitive, f"the {what} for {input_name}", text, known, own)
    if expr is None:
        return
    try:
        names = free_names(expr)
    except SyntaxError:  # (prose, not an expression: `|x|`, "max of x over each window")
        return
    _check(primitive, "the forward's text", expr, known | _NUMPY, own, names)


def _check(
    primitive: str, what: str, text: str, known: set, own: tuple, names: list | None = None
) -> None:
    try:
        names = free_names(text) if names is None else names
    except SyntaxError as e:
        raise ValueError(
            f"primitive {primitive!r}: {what}, {text!r}, is not a Python expression ({e.msg})"
        ) from None
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, own, n=1) or difflib.get_close_matches(
                name, sorted(n for n in known if not n.startswith("__")), n=1
            )
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(
                f"primitive {primitive!r}: {what}, {text!r}, reads {name!r}, which is not an "
                f"input ({', '.join(own[2:]) or 'none'}), g, out, or a name the rules see (the "
                f"names of the module defining them){hint}"
            )


def _defined_in(namespace: dict) -> frozenset:
    """The names a module has now and those it binds at its top level further down (rules are
    compiled on first use, so they may call helpers defined after the primitive)."""
    filename = str(namespace.get("__file__"))
    if filename not in _module_names:
        tree = _tree(filename)
        if tree is None:  # (no source: the names it has now)
            return frozenset(namespace)
        _module_names[filename] = frozenset(_bound_at_top(tree.body))
    return _module_names[filename] | frozenset(namespace)


def _tree(filename: Any) -> ast.Module | None:
    """A module's syntax tree, read once (None: no source file)."""
    if filename not in _trees:
        try:
            with open(filename, encoding="utf-8") as f:
                _trees[filename] = ast.parse(f.read())
        except (OSError, TypeError, SyntaxError, ValueError):
            _trees[filename] = None
    return _trees[filename]


def written_at(filename: str, line: int, texts: dict[str, str]) -> dict[str, list]:
    """Where each rule's text is written in the `primitive(...)` call at `line` of `filename`:
    {input name: [(offset in the text, line, column), ...]}, one entry per string literal the
    text is made of (implicit concatenation). Texts not written as plain literals are left out."""
    call = _call_at(filename, line)
    found = {}
    for kw in call.keywords if call is not None else ():
        text = texts.get(kw.arg or "")
        if text is None or not isinstance(kw.value, ast.Constant) or kw.value.value != text:
            continue
        pieces = _pieces(filename, kw.value)
        if "".join(piece for piece, _, _ in pieces) == text:
            offsets = itertools.accumulate([len(p) for p, _, _ in pieces], initial=0)
            found[kw.arg or ""] = [(k, ln, col) for k, (_, ln, col) in zip(offsets, pieces)]
    return found


def _call_at(filename: str, line: int) -> ast.Call | None:
    """The innermost `primitive(...)` call written over `line` of `filename` (None: none)."""
    tree = _tree(filename)
    calls = [
        node
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, ast.Call)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "primitive"
    ]
    return min(calls, key=lambda c: (c.end_lineno or 0) - c.lineno) if calls else None


def _pieces(filename: str, value: ast.Constant) -> list[tuple[str, int, int]]:
    """The plain string literals a constant is written as: (text, line, column of its first
    character); empty when one has a prefix or an escape (its columns would not match)."""
    lines = linecache.getlines(filename)[value.lineno - 1 : value.end_lineno]
    start, end = (value.lineno, value.col_offset), (value.end_lineno, value.end_col_offset)
    pieces = []
    tokens = tokenize.generate_tokens(iter(lines).__next__)
    try:
        for tok in tokens:
            at = (tok.start[0] + value.lineno - 1, len(tok.line[: tok.start[1]].encode()))
            if tok.type != tokenize.STRING or not start <= at < end:
                continue
            inner = tok.string[1:-1]
            if tok.string[0] not in "'\"" or "\\" in inner or tok.string[:3] in ('"""', "'''"):
                return []  # (a prefix, an escape or a triple quote: columns would not match)
            pieces.append((inner, at[0], at[1] + 1))
    except (tokenize.TokenError, SyntaxError):  # (the lines end inside a bracket: done)
        pass
    return pieces


def _bound_at_top(body: list[ast.stmt]) -> set[str]:
    """Names bound by a module's top-level statements (also inside top-level if/try blocks)."""
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        else:  # assignments, loop targets, and what if/try blocks bind
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
                elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    names.add(node.name)
                elif isinstance(node, ast.alias):
                    names.add((node.asname or node.name).split(".")[0])
    return names


def reads(text: str | None, inputs: tuple[str, ...]) -> tuple[set[int], set[int], bool]:
    """Which inputs a rule reads in full, which only by shape/dtype, and whether it reads out."""
    if text is None:
        return set(), set(), False
    tree = ast.parse(text, mode="eval")
    shape_uses = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in SHAPE_ATTRIBUTES
        and isinstance(node.value, ast.Name)
    }
    full: set[int] = set()
    shape_only: set[int] = set()
    reads_out = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id == "out":
                reads_out = True
            elif node.id in inputs:
                (shape_only if id(node) in shape_uses else full).add(inputs.index(node.id))
    return full, shape_only - full, reads_out
