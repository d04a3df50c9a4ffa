"""A rule's text (a Python expression over g, out and the inputs) read as mathematical notation.

In teach/, but standard library only (`ast`), so tg.autograd.formula (L4) can import it too.
This is the one translator: it decides what a rule means on paper (`-g * x / y**2` is minus a
fraction, `where(c, a, b)` is a case split, `g * (x > 0)` an Iverson bracket, `x.T` a transpose)
and builds a small tree of notation; latex.py and mathml.py only spell that tree, each in its own
markup, so a rule reads the same in a LaTeX formula and in a notebook's MathML table.
Notation (adjoints): a bar means "gradient of the loss with respect to": x̄ = ∂L/∂x, and g, the
gradient arriving at a node's output, is out̄. Text that is not an expression becomes prose.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = [
    "LEGEND",
    "Aligned",
    "Bar",
    "Cases",
    "Fence",
    "Frac",
    "Math",
    "Row",
    "Space",
    "Sqrt",
    "Sub",
    "Sup",
    "Sym",
    "adjoint_tree",
    "formula_tree",
    "rule_tree",
    "tree",
]


# ---- the notation ------------------------------------------------------------------------------
class Math:
    """A piece of notation; the subclasses below are all there is."""


@dataclass(frozen=True)
class Sym(Math):
    """One symbol. kind: "var" (italic, x), "name" (upright word, out), "num", "op" (an operator,
    `tex` its LaTeX and `text` its character), "fn" (a function's name: exp, softmax), "text"."""

    kind: str
    text: str
    tex: str = ""


@dataclass(frozen=True)
class Row(Math):
    """Items side by side; `sep` goes between them (" " a space, "" nothing, ", " a comma)."""

    items: tuple
    sep: str = " "


@dataclass(frozen=True)
class Frac(Math):
    num: Math
    den: Math


@dataclass(frozen=True)
class Sup(Math):
    """A superscript; `braced=False` for a lone symbol written bare in LaTeX (x^\\top)."""

    base: Math
    exp: Math
    braced: bool = True


@dataclass(frozen=True)
class Sub(Math):
    base: Math
    sub: Math


@dataclass(frozen=True)
class Sqrt(Math):
    body: Math


@dataclass(frozen=True)
class Bar(Math):
    """The adjoint bar: short over one letter (x̄), a full overline over a longer name."""

    body: Math
    wide: bool


@dataclass(frozen=True)
class Fence(Math):
    """Brackets around a body; `sized` ones grow with it (\\left( ... \\right))."""

    open: str
    close: str
    body: Math
    sized: bool = True


@dataclass(frozen=True)
class Cases(Math):
    """A case split: ((value, condition), ...); a condition None means "otherwise"."""

    rows: tuple


@dataclass(frozen=True)
class Space(Math):
    """A thin space (the matrix product's juxtaposition), a word space, or a quad (a note)."""

    width: str  # "thin" | "word" | "quad"


@dataclass(frozen=True)
class Aligned(Math):
    """Equations aligned at their = signs: ((left side, right side), ...)."""

    rows: tuple


def op(tex: str, text: str | None = None) -> Sym:
    """An operator: its LaTeX and, when that is a command, the character it stands for."""
    return Sym("op", text if text is not None else tex, tex)


EMPTY = Row(())
OUT = Bar(Sym("name", "out"), wide=True)  # g, the gradient arriving at the node's output
_PARTIAL = Sym("var", "∂", r"\partial")


# ---- public ------------------------------------------------------------------------------------
def tree(expr: object) -> Math:
    """A rule's text as notation; prose, or a note after two spaces, becomes text.

    >>> tree("g * y") == Row((OUT, op(r"\\cdot", "⋅"), Sym("var", "y")))
    True
    """
    text = str(expr).strip()
    parsed = _parse(_as_python(text))
    if parsed is not None:
        return _tree(parsed)[0]
    pieces = re.split(r"\s{2,}", text, maxsplit=1)  # "g * y   (0 at 0**0)": a rule, then a note
    if len(pieces) == 2:
        parsed = _parse(_as_python(pieces[0]))
        if parsed is not None:
            return Row((_tree(parsed)[0], Space("quad"), _prose(pieces[1])), "")
    return _prose(text)


def adjoint_tree(name: str) -> Math:
    """The gradient of the loss with respect to `name`: a bar over the name (x̄, fc1.weight)."""
    if name.isidentifier() or re.fullmatch(r"\w+\[\d+\]", name):  # x, x_i, xs[0]
        parsed = _parse(name)
        inner = _tree(parsed)[0] if parsed is not None else _prose(name)
    elif re.fullmatch(r"[\w.]+", name):  # a module path: fc1.weight
        inner = Sym("name", name)
    else:
        inner = _prose(name)
    return Bar(inner, wide=not (len(name) == 1 and name.isalpha()))


def rule_tree(input_name: str, text: str) -> Math:
    """One rule as an equation: the input's adjoint = the rule."""
    return Row((adjoint_tree(input_name), op("="), tree(text)))


def formula_tree(expr: str, rules: dict[str, str]) -> Aligned:
    """A forward and its rules ({input: text}) as aligned equations: out = ..., x̄ = ..."""
    rows: list[tuple[Math, Math]] = [(Sym("name", "out"), tree(expr))]
    rows += [(adjoint_tree(name), tree(text)) for name, text in rules.items()]
    return Aligned(tuple(rows))


# The legend under an explain table: words, and notation between them.
LEGEND: tuple = (
    Bar(Sym("var", "v"), wide=False),
    " is ",
    Row((_PARTIAL, Sym("var", "L"), op("/"), _PARTIAL, Sym("var", "v")), ""),
    ", the gradient of the loss ",
    Sym("var", "L"),
    " with respect to ",
    Sym("var", "v"),
    "; ",
    OUT,
    " is the gradient arriving at the node's output (g in the rule's code). ",
    op(r"\cdot", "⋅"),
    " multiplies element by element, juxtaposition ",
    Row((Sym("var", "a"), Space("thin"), Sym("var", "b")), ""),
    " is the matrix product, ",
    Sup(EMPTY, op(r"\top", "⊤"), braced=False),
    " transposes, and ",
    Fence("[", "]", Sym("var", "c"), sized=False),
    " is 1 where ",
    Sym("var", "c"),
    " holds, else 0.",
)


# ---- reading a rule's text ---------------------------------------------------------------------
_GREEK = dict(
    alpha="α",
    beta="β",
    gamma="γ",
    delta="δ",
    epsilon="ε",
    zeta="ζ",
    eta="η",
    theta="θ",
    iota="ι",
    kappa="κ",
    lambda_="λ",
    mu="μ",
    nu="ν",
    xi="ξ",
    pi="π",
    rho="ρ",
    sigma="σ",
    tau="τ",
    upsilon="υ",
    phi="φ",
    chi="χ",
    psi="ψ",
    omega="ω",
    Gamma="Γ",
    Delta="Δ",
    Theta="Θ",
    Lambda="Λ",
    Xi="Ξ",
    Pi="Π",
    Sigma="Σ",
    Phi="Φ",
    Psi="Ψ",
    Omega="Ω",
)
_GREEK["lambda"] = _GREEK.pop("lambda_")  # (a keyword in Python, so not a keyword argument)
# Functions with a LaTeX operator of their own: \exp(x) rather than \operatorname{exp}(x).
_OPERATORS = {"exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "max", "min", "arctan"}
_COMPARE = {
    ast.Gt: op(">"),
    ast.Lt: op("<"),
    ast.GtE: op(r"\geq", "≥"),
    ast.LtE: op(r"\leq", "≤"),
    ast.Eq: op("="),
    ast.NotEq: op(r"\neq", "≠"),
}
# Binding strength, loosest first; a child binding more loosely than its place needs gets brackets.
_CMP, _OR, _AND, _NOT, _ADD, _MUL, _UNARY, _POW, _ATOM = range(9)
_CDOT, _MINUS = op(r"\cdot", "⋅"), op("-", "−")


def _as_python(text: str) -> str:
    """Older rule texts write x^T, x^2 and dL/dx; read them as x.T, x**2 and a name for the
    gradient (Python's ^ would bind more loosely than @ and give a wrong reading)."""
    text = re.sub(r"\^T\b", ".T", text)
    text = re.sub(r"\bdL/d([A-Za-z_]\w*)", r"dL_d\1", text)
    return text.replace("^", "**")


def _parse(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None


def _prose(text: str) -> Math:
    """Words as text, with a lone `g` shown as the output's gradient (as in the code)."""
    parts = re.split(r"(?<![\w.])g(?![\w(])", text)
    pieces: list = []
    for k, part in enumerate(parts):
        if k:
            pieces.append(OUT)
        if part:
            pieces.append(Sym("text", part))
    if len(pieces) == 1:
        return pieces[0]
    return Row(tuple(pieces)) if pieces else Sym("text", "")


def _name(name: str) -> Math:
    if name == "g":
        return OUT
    if name.startswith("dL_d") and len(name) > 4:  # dL/dx, written in words in older texts
        return adjoint_tree(name[4:])
    if name in _GREEK:
        return Sym("var", _GREEK[name], "\\" + name)
    base, _, sub = name.partition("_")
    if sub and base:  # x_i -> x with subscript i
        return Sub(_name(base), _name(sub))
    return Sym("var" if len(name) == 1 else "name", name)


def _wrap(part: tuple, least: int) -> Math:
    body, prec = part
    return Fence("(", ")", body) if prec < least else body


def _number(value: object) -> Math:
    if isinstance(value, bool) or value is None:
        return Sym("text", str(value))
    if isinstance(value, float):
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            power = Sup(Sym("num", "10"), Sym("num", str(int(exponent))))
            return power if mantissa in ("1.0", "1") else Row((Sym("num", mantissa), _CDOT, power))
        return Sym("num", text)
    if isinstance(value, (int, complex)):
        return Sym("num", str(value))
    return _prose(str(value))


def _tree(node: ast.AST) -> tuple[Math, int]:
    """(notation, binding strength) of one expression node."""
    if isinstance(node, ast.Name):
        return _name(node.id), _ATOM
    if isinstance(node, ast.Constant):
        negative = isinstance(node.value, (int, float)) and node.value < 0
        return _number(node.value), _UNARY if negative else _ATOM
    if isinstance(node, ast.BinOp):
        return _binop(node)
    if isinstance(node, ast.UnaryOp):
        operand = _tree(node.operand)
        if isinstance(node.op, ast.USub):
            return Row((_MINUS, _wrap(operand, _MUL)), ""), _UNARY
        if isinstance(node.op, ast.UAdd):
            return Row((op("+"), _wrap(operand, _MUL)), ""), _UNARY
        if isinstance(node.op, ast.Not):
            return Row((op(r"\neg", "¬"), _wrap(operand, _NOT))), _NOT
        return Row((op(r"\sim", "∼"), _wrap(operand, _UNARY))), _UNARY
    if isinstance(node, ast.Compare):
        parts = [_wrap(_tree(node.left), _ADD)]
        for cmp, right in zip(node.ops, node.comparators):
            name = Sym("text", type(cmp).__name__.lower())
            word = Row((Space("word"), name, Space("word")), "")
            parts += [_COMPARE.get(type(cmp), word), _wrap(_tree(right), _ADD)]
        return Row(tuple(parts)), _CMP
    if isinstance(node, ast.BoolOp):
        both = isinstance(node.op, ast.And)
        joint, prec = (op(r"\land", "∧"), _AND) if both else (op(r"\lor", "∨"), _OR)
        return _join([_wrap(_tree(v), prec + 1) for v in node.values], joint), prec
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Attribute):
        base = _wrap(_tree(node.value), _ATOM)
        if node.attr == "T":
            return Sup(base, op(r"\top", "⊤"), braced=False), _POW
        return Row((base, op("."), _name_upright(node.attr)), ""), _ATOM
    if isinstance(node, ast.Subscript):
        index = Fence("[", "]", _tree(node.slice)[0], sized=False)
        return Row((_wrap(_tree(node.value), _ATOM), index), ""), _ATOM
    if isinstance(node, (ast.List, ast.Tuple)):
        inner = Row(tuple(_tree(e)[0] for e in node.elts), ", ")
        if isinstance(node, ast.List):
            return Fence("[", "]", inner, sized=False), _ATOM
        return Fence("(", ")", inner), _ATOM
    if isinstance(node, ast.IfExp):
        return _cases(node.body, node.test, node.orelse), _ATOM
    if isinstance(node, ast.Slice):
        bounds = [node.lower, node.upper] + ([node.step] if node.step else [])
        return Row(tuple(_tree(b)[0] if b is not None else EMPTY for b in bounds), ":"), _ATOM
    return _prose(ast.unparse(node)), _ATOM


def _name_upright(name: str) -> Math:
    """An attribute's name (x.shape): upright, however short."""
    return Sym("name", name)


def _join(items: list, word: Sym) -> Row:
    parts: list = []
    for k, item in enumerate(items):
        parts += [word, item] if k else [item]
    return Row(tuple(parts))


def _operand(node: ast.expr) -> tuple[Math, int]:
    """A comparison used as a number (g * (x > 0)) is an Iverson bracket: [x > 0] is 1 or 0."""
    if isinstance(node, ast.Compare):
        return Fence("[", "]", _tree(node)[0], sized=False), _ATOM
    return _tree(node)


def _binop(node: ast.BinOp) -> tuple[Math, int]:
    left, right, kind = _operand(node.left), _operand(node.right), node.op
    if isinstance(kind, ast.Add):
        return Row((_wrap(left, _ADD), op("+"), _wrap(right, _ADD))), _ADD
    if isinstance(kind, ast.Sub):
        return Row((_wrap(left, _ADD), _MINUS, _wrap(right, _MUL))), _ADD
    if isinstance(kind, ast.Mult):
        return Row((_wrap(left, _MUL), _CDOT, _wrap(right, _MUL))), _MUL
    if isinstance(kind, ast.Div):  # -g * x / y: the minus goes in front of the fraction
        if isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Mult):
            first = node.left.left
            if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
                numerator = ast.BinOp(first.operand, ast.Mult(), node.left.right)
                return Row((_MINUS, Frac(_tree(numerator)[0], right[0])), ""), _UNARY
        return Frac(left[0], right[0]), _ATOM
    if isinstance(kind, ast.MatMult):
        return Row((_wrap(left, _MUL), Space("thin"), _wrap(right, _MUL)), ""), _MUL
    if isinstance(kind, ast.Pow):
        return Sup(_wrap(left, _ATOM), right[0]), _POW
    if isinstance(kind, ast.FloorDiv):
        return Fence("⌊", "⌋", Row((left[0], op("/"), right[0]))), _ATOM
    if isinstance(kind, ast.Mod):
        return Row((_wrap(left, _MUL), op(r"\bmod", "mod"), _wrap(right, _MUL))), _MUL
    word = {ast.BitAnd: op(r"\land", "∧"), ast.BitOr: op(r"\lor", "∨")}.get(
        type(kind), op(r"\circ", "∘")
    )
    return Row((_wrap(left, _POW), word, _wrap(right, _POW))), _AND


def _cases(value: ast.expr, condition: ast.expr, otherwise: ast.expr) -> Math:
    return Cases(((_tree(value)[0], _tree(condition)[0]), (_tree(otherwise)[0], None)))


def _call(node: ast.Call) -> tuple[Math, int]:
    name = ast.unparse(node.func)
    args = [_tree(a)[0] for a in node.args]
    args += [
        Row((Sym("name", k.arg), op("{=}", "="), _tree(k.value)[0]), "")
        for k in node.keywords
        if k.arg
    ]
    if name == "where" and len(node.args) == 3 and not node.keywords:
        return _cases(node.args[1], node.args[0], node.args[2]), _ATOM
    if name == "T" and len(args) == 1:  # the rule table's one transpose notation: T(w) is w^T
        return Sup(_wrap(_tree(node.args[0]), _ATOM), op(r"\top", "⊤"), braced=False), _POW
    if name == "sqrt" and len(args) == 1:
        return Sqrt(args[0]), _ATOM
    if name == "abs" and len(args) == 1:
        return Fence("|", "|", args[0]), _ATOM
    call = Fence("(", ")", Row(tuple(args), ", "))
    if name in _OPERATORS:
        return Row((Sym("fn", name, "\\" + name), call), ""), _ATOM
    if isinstance(node.func, ast.Attribute):  # g.reshape(x.shape): a method, shown as written
        owner = _wrap(_tree(node.func.value), _ATOM)
        return Row((owner, op("."), Sym("fn", node.func.attr), call), ""), _ATOM
    return Row((Sym("fn", name), call), ""), _ATOM
