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


def formula(op_name: str) -> str:
    """The backward rule of a registered op, as text: `tg.autograd.formula("sin")`."""
    return lookup(op_name).formula()


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
