"""The textbook rules of the functions layers and models call that run as several primitives:
the softmax family, activations (gelu, silu, elu, softplus), normalisations (layer_norm,
batch_norm, group_norm, instance_norm, rms_norm, local_response_norm, F.normalize, var, std),
dropout and its variants, embedding, pad, adaptive pooling, one_hot (composite_resampling.py
holds the resampling functions').

Layer L1: numpy and composites.py's machinery (see there for what a rule, its symbols and its
variants are).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._erf import erf
from .composites import Rule, along, composite, normalised, scatter_add


# ---- softmax and its family --------------------------------------------------------------------
def _dim(p: dict) -> str:
    return f"along dim={p['dim']}" if "dim" in p else "along the class axis"


@composite("softmax", lambda p, v: along(p.get("dim", -1)))
def _softmax(p: dict) -> Rule:
    return Rule(
        "softmax",
        "exp(x) / sum(exp(x))",
        {"x": "out * (g - sum(g * out))"},
        (f"sum: {_dim(p)}, kept for broadcasting",),
    )


@composite(
    "log_softmax",
    lambda p, v: {**along(p.get("dim", -1)), "softmax": lambda x: normalised(x, p.get("dim", -1))},
)
def _log_softmax(p: dict) -> Rule:
    return Rule(
        "log_softmax",
        "x - log(sum(exp(x)))",
        {"x": "g - softmax(x) * sum(g)"},
        (f"softmax and sum: {_dim(p)}",),
    )


# ---- activations ---------------------------------------------------------------------------------
GELU_C = 0.044715


def _gelu_symbols(p: dict, v: dict) -> dict:
    k = math.sqrt(2 / math.pi)
    x = v["x"]
    return {
        "Phi": lambda t: 0.5 * (1 + erf(t / math.sqrt(2))),
        "phi": lambda t: np.exp(-t * t / 2) / math.sqrt(2 * math.pi),
        "k": k,
        "c": GELU_C,
        "t": np.tanh(k * (x + GELU_C * x**3)),
    }


@composite("gelu", _gelu_symbols, variants=(("approximate='tanh'", {"approximate": "tanh"}),))
def _gelu(p: dict) -> Rule:
    if p.get("approximate", "none") == "tanh":
        return Rule(
            "gelu",
            "x * (1 + tanh(k * (x + c * x ** 3))) / 2",
            {"x": "g * ((1 + t) / 2 + x * (1 - t ** 2) * k * (1 + 3 * c * x ** 2) / 2)"},
            (f"t = tanh(k * (x + c * x ** 3)), k = sqrt(2 / pi), c = {GELU_C}",),
        )
    return Rule(
        "gelu",
        "x * Phi(x)",
        {"x": "g * (Phi(x) + x * phi(x))"},
        (
            "Phi(x) = (1 + erf(x / sqrt(2))) / 2, the standard normal CDF; "
            "phi(x) = exp(-x ** 2 / 2) / sqrt(2 * pi), its density",
        ),
    )


@composite("silu")
def _silu(p: dict) -> Rule:
    return Rule("silu", "x * sigmoid(x)", {"x": "g * sigmoid(x) * (1 + x * (1 - sigmoid(x)))"})


@composite("elu", lambda p, v: {"alpha": p.get("alpha", 1.0)})
def _elu(p: dict) -> Rule:
    return Rule(
        "elu",
        "x if x > 0 else alpha * (exp(x) - 1)",
        {"x": "g * where(x > 0, 1, alpha * exp(x))"},
        (f"alpha = {p.get('alpha', 1.0)}",),
    )


@composite(
    "softplus",
    lambda p, v: {"beta": p.get("beta", 1.0), "threshold": p.get("threshold", 20.0)},
)
def _softplus(p: dict) -> Rule:
    return Rule(
        "softplus",
        "log(1 + exp(beta * x)) / beta  (x where beta * x > threshold)",
        {"x": "g * where(beta * x > threshold, 1, sigmoid(beta * x))"},
        (f"beta = {p.get('beta', 1.0)}, threshold = {p.get('threshold', 20.0)}",),
    )


# ---- normalisation -----------------------------------------------------------------------------
def _norm_symbols(p: dict, v: dict) -> dict:
    axes, eps = tuple(p["axes"]), p.get("eps", 1e-5)
    x = v["x"]
    symbols = {**along(axes), "eps": eps}
    if p.get("channel_axis") is not None:  # batch norm: w, b and its statistics per channel
        for name in ("w", "running_mean", "running_var"):
            if name in v:
                symbols[name] = np.reshape(v[name], (1, -1) + (1,) * (x.ndim - 2))
    if p.get("running"):  # batch norm in eval mode: the running statistics
        mean, var = symbols["running_mean"], symbols["running_var"]
    else:
        mean, var = np.mean(x, axis=axes, keepdims=True), np.var(x, axis=axes, keepdims=True)
    symbols["xhat"] = (x - mean) / np.sqrt(var + eps)
    symbols["sum"] = lambda t, axis=None: np.sum(t, axis=axis)
    symbols["batch"] = symbols["others"] = tuple(p.get("others", ()))
    return symbols


def _normalise_rules(p: dict, over: str) -> dict:
    gw = "g * w" if p.get("weight", True) else "g"
    if p.get("running"):
        rules: dict = {"x": f"{gw} / sqrt(running_var + eps)"}
    else:
        rules = {
            "x": f"({gw} - avg({gw}) - xhat * avg({gw} * xhat)) / sqrt(var(x) + eps)",
        }
    if p.get("weight", True):
        rules["w"] = f"sum(g * xhat, axis={over})"
    if p.get("bias", True):
        rules["b"] = f"sum(g, axis={over})"
    return rules


@composite("layer_norm", _norm_symbols)
def _layer_norm(p: dict) -> Rule:
    k = len(p.get("axes", (-1,)))
    return Rule(
        "layer_norm",
        "xhat * w + b",
        _normalise_rules(p, "batch"),
        (
            f"xhat = (x - avg(x)) / sqrt(var(x) + eps); avg and var over the last {k} axes of "
            f"each sample; batch: the leading axes",
        ),
    )


@composite(
    "batch_norm", _norm_symbols, variants=(("running statistics (eval)", {"running": True}),)
)
def _batch_norm(p: dict) -> Rule:
    if p.get("running"):
        what = "xhat = (x - running_mean) / sqrt(running_var + eps), per channel"
    else:
        what = "xhat = (x - avg(x)) / sqrt(var(x) + eps), avg and var per channel over the batch"
    return Rule(
        "batch_norm",
        "xhat * w + b",
        _normalise_rules(p, "others"),
        (f"{what}; others: every axis but the channel axis (1)",),
    )


def _group_symbols(p: dict, v: dict) -> dict:
    """group_norm's and instance_norm's: avg and var over each group of channels of a sample."""
    x, groups = v["x"], p["groups"]
    rows = (x.shape[0], groups, -1)

    def over_group(fn: Any) -> Any:
        return lambda t: np.broadcast_to(
            fn(np.reshape(t, rows), axis=2, keepdims=True),
            (x.shape[0], groups, x[0].size // groups),
        ).reshape(x.shape)

    avg, var = over_group(np.mean), over_group(np.var)
    eps = p.get("eps", 1e-5)
    symbols = {"avg": avg, "var": var, "eps": eps, "xhat": (x - avg(x)) / np.sqrt(var(x) + eps)}
    if "w" in v:
        symbols["w"] = np.reshape(v["w"], (1, -1) + (1,) * (x.ndim - 2))
    symbols["sum"] = lambda t, axis=None: np.sum(t, axis=axis)
    symbols["others"] = tuple(p.get("others", ()))
    return symbols


@composite("group_norm", _group_symbols)
def _group_norm(p: dict) -> Rule:
    return Rule(
        "group_norm",
        "xhat * w + b",
        _normalise_rules(p, "others"),
        (
            f"xhat = (x - avg(x)) / sqrt(var(x) + eps); avg and var over each of the "
            f"{p.get('groups', 'num_groups')} groups of channels of each sample; others: every "
            f"axis but the channel axis (1)",
        ),
    )


@composite("instance_norm", _group_symbols)
def _instance_norm(p: dict) -> Rule:
    return Rule(
        "instance_norm",
        "xhat * w + b",
        _normalise_rules(p, "others"),
        (
            "xhat = (x - avg(x)) / sqrt(var(x) + eps); avg and var over the positions of each "
            "channel of each sample; others: every axis but the channel axis (1)",
        ),
    )


def _rms_symbols(p: dict, v: dict) -> dict:
    axes, x = tuple(p["axes"]), v["x"]
    r = 1 / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + p.get("eps", 0.0))
    symbols = {**along(axes), "r": r, "batch": tuple(p.get("others", ()))}
    symbols["sum"] = lambda t, axis=None: np.sum(t, axis=axis)
    return symbols


@composite("rms_norm", _rms_symbols)
def _rms_norm(p: dict) -> Rule:
    gw = "g * w" if p.get("weight", True) else "g"
    rules: dict[str, str | None] = {"x": f"r * ({gw} - x * r ** 2 * avg({gw} * x))"}
    if p.get("weight", True):
        rules["w"] = "sum(g * x * r, axis=batch)"
    k = len(p.get("axes", (-1,)))
    return Rule(
        "rms_norm",
        "x * r * w",
        rules,
        (
            f"r = 1 / sqrt(avg(x ** 2) + eps); avg over the last {k} axes of each sample; "
            f"batch: the leading axes",
        ),
    )


def _lrn_symbols(p: dict, v: dict) -> dict:
    x, size = v["x"], p["size"]
    c = x.shape[1]
    offsets = np.arange(c)[None, :] - np.arange(c)[:, None]
    m = ((offsets >= -(size // 2)) & (offsets <= (size - 1) // 2)) / size  # (row c: c's window)

    def window_t(t: np.ndarray) -> np.ndarray:  # (the window's transpose, over axis 1)
        return np.moveaxis(np.moveaxis(t, 1, -1) @ m, -1, 1)

    avg = np.moveaxis(np.moveaxis(x * x, 1, -1) @ m.T, -1, 1)
    d = p.get("k", 1.0) + p.get("alpha", 1e-4) * avg
    return {
        "d": d,
        "alpha": p.get("alpha", 1e-4),
        "beta": p.get("beta", 0.75),
        "T_window": window_t,
    }


@composite("local_response_norm", _lrn_symbols)
def _local_response_norm(p: dict) -> Rule:
    return Rule(
        "local_response_norm",
        "x / d ** beta",
        {"x": "g / d ** beta - 2 * alpha * beta * x * T_window(g * x / d ** (beta + 1))"},
        (
            "d = k + alpha * window(x ** 2): window averages size neighbouring channels (axis "
            "1); T_window sums back over the windows each channel is in",
        ),
    )


def _lp_symbols(p: dict, v: dict) -> dict:
    power, dim, eps = p.get("p", 2.0), p.get("dim", 1), p.get("eps", 1e-12)
    x = v["x"]
    norm = np.sum(np.abs(x) ** power, axis=dim, keepdims=True) ** (1 / power)
    return {**along(dim), "n": np.maximum(norm, eps), "p": power}


@composite("normalize", _lp_symbols)
def _lp_normalize(p: dict) -> Rule:
    if p.get("p", 2.0) == 2:
        x = "g / n - x * sum(g * x) / n ** 3"
    else:
        x = "g / n - sign(x) * abs(x) ** (p - 1) * sum(g * x) / n ** (p + 1)"
    return Rule(
        "normalize",
        "x / n",
        {"x": x},
        ("n = max(norm_p(x), eps) along dim (the rule where the norm exceeds eps)",),
        node="LpNormalizeBackward",
    )


def _moments_symbols(p: dict, v: dict) -> dict:
    axis, ddof = p.get("axis"), p.get("ddof", 0)
    x = v["x"]
    n = x.size // max(1, np.size(np.sum(x, axis=axis)))
    shape = np.shape(np.sum(x, axis=axis, keepdims=True))
    kept = {k: np.reshape(v[k], shape) for k in ("g", "out")}  # (as if keepdims=True)
    return {**kept, "mean": lambda t: np.mean(t, axis=axis, keepdims=True), "N": n, "ddof": ddof}


@composite("var", _moments_symbols)
def _var(p: dict) -> Rule:
    return Rule(
        "var",
        "sum((x - mean(x)) ** 2) / (N - ddof)",
        {"x": "2 * g * (x - mean(x)) / (N - ddof)"},
        (f"N: the values reduced together; ddof = {p.get('ddof', 0)} (correction)",),
    )


@composite("std", _moments_symbols)
def _std(p: dict) -> Rule:
    return Rule(
        "std",
        "sqrt(var(x))",
        {"x": "g * (x - mean(x)) / ((N - ddof) * out)"},
        (f"N: the values reduced together; ddof = {p.get('ddof', 0)} (correction)",),
    )


# ---- layers whose forward is one primitive and some reshapes -----------------------------------
def _dropout_symbols(p: dict, v: dict) -> dict:
    return {"p": p.get("p", 0.5)}


@composite("dropout", _dropout_symbols)
def _dropout(p: dict) -> Rule:
    x = "0 * g" if p.get("p", 0.5) == 1 else "g * mask / (1 - p)"
    return Rule(
        "dropout",
        "x * mask / (1 - p)",
        {"x": x, "mask": None},
        (f"mask: 1 where x is kept, 0 where dropped (drawn with p = {p.get('p', 0.5)})",),
    )


def _channel_dropout(name: str) -> None:
    """dropout1d/2d/3d: dropout's rule, the mask one draw per channel (broadcast)."""

    def build(p: dict) -> Rule:
        made = _dropout(p)
        note = "mask: 1 where a channel is kept, 0 where dropped (one draw per channel)"
        return Rule(name, made.expr, made.rules, (note,))

    composite(name, _dropout_symbols)(build)


