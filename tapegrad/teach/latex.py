"""to_latex: a backward rule's text (a Python expression over g, out and the inputs) as LaTeX math.

In teach/, but standard library only (`ast`), so tg.autograd.formula (L4) imports it too.
Notation (adjoints): a bar means "gradient of the loss with respect to": x̄ = ∂L/∂x, and g, the
gradient arriving at a node's output, is out̄. Text that is not an expression becomes \\text{...}.
"""

from __future__ import annotations

import ast
import re

__all__ = ["LEGEND", "adjoint", "formula_latex", "rule_latex", "to_latex"]

LEGEND = (
    r"\(\bar{v}\) is \(\partial L/\partial v\), the gradient of the loss \(L\) with respect to "
    r"\(v\); \(\overline{\mathrm{out}}\) is the gradient arriving at the node's output (g in the "
    r"rule's code). \(\cdot\) multiplies element by element, juxtaposition \(a\,b\) is the matrix "
    r"product, \(^\top\) transposes, and \([c]\) is 1 where \(c\) holds, else 0."
)

_GREEK = set(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau "
    "upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega".split()
)
# Functions with a LaTeX operator of their own: \exp(x) rather than \operatorname{exp}(x).
_OPERATORS = {"exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "max", "min", "arctan"}
_COMPARE = {
    ast.Gt: ">",
    ast.Lt: "<",
    ast.GtE: r"\geq",
    ast.LtE: r"\leq",
    ast.Eq: "=",
    ast.NotEq: r"\neq",
}
# Binding strength, loosest first; a child binding more loosely than its place needs gets brackets.
_CMP, _OR, _AND, _NOT, _ADD, _MUL, _UNARY, _POW, _ATOM = range(9)
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


def to_latex(expr: str) -> str:
    r"""A rule's text as LaTeX math; prose, or a note after two spaces, becomes \text{...}.

    >>> to_latex("-g * x / y ** 2")
    '-\\frac{\\overline{\\mathrm{out}} \\cdot x}{y^{2}}'
    """
    text = str(expr).strip()
    tree = _parse(_as_python(text))
    if tree is not None:
        return _tex(tree)[0]
    pieces = re.split(r"\s{2,}", text, maxsplit=1)  # "g * y   (0 at 0**0)": a rule, then a note
    if len(pieces) == 2:
        tree = _parse(_as_python(pieces[0]))
        if tree is not None:
            return _tex(tree)[0] + r"\quad " + _prose(pieces[1])
    return _prose(text)


def adjoint(name: str) -> str:
    r"""The gradient of the loss with respect to `name`: adjoint("x") == "\\bar{x}"."""
    if name.isidentifier() or re.fullmatch(r"\w+\[\d+\]", name):  # x, x_i, xs[0]
        tree = _parse(name)
        inner = _tex(tree)[0] if tree is not None else _prose(name)
    elif re.fullmatch(r"[\w.]+", name):  # a module path: fc1.weight
        inner = r"\mathrm{" + name.replace("_", r"\_") + "}"
    else:
        inner = _prose(name)
    single = len(name) == 1 and name.isalpha()
    return rf"\bar{{{inner}}}" if single else rf"\overline{{{inner}}}"


def rule_latex(input_name: str, text: str) -> str:
    r"""One rule as an equation: rule_latex("x", "g * y") gives "\\bar{x} = ... \\cdot y"."""
    return f"{adjoint(input_name)} = {to_latex(text)}"


def formula_latex(expr: str, rules: dict[str, str]) -> str:
    r"""A forward and its rules ({input: text}) as one aligned block of equations.

    >>> formula_latex("x * y", {"x": "g * y", "y": "g * x"})  # doctest: +ELLIPSIS
    '\\begin{aligned} \\mathrm{out} &= x \\cdot y \\\\ \\bar{x} &= ...'
    """
    rows = [rf"\mathrm{{out}} &= {to_latex(expr)}"]
    rows += [f"{adjoint(name)} &= {to_latex(text)}" for name, text in rules.items()]
    return r"\begin{aligned} " + r" \\ ".join(rows) + r" \end{aligned}"


# ---- internals -------------------------------------------------------------------------------
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


def _prose(text: str) -> str:
    """Words as \\text{...}, with a lone `g` shown as the output's gradient (as in the code)."""
    parts = re.split(r"(?<![\w.])g(?![\w(])", text)
    pieces = []
    for k, part in enumerate(parts):
        if k:
            pieces.append(_name("g"))
        if part:
            pieces.append(r"\text{" + "".join(_TEXT_ESCAPES.get(c, c) for c in part) + "}")
    return " ".join(pieces) if pieces else r"\text{}"


def _name(name: str) -> str:
    if name == "g":
        return r"\overline{\mathrm{out}}"
    if name.startswith("dL_d") and len(name) > 4:  # dL/dx, written in words in older texts
        return adjoint(name[4:])
    if name in _GREEK:
        return "\\" + name
    base, _, sub = name.partition("_")
    if sub and base:  # x_i -> x_{i}
        return f"{_name(base)}_{{{_name(sub)}}}"
    if len(name) == 1:
        return name
    return r"\mathrm{" + name.replace("_", r"\_") + "}"


def _wrap(part: tuple, least: int) -> str:
    text, prec = part
    return rf"\left({text}\right)" if prec < least else text


def _number(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return rf"\text{{{value}}}"
    if isinstance(value, float):
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            power = rf"10^{{{int(exponent)}}}"
            return power if mantissa == "1.0" or mantissa == "1" else rf"{mantissa} \cdot {power}"
        return text
    if isinstance(value, (int, complex)):
        return str(value)
    return _prose(str(value))


def _tex(node: ast.AST) -> tuple[str, int]:
    """(LaTeX, binding strength) of one expression node."""
    if isinstance(node, ast.Name):
        return _name(node.id), _ATOM
    if isinstance(node, ast.Constant):
        text = _number(node.value)
        negative = isinstance(node.value, (int, float)) and node.value < 0
        return text, _UNARY if negative else _ATOM
    if isinstance(node, ast.BinOp):
        return _binop(node)
    if isinstance(node, ast.UnaryOp):
        operand = _tex(node.operand)
        if isinstance(node.op, ast.USub):
            return "-" + _wrap(operand, _MUL), _UNARY
        if isinstance(node.op, ast.UAdd):
            return "+" + _wrap(operand, _MUL), _UNARY
        if isinstance(node.op, ast.Not):
            return r"\neg " + _wrap(operand, _NOT), _NOT
        return r"\sim " + _wrap(operand, _UNARY), _UNARY
    if isinstance(node, ast.Compare):
        parts = [_wrap(_tex(node.left), _ADD)]
        for op, right in zip(node.ops, node.comparators):
            symbol = _COMPARE.get(type(op), r"\ \text{" + type(op).__name__.lower() + r"}\ ")
            parts += [symbol, _wrap(_tex(right), _ADD)]
        return " ".join(parts), _CMP
    if isinstance(node, ast.BoolOp):
        word, prec = (r"\land", _AND) if isinstance(node.op, ast.And) else (r"\lor", _OR)
        return f" {word} ".join(_wrap(_tex(v), prec + 1) for v in node.values), prec
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Attribute):
        if node.attr == "T":
            return _wrap(_tex(node.value), _ATOM) + r"^\top", _POW
        return _wrap(_tex(node.value), _ATOM) + "." + _name(node.attr), _ATOM
    if isinstance(node, ast.Subscript):
        return _wrap(_tex(node.value), _ATOM) + "[" + _tex(node.slice)[0] + "]", _ATOM
    if isinstance(node, (ast.List, ast.Tuple)):
        inner = ", ".join(_tex(e)[0] for e in node.elts)
        return (f"[{inner}]" if isinstance(node, ast.List) else rf"\left({inner}\right)"), _ATOM
    if isinstance(node, ast.IfExp):
        return _cases(node.body, node.test, node.orelse), _ATOM
    if isinstance(node, ast.Slice):
        bounds = [node.lower, node.upper] + ([node.step] if node.step else [])
        return ":".join(_tex(b)[0] if b is not None else "" for b in bounds), _ATOM
    return _prose(ast.unparse(node)), _ATOM


def _operand(node: ast.expr) -> tuple[str, int]:
    """A comparison used as a number (g * (x > 0)) is an Iverson bracket: [x > 0] is 1 or 0."""
    if isinstance(node, ast.Compare):
        return "[" + _tex(node)[0] + "]", _ATOM
    return _tex(node)


def _binop(node: ast.BinOp) -> tuple[str, int]:
    left, right, op = _operand(node.left), _operand(node.right), node.op
    if isinstance(op, ast.Add):
        return f"{_wrap(left, _ADD)} + {_wrap(right, _ADD)}", _ADD
    if isinstance(op, ast.Sub):
        return f"{_wrap(left, _ADD)} - {_wrap(right, _MUL)}", _ADD
    if isinstance(op, ast.Mult):
        return rf"{_wrap(left, _MUL)} \cdot {_wrap(right, _MUL)}", _MUL
    if isinstance(op, ast.Div):  # -g * x / y: the minus goes in front of the fraction
        if isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Mult):
            first = node.left.left
            if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
                numerator = ast.BinOp(first.operand, ast.Mult(), node.left.right)
                return rf"-\frac{{{_tex(numerator)[0]}}}{{{right[0]}}}", _UNARY
        return rf"\frac{{{left[0]}}}{{{right[0]}}}", _ATOM
    if isinstance(op, ast.MatMult):
        return rf"{_wrap(left, _MUL)}\,{_wrap(right, _MUL)}", _MUL
    if isinstance(op, ast.Pow):
        return f"{_wrap(left, _ATOM)}^{{{right[0]}}}", _POW
    if isinstance(op, ast.FloorDiv):
        return rf"\left\lfloor {left[0]} / {right[0]} \right\rfloor", _ATOM
    if isinstance(op, ast.Mod):
        return rf"{_wrap(left, _MUL)} \bmod {_wrap(right, _MUL)}", _MUL
    symbol = {ast.BitAnd: r"\land", ast.BitOr: r"\lor"}.get(type(op), r"\circ")
    return f"{_wrap(left, _POW)} {symbol} {_wrap(right, _POW)}", _AND


