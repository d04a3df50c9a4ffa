"""The textbook rules of the margin, embedding, divergence and likelihood losses and of the
distances (F.margin_ranking_loss, ..., triplet_margin_with_distance_loss (in its distances),
kl_div, poisson_nll_loss, gaussian_nll_loss,
cosine_similarity, pairwise_distance, pdist).

Layer L1: numpy and composites.py's machinery (see there). Symbols named in a rule's notes are
computed from the call's values by the rule's symbols function; N is the 'mean' divisor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .composites import Rule, composite


def _divisor(p: dict) -> str:
    return " / N" if p.get("reduction", "mean") == "mean" else ""


def _rows_g(p: dict, v: dict, axis: int = -1) -> dict:
    """N, and g with a size-1 axis put back (one g per row with reduction='none')."""
    g = np.asarray(v["g"])
    if p.get("reduction", "mean") == "none" and g.ndim:
        g = np.expand_dims(g, axis)
    return {"g": g, "N": p.get("N", 1)}


def _note(p: dict) -> tuple:
    return ("N: the number of losses averaged",) if p.get("reduction", "mean") == "mean" else ()


# ---- margins -------------------------------------------------------------------------------------
def _ranking_symbols(p: dict, v: dict) -> dict:
    z = -v["y"] * (v["x1"] - v["x2"]) + p.get("margin", 0.0)
    return {"N": p.get("N", 1), "k": (z >= 0).astype(float)}


@composite("margin_ranking_loss", _ranking_symbols)
def _margin_ranking(p: dict) -> Rule:
    n = _divisor(p)
    return Rule(
        "margin_ranking_loss",
        "max(0, -y * (x1 - x2) + margin)",
        {"x1": f"-g * k * y{n}", "x2": f"g * k * y{n}", "y": f"-g * k * (x1 - x2){n}"},
        ("k: 1 where -y (x1 - x2) + margin >= 0, else 0",) + _note(p),
    )


def _hinge_symbols(p: dict, v: dict) -> dict:
    x, y = v["x"], v["y"]
    active = (y != 1) & (p.get("margin", 1.0) - x >= 0)
    return {"N": p.get("N", 1), "k": (y != -1).astype(float) - active.astype(float)}


@composite("hinge_embedding_loss", _hinge_symbols)
def _hinge_embedding(p: dict) -> Rule:
    return Rule(
        "hinge_embedding_loss",
        "where(y == 1, x, max(0, margin - x))",
        {"x": f"g * k{_divisor(p)}", "y": None},
        ("k: 1 where y = 1, -1 where y = -1 and x <= margin, else 0",) + _note(p),
    )


@composite("soft_margin_loss", lambda p, v: {"N": p.get("N", 1)})
def _soft_margin(p: dict) -> Rule:
    n = _divisor(p)
    return Rule(
        "soft_margin_loss",
        "log(1 + exp(-y * x))",
        {"x": f"-g * y * sigmoid(-y * x){n}", "y": f"-g * x * sigmoid(-y * x){n}"},
        _note(p),
    )


def _multilabel_symbols(p: dict, v: dict) -> dict:
    w = v.get("w")
    return {**_rows_g(p, v), "C": np.shape(v["x"])[-1], "w": 1.0 if w is None else w}


@composite("multilabel_soft_margin_loss", _multilabel_symbols)
def _multilabel_soft_margin(p: dict) -> Rule:
    n = _divisor(p)
    return Rule(
        "multilabel_soft_margin_loss",
        "-sum(w * (y * log(sigmoid(x)) + (1 - y) * log(sigmoid(-x)))) / C",
        {"x": f"g * w * (sigmoid(x) - y) / C{n}", "y": f"-g * w * x / C{n}", "w": None},
        ("C: the number of classes (the last axis); w: the class weights (1 without)",) + _note(p),
    )


def _multi_margin_symbols(p: dict, v: dict) -> dict:
    x = np.atleast_2d(v["x"])
    t = np.asarray(v["y"]).reshape(-1)
    rows = np.arange(len(t))
    h = p.get("margin", 1.0) - x[rows, t][:, None] + x
    d = np.where(h > 0, 1.0 if p.get("p", 1) == 1 else 2 * h, 0.0)
    d[rows, t] = 0.0
    if v.get("w") is not None:
        d = d * np.asarray(v["w"])[t][:, None]
    onehot = np.zeros_like(x)
    onehot[rows, t] = 1.0
    return {
        **_rows_g(p, v),
        "C": x.shape[1],
        "d": d,
        "onehot": onehot,
        "sum": lambda u: np.sum(u, -1, keepdims=True),  # (over the classes)
    }


@composite("multi_margin_loss", _multi_margin_symbols)
def _multi_margin(p: dict) -> Rule:
    return Rule(
        "multi_margin_loss",
        "sum(w[y] * (1 - onehot) * max(0, margin - x[y] + x) ** p) / C",
        {
            "x": f"g * (d - onehot * sum(d)) / C{_divisor(p)}",
            "y": None,
            "w": None,
        },
        (
            "d: w[y] * p * max(0, margin - x[y] + x[i]) ** (p - 1) where that hinge is > 0 and "
            "i != y, else 0; onehot: 1 at each sample's class; sum: over the classes",
        )
        + _note(p),
    )


def _multilabel_margin_symbols(p: dict, v: dict) -> dict:
    x = np.atleast_2d(v["x"])
    t = np.asarray(v["y"]).reshape(x.shape)
    listed = np.cumprod(t != -1, axis=1).astype(bool)
    rows = np.arange(x.shape[0])[:, None]
    is_target = np.zeros(x.shape, bool)
    r, c = np.nonzero(listed)
    is_target[r, t[r, c]] = True
    z = 1.0 - x[rows, np.where(listed, t, 0)][:, :, None] + x[:, None, :]
    active = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    gains = np.zeros(x.shape)  # (per class: its active hinges as the other class i, less those
    np.add.at(gains, (r, t[r, c]), -active[r, c].sum(-1))  # as the target j)
    gains += active.sum(1)
    return {**_rows_g(p, v), "C": x.shape[1], "a": gains.reshape(np.shape(v["x"]))}


@composite("multilabel_margin_loss", _multilabel_margin_symbols)
def _multilabel_margin(p: dict) -> Rule:
    return Rule(
        "multilabel_margin_loss",
        "sum(m * max(0, 1 - x[y] + x)) / C",
        {"x": f"g * a / C{_divisor(p)}", "y": None},
        (
            "y: each target class listed (before the first -1); m: 1 for the classes not listed",
            "a: per class, the hinges > 0 it is the other class of, less those it is the target "
            "of; C: the number of classes",
        )
        + _note(p),
    )


def _cosine_symbols(p: dict, v: dict) -> dict:
    x1, x2, y = np.atleast_2d(v["x1"]), np.atleast_2d(v["x2"]), np.atleast_1d(v["y"])[:, None]
    q1 = np.sum(x1 * x1, -1, keepdims=True) + 1e-12
    q2 = np.sum(x2 * x2, -1, keepdims=True) + 1e-12
    s = np.sum(x1 * x2, -1, keepdims=True)
    r = np.sqrt(q1 * q2)
    cos = s / r
    k = np.where(y == 1, -1.0, np.where((y == -1) & (cos - p.get("margin", 0.0) >= 0), 1.0, 0.0))
    return {**_rows_g(p, v), "q1": q1, "q2": q2, "s": s, "r": r, "k": k}


@composite("cosine_embedding_loss", _cosine_symbols)
def _cosine_embedding(p: dict) -> Rule:
    n = _divisor(p)
    return Rule(
        "cosine_embedding_loss",
        "where(y == 1, 1 - s / r, max(0, s / r - margin))",
        {
            "x1": f"g * k * (x2 / r - s * x1 / (q1 * r)){n}",
            "x2": f"g * k * (x1 / r - s * x2 / (q2 * r)){n}",
            "y": None,
        },
        (
            "s = sum(x1 * x2), q = sum(x * x) + 1e-12, r = sqrt(q1 * q2) (along the last axis)",
            "k: -1 where y = 1, 1 where y = -1 and cos >= margin, else 0",
        )
        + _note(p),
    )


def _unit(d: np.ndarray, p: float, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """(||d||_p along axis, kept; its gradient sign(d) |d| ** (p - 1) / ||d|| ** (p - 1))."""
    norm = np.sum(np.abs(d) ** p, axis, keepdims=True) ** (1 / p)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(norm > 0, np.sign(d) * np.abs(d) ** (p - 1) / norm ** (p - 1), 0.0)
    return norm, u


def _triplet_symbols(p: dict, v: dict) -> dict:
    a, pos, neg = (np.atleast_2d(v[k]) for k in ("a", "p", "n"))
    power, eps = p.get("p", 2.0), p.get("eps", 1e-6)
    d_p, u_p = _unit(a - pos + eps, power)
    d_n, u_n = _unit(a - neg + eps, power)
    d_s, u_s = _unit(pos - neg + eps, power)
    s = np.where(d_s < d_n, 1.0, np.where(d_s == d_n, 0.5, 0.0)) if p.get("swap") else 0.0
    d_neg = np.minimum(d_n, d_s) if p.get("swap") else d_n
    k = (p.get("margin", 1.0) + d_p - d_neg >= 0).astype(float)
    return {**_rows_g(p, v), "u_p": u_p, "u_n": u_n, "u_s": u_s, "s": s, "k": k}


@composite("triplet_margin_loss", _triplet_symbols)
def _triplet_margin(p: dict) -> Rule:
    n = _divisor(p)
    return Rule(
        "triplet_margin_loss",
        "max(0, margin + d(a, p) - d(a, n))",
        {
            "a": f"g * k * (u_p - (1 - s) * u_n){n}",
            "p": f"g * k * (-u_p - s * u_s){n}",
            "n": f"g * k * ((1 - s) * u_n + s * u_s){n}",
        },
        (
            "d(u, v) = ||u - v + eps||_p; u_p, u_n, u_s: its gradients for (a, p), (a, n), (p, n)",
            "k: 1 where the hinge is >= 0; s: 1 where swap=True picks d(p, n) (1/2 at a tie)",
        )
        + _note(p),
    )


def _distance_triplet_symbols(p: dict, v: dict) -> dict:
    # (k and s come with the call: the distances are outputs of the user's function, whose
    # values a tool cannot always recompute)
    return {"g": np.asarray(v["g"]), "N": p.get("N", 1), "k": p.get("k", 1.0), "s": p.get("s", 0.0)}


@composite(
    "triplet_margin_with_distance_loss",
    _distance_triplet_symbols,
    variants=(("swap=True", {"swap": True}),),
)
def _triplet_with_distance(p: dict) -> Rule:
    n = _divisor(p)
    notes = (
        "d_ap, d_an, d_pn: distance_function(a, p), (a, n), (p, n), each recorded as the ops it "
        "ran (their gradients are theirs)",
        "k: 1 where the hinge is >= 0",
    )
    if not p.get("swap"):
        return Rule(
            "triplet_margin_with_distance_loss",
            "max(0, margin + d_ap - d_an)",
            {"d_ap": f"g * k{n}", "d_an": f"-g * k{n}"},
            notes + _note(p),
        )
    return Rule(
        "triplet_margin_with_distance_loss",
        "max(0, margin + d_ap - min(d_an, d_pn))",
        {"d_ap": f"g * k{n}", "d_an": f"-g * k * (1 - s){n}", "d_pn": f"-g * k * s{n}"},
        notes + ("s: 1 where d_pn < d_an (swap picks it), 1/2 at a tie",) + _note(p),
    )


# ---- divergence and likelihoods ----------------------------------------------------------------
def _kl_symbols(p: dict, v: dict) -> dict:
    reduction = p.get("reduction", "mean")
    divisor = {"mean": p.get("N", 1), "batchmean": p.get("batch", 1)}.get(reduction, 1)
    y = np.asarray(v["y"])
    with np.errstate(invalid="ignore"):
        return {"D": divisor, "log_y": np.where(y == 0, 0.0, np.log(np.where(y == 0, 1.0, y)))}


@composite("kl_div", _kl_symbols, variants=(("log_target=True", {"log_target": True}),))
def _kl_div(p: dict) -> Rule:
    note = ("D: N for 'mean', the batch size for 'batchmean', 1 for 'sum'",)
    if p.get("log_target"):
        return Rule(
            "kl_div",
            "exp(y) * (y - x)",
            {"x": "-g * exp(y) / D", "y": "g * exp(y) * (y - x + 1) / D"},
            note,
        )
    return Rule(
        "kl_div", "y * (log(y) - x)", {"x": "-g * y / D", "y": "g * (log_y + 1 - x) / D"}, note
    )


def _poisson_symbols(p: dict, v: dict) -> dict:
    y = np.asarray(v["y"])
    counted = y > 1
    safe = np.where(counted, y, 1.0)
    stirling = np.where(counted, np.log(safe) + 1 / (2 * safe), 0.0) if p.get("full") else 0.0
    return {"N": p.get("N", 1), "eps": p.get("eps", 1e-8), "dS": stirling}


@composite("poisson_nll_loss", _poisson_symbols)
def _poisson_nll(p: dict) -> Rule:
    n = _divisor(p)
    if p.get("log_input", True):
        expr, x, y = "exp(x) - y * x", f"g * (exp(x) - y){n}", f"g * (dS - x){n}"
    else:
        expr, x, y = "x - y * log(x + eps)", f"g * (1 - y / (x + eps)){n}", "g * (dS - "
        y += f"log(x + eps)){n}"
    notes = ("dS: the derivative of Stirling's term (full=True, where y > 1), else 0",)
    return Rule("poisson_nll_loss", expr, {"x": x, "y": y}, notes + _note(p))


def _gaussian_symbols(p: dict, v: dict) -> dict:
    var = np.asarray(v["var"], float)
    return {"N": p.get("N", 1), "v": np.maximum(var, p.get("eps", 1e-6))}


@composite("gaussian_nll_loss", _gaussian_symbols)
def _gaussian_nll(p: dict) -> Rule:
    n = _divisor(p)
    return Rule(
        "gaussian_nll_loss",
        "(log(v) + (x - y) ** 2 / v) / 2"
        + (f" + {0.5 * math.log(2 * math.pi):.4f}" if p.get("full") else ""),
        {
            "x": f"g * (x - y) / v{n}",
            "y": f"-g * (x - y) / v{n}",
            "var": f"g * (1 / v - (x - y) ** 2 / v ** 2) / 2{n}",
        },
        ("v: var clamped below at eps (the value only)",) + _note(p),
    )


# ---- distances ----------------------------------------------------------------------------------
def _cosine_similarity_symbols(p: dict, v: dict) -> dict:
    dim, eps = p.get("dim", 1), p.get("eps", 1e-8)
    x1, x2 = np.broadcast_arrays(np.asarray(v["x1"]), np.asarray(v["x2"]))
    r1 = np.sqrt(np.sum(x1 * x1, dim, keepdims=True))
    r2 = np.sqrt(np.sum(x2 * x2, dim, keepdims=True))
    n1, n2 = np.maximum(r1, eps), np.maximum(r2, eps)
    s = np.sum(x1 * x2, dim, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        c1, c2 = np.where(r1 > 0, 1 / r1, 0.0), np.where(r2 > 0, 1 / r2, 0.0)
    g = np.expand_dims(np.asarray(v["g"]), dim)
    return {"n1": n1, "n2": n2, "s": s, "c1": c1, "c2": c2, "g": g}


@composite("cosine_similarity", _cosine_similarity_symbols)
def _cosine_similarity(p: dict) -> Rule:
    return Rule(
        "cosine_similarity",
        "sum(x1 * x2) / (n1 * n2)",
        {
            "x1": "g * (x2 / (n1 * n2) - s * x1 * c1 / (n1 ** 2 * n2))",
            "x2": "g * (x1 / (n1 * n2) - s * x2 * c2 / (n1 * n2 ** 2))",
        },
        (
            "n = max(||x||, eps) along dim, s = sum(x1 * x2); c = 1 / ||x|| (the norm's own "
            "gradient: PyTorch clamps its value only)",
        ),
    )


def _pairwise_symbols(p: dict, v: dict) -> dict:
    d = np.asarray(v["x1"]) - np.asarray(v["x2"]) + p.get("eps", 1e-6)
    _, u = _unit(d, p.get("p", 2.0))
    g = np.asarray(v["g"])
    return {"u": u, "g": g if p.get("keepdim") else np.expand_dims(g, -1)}


@composite("pairwise_distance", _pairwise_symbols)
def _pairwise_distance(p: dict) -> Rule:
    return Rule(
        "pairwise_distance",
        "norm_p(x1 - x2 + eps)",
        {"x1": "g * u", "x2": "-g * u"},
        ("u = sign(d) * |d| ** (p - 1) / ||d|| ** (p - 1), d = x1 - x2 + eps (last axis)",),
    )


def _pdist_symbols(p: dict, v: dict) -> dict:
    x = np.asarray(v["x"])
    first, second = np.triu_indices(len(x), 1)
    _, u = _unit(x[first] - x[second], p.get("p", 2.0))

    def rows(pairs: Any) -> np.ndarray:
        out = np.zeros_like(x)
        np.add.at(out, first, pairs)
        np.add.at(out, second, -pairs)
        return out

    return {"u": u, "rows": rows, "g": np.asarray(v["g"])[:, None]}


@composite("pdist", _pdist_symbols)
def _pdist(p: dict) -> Rule:
    return Rule(
        "pdist",
        "norm_p(x[i] - x[j])",
        {"x": "rows(g * u)"},
        (
            "one value per pair of rows i < j; u: each pair's unit direction (norm_p's gradient); "
            "rows adds it to row i and subtracts it from row j",
        ),
    )
