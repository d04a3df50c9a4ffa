"""F.ctc_loss: the connectionist temporal classification loss, -log of the probability that the
per-step class distributions spell each target once the repeats are merged and the blanks dropped
(PyTorch's arguments: targets padded (N, S) or concatenated, lengths as tensors or sequences).

The forward (alpha) recursion over the blank-extended target runs as recorded ops (gather,
logsumexp, where), so the gradient and its own derivatives are the tape's; an unreachable state
holds a large negative number instead of -inf, whose gradients are exact zeros where -inf would
give NaN. Layer L5: imports tensor.py and functional_loss (the reduction checks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tape.composite import mark
from ..tensor import Tensor
from ..math import cat, stack, where
from .functional_loss import reduction_mode

__all__ = ["ctc_loss"]

_UNREACHABLE = -1e30  # (log 0 kept finite: exp(-1e30 - x) is 0, its gradients 0, never NaN)


def _lengths(values: Any, name: str, batch: int) -> np.ndarray:
    """input_lengths / target_lengths (a tensor, a sequence or, unbatched, a number) as ints."""
    given = values.numpy() if isinstance(values, Tensor) else np.asarray(values)
    if given.dtype.kind not in "iu" or given.ndim > 1:
        raise TypeError(
            f"ctc_loss: {name} must be integers (a tensor, tuple or list), one per sequence, got "
            f"{given.dtype} of shape {given.shape}"
        )
    flat = given.reshape(-1).astype(np.int64)
    if flat.size != batch:
        raise RuntimeError(f"ctc_loss: {name} must have {batch} entries, got {flat.size}")
    if (flat < 0).any():
        raise RuntimeError(f"ctc_loss: {name} must be non-negative, got {flat.tolist()}")
    return flat


def _labels(targets: Any, target_lengths: np.ndarray, classes: int, blank: int) -> list:
    """Each sequence's target labels, from padded (N, S) or concatenated targets."""
    given = targets.numpy() if isinstance(targets, Tensor) else np.asarray(targets)
    if given.dtype.kind not in "iuf":
        raise TypeError(f"ctc_loss: targets must hold class indices, got {given.dtype}")
    given = given.astype(np.int64)
    if given.ndim == 2 and len(target_lengths) > 0:
        if given.shape[1] < target_lengths.max():
            raise RuntimeError(
                f"ctc_loss: padded targets have {given.shape[1]} columns, fewer than the longest "
                f"target_length {target_lengths.max()}"
            )
        labels = [given[n, :length] for n, length in enumerate(target_lengths)]
    elif given.ndim == 1:
        if given.size != target_lengths.sum():
            raise RuntimeError(
                f"ctc_loss: concatenated targets must have sum(target_lengths) = "
                f"{target_lengths.sum()} entries, got {given.size}"
            )
        labels = np.split(given, np.cumsum(target_lengths)[:-1])
    else:
        raise RuntimeError(f"ctc_loss: targets must be 1-D or 2-D, got shape {given.shape}")
    for label in labels:
        if ((label < 0) | (label >= classes) | (label == blank)).any():
            raise IndexError(
                f"ctc_loss: target labels must be classes in [0, {classes}) other than the blank "
                f"{blank}, got {label.tolist()}"
            )
    return labels


