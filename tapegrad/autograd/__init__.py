"""tg.autograd: backward, grad, Function, gradcheck, detect_anomaly and the readable rule table.

Layer L4: builds on tensor.py and the tape.
"""

from __future__ import annotations

from ..primitives.registry import REGISTRY, lookup
from ..tape.anomaly import detect_anomaly, is_anomaly_enabled
from .._state import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..tape.node import Node
from .function import Function, FunctionCtx
from .functions import backward, grad
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable


def formula(op_name: str, latex: bool = False) -> str:
    """The backward rule of a registered op, as text (or LaTeX): `tg.autograd.formula("sin")`.

    >>> print(tg.autograd.formula("mul", latex=True))  # doctest: +SKIP
    \\begin{aligned} \\mathrm{out} &= x \\cdot y \\\\ \\bar{x} &= ... \\end{aligned}
    """
    prim = lookup(op_name)
    if not latex:
        return prim.formula()
    from ..teach.latex import formula_latex  # (standard library only)

    texts = ["0" if t is None else t for t in prim.texts]  # (None: a zero gradient)
    return formula_latex(prim.expr, dict(zip(prim.input_names, texts)))


def rules() -> dict:
    """Every registered primitive: {name: formula text}, in registration order."""
    return {name: prim.formula() for name, prim in REGISTRY.items()}


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "formula",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "rules",
    "set_grad_enabled",
]
