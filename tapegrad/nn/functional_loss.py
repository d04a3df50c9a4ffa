"""Losses as functions (PyTorch's F. spellings): regression (mse, l1, smooth_l1, huber) and
classification (nll, cross_entropy, binary_cross_entropy and its with_logits form).

Layer L5: tapegrad ops only (and one autograd.Function for binary_cross_entropy, whose backward is
PyTorch's formula in tapegrad ops). Targets are cast to the input's dtype, so a float16 model keeps
a float16 loss; class indices, weights and masks are constants (no gradient), as in PyTorch.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .._utils import ShapeError
from .. import primitives as P
from ..autograd import Function
from ..creation import zeros_like
from ..math import stack, where
from ..tape.composite import mark
from ..tensor import Tensor, apply

_REDUCTIONS = ("mean", "sum", "none")
_XYW = ("x", "y", "w")  # a loss's inputs, as its rule names them (composites: marks)


def reduction_mode(size_average: Any, reduce: Any, reduction: str) -> str:
    """The reduction to apply, from PyTorch's deprecated size_average/reduce flags if given (with
    PyTorch's warning); a string in size_average's place is MindSpore's positional `reduction`."""
    if isinstance(size_average, str):  # nn.MSELoss('sum') in MindSpore
        size_average, reduction = None, size_average
    if size_average is not None or reduce is not None:
        reduce = True if reduce is None else reduce
        size_average = True if size_average is None else size_average
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use "
            f"reduction='{reduction}' instead.",
            UserWarning,
            stacklevel=3,
        )
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    return losses.sum() if reduction == "sum" else losses


def _input(x: Any, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: the prediction must be a tapegrad Tensor, got {type(x).__name__}")
    return x


def _target(target: Any, input: Tensor) -> Tensor:
    """target as a Tensor of input's dtype (a differentiable cast if target is on the tape)."""
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target, dtype=input.dtype))
    return target if target.dtype == input.dtype else target.astype(input.dtype)


def _constant(values: Any, dtype: Any) -> np.ndarray:
    """A weight given as a tensor, array or list, as a NumPy array of dtype."""
    if isinstance(values, Tensor):
        values = values.numpy()
    return np.asarray(values, dtype=dtype)


# ---- regression -------------------------------------------------------------------------------
def _checked_target(input: Any, target: Any, fn: str, stacklevel: int = 4) -> tuple[Tensor, Tensor]:
    """(input, target as a Tensor of input's dtype), warning (as PyTorch) when their shapes
    differ: broadcasting then gives a loss over a shape neither has, e.g. (4, 1) against (4,)
    makes (4, 4)."""
    input = _input(input, fn)
    given_shape = (
        target.shape
        if isinstance(target, Tensor)
        else np.shape(target)
        if not isinstance(target, (int, float))
        else None
    )
    target = _target(target, input)
    try:
        if target.shape != input.shape:  # (np.broadcast_shapes is slow: only when it can fail)
            np.broadcast_shapes(input.shape, target.shape)
    except ValueError:
        raise ShapeError(
            f"{fn}: target shape {target.shape} does not broadcast against input shape "
            f"{input.shape}; give a target of the input's shape"
        ) from None
    if given_shape is not None and tuple(given_shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            f"Please ensure they have the same size.",
            UserWarning,
            stacklevel=stacklevel,
        )
    return input, target


def _difference(input: Any, target: Any, fn: str) -> Tensor:
    """input - target, after _checked_target's checks."""
    input, target = _checked_target(input, target, fn, stacklevel=5)
    return input - target


def _weighted(losses: Tensor, weight: Any, input: Tensor, reduction: str, fn: str) -> Tensor:
    """PyTorch's per-element weights for mse/l1 losses: the mean is sum(w * loss) / sum(w)."""
    w = _constant(weight, input.dtype)
    if w.shape != tuple(input.shape):
        raise ValueError(
            f"{fn}: weights and input must have the same size, got {w.shape} and {input.shape}"
        )
    losses = losses * w
    return losses.sum() / float(w.sum()) if reduction == "mean" else _reduce(losses, reduction)