for _name in ("dropout1d", "dropout2d", "dropout3d"):
    _channel_dropout(_name)


def _alpha_symbols(p: dict, v: dict) -> dict:
    q, limit = p.get("p", 0.5), 1.0507009873554805 * 1.6732632423543772
    return {"a": 1.0 / math.sqrt((limit**2 * q + 1.0) * (1.0 - q)) if q < 1 else 0.0}


@composite("alpha_dropout", _alpha_symbols)
def _alpha_dropout(p: dict) -> Rule:
    return Rule(
        "alpha_dropout",
        "a * x * mask + b",
        {"x": "g * a * mask", "mask": None},
        (
            "mask: 1 where x is kept; dropped values become SELU's negative limit s, then "
            "a = 1 / sqrt((s ** 2 * p + 1) * (1 - p)) and b keep mean 0 and variance 1",
        ),
    )


def _embedding_symbols(p: dict, v: dict) -> dict:
    idx, symbols = v["idx"], {"scatter_add": scatter_add}
    if p.get("padding_idx") is not None:
        symbols["not_padding"] = (idx != p["padding_idx"])[..., None]
    if p.get("scale_grad_by_freq"):
        counts = np.bincount(idx.ravel(), minlength=v["w"].shape[0])
        symbols["freq"] = counts[idx][..., None]
    return symbols


