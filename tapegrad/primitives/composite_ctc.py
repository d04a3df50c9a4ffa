"""The textbook rule of F.ctc_loss: the gradient of -log p(target | x) in x[t, n, k] is minus the
probability that an alignment of sequence n emits class k at step t, from the forward (alpha)
and backward (beta) variables over the blank-extended target.

Layer L1: numpy and composites.py's machinery (see there for what a rule and its symbols are).
The symbols below run the forward-backward in NumPy: an independent account of what F.ctc_loss
records (its forward recursion as tape ops), which the tests hold equal to the tape's gradients.
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite


def _log_variables(x: np.ndarray, ext: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """alpha and beta, (T, S') in log space, of one sequence (x: (T, C), ext: the blank-extended
    target); each includes the emission at its own step."""
    steps, width = len(x), len(ext)
    skip = np.zeros(width, bool)
    skip[2:] = (ext[2:] != ext[0]) & (ext[2:] != ext[:-2])
    emit = x[:, ext]
    alpha = np.full((steps, width), -np.inf)
    alpha[0, : min(width, 2)] = emit[0, : min(width, 2)]
    for t in range(1, steps):
        prev = alpha[t - 1]
        total = np.logaddexp(prev, np.concatenate([[-np.inf], prev[:-1]]))
        total = np.logaddexp(
            total, np.where(skip, np.concatenate([[-np.inf] * 2, prev[:-2]]), -np.inf)
        )
        alpha[t] = total + emit[t]
    beta = np.full((steps, width), -np.inf)
    beta[-1, max(width - 2, 0) :] = emit[-1, max(width - 2, 0) :]
    ahead = np.zeros(width, bool)  # (state s may jump to s + 2)
    ahead[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        total = np.logaddexp(nxt, np.concatenate([nxt[1:], [-np.inf]]))
        total = np.logaddexp(
            total, np.where(ahead, np.concatenate([nxt[2:], [-np.inf] * 2]), -np.inf)
        )
        beta[t] = total + emit[t]
    return alpha, beta


def occupancy(x: np.ndarray, p: dict) -> np.ndarray:
    """(T, N, C): the probability that sequence n's alignments emit class k at step t (0 past its
    input length, and for an impossible or empty alignment)."""
    batched = x.ndim == 3
    x = x if batched else x[:, None]
    out = np.zeros(x.shape)
    for n, (label, frames) in enumerate(zip(p["labels"], p["frames"])):
        if not p["possible"][n] or frames == 0:
            continue
        ext = np.full(2 * len(label) + 1, p["blank"])
        ext[1::2] = label
        alpha, beta = _log_variables(x[:frames, n], ext)
        log_likelihood = np.logaddexp.reduce(alpha[-1, max(len(ext) - 2, 0) :])
        mass = np.exp(alpha + beta - x[:frames, n][:, ext] - log_likelihood)
        for s, k in enumerate(ext):
            out[:frames, n, k] += mass[:, s]
    return out if batched else out[:, 0]


def _ctc_symbols(p: dict, v: dict) -> dict:
    lengths = np.maximum(p["lengths"], 1)
    weight = 1.0 / (len(lengths) * lengths) if p["reduction"] == "mean" else np.ones(len(lengths))
    g = np.asarray(v["g"], np.float64)
    if p["reduction"] == "none" and p["batched"]:
        g = g[None, :, None]
    w = weight[None, :, None] if p["batched"] else weight[0]
    return {"g": g, "w": w, "occupancy": lambda x: occupancy(np.asarray(x, np.float64), p)}


@composite("ctc_loss", _ctc_symbols, variants=(("reduction='sum'", {"reduction": "sum"}),))
def _ctc_loss(p: dict) -> Rule:
    w = "w * " if p.get("reduction", "mean") == "mean" else ""
    return Rule(
        "ctc_loss",
        "-logsumexp(paths(x))",
        {"x": f"-g * {w}occupancy(x)"},
        (
            "paths(x): sum over t of x[t, a_t], for each alignment a of the target (a label or "
            "the blank a step, collapsing to the target once repeats merge and blanks drop)",
            "occupancy(x)[t, n, k]: the probability that an alignment of sequence n emits class k "
            "at step t, sum over the blank-extended target's states s showing k of "
            "exp(alpha_t(s) + beta_t(s) - x[t, n, k] + loss_n); 0 past the input length and "
            "where no alignment exists",
            "w: 1 / (N * the sequence's target length) (reduction='mean')",
        ),
    )
