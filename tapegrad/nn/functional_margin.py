"""Margin and embedding losses as functions (PyTorch's F. spellings): margin_ranking_loss,
hinge_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss, multi_margin_loss,
multilabel_margin_loss, cosine_embedding_loss, triplet_margin_loss and
triplet_margin_with_distance_loss.

Layer L5: tapegrad ops only (functional_loss.py's reductions and target checks), so each loss is
recorded and differentiable to any order, and marked (`mark`) for the teaching tools (rules:
primitives/composite_margins.py). A hinge max(0, z) passes the gradient where z >= 0 when PyTorch
builds it from clamp_min (ranking, hinge embedding, cosine embedding, triplet), only where z > 0
in multi_margin_loss's kernel, as PyTorch's.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..math import minimum, where
from ..tape.composite import mark
from ..tensor import Tensor
from .functional_distance import pairwise_distance
from .functional_loss import _constant, _input, _reduce, _target, reduction_mode

_XYT = ("x1", "x2", "y")


def _hinge(z: Tensor) -> Tensor:
    """max(z, 0) with the gradient passing at z = 0 (PyTorch's clamp_min)."""
    return z.clip(min=0.0)


def _labels(target: Any, input: Tensor) -> Tensor:
    """The +-1 labels as a constant of input's dtype."""
    values = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    return Tensor(values.astype(input.dtype))


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Any,
    margin: float = 0.0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -y (x1 - x2) + margin): x1 should rank above x2 where y = 1, below where y = -1.

    >>> F.margin_ranking_loss(tg.tensor([1.0]), tg.tensor([2.0]), tg.tensor([1.0]))
    tensor(1.)
    """
    x1, x2 = _input(input1, "margin_ranking_loss"), _input(input2, "margin_ranking_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    y = _target(target, x1)
    if not x1.ndim == x2.ndim == y.ndim:
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {x1.shape}, input2: {x2.shape}, target: {y.shape} "
        )
    losses = _hinge(-y * (x1 - x2) + margin)
    params = {"reduction": reduction, "N": losses._data.size, "margin": margin}
    return mark(_reduce(losses, reduction), "margin_ranking_loss", _XYT, (x1, x2, y), params)


def hinge_embedding_loss(
    input: Tensor,
    target: Any,
    margin: float = 1.0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """x where y = 1, max(0, margin - x) where y = -1 (x: a distance), as PyTorch's (a label
    other than +-1 counts in both parts).

    >>> F.hinge_embedding_loss(tg.tensor([0.3, 2.0]), tg.tensor([-1.0, 1.0]), reduction="none")
    tensor([0.7000, 2.0000])
    """
    x = _input(input, "hinge_embedding_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    labels = _labels(target, x).numpy()
    losses = where(labels != 1, _hinge(margin - x), 0.0) + where(labels != -1, x, 0.0)
    params = {"reduction": reduction, "N": losses._data.size, "margin": margin}
    out = _reduce(losses, reduction)
    return mark(out, "hinge_embedding_loss", ("x", "y"), (x, labels), params)


def _log_sigmoid(z: Tensor) -> Tensor:
    """log(sigmoid(z)) = min(z, 0) - log(1 + exp(-|z|)): exact and finite for any z (the tie at
    0 shares the gradient: 1/2, sigmoid(0))."""
    return minimum(z, 0.0) - (-z.abs()).exp().log1p()


def soft_margin_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """log(1 + exp(-y x)) for labels y = +-1, averaged over every element (computed stably).

    >>> F.soft_margin_loss(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.6931)
    """
    x = _input(input, "soft_margin_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    y = _target(target, x)
    losses = -_log_sigmoid(x * y)
    params = {"reduction": reduction, "N": losses._data.size}
    return mark(_reduce(losses, reduction), "soft_margin_loss", ("x", "y"), (x, y), params)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times weight, averaged over the classes (the
    last axis), then reduced over the samples.

    >>> F.multilabel_soft_margin_loss(tg.tensor([[0.0, 0.0]]), tg.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    x = _input(input, "multilabel_soft_margin_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    y = _target(target, x)
    losses = -(y * _log_sigmoid(x) + (1.0 - y) * _log_sigmoid(-x))
    w = None if weight is None else _constant(weight, x.dtype)
    if w is not None:
        losses = losses * w
    per_sample = losses.sum(-1) / float(x.shape[-1] if x.ndim else 1)
    params = {"reduction": reduction, "N": per_sample._data.size, "weight": w is not None}
    out = _reduce(per_sample, reduction)
    return mark(out, "multilabel_soft_margin_loss", ("x", "y", "w"), (x, y, w), params)


def multi_margin_loss(
    input: Tensor,
    target: Any,
    p: int = 1,
    margin: float = 1.0,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """sum over classes i != y of max(0, margin - x[y] + x[i]) ** p / C (times weight[y]) per
    sample, for input (C,) or (N, C) and class indices y; the gradient passes where the hinge is
    strictly positive, as PyTorch's.

    >>> F.multi_margin_loss(tg.tensor([[0.1, 0.2, 0.4]]), tg.tensor([2]))
    tensor(0.5000)
    """
    x = _input(input, "multi_margin_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: only p == 1 and p == 2 supported, got p={p!r}")
    if x.ndim > 2 or x.ndim and x.shape[-1] == 0:
        raise ValueError(
            f"multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch "
            f"size, but got: {x.shape}"
        )
    rows = x.reshape(1, -1) if x.ndim < 2 else x
    given = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    t = given.reshape(-1)
    n, classes = rows.shape
    if t.dtype.kind not in "iu" or t.size != n:
        raise ValueError(
            f"multi_margin_loss: expected {n} integer class indices as target (one per sample), "
            f"got {t.size} of dtype {t.dtype}"
        )
    if ((t < 0) | (t >= classes)).any():
        raise RuntimeError(f"multi_margin_loss: target out of range (classes 0..{classes - 1})")
    picked = rows[np.arange(n), t].reshape(n, 1)
    z = margin - picked + rows
    others = np.ones((n, classes), bool)
    others[np.arange(n), t] = False
    hinge = where(others & (z.numpy() > 0), z, 0.0)
    hinge = hinge if p == 1 else hinge * hinge
    w = None if weight is None else _constant(weight, x.dtype)
    if w is not None:
        hinge = hinge * w[t].reshape(n, 1)
    per_sample = hinge.sum(1) / float(classes)
    if x.ndim < 2:  # (one sample: its loss has the target's shape, () or (1,), as PyTorch's)
        per_sample = per_sample.reshape(given.shape)
    params = {"reduction": reduction, "N": n, "p": p, "margin": margin, "weight": w is not None}
    out = _reduce(per_sample, reduction)
    return mark(out, "multi_margin_loss", ("x", "y", "w"), (x, t, w), params)


def multilabel_margin_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C per
    sample; target holds each sample's class indices, ended by the first -1 (input (C,) or
    (N, C), target of its shape). The gradient passes where a hinge is strictly positive.

    >>> F.multilabel_margin_loss(tg.tensor([[0.1, 0.2, 0.4, 0.8]]), tg.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    x = _input(input, "multilabel_margin_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    if x.ndim > 2 or x.ndim and x.shape[-1] == 0:
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(x.shape)}"
        )
    given = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    if given.shape != x.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(given.shape)} for input of size: {list(x.shape)}"
        )
    if given.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {given.dtype}")
    rows = x.reshape(1, -1) if x.ndim < 2 else x
    n, classes = rows.shape
    t = given.reshape(n, classes)
    if ((t < -1) | (t >= classes)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(t != -1, axis=1).astype(bool)  # (the indices before the first -1)
    is_target = np.zeros((n, classes), bool)
    rows_of, cols_of = np.nonzero(listed)
    is_target[rows_of, t[rows_of, cols_of]] = True
    picked = rows[np.arange(n)[:, None], np.where(listed, t, 0)]  # x[y_j], (N, C) by j
    z = 1.0 - picked.reshape(n, classes, 1) + rows.reshape(n, 1, classes)  # (N, j, i)
    active = listed[:, :, None] & ~is_target[:, None, :] & (z.numpy() > 0)
    per_sample = where(active, z, 0.0).sum((1, 2)) / float(classes)
    if x.ndim < 2:  # (one sample: its loss is a 0-d tensor, as PyTorch's)
        per_sample = per_sample.reshape(())
    params = {"reduction": reduction, "N": n}
    # (no sample: the mean is 0, as PyTorch's, not 0 / 0)
    out = _reduce(per_sample, "sum" if n == 0 and reduction == "mean" else reduction)
    return mark(out, "multilabel_margin_loss", ("x", "y"), (x, t), params)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Any,
    margin: float = 0.0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1 (0 for another
    label), cos along the last axis with 1e-12 added to each squared norm, as PyTorch's.

    >>> F.cosine_embedding_loss(tg.tensor([[1.0, 0.0]]), tg.tensor([[0.0, 1.0]]), tg.tensor([1]))
    tensor(1.)
    """
    x1, x2 = _input(input1, "cosine_embedding_loss"), _input(input2, "cosine_embedding_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    labels = _labels(target, x1).numpy()
    if labels.ndim > 1:
        raise RuntimeError(
            f"cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not "
            f"supported; got a target of shape {labels.shape}"
        )
    if x1.ndim != labels.ndim + 1 or x2.ndim != x1.ndim:
        raise RuntimeError(
            f"cosine_embedding_loss: a {labels.ndim}D target expects {labels.ndim + 1}D inputs "
            f"(target 0D with 1D inputs, or 1D with 2D), but found inputs with sizes {x1.shape} "
            f"and {x2.shape} and target of size {labels.shape}"
        )
    squares = ((x1 * x1).sum(-1) + 1e-12) * ((x2 * x2).sum(-1) + 1e-12)
    cos = (x1 * x2).sum(-1) / squares.sqrt()
    losses = where(labels == 1, 1.0 - cos, 0.0) + where(labels == -1, _hinge(cos - margin), 0.0)
    params = {"reduction": reduction, "N": losses._data.size, "margin": margin}
    out = _reduce(losses, reduction)
    return mark(out, "cosine_embedding_loss", _XYT, (x1, x2, labels), params)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(a, pos) - d(a, neg)) with d = pairwise_distance(., ., p, eps); swap=True
    takes min(d(a, neg), d(pos, neg)) as the negative's distance.

    >>> a, pos, neg = tg.tensor([[0.0, 0.0]]), tg.tensor([[0.0, 1.0]]), tg.tensor([[3.0, 0.0]])
    >>> F.triplet_margin_loss(a, pos, neg, eps=0.0)
    tensor(0.)
    """
    a, pos, neg = (_input(v, "triplet_margin_loss") for v in (anchor, positive, negative))
    reduction = reduction_mode(size_average, reduce, reduction)
    if not a.ndim == pos.ndim == neg.ndim:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a.ndim}D, positive {pos.ndim}D, and negative "
            f"{neg.ndim}D inputs"
        )
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    d_pos = pairwise_distance(a, pos, p, eps)
    d_neg = pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(pos, neg, p, eps))
    losses = _hinge(margin + d_pos - d_neg)
    params = {"reduction": reduction, "N": losses._data.size, "margin": margin, "swap": swap}
    params.update(p=p, eps=eps)
    out = _reduce(losses, reduction)
    return mark(out, "triplet_margin_loss", ("a", "p", "n"), (a, pos, neg), params)


def _distance(
    distance_function: Callable[[Tensor, Tensor], Tensor], x: Tensor, y: Tensor
) -> Tensor:
    """The user's distance between x and y, checked to be a Tensor."""
    d = distance_function(x, y)
    if not isinstance(d, Tensor):
        raise TypeError(
            f"triplet_margin_with_distance_loss: distance_function must return a tapegrad Tensor "
            f"(one distance per row), got {type(d).__name__}"
        )
    return d


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(a, pos) - d(a, neg)) for any distance d (a function of two tensors,
    recorded on the tape as it runs; default pairwise_distance); swap=True takes
    min(d(a, neg), d(pos, neg)) as the negative's distance. Its rule is written in the distances
    (their own gradients are those of the ops d ran).

    >>> a, pos, neg = tg.tensor([[0.0, 0.0]]), tg.tensor([[0.0, 1.0]]), tg.tensor([[3.0, 0.0]])
    >>> l1 = lambda x, y: (x - y).abs().sum(-1)
    >>> F.triplet_margin_with_distance_loss(a, pos, neg, distance_function=l1, margin=3.0)
    tensor(1.)
    """
    name = "triplet_margin_with_distance_loss"
    a, pos, neg = (_input(v, name) for v in (anchor, positive, negative))
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not a.ndim == pos.ndim == neg.ndim:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a.ndim}D, positive {pos.ndim}D, and negative "
            f"{neg.ndim}D inputs"
        )
    if distance_function is None:
        distance_function = pairwise_distance
    elif not callable(distance_function):
        raise TypeError(
            f"{name}: distance_function must be a function of two tensors (or None for "
            f"pairwise_distance), got {type(distance_function).__name__}"
        )
    distances = [_distance(distance_function, a, pos), _distance(distance_function, a, neg)]
    d_neg = distances[1]
    if swap:
        distances.append(_distance(distance_function, pos, neg))
        d_neg = minimum(d_neg, distances[2])
    z = margin + distances[0] - d_neg
    losses = _hinge(z)
    params = {"reduction": reduction, "N": losses._data.size, "margin": margin, "swap": swap}
    # the rule's masks, from the values (its symbols: the teaching tools cannot always recompute
    # the distances, outputs of the user's function): k where the hinge passes the gradient, s
    # where swap took d(pos, neg) (1/2 at a tie, as minimum's gradient splits)
    params["k"] = (z._data >= 0).astype(z.dtype)
    if swap:
        d_an, d_pn = distances[1]._data, distances[2]._data
        params["s"] = np.where(d_pn < d_an, 1.0, np.where(d_pn == d_an, 0.5, 0.0))
    out = _reduce(losses, reduction)
    labels = ("d_ap", "d_an", "d_pn")[: len(distances)]
    return mark(out, name, labels, tuple(distances), params)
