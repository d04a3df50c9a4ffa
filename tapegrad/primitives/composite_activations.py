"""The textbook rules of the activations beyond the classic ones (composite_layers.py keeps gelu,
silu, elu, softplus and the softmax family): the elu family's selu and celu, mish, softsign,
tanhshrink, logsigmoid, glu, softmin, and the piecewise-linear ones (hardtanh, relu6,
hardsigmoid, hardswish, threshold, the shrinks, prelu, rrelu), with PyTorch's choice at the kinks,
and gumbel_softmax (a softmax of noisy logits).

Layer L1: numpy and composites.py's machinery (see there for what a rule, its symbols and its
variants are).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .composites import Rule, Symbols, along, composite, normalised

SELU_ALPHA = 1.6732632423543772848170429916717  # (as nn/functional_activation.py's)
SELU_SCALE = 1.0507009873554804934193349852946


def _params(*names: str, **defaults: Any) -> Symbols:
    """Symbols: the call's params by name (with their defaults)."""
    return lambda p, v: {n: p.get(n, defaults.get(n)) for n in names}


# ---- smooth -------------------------------------------------------------------------------------
@composite("selu", lambda p, v: {"alpha": SELU_ALPHA, "scale": SELU_SCALE})
def _selu(p: dict) -> Rule:
    return Rule(
        "selu",
        "scale * (x if x > 0 else alpha * (exp(x) - 1))",
        {"x": "g * scale * where(x > 0, 1, alpha * exp(x))"},
        (f"alpha = {SELU_ALPHA:.6f}, scale = {SELU_SCALE:.6f} (PyTorch's constants)",),
    )


@composite("celu", _params("alpha", alpha=1.0))
def _celu(p: dict) -> Rule:
    return Rule(
        "celu",
        "x if x > 0 else alpha * (exp(x / alpha) - 1)",
        {"x": "g * where(x > 0, 1, exp(x / alpha))"},
        (f"alpha = {p.get('alpha', 1.0)}",),
    )


@composite("mish")
def _mish(p: dict) -> Rule:
    return Rule(
        "mish",
        "x * tanh(softplus(x))",
        {"x": "g * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x)) ** 2))"},
    )


@composite("softsign")
def _softsign(p: dict) -> Rule:
    return Rule("softsign", "x / (1 + abs(x))", {"x": "g / (1 + abs(x)) ** 2"})


@composite("tanhshrink")
def _tanhshrink(p: dict) -> Rule:
    return Rule("tanhshrink", "x - tanh(x)", {"x": "g * tanh(x) ** 2"})


@composite("logsigmoid")
def _logsigmoid(p: dict) -> Rule:
    return Rule("logsigmoid", "log(sigmoid(x))", {"x": "g * (1 - sigmoid(x))"})


def _glu_symbols(p: dict, v: dict) -> dict:
    dim = p.get("dim", -1)
    a, b = np.split(v["x"], 2, axis=dim)
    return {"a": a, "b": b, "cat": lambda u, w: np.concatenate([u, w], axis=dim)}


@composite("glu", _glu_symbols)
def _glu(p: dict) -> Rule:
    return Rule(
        "glu",
        "a * sigmoid(b)",
        {"x": "cat(g * sigmoid(b), g * a * sigmoid(b) * (1 - sigmoid(b)))"},
        (f"a, b: the two halves of x along dim={p.get('dim', -1)}; cat joins them back",),
    )


@composite("softmin", lambda p, v: along(p.get("dim", -1)))
def _softmin(p: dict) -> Rule:
    return Rule(
        "softmin",
        "exp(-x) / sum(exp(-x))",
        {"x": "-out * (g - sum(g * out))"},
        (f"sum: along dim={p['dim']}, kept for broadcasting" if "dim" in p else "sum: along dim",),
    )