def _extended(labels: list, blank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The blank-extended targets (blank, l1, blank, l2, ..., blank) padded with blanks, whether
    state s may be reached from s - 2 (a label unlike the one two back), and the states' count."""
    states = np.array([2 * len(label) + 1 for label in labels], dtype=np.int64)
    width = int(states.max()) if len(states) else 1
    ext = np.full((len(labels), width), blank, dtype=np.int64)
    for n, label in enumerate(labels):
        ext[n, 1 : 2 * len(label) : 2] = label
    skip = np.zeros(ext.shape, bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, skip, states


def ctc_loss(
    log_probs: Tensor,
    targets: Any,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """-log p(target | log_probs) per sequence: log_probs (T, N, C) (or (T, C)) are log-softmax
    outputs, targets the label sequences without blanks. 'mean' divides each loss by its target
    length, then averages; zero_infinity=True makes impossible alignments 0 (else inf).

    >>> lp = tg.randn(5, 2, 4).log_softmax(2)
    >>> F.ctc_loss(lp, tg.tensor([[1, 2], [3, 3]]), (5, 5), (2, 2)).shape
    ()
    """
    if not isinstance(log_probs, Tensor):
        raise TypeError(f"ctc_loss: log_probs must be a tapegrad Tensor, got {type(log_probs)}")
    reduction = reduction_mode(None, None, reduction)
    if log_probs.ndim not in (2, 3) or log_probs.dtype.kind != "f":
        raise RuntimeError(
            f"ctc_loss: log_probs must be floating, (T, N, C) or unbatched (T, C), got "
            f"{log_probs.dtype} of shape {log_probs.shape}"
        )
    if log_probs.dtype.itemsize < 4:  # (PyTorch's CPU kernel refuses them too)
        raise NotImplementedError(
            f"ctc_loss is not implemented for {log_probs.dtype}: use float32 or float64"
        )
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs[:, None]
    steps, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise RuntimeError(f"ctc_loss: blank must be in label range [0, {classes}), got {blank}")
    frames = _lengths(input_lengths, "input_lengths", batch)
    if (frames > steps).any():
        raise RuntimeError(
            f"ctc_loss: input_lengths must be at most the {steps} time steps, got {frames}"
        )
    lengths = _lengths(target_lengths, "target_lengths", batch)
    labels = _labels(targets, lengths, classes, blank)
    ext, skip, states = _extended(labels, blank)
    chosen = lp[:, np.arange(batch)[:, None], ext]  # (T, N, S'): each state's log-probability
    reachable = np.arange(ext.shape[1]) < states[:, None]
    floor = Tensor(np.full(ext.shape, _UNREACHABLE, lp.dtype))
    start = np.arange(ext.shape[1]) < np.minimum(states, 2)[:, None]  # (the blank, label 1)
    alpha = where(Tensor(start), chosen[0], floor)
    pad = Tensor(np.full((batch, 1), _UNREACHABLE, lp.dtype))
    for t in range(1, steps):
        one_back = cat([pad, alpha[:, :-1]], 1)
        two_back = where(Tensor(skip), cat([pad, pad, alpha[:, :-2]], 1), floor)
        step = stack([alpha, one_back, two_back]).logsumexp(0) + chosen[t]
        running = Tensor((t < frames)[:, None] & reachable)  # (past its length: frozen)
        alpha = where(running, step, alpha)
    ends = np.stack([states - 1, np.maximum(states - 2, 0)], 1)
    last = alpha[np.arange(batch)[:, None], ends]
    floor_ends = Tensor(np.full((batch, 2), _UNREACHABLE, lp.dtype))
    last = where(Tensor(np.stack([states > 0, states > 1], 1)), last, floor_ends)
    nll = -last.logsumexp(1)
    possible = (frames > 0) | (lengths == 0)  # (no frames spell only the empty target)
    possible &= nll.detach().numpy() < -_UNREACHABLE / 2
    stand_in = Tensor(np.full(batch, 0.0 if zero_infinity else np.inf, lp.dtype))
    nll = where(Tensor(possible), where(Tensor(frames > 0), nll, nll * 0), stand_in)
    if reduction == "mean":
        out = (nll / Tensor(np.maximum(lengths, 1).astype(lp.dtype))).mean()
    else:
        out = nll.sum() if reduction == "sum" or not batched else nll
    params = {"reduction": reduction, "blank": blank, "batched": batched, "frames": frames}
    params.update({"labels": labels, "possible": possible, "lengths": lengths})
    return mark(out, "ctc_loss", ("x",), (log_probs,), params)