@composite("embedding", _embedding_symbols)
def _embedding(p: dict) -> Rule:
    g, notes = "g", ["scatter_add: each row of g added into row idx of zeros shaped as w"]
    if p.get("padding_idx") is not None:
        g += " * not_padding"
        notes.append(f"not_padding: 0 where idx == padding_idx ({p['padding_idx']})")
    if p.get("scale_grad_by_freq"):
        g += " / freq"
        notes.append("freq: how often each position's index appears in idx")
    return Rule(
        "embedding",
        "w[idx]",
        {"idx": None, "w": f"scatter_add({g}, idx, w.shape)"},
        tuple(notes),
    )


def _pad_symbols(p: dict, v: dict) -> dict:
    source = p["source"]
    return {"scatter_add": scatter_add, "source": source() if callable(source) else source}


@composite("pad", _pad_symbols)
def _pad(p: dict) -> Rule:
    return Rule(
        "pad",
        "x with pad entries around it",
        {"x": "scatter_add(g, source, x.shape)"},
        (
            "source: for each entry of out, the flat position in x it copies (-1 for a constant "
            "border): g is cropped back, and reflected or repeated entries add up",
        ),
    )


def _adaptive_symbols(p: dict, v: dict) -> dict:
    rows, cols = v["x"].shape[-2:]  # (an axis the call did not pool: the identity)
    return {"A": v.get("A", np.eye(rows)), "B": v.get("B", np.eye(cols))}


@composite("adaptive_avg_pool2d", _adaptive_symbols)
def _adaptive_avg_pool2d(p: dict) -> Rule:
    return Rule(
        "adaptive_avg_pool2d",
        "A @ x @ T(B)",
        {"x": "T(A) @ g @ B", "A": None, "B": None},
        (
            "A, B: the averaging matrices of the rows and the columns (each row of one averages "
            "one window)",
        ),
    )


@composite("one_hot")
def _one_hot(p: dict) -> Rule:
    return Rule(
        "one_hot",
        "1 at [..., y], 0 elsewhere",
        {"y": None},
        ("integers in, integers out: nothing to differentiate (nothing is recorded)",),
    )