def _cases(value: ast.expr, condition: ast.expr, otherwise: ast.expr) -> str:
    return (
        rf"\begin{{cases}} {_tex(value)[0]} & \text{{if }} {_tex(condition)[0]} \\ "
        rf"{_tex(otherwise)[0]} & \text{{otherwise}} \end{{cases}}"
    )


def _call(node: ast.Call) -> tuple[str, int]:
    name = ast.unparse(node.func)
    args = [_tex(a)[0] for a in node.args]
    args += [rf"\mathrm{{{k.arg}}}{{=}}{_tex(k.value)[0]}" for k in node.keywords if k.arg]
    if name == "where" and len(node.args) == 3 and not node.keywords:
        return _cases(node.args[1], node.args[0], node.args[2]), _ATOM
    if name == "T" and len(args) == 1:  # the one transpose notation: T(w) is w^T
        return _wrap(_tex(node.args[0]), _ATOM) + r"^\top", _POW
    if name == "sqrt" and len(args) == 1:
        return rf"\sqrt{{{args[0]}}}", _ATOM
    if name == "abs" and len(args) == 1:
        return rf"\left|{args[0]}\right|", _ATOM
    joined = ", ".join(args)
    if name in _OPERATORS:
        return rf"\{name}\left({joined}\right)", _ATOM
    if isinstance(node.func, ast.Attribute):  # g.reshape(x.shape): a method, shown as written
        owner = _wrap(_tex(node.func.value), _ATOM)
        method = node.func.attr.replace("_", r"\_")
        return rf"{owner}.\operatorname{{{method}}}\left({joined}\right)", _ATOM
    return rf"\operatorname{{{name.replace('_', chr(92) + '_')}}}\left({joined}\right)", _ATOM