# ---- piecewise linear: the gradient is 0 at the kinks, as PyTorch's -----------------------------
@composite("hardtanh", _params("min_val", "max_val", min_val=-1.0, max_val=1.0))
def _hardtanh(p: dict) -> Rule:
    return Rule(
        "hardtanh",
        "min(max(x, min_val), max_val)",
        {"x": "where(x <= min_val, 0, where(x >= max_val, 0, g))"},
        (f"min_val = {p.get('min_val', -1.0)}, max_val = {p.get('max_val', 1.0)}",),
    )


@composite("relu6")
def _relu6(p: dict) -> Rule:
    return Rule("relu6", "min(max(x, 0), 6)", {"x": "where(x <= 0, 0, where(x >= 6, 0, g))"})


@composite("hardsigmoid")
def _hardsigmoid(p: dict) -> Rule:
    return Rule(
        "hardsigmoid",
        "min(max(x / 6 + 1 / 2, 0), 1)",
        {"x": "where(x <= -3, 0, where(x >= 3, 0, g / 6))"},
    )


@composite("hardswish")
def _hardswish(p: dict) -> Rule:
    return Rule(
        "hardswish",
        "x * min(max(x + 3, 0), 6) / 6",
        {"x": "where(x <= -3, 0, where(x < 3, g * (2 * x + 3) / 6, g))"},
    )


@composite("threshold", _params("threshold", "value"))
def _threshold(p: dict) -> Rule:
    return Rule(
        "threshold",
        "x if x > threshold else value",
        {"x": "where(x <= threshold, 0, g)"},
        (f"threshold = {p.get('threshold')}, value = {p.get('value')}",),
    )


@composite("hardshrink", _params("lambd", lambd=0.5))
def _hardshrink(p: dict) -> Rule:
    return Rule(
        "hardshrink",
        "x if abs(x) > lambd else 0",
        {"x": "where(abs(x) <= lambd, 0, g)"},
        (f"lambd = {p.get('lambd', 0.5)}",),
    )


@composite("softshrink", _params("lambd", lambd=0.5))
def _softshrink(p: dict) -> Rule:
    return Rule(
        "softshrink",
        "x - sign(x) * lambd if abs(x) > lambd else 0",
        {"x": "where(abs(x) <= lambd, 0, g)"},
        (f"lambd = {p.get('lambd', 0.5)}",),
    )


@composite("prelu")
def _prelu(p: dict) -> Rule:
    return Rule(
        "prelu",
        "x if x > 0 else w * x",
        {"x": "g * where(x > 0, 1, w)", "w": "g * where(x > 0, 0, x)"},
        ("w: one slope, or one per channel (dL/dw summed over the other axes)",),
    )


@composite("rrelu", variants=(("training=True", {"training": True}),))
def _rrelu(p: dict) -> Rule:
    drawn = "drawn uniformly from [lower, upper] per element"
    return Rule(
        "rrelu",
        "x if x > 0 else a * x",
        {"x": "g * where(x > 0, 1, a)", "a": None},
        (f"a: {drawn if p.get('training') else '(lower + upper) / 2'}",),
    )


def _gumbel_symbols(p: dict, v: dict) -> dict:
    dim, tau = p.get("dim", -1), p.get("tau", 1)
    soft = normalised((v["x"] + p["gumbels"]) / tau, dim)
    return {**along(dim), "soft": soft, "tau": tau}


@composite("gumbel_softmax", _gumbel_symbols)
def _gumbel_softmax(p: dict) -> Rule:
    hard = p.get("hard", False)
    return Rule(
        "gumbel_softmax",
        "onehot(argmax(soft))" if hard else "soft",
        {"x": "soft * (g - sum(g * soft)) / tau"},
        (
            "soft = softmax((x + gumbels) / tau) along dim; gumbels: the Gumbel(0, 1) noise drawn",
            *(
                ("hard: the value is one-hot, the gradient the soft sample's (straight-through)",)
                if hard
                else ()
            ),
        ),
    )
