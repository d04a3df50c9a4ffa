"""tg.autograd: backward, grad, Function, gradcheck, detect_anomaly and the readable rule table.

Layer L4: builds on tensor.py and the tape.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Mapping

from ..primitives import composites
from ..primitives.registry import REGISTRY, Primitive, lookup, plain
from ..tape.anomaly import detect_anomaly, is_anomaly_enabled
from .._state import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..tape.node import Node
from .function import Function, FunctionCtx
from .functions import backward, grad
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

if TYPE_CHECKING:
    from ..teach.compare import Comparison
    from ..tensor import Tensor


def formula(op_name: str, latex: bool = False, detail: bool = False) -> str:
    """The backward rule of an op or of a function made of several (softmax, cross_entropy, ...)
    as a textbook writes it (or as LaTeX); `detail=True` adds the kernels that run instead. The
    text is a str a notebook shows typeset (MathML).

    >>> print(tg.autograd.formula("pow"))  # doctest: +SKIP
    pow: out = x ** y    (backward node: PowBackward)
      dL/dx = g * y * x ** (y - 1)
      dL/dy = g * out * log(x)
      (g = dL/dout, the gradient arriving at the output)
    """
    found = _find(op_name)
    kernels = detail and latex  # (the text and the notebook show the kernels under the rules)
    texts = [
        "0" if t is None else k if kernels and k is not None else plain(t)
        for t, k in zip(found.texts, found.kernels)
    ]  # (None: a zero gradient)
    rules = dict(zip(found.input_names, texts))
    if latex:
        from ..teach.latex import formula_latex  # (standard library only)

        return formula_latex(found.expr, rules)
    from ..teach.formula_html import Formula  # (a notebook typesets it; standard library only)

    text = found.formula(detail=detail)
    return Formula(text, found.name, found.node_name, found.expr, rules)


_PREFIXES = ("torch.nn.functional.", "tg.nn.functional.", "nn.functional.", "F.", "tg.")


def _find(op_name: str) -> Primitive | composites.Rule:
    """A primitive by name or node name; a function by name ("F.normalize": the function, where a
    primitive has the same name)."""
    key = op_name.strip() if isinstance(op_name, str) else op_name
    functional = False
    for prefix in _PREFIXES:
        if isinstance(key, str) and key.startswith(prefix):
            key, functional = key[len(prefix) :], True
    if functional and key in composites.COMPOSITES:
        return composites.rule(key)
    try:
        return lookup(key)
    except KeyError:
        name = composites.lookup_composite(key)
        if name is not None:
            return composites.rule(name)
        key = composites.ALIASES.get(key, key)  # (max_pool2d_with_indices: max_pool2d's)
        if key in composites.WRAPPERS:
            return composites.wrapped(key, REGISTRY[composites.WRAPPERS[key]])
        known = [*REGISTRY, *composites.COMPOSITES, *composites.WRAPPERS]
        close = difflib.get_close_matches(key.lower(), known, n=5, cutoff=0.5)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise KeyError(
            f"no primitive or function named {op_name!r}.{hint} tg.autograd.rules() lists the "
            f"primitives; functions made of several (softmax, cross_entropy, mse_loss, ...) have "
            f"rules too"
        ) from None


def compare(
    loss: Tensor, manual: Mapping[Any, Any], *, rtol: float = 1e-5, atol: float = 1e-8
) -> Comparison:
    """Check gradients derived by hand against the tape's: `manual` maps tensors (or their
    .name, or a name of your own to a (tensor, gradient) pair) to your gradients, intermediate
    tensors included (no retain_grad() needed; no .grad changes). Returns a table in backward
    order: per tensor exact / approximate (np.allclose with rtol, atol) / max difference and the
    rule that made the tape's gradient; `.first_wrong` is the first wrong one (or None).

    >>> tg.autograd.compare(loss, {"logits": dlogits, W1: dW1, "h": (h, dh)})  # doctest: +SKIP
    """
    from ..teach.compare import compare as check  # (the teaching tools live above autograd)

    return check(loss, manual, rtol=rtol, atol=atol)


def rules() -> dict:
    """Every registered primitive: {name: formula text}, in registration order."""
    return {name: prim.formula() for name, prim in REGISTRY.items()}


__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "backward",
    "compare",
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