def mse_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Any = None,
) -> Tensor:
    """(input - target)^2, reduced; optional per-element weights (mean = sum(w l) / sum(w)).

    >>> F.mse_loss(tg.tensor([20.0]), tg.tensor([19.0]))
    tensor(1.)
    """
    input, target = _checked_target(input, target, "mse_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    if weight is None and reduction != "none":
        # (one node, whose backward is one node: P.fused.mse; the rule shown stays the textbook's)
        out = apply(P.fused.mse, input, target, reduction=reduction)
        params = {"reduction": reduction, "N": P.fused.mse_count(input, target, "mean")}
        return mark(out, "mse_loss", _XYW, (input, target, weight), params)
    diff = input - target
    if weight is not None:
        out = _weighted(diff * diff, weight, input, reduction, "mse_loss")
    else:
        out = _reduce(diff * diff, reduction)
    params = {"reduction": reduction, "N": diff._data.size}
    return mark(out, "mse_loss", _XYW, (input, target, weight), params)


def l1_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Any = None,
) -> Tensor:
    """|input - target|, reduced (its gradient at 0 is 0, as PyTorch's).

    >>> F.l1_loss(tg.tensor([1.0, 4.0]), tg.tensor([2.0, 2.0]))
    tensor(1.5000)
    """
    diff = _difference(input, target, "l1_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    if weight is not None:
        out = _weighted(diff.abs(), weight, input, reduction, "l1_loss")
    else:
        out = _reduce(diff.abs(), reduction)
    params = {"reduction": reduction, "N": diff._data.size}
    return mark(out, "l1_loss", _XYW, (input, target, weight), params)


def _quadratic_then_linear(diff: Tensor, threshold: float) -> Tensor:
    """0.5 d^2 / threshold where |d| < threshold, |d| - 0.5 threshold beyond (Smooth L1)."""
    a = diff.abs()
    return where(a.numpy() < threshold, 0.5 * diff * diff / threshold, a - 0.5 * threshold)


def smooth_l1_loss(
    input: Tensor,
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target); beta=0 is L1.

    >>> F.smooth_l1_loss(tg.tensor([0.5, 3.0]), tg.tensor([0.0, 0.0]), reduction="none")
    tensor([0.1250, 2.5000])
    """
    if beta < 0:
        raise ValueError(f"smooth_l1_loss does not support negative values for beta, got {beta}")
    diff = _difference(input, target, "smooth_l1_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    losses = diff.abs() if beta == 0 else _quadratic_then_linear(diff, beta)
    params = {"reduction": reduction, "N": diff._data.size, "beta": beta}
    return mark(_reduce(losses, reduction), "smooth_l1_loss", _XYW, (input, target, None), params)


def huber_loss(
    input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0, weight: Any = None
) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta): delta * smooth_l1 with beta=delta.

    >>> F.huber_loss(tg.tensor([0.5, 3.0]), tg.tensor([0.0, 0.0]), reduction="none", delta=2.0)
    tensor([0.1250, 4.0000])
    """
    if delta <= 0:
        raise ValueError(f"huber_loss does not support non-positive values for delta, got {delta}")
    diff = _difference(input, target, "huber_loss")
    reduction = reduction_mode(None, None, reduction)
    losses = _quadratic_then_linear(diff, delta) * delta
    if weight is not None:  # (a weight that requires grad stays on the tape, as in PyTorch)
        w = (
            weight.astype(input.dtype)
            if isinstance(weight, Tensor)
            else _constant(weight, input.dtype)
        )
        if w.shape != tuple(input.shape):
            raise ValueError(
                f"huber_loss: weights and input must have the same size, got {w.shape} and "
                f"{input.shape}"
            )
        losses = losses * w  # (PyTorch's weighted mean here is the plain mean of w * loss)
    params = {"reduction": reduction, "N": diff._data.size, "delta": delta}
    params["weight"] = weight is not None
    return mark(_reduce(losses, reduction), "huber_loss", _XYW, (input, target, weight), params)


# ---- classification: class indices -----------------------------------------------------------
def _class_targets(input: Tensor, target: Any, weight: Any, ignore_index: int, fn: str) -> tuple:
    """Checks; returns (class axis, index array for input picking each target, per-sample weight
    (0 where ignored), the class weights or None)."""
    if input.ndim == 0:
        raise ValueError(f"{fn}: input must have a class axis: (C,), (N, C) or (N, C, d1, ...)")
    t = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    if t.dtype.kind not in "iu":
        raise TypeError(
            f"{fn}: expected integer class indices as target, got dtype {t.dtype}; convert them "
            f"with target.long() (class probabilities go to cross_entropy)"
        )
    axis = 1 if input.ndim > 1 else 0
    expected = input.shape[:axis] + input.shape[axis + 1 :]
    if t.shape != expected:
        batch = ""
        if input.ndim > 1 and t.ndim >= 1 and t.shape[0] != input.shape[0]:
            batch = f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            batch += f"({t.shape[0]}): "
        raise ValueError(
            f"{fn}: {batch}expected a target of shape {expected} (one class index per sample) "
            f"for input of shape {input.shape}, got {t.shape}"
        )
    n_classes = input.shape[axis]
    if isinstance(weight, Tensor) and weight.requires_grad:  # (PyTorch refuses it too: its class
        # weights are constants there; a gradient would be silently dropped here)
        raise RuntimeError(
            f"{fn}: weight requires grad, but the loss is not differentiable with respect to the "
            f"class weights for class-index targets (as in PyTorch); pass weight.detach()"
        )
    w = None if weight is None else _constant(weight, input.dtype)
    if w is not None and w.shape != (n_classes,):
        raise ValueError(
            f"{fn}: weight should be defined either for all {n_classes} classes or no classes but "
            f"got weight of shape {w.shape}"
        )
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if bad.any():
        index = t[bad].flat[0]
        raise IndexError(  # (as PyTorch)
            f"{fn}: Target {index} is out of bounds: class index {index} is out of range for "
            f"{n_classes} classes (valid: 0..{n_classes - 1}; or set ignore_index to skip it)"
        )
    safe = np.where(valid, t, 0)
    picks: list = list(np.indices(t.shape, sparse=True)) if t.ndim else []
    picks.insert(axis, safe)
    sample_weight = valid.astype(input.dtype) if w is None else np.where(valid, w[safe], 0)
    return axis, tuple(picks), sample_weight.astype(input.dtype), w


def _weighted_mean(losses: Tensor, sample_weight: np.ndarray, params: dict) -> Tensor:
    """PyTorch's mean for class targets: divided by the summed weight of the counted samples
    (written into params["N"] for the rule). When every target is ignored the value is nan and
    the gradient zero, as PyTorch's (nan is added, not multiplied in, so that it stays out of
    the gradient)."""
    total = params["N"] = float(sample_weight.sum())
    if not total:
        return losses.sum() * 0.0 + math.nan
    return losses.sum() * (1.0 / total)


def nll_loss(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-weight[t] * input[t] for each target class t, from log-probabilities of shape (C,), (N, C)
    or (N, C, d1, ...); targets equal to ignore_index count for nothing; 'mean' divides by the
    summed weights of the counted targets (PyTorch's weighted mean).

    >>> F.nll_loss(tg.tensor([[-0.5, -2.0]]), tg.tensor([1]))
    tensor(2.)
    """
    input = _input(input, "nll_loss")
    reduction = reduction_mode(size_average, reduce, reduction)
    axis, picks, sample_weight, w = _class_targets(input, target, weight, ignore_index, "nll_loss")
    losses = -input[picks] * sample_weight
    params = {"reduction": reduction, "axis": axis, "ignore_index": ignore_index}
    params["weight"] = w is not None
    if reduction == "mean":
        out = _weighted_mean(losses, sample_weight, params)
    else:
        out = _reduce(losses, reduction)
    return mark(out, "nll_loss", _XYW, (input, target, w), params)


def cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """-log softmax(input)[target] from logits (classes on axis 1, or 0 for 1-D input). target holds
    class indices (ints, input's shape without the class axis) or class probabilities (floats,
    input's shape). weight, ignore_index, label_smoothing and the 'mean' as PyTorch's.

    >>> F.cross_entropy(tg.tensor([[2.0, 0.0]]), tg.tensor([0]))
    tensor(0.1269)
    """
    input = _input(input, "cross_entropy")
    reduction = reduction_mode(size_average, reduce, reduction)
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    if input.ndim == 0:
        raise ValueError("cross_entropy: input must have a class axis: (C,), (N, C) or (N, C, ...)")
    axis = 1 if input.ndim > 1 else 0
    n_classes = input.shape[axis]
    log_probs = input.log_softmax(axis)  # logsumexp-based: stable for large logits
    t = target.numpy() if isinstance(target, Tensor) else np.asarray(target)
    params = {"reduction": reduction, "axis": axis, "ignore_index": ignore_index, "eps": eps}
    if t.dtype.kind in "iu":
        _, picks, sample_weight, w = _class_targets(
            input, target, weight, ignore_index, "cross_entropy"
        )
        losses = -log_probs[picks] * sample_weight
        if eps:
            per_class = (
                log_probs
                if w is None
                else log_probs * w.reshape((-1,) + (1,) * (input.ndim - 1 - axis))
            )
            smooth = where(t != ignore_index, -per_class.sum(axis), 0.0)
            losses = losses * (1.0 - eps) + smooth * (eps / n_classes)
        params["weight"] = w is not None
        if reduction == "mean":
            out = _weighted_mean(losses, sample_weight, params)
        else:
            out = _reduce(losses, reduction)
        return mark(out, "cross_entropy", _XYW, (input, t, w), params)
    if t.shape != tuple(input.shape):
        raise ValueError(
            f"cross_entropy: target has shape {t.shape} and dtype {t.dtype}; for input of shape "
            f"{input.shape} give integer class indices of shape "
            f"{input.shape[:axis] + input.shape[axis + 1 :]} or float class probabilities of "
            f"shape {input.shape}"
        )
    probs = _target(target, input)
    if eps:
        probs = probs * (1.0 - eps) + eps / n_classes
    if weight is not None:  # (a weight that requires grad stays on the tape, as in PyTorch)
        w = (
            weight.astype(input.dtype)
            if isinstance(weight, Tensor)
            else _constant(weight, input.dtype)
        )
        if w.shape != (n_classes,):
            raise ValueError(
                f"cross_entropy: weight has shape {w.shape} but the input has {n_classes} classes"
            )
        probs = probs * w.reshape((-1,) + (1,) * (input.ndim - 1 - axis))
    losses = -(log_probs * probs).sum(axis)
    params.update(weight=weight is not None, N=losses._data.size)
    w = None if weight is None else _constant(weight, input.dtype)
    return mark(_reduce(losses, reduction), "cross_entropy", _XYW, (input, target, w), params)


# ---- classification: binary -------------------------------------------------------------------
class BinaryCrossEntropy(Function):
    """-w (y log x + (1 - y) log(1 - x)) with each log clamped at -100, elementwise; the backward
    is PyTorch's: w (x - y) / max(x (1 - x), 1e-12) for x, -w (log x - log(1 - x)) for y."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, w: Tensor) -> Tensor:
        ctx.save_for_backward(x, y, w)
        xv, yv = x.numpy(), y.numpy()
        with np.errstate(divide="ignore"):
            log_x, log_1mx = np.maximum(np.log(xv), -100), np.maximum(np.log1p(-xv), -100)
        return Tensor((-w.numpy() * (yv * log_x + (1 - yv) * log_1mx)).astype(xv.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        x, y, w = ctx.saved_tensors
        gw = grad * w
        grad_x = gw * (x - y) / (x * (1.0 - x)).clip(min=1e-12) if ctx.needs_input_grad[0] else None
        grad_y = None
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                grad_y = -gw * (x.log() - (1.0 - x).log())
        return grad_x, grad_y, None


def binary_cross_entropy(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-w (y log x + (1 - y) log(1 - x)) for probabilities x in [0, 1] (each log clamped at -100,
    as PyTorch, so x = 0 or 1 gives at most 100); weight broadcasts against input.

    >>> F.binary_cross_entropy(tg.tensor([0.5]), tg.tensor([1.0]))
    tensor(0.6931)
    """
    input = _input(input, "binary_cross_entropy")
    reduction = reduction_mode(size_average, reduce, reduction)
    if (target.shape if isinstance(target, Tensor) else np.shape(target)) != tuple(input.shape):
        raise ValueError(
            f"binary_cross_entropy: Using a target size ({np.shape(target)}) that is different to "
            f"the input size ({input.shape}) is deprecated. Please ensure they have the same size."
        )
    y = _target(target, input)
    for name, v in (("input", input), ("target", y)):
        values = v.numpy()
        if not np.all((values >= 0) & (values <= 1)):
            raise ValueError(
                f"binary_cross_entropy: all elements of {name} should be between 0 and 1"
                + ("; for logits use binary_cross_entropy_with_logits" if name == "input" else "")
            )
    if isinstance(weight, Tensor) and weight.requires_grad:
        raise ValueError(
            "binary_cross_entropy is not differentiable with respect to weight; detach it"
        )
    w = _constant(1.0 if weight is None else weight, input.dtype)
    try:
        fits = np.broadcast_shapes(w.shape, input.shape) == tuple(input.shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"binary_cross_entropy: weight of shape {w.shape} does not broadcast to the input's "
            f"shape {input.shape}"
        )
    out = _reduce(BinaryCrossEntropy.apply(input, y, Tensor(w)), reduction)
    params = {"reduction": reduction, "N": input._data.size, "weight": weight is not None}
    return mark(out, "binary_cross_entropy", _XYW, (input, y, w), params)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Tensor:
    """Binary cross-entropy on logits x with targets y in [0, 1]:
    (1 - y) softplus(x) + pos_weight y softplus(-x), times weight, with softplus(x) =
    logsumexp([0, x]) (stable for any |x|).

    >>> F.binary_cross_entropy_with_logits(tg.tensor([0.0]), tg.tensor([1.0]))
    tensor(0.6931)
    """
    input = _input(input, "binary_cross_entropy_with_logits")
    reduction = reduction_mode(size_average, reduce, reduction)
    y = _target(target, input)
    if y.shape != input.shape:
        raise ValueError(
            f"binary_cross_entropy_with_logits: target shape {y.shape} must equal input shape "
            f"{input.shape}"
        )
    softplus = stack([zeros_like(input), input]).logsumexp(axis=0)
    if pos_weight is None:
        losses = softplus - input * y  # = (1 - y) softplus(x) + y softplus(-x)
    else:
        pw = _constant(pos_weight, input.dtype)
        losses = (1.0 - y) * softplus + y * (softplus - input) * pw
    w = None if weight is None else _constant(weight, input.dtype)
    if w is not None:
        losses = losses * w
    params = {"reduction": reduction, "N": input._data.size, "weight": w is not None}
    params["pos_weight"] = pos_weight is not None
    out = mark(
        _reduce(losses, reduction),
        "binary_cross_entropy_with_logits",
        ("x", "y", "w", "p"),
        (input, y, w, None if pos_weight is None else pw),
        params,
    )
    return out
