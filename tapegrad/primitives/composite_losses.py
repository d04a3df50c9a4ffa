"""The textbook rules of the losses (F.cross_entropy, nll_loss, mse_loss, ...), each for the way it
was called: the reduction ('mean' divides by N, 'none' has one g per sample), class weights,
ignore_index and label smoothing appear in the rule only when the call used them.

Layer L1: numpy and composites.py's machinery (see there). A call's params, as the losses record
them: reduction, axis (the class axis), C (classes), N (the 'mean' divisor), weight (given or not),
ignored (some target equals ignore_index), eps (label smoothing), probs (class probabilities).
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite, normalised, softplus

_MEAN = (("reduction='sum'", {"reduction": "sum"}),)


def _per_sample_g(p: dict, v: dict) -> dict:
    """With reduction='none', g holds one value per sample: put the class axis back in it."""
    if p.get("reduction") == "none" and "axis" in p:
        return {"g": np.expand_dims(v["g"], p["axis"])}
    return {}


def _mean(p: dict, text: str) -> str:
    return f"{text} / N" if p.get("reduction", "mean") == "mean" else text


def _n_note(p: dict, samples: str = "samples") -> tuple:
    if p.get("reduction", "mean") == "none":
        return ("g: one value per sample (reduction='none')",)
    if p.get("reduction", "mean") == "sum":
        return ()
    n = f" = {p['N']:g}" if "N" in p else ""
    if p.get("weight"):
        return (f"N{n}: the summed weights w[y] of the counted {samples}",)
    if p.get("ignored"):
        return (f"N{n}: the number of {samples} whose target is not ignore_index",)
    return (f"N{n}: the number of {samples}",)


# ---- classification by class index -----------------------------------------------------------
def _class_refine(p: dict, c: dict) -> dict:
    """Class probabilities (a float target, or one on the tape) or indices, some ignored."""
    y = c.get("y")
    p["probs"] = y is None or np.asarray(y).dtype.kind == "f"
    p["ignored"] = not p["probs"] and bool(np.any(np.asarray(y) == p.get("ignore_index", -100)))
    return p


def _class_symbols(p: dict, v: dict) -> dict:
    axis, y, x = p.get("axis", 1), v["y"], v["x"]
    n_classes = x.shape[axis]
    symbols = {**_per_sample_g(p, v), "C": n_classes, "eps": p.get("eps", 0.0)}
    symbols["softmax"] = lambda t: normalised(t, axis)
    symbols["log_softmax"] = lambda t: np.log(normalised(t, axis))
    symbols["sum"] = np.sum
    if p.get("probs"):
        symbols["sum"] = lambda t, axis=None: np.sum(t, axis=axis, keepdims=axis is not None)
        if p.get("weight"):
            symbols["w"] = np.reshape(v["w"], (-1,) + (1,) * (x.ndim - 1 - axis))
        symbols["q"] = (1 - p.get("eps", 0.0)) * y + p.get("eps", 0.0) / n_classes
    else:
        kept = y != p.get("ignore_index", -100)
        safe = np.where(kept, y, 0)
        onehot = np.expand_dims(safe, axis) == np.arange(n_classes).reshape(
            (-1,) + (1,) * (x.ndim - 1 - axis)
        )
        symbols["onehot"] = lambda t: (onehot & np.expand_dims(kept, axis)).astype(x.dtype)
        symbols["kept"] = np.expand_dims(kept, axis).astype(x.dtype)
        w = v.get("w")
        if w is not None:
            symbols["w_y"] = np.expand_dims(np.where(kept, w[safe], 0), axis).astype(x.dtype)
            symbols["w"] = np.reshape(w, (-1,) + (1,) * (x.ndim - 1 - axis))
        symbols["q"] = (1 - p.get("eps", 0.0)) * symbols["onehot"](y) + p.get("eps", 0.0) / (
            n_classes
        )
    symbols["N"] = p.get("N", 1)
    return symbols


def _cross_entropy_x(p: dict) -> str:
    """dL/dx (logits), without the g and the / N (a product, or in brackets): which targets,
    weights, smoothing and ignored samples the call had."""
    kept = "kept * " if p.get("ignored") else ""
    if p.get("probs"):
        target = "q" if p.get("eps") else "y"
        a = f"w * {target}" if p.get("weight") else target
        axis = p.get("axis", 1)
        return f"(softmax(x) * sum({a}, axis={axis}) - {a})"
    if p.get("weight") and p.get("eps"):
        return (
            f"((1 - eps) * w_y * (softmax(x) - onehot(y)) + eps / C * {kept}"
            f"(sum(w) * softmax(x) - w))"
        )
    if p.get("weight"):
        return "w_y * (softmax(x) - onehot(y))"
    target = "q" if p.get("eps") else "onehot(y)"
    return f"{kept}(softmax(x) - {target})"


def _cross_entropy_notes(p: dict) -> tuple:
    notes = list(_n_note(p))
    if p.get("probs"):
        notes.append(f"y: class probabilities; sums over the classes (axis {p.get('axis', 1)})")
    else:
        notes.append("onehot(y): 1 at each sample's target class, 0 elsewhere")
    if p.get("eps"):
        q = "(1 - eps) * y + eps / C" if p.get("probs") else "(1 - eps) * onehot(y) + eps / C"
        notes.append(f"q = {q}, the smoothed target (eps = {p['eps']:g}, C classes)")
    if p.get("weight"):
        notes.append("w: the class weights; w_y: the weight of each sample's target (0 if ignored)")
    elif p.get("ignored"):
        notes.append("kept: 1 for a counted sample, 0 where the target is ignore_index")
    return tuple(notes)


_CLASS_VARIANTS = (
    *_MEAN,
    ("weight=w", {"weight": True}),
    ("ignore_index", {"ignored": True}),
    ("label_smoothing=eps", {"eps": 0.1}),
    ("class probabilities y", {"probs": True}),
)


def _cross_entropy_of(p: dict, logits: str) -> tuple[str, str, str | None]:
    """(the forward, g * dL/dlogits, dL/dy or None) of cross_entropy on `logits` ("x", or "z"
    for linear_cross_entropy's), as the call's params say."""
    reduce = {"mean": "mean", "sum": "sum", "none": ""}[p.get("reduction", "mean")]
    picked = f"-sum(y * log_softmax({logits}))" if p.get("probs") else f"-log_softmax({logits})[y]"
    dlogits = "g * " + _cross_entropy_x(p).replace("softmax(x)", f"softmax({logits})")
    dy = None
    if p.get("probs"):
        smoothing = "(1 - eps) * " if p.get("eps") else ""
        weight = "w * " if p.get("weight") else ""
        dy = _mean(p, f"-g * {smoothing}{weight}log_softmax({logits})")
    return (f"{reduce}({picked})" if reduce else picked), dlogits, dy


@composite("cross_entropy", _class_symbols, refine=_class_refine, variants=_CLASS_VARIANTS)
def _cross_entropy(p: dict) -> Rule:
    expr, dx, dy = _cross_entropy_of(p, "x")
    return Rule("cross_entropy", expr, {"x": _mean(p, dx), "y": dy}, _cross_entropy_notes(p))


def _linear_class_symbols(p: dict, v: dict) -> dict:
    """cross_entropy's symbols for the logits z = x @ T(W) + b (one row of C per sample)."""
    z = v["x"] @ np.swapaxes(v["W"], -1, -2)
    z = z if v.get("b") is None else z + v["b"]
    return {**_class_symbols(p, {**v, "x": z}), "z": z}


@composite(
    "linear_cross_entropy",
    _linear_class_symbols,
    refine=_class_refine,
    variants=_CLASS_VARIANTS,
)
def _linear_cross_entropy(p: dict) -> Rule:
    """cross_entropy's rule on the logits z, carried through z = x @ T(W) + b."""
    expr, dz, dy = _cross_entropy_of(p, "z")
    rules = {
        "x": _mean(p, f"({dz}) @ W"),
        "W": _mean(p, f"T({dz}) @ x"),
        "b": _mean(p, f"sum({dz}, axis=0)"),
        "y": dy,
    }
    notes = ("z = x @ T(W) + b: the logits, one row of C classes per sample",)
    return Rule("linear_cross_entropy", expr, rules, notes + _cross_entropy_notes(p))


@composite(
    "nll_loss",
    _class_symbols,
    refine=_class_refine,
    variants=(*_MEAN, ("weight=w", {"weight": True}), ("ignore_index", {"ignored": True})),
)
def _nll_loss(p: dict) -> Rule:
    reduce = {"mean": "mean", "sum": "sum", "none": ""}[p.get("reduction", "mean")]
    factor = "w_y * " if p.get("weight") else "kept * " if p.get("ignored") else ""
    notes = list(_n_note(p)) + ["onehot(y): 1 at each sample's target class, 0 elsewhere"]
    if p.get("weight"):
        notes.append("w_y: the weight of each sample's target class (0 if ignored)")
    elif p.get("ignored"):
        notes.append("kept: 1 for a counted sample, 0 where the target is ignore_index")
    return Rule(
        "nll_loss",
        f"{reduce}(-x[y])" if reduce else "-x[y]",
        {"x": _mean(p, f"-g * {factor}onehot(y)"), "y": None},
        tuple(notes),
    )


# ---- regression ------------------------------------------------------------------------------
def _elementwise_symbols(p: dict, v: dict) -> dict:
    symbols = {"N": p.get("N", 1)}
    for name in ("beta", "delta"):
        if name in p:
            symbols[name] = p[name]
    return symbols


def _regression(name: str, expr: str, dx: str, p: dict, factor: str = "") -> Rule:
    """A loss of d = x - y elementwise: dL/dx = factor g dx, dL/dy its negative."""
    weight = "w * " if p.get("weight") else ""
    notes = list(_n_note(p, "elements"))
    if p.get("weight"):
        notes = [n.replace("w[y]", "w") for n in notes] + ["w: the per-element weights"]
    reduce = {"mean": "mean", "sum": "sum", "none": ""}[p.get("reduction", "mean")]
    return Rule(
        name,
        f"{reduce}({weight}{expr})" if reduce else f"{weight}{expr}",
        {
            "x": _mean(p, f"{factor}g * {weight}{dx}"),
            "y": _mean(p, f"-{factor}g * {weight}{dx}"),
        },
        tuple(notes),
    )


_REGRESSION_VARIANTS = (*_MEAN, ("weight=w", {"weight": True}))


def _weighted_refine(p: dict, c: dict) -> dict:
    """Weights given or not; PyTorch's weighted mean of mse and l1 divides by their sum."""
    p["weight"] = c.get("w") is not None
    if p["weight"] and p.get("reduction") == "mean":
        p["N"] = float(np.sum(c["w"]))
    return p


@composite("mse_loss", _elementwise_symbols, _REGRESSION_VARIANTS, _weighted_refine)
def _mse_loss(p: dict) -> Rule:
    return _regression("mse_loss", "(x - y) ** 2", "(x - y)", p, factor="2 * ")


@composite("l1_loss", _elementwise_symbols, _REGRESSION_VARIANTS, _weighted_refine)
def _l1_loss(p: dict) -> Rule:
    return _regression("l1_loss", "abs(x - y)", "sign(x - y)", p)


@composite("smooth_l1_loss", _elementwise_symbols, _MEAN)
def _smooth_l1_loss(p: dict) -> Rule:
    if p.get("beta", 1.0) == 0:
        return _regression("smooth_l1_loss", "abs(x - y)", "sign(x - y)", p)
    made = _regression(
        "smooth_l1_loss",
        "where(abs(x - y) < beta, (x - y) ** 2 / (2 * beta), abs(x - y) - beta / 2)",
        "where(abs(x - y) < beta, (x - y) / beta, sign(x - y))",
        p,
    )
    return Rule(made.name, made.expr, made.rules, made.notes + (f"beta = {p.get('beta', 1.0)}",))


@composite("huber_loss", _elementwise_symbols, _REGRESSION_VARIANTS)
def _huber_loss(p: dict) -> Rule:
    made = _regression(
        "huber_loss",
        "where(abs(x - y) < delta, (x - y) ** 2 / 2, delta * (abs(x - y) - delta / 2))",
        "where(abs(x - y) < delta, x - y, delta * sign(x - y))",
        p,
    )
    return Rule(made.name, made.expr, made.rules, made.notes + (f"delta = {p.get('delta', 1.0)}",))


# ---- binary classification -------------------------------------------------------------------
@composite("binary_cross_entropy", _elementwise_symbols, _REGRESSION_VARIANTS)
def _binary_cross_entropy(p: dict) -> Rule:
    w = "w * " if p.get("weight") else ""
    reduce = {"mean": "mean", "sum": "sum", "none": ""}[p.get("reduction", "mean")]
    loss = f"-{w}(y * log(x) + (1 - y) * log(1 - x))"
    return Rule(
        "binary_cross_entropy",
        f"{reduce}({loss})" if reduce else loss,
        {
            "x": _mean(p, f"g * {w}(x - y) / (x * (1 - x))"),
            "y": _mean(p, f"g * {w}(log(1 - x) - log(x))"),
        },
        _n_note(p, "elements") + (("w: the weights",) if p.get("weight") else ()),
    )


def _logits_symbols(p: dict, v: dict) -> dict:
    return {"N": p.get("N", 1), "softplus": softplus}


@composite(
    "binary_cross_entropy_with_logits",
    _logits_symbols,
    variants=(*_REGRESSION_VARIANTS, ("pos_weight=p", {"pos_weight": True})),
)
def _bce_with_logits(p: dict) -> Rule:
    w = "w * " if p.get("weight") else ""
    reduce = {"mean": "mean", "sum": "sum", "none": ""}[p.get("reduction", "mean")]
    if p.get("pos_weight"):
        loss = "(1 - y) * softplus(x) + p * y * softplus(-x)"
        x, y = "(1 - y + p * y) * sigmoid(x) - p * y", "p * softplus(-x) - softplus(x)"
    else:
        loss, x, y = "softplus(x) - x * y", "sigmoid(x) - y", "-x"
    notes = _n_note(p, "elements") + ("softplus(x) = log(1 + exp(x))",)
    if p.get("pos_weight"):
        notes += ("p: the weight of the positive examples (pos_weight)",)
    return Rule(
        "binary_cross_entropy_with_logits",
        f"{reduce}({w}({loss}))" if reduce else f"{w}({loss})",
        {"x": _mean(p, f"g * {w}({x})"), "y": _mean(p, f"g * {w}({y})")},
        notes,
    )
