"""Functions made of several primitives (F.cross_entropy, softmax, layer_norm, ...) are one step in
tg.explain and one node in tg.viz.draw, with their textbook rule; expanded, the primitives that ran.

Driven from one table of calls (CALLS), each built the same way in tapegrad and in PyTorch: the
grouped and the expanded view give the same gradients, which equal PyTorch's, and each call's
textbook rule, evaluated on the call's values, gives the gradient its inputs received. A composite
without a call in CALLS, or a public function of nn.functional without a formula, fails a test.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as TF
from tapegrad._utils import unbroadcast_axes
from tapegrad.primitives import composites
from tapegrad.tape.plan import execution_order
from tapegrad.teach import grouping, tapeinfo

from composite_layer_calls import LAYER_CALLS

R = np.random.default_rng(0)
X43 = R.standard_normal((4, 3))
Y4 = np.array([0, 2, 1, 2])
PROBS = np.exp(R.standard_normal((4, 3)))
PROBS /= PROBS.sum(1, keepdims=True)
W3 = np.array([0.2, 1.0, 2.5])
X42, Y42 = R.standard_normal((4, 2)), R.standard_normal((4, 2))
P42 = R.uniform(0.1, 0.9, (4, 2))
X45 = R.standard_normal((4, 5))
X234 = R.standard_normal((2, 3, 4))
X3222 = R.standard_normal((2, 3, 2, 2))
X2622 = np.random.default_rng(4).standard_normal((2, 6, 2, 2))
X238 = R.standard_normal((2, 3, 8))
IDX = np.array([[0, 1, 3], [1, 1, 4]])


class Call:
    """One call of a composite: build(lib, F, t) -> (out, leaves), written once for tapegrad and
    PyTorch (t(array, grad=False) makes a float64 tensor of `lib`)."""

    def __init__(
        self, name: str, build: Callable, id: str, torch: bool = True, torch_rtol: float = 1e-10
    ) -> None:
        self.name, self.build, self.id, self.torch = name, build, id, torch
        self.torch_rtol = torch_rtol  # (looser where PyTorch's rule rounds a constant to float32)


def _arrays(t: Callable, kw: dict) -> dict:
    """Keyword arrays (weights) as tensors of the library being built."""
    return {k: t(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}


def _ce(**kw: Any) -> Callable:
    def build(lib, F, t):
        x = t(X43, True)
        return F.cross_entropy(x, lib.tensor(Y4), **_arrays(t, kw)), [x]

    return build


def _lce(bias: bool = True, probs: bool = False, **kw: Any) -> Callable:
    """F.linear_cross_entropy of X45 through a (3, 5) head (a bias or none), class indices Y4 or
    probabilities PROBS."""

    def build(lib, F, t):
        x, w = t(X45, True), t(np.random.default_rng(5).standard_normal((3, 5)), True)
        b = t(np.random.default_rng(6).standard_normal(3), True) if bias else None
        y = t(PROBS) if probs else lib.tensor(Y4)
        out = F.linear_cross_entropy(x, w, y, linear_bias=b, **_arrays(t, kw))
        return out, [x, w] + ([b] if bias else [])

    return build


def _nll(**kw: Any) -> Callable:
    def build(lib, F, t):
        x = t(X43, True)
        return F.nll_loss(F.log_softmax(x, dim=1), lib.tensor(Y4), **_arrays(t, kw)), [x]

    return build


def _ce_probs(grad: bool, **kw: Any) -> Callable:
    def build(lib, F, t):
        x, y = t(X43, True), t(PROBS, grad)
        return F.cross_entropy(x, y, **kw), [x, y] if grad else [x]

    return build


def _pair(fn: str, a: np.ndarray = X42, b: np.ndarray = Y42, **kw: Any) -> Callable:
    def build(lib, F, t):
        x, y = t(a, True), t(b, True)
        return getattr(F, fn)(x, y, **_arrays(t, kw)), [x, y]

    return build


def _one(fn: Callable, a: np.ndarray = X42) -> Callable:
    def build(lib, F, t):
        x = t(a, True)
        return fn(lib, F, t, x), [x]

    return build


def _norm(layer: bool, shape: tuple, affine: bool, running: bool = False) -> Callable:
    def build(lib, F, t):
        R = np.random.default_rng(7)  # (the same values for both libraries)
        x = t(X3222 if len(shape) == 4 else X45 if shape == (4, 5) else X234, True)
        n = x.shape[1] if not layer else None
        if layer:
            size = shape[1:] if len(shape) == 3 else shape[-1:]
            w = t(R.uniform(0.5, 1.5, size), True) if affine else None
            b = t(R.standard_normal(size), True) if affine else None
            out = F.layer_norm(x, size, w, b, eps=1e-3)
        else:
            w, b = t(R.uniform(0.5, 1.5, n), True), t(R.standard_normal(n), True)
            mean, var = (
                (t(R.standard_normal(n)), t(R.uniform(0.5, 2, n))) if running else (None,) * 2
            )
            out = F.batch_norm(x, mean, var, w, b, training=not running, eps=1e-3)
        return out, [v for v in (x, w, b) if v is not None]

    return build


def _grouped(fn: str, groups: int | None, affine: bool) -> Callable:
    """group_norm (groups given) or instance_norm (None): X3222 (3 channels), X2622 for 2 groups."""

    def build(lib, F, t):
        R = np.random.default_rng(5)  # (the same values for both libraries)
        x = t(X3222 if groups != 2 else X2622, True)
        c = x.shape[1]
        w = t(R.uniform(0.5, 1.5, c), True) if affine else None
        b = t(R.standard_normal(c), True) if affine else None
        if groups is None:
            out = F.instance_norm(x, weight=w, bias=b, eps=1e-3)
        else:
            out = F.group_norm(x, groups, w, b, eps=1e-3)
        return out, [v for v in (x, w, b) if v is not None]

    return build


def _rms_affine(lib, F, t):
    x = t(X234, True)
    w = t(np.random.default_rng(6).uniform(0.5, 1.5, (3, 4)), True)
    return F.rms_norm(x, (3, 4), w, eps=1e-4), [x, w]


def _seeded(fn: Callable, a: np.ndarray) -> Callable:
    def build(lib, F, t):
        tg.manual_seed(3)
        x = t(a, True)
        return fn(F, x), [x]

    return build


def _dropout(lib, F, t):
    tg.manual_seed(3)
    x = t(X45, True)
    return F.dropout(x, 0.3), [x]


def _prelu(lib, F, t):
    x, w = t(X42, True), t(np.array([0.25, -0.5]), True)
    return F.prelu(x, w), [x, w]


def _rrelu_training(lib, F, t):
    tg.manual_seed(4)
    x = t(X45, True)
    return F.rrelu(x, 0.1, 0.4, training=True), [x]


LABELS42 = np.sign(R.standard_normal((4, 2)))  # (+-1 labels)


def _triplet(**kw: Any) -> Callable:
    def build(lib, F, t):
        a, p, n = t(X43, True), t(PROBS, True), t(X45[:, 2:], True)
        return F.triplet_margin_loss(a, p, n, **kw), [a, p, n]

    return build


def _distance_triplet(l1: bool = False, **kw: Any) -> Callable:
    """The distance a user passes: pairwise_distance (default) or a lambda of tensor ops."""

    def build(lib, F, t):
        a, p, n = t(X43, True), t(PROBS, True), t(X45[:, 2:], True)
        if l1:
            kw["distance_function"] = lambda x, y: (x - y).abs().sum(-1)
        return F.triplet_margin_with_distance_loss(a, p, n, **kw), [a, p, n]

    return build


def _gaussian() -> Callable:
    def build(lib, F, t):
        x, y, var = t(X43, True), t(PROBS, True), t(PROBS[:, :1] + 0.1, True)
        return F.gaussian_nll_loss(x, y, var, full=True), [x, y, var]

    return build


Y4PM = np.array([1.0, -1.0, -1.0, 1.0])
Y43 = np.array([[2, 0, -1], [1, -1, 0], [-1, 2, 2], [0, 1, 2]])  # (targets up to the first -1)


def _labelled(fn: str, n_inputs: int, labels: np.ndarray, *arrays: np.ndarray, **kw: Any) -> Any:
    """A loss of n_inputs tensors on the tape and constant labels (or class indices)."""

    def build(lib, F, t):
        xs = [t(a, True) for a in arrays[:n_inputs]]
        y = lib.tensor(labels) if labels.dtype.kind == "i" else t(labels)
        return getattr(F, fn)(*xs, y, **_arrays(t, kw)), xs

    return build


def _embedding(**kw: Any) -> Callable:
    def build(lib, F, t):
        w = t(np.random.default_rng(8).standard_normal((5, 4)), True)
        return F.embedding(lib.tensor(IDX), w, **kw), [w]

    return build


def _wrapped(fn: str, *weights: tuple, a: np.ndarray = X238, **kw: Any) -> Callable:
    def build(lib, F, t):
        x = t(a, True)
        ws = [t(np.random.default_rng(9).standard_normal(s), True) for s in weights]
        return getattr(F, fn)(x, *ws, **kw), [x, *ws]

    return build


CALLS = [
    Call("cross_entropy", _ce(), "mean"),
    Call("cross_entropy", _ce(reduction="sum"), "sum"),
    Call("cross_entropy", _ce(reduction="none"), "none"),
    Call("cross_entropy", _ce(weight=W3), "weight"),
    Call("cross_entropy", _ce(ignore_index=1), "ignore_index"),
    Call("cross_entropy", _ce(label_smoothing=0.1), "smoothing"),
    Call("cross_entropy", _ce_probs(False), "probabilities"),
    Call("cross_entropy", _ce_probs(True, label_smoothing=0.2), "probabilities-on-tape"),
    Call("linear_cross_entropy", _lce(), "mean"),
    Call("linear_cross_entropy", _lce(bias=False, reduction="sum"), "no-bias-sum"),
    Call("linear_cross_entropy", _lce(reduction="none"), "none"),
    Call("linear_cross_entropy", _lce(weight=W3, ignore_index=1), "weight-ignore_index"),
    Call("linear_cross_entropy", _lce(label_smoothing=0.1), "smoothing"),
    Call("linear_cross_entropy", _lce(probs=True), "probabilities"),
    Call("nll_loss", _nll(), "mean"),
    Call("nll_loss", _nll(ignore_index=2, reduction="sum"), "ignore-sum"),
    Call("nll_loss", _nll(weight=W3), "weight"),
    Call(
        "cross_entropy",
        _ce(weight=W3, label_smoothing=0.15, ignore_index=1),
        "weight-smoothing-ignore",
    ),
    Call("mse_loss", _pair("mse_loss"), "mean"),
    Call("mse_loss", _pair("mse_loss", reduction="sum"), "sum"),
    Call("mse_loss", _pair("mse_loss", reduction="none"), "none"),
    Call("l1_loss", _pair("l1_loss"), "mean"),
    Call("smooth_l1_loss", _pair("smooth_l1_loss", beta=0.5), "beta"),
    Call("huber_loss", _pair("huber_loss", delta=0.7), "delta"),
    Call("binary_cross_entropy", _pair("binary_cross_entropy", P42, P42[::-1].copy()), "mean"),
    Call(
        "binary_cross_entropy",
        _pair("binary_cross_entropy", P42, P42[::-1].copy(), weight=P42),
        "weight",
    ),
    Call("binary_cross_entropy_with_logits", _pair("binary_cross_entropy_with_logits"), "mean"),
    Call(
        "binary_cross_entropy_with_logits",
        _pair("binary_cross_entropy_with_logits", b=P42, pos_weight=np.array([2.0, 0.5])),
        "pos_weight",
    ),
    Call("margin_ranking_loss", _labelled("margin_ranking_loss", 2, LABELS42, X42, P42), "mean"),
    Call(
        "margin_ranking_loss",
        _labelled("margin_ranking_loss", 2, LABELS42, X42, P42, margin=0.3, reduction="none"),
        "none",
    ),
    Call("hinge_embedding_loss", _labelled("hinge_embedding_loss", 1, LABELS42, X42), "mean"),
    Call(
        "soft_margin_loss", _labelled("soft_margin_loss", 1, LABELS42, X42, reduction="sum"), "sum"
    ),
    Call(
        "multilabel_soft_margin_loss",
        _labelled("multilabel_soft_margin_loss", 1, (PROBS > 0.3) * 1.0, X43, weight=W3),
        "weight",
    ),
    Call(
        "multilabel_soft_margin_loss",
        _labelled("multilabel_soft_margin_loss", 1, PROBS, X43, reduction="none"),
        "none",
    ),
    Call("multi_margin_loss", _labelled("multi_margin_loss", 1, Y4, X43), "p1"),
    Call(
        "multi_margin_loss",
        _labelled("multi_margin_loss", 1, Y4, X43, p=2, margin=0.6, weight=W3, reduction="none"),
        "p2-weight-none",
    ),
    Call("multilabel_margin_loss", _labelled("multilabel_margin_loss", 1, Y43, X43), "mean"),
    Call(
        "multilabel_margin_loss",
        _labelled("multilabel_margin_loss", 1, Y43, X43, reduction="none"),
        "none",
    ),
    Call(
        "cosine_embedding_loss",
        _labelled("cosine_embedding_loss", 2, Y4PM, X43, PROBS, margin=-0.2),
        "mean",
    ),
    Call(
        "cosine_embedding_loss",
        _labelled("cosine_embedding_loss", 2, Y4PM, X43, PROBS, reduction="none"),
        "none",
    ),
    Call("triplet_margin_loss", _triplet(), "default"),
    Call("triplet_margin_loss", _triplet(swap=True, p=3.0, reduction="none"), "swap-p3"),
    Call("triplet_margin_with_distance_loss", _distance_triplet(), "default"),
    Call(
        "triplet_margin_with_distance_loss",
        _distance_triplet(l1=True, swap=True, margin=1.5, reduction="none"),
        "l1-swap",
    ),
    Call("triplet_margin_with_distance_loss", _distance_triplet(True, swap=True), "l1-swap-mean"),
    Call("kl_div", _pair("kl_div", X43, PROBS, reduction="batchmean"), "batchmean"),
    Call("kl_div", _pair("kl_div", X43, X45[:, :3], reduction="sum", log_target=True), "log"),
    Call("poisson_nll_loss", _pair("poisson_nll_loss", X42, P42 * 4, full=True), "full"),
    Call("poisson_nll_loss", _pair("poisson_nll_loss", P42, X42, log_input=False), "rates"),
    Call("gaussian_nll_loss", _gaussian(), "heteroscedastic"),
    Call("cosine_similarity", _pair("cosine_similarity", X43, PROBS), "dim1"),
    Call("cosine_similarity", _pair("cosine_similarity", X43, PROBS, dim=0), "dim0"),
    Call("pairwise_distance", _pair("pairwise_distance", X43, PROBS), "p2"),
    Call("pairwise_distance", _pair("pairwise_distance", X43, PROBS, p=1.5, keepdim=True), "p"),
    Call("pdist", _one(lambda lib, F, t, x: F.pdist(x), X43), "p2"),
    Call("pdist", _one(lambda lib, F, t, x: F.pdist(x, p=3.0), X43), "p3"),
    Call("softmax", _one(lambda lib, F, t, x: F.softmax(x, dim=1)), "F"),
    Call("softmax", _one(lambda lib, F, t, x: x.softmax(0)), "method"),
    Call("log_softmax", _one(lambda lib, F, t, x: F.log_softmax(x, dim=1)), "F"),
    Call("gelu", _one(lambda lib, F, t, x: F.gelu(x, approximate="tanh")), "tanh"),
    Call("silu", _one(lambda lib, F, t, x: F.silu(x)), "silu"),
    Call("elu", _one(lambda lib, F, t, x: F.elu(x, alpha=0.7)), "alpha"),
    Call("softplus", _one(lambda lib, F, t, x: F.softplus(x, beta=2.0, threshold=1.0)), "both"),
    Call("selu", _one(lambda lib, F, t, x: F.selu(x)), "selu"),
    Call(  # (PyTorch's derivative takes 1 / alpha with alpha rounded to float32)
        "celu", _one(lambda lib, F, t, x: F.celu(x, alpha=0.7)), "alpha", torch_rtol=1e-7
    ),
    Call("mish", _one(lambda lib, F, t, x: F.mish(x)), "mish"),
    Call("softsign", _one(lambda lib, F, t, x: F.softsign(x)), "softsign"),
    Call("tanhshrink", _one(lambda lib, F, t, x: F.tanhshrink(x)), "tanhshrink"),
    Call("logsigmoid", _one(lambda lib, F, t, x: F.logsigmoid(x)), "logsigmoid"),
    Call("glu", _one(lambda lib, F, t, x: F.glu(x, dim=0)), "dim0"),
    Call("softmin", _one(lambda lib, F, t, x: F.softmin(x, dim=1)), "dim1"),
    Call("hardtanh", _one(lambda lib, F, t, x: F.hardtanh(x, -0.5, 0.8)), "bounds"),
    Call("relu6", _one(lambda lib, F, t, x: F.relu6(x * 5)), "relu6"),
    Call(  # (PyTorch's derivative is float32's 1/6, even in float64)
        "hardsigmoid", _one(lambda lib, F, t, x: F.hardsigmoid(x * 3)), "x3", torch_rtol=1e-7
    ),
    Call("hardswish", _one(lambda lib, F, t, x: F.hardswish(x * 3)), "hardswish"),
    Call("threshold", _one(lambda lib, F, t, x: F.threshold(x, 0.1, 20.0)), "threshold"),
    Call("hardshrink", _one(lambda lib, F, t, x: F.hardshrink(x, 0.6)), "lambd"),
    Call("softshrink", _one(lambda lib, F, t, x: F.softshrink(x)), "default"),
    Call("prelu", _prelu, "per-channel"),
    Call("rrelu", _one(lambda lib, F, t, x: F.rrelu(x, 0.1, 0.3)), "eval"),
    Call("rrelu", _rrelu_training, "training", torch=False),
    Call("normalize", _one(lambda lib, F, t, x: F.normalize(x, dim=1)), "p2"),
    Call("normalize", _one(lambda lib, F, t, x: F.normalize(x, p=3.0, dim=0)), "p3"),
    Call("var", _one(lambda lib, F, t, x: x.var(dim=1, correction=1), X45), "dim"),
    Call("std", _one(lambda lib, F, t, x: x.std(correction=1), X45), "all"),
    Call("layer_norm", _norm(True, (4, 5), True), "affine"),
    Call("layer_norm", _norm(True, (2, 3, 4), False), "two-axes"),
    Call("batch_norm", _norm(False, (4, 5), True), "train-2d"),
    Call("batch_norm", _norm(False, (2, 3, 2, 2), True), "train-4d"),
    Call("batch_norm", _norm(False, (2, 3, 2, 2), True, running=True), "eval"),
    Call("group_norm", _grouped("group_norm", 2, True), "affine"),
    Call("group_norm", _grouped("group_norm", 3, False), "plain"),
    Call("instance_norm", _grouped("instance_norm", None, True), "affine"),
    Call("rms_norm", _one(lambda lib, F, t, x: F.rms_norm(x, (5,), eps=1e-3), X45), "plain"),
    Call("rms_norm", _rms_affine, "affine"),
    Call(
        "conv_transpose1d",
        _wrapped("conv_transpose1d", (3, 2, 3), (2,), stride=2, padding=1, output_padding=1),
        "conv_transpose1d",
    ),
    Call(
        "conv_transpose2d",
        _wrapped("conv_transpose2d", (3, 2, 2, 2), a=X3222, stride=2, dilation=(1, 2)),
        "no-bias",
    ),
    Call(
        "interpolate",
        _one(lambda lib, F, t, x: F.interpolate(x, size=(3, 5), mode="bilinear"), X3222),
        "bilinear",
    ),
    Call(
        "interpolate",
        _one(lambda lib, F, t, x: F.interpolate(x, scale_factor=1.5, mode="nearest"), X238),
        "nearest-1d",
    ),
    Call("pixel_shuffle", _one(lambda lib, F, t, x: F.pixel_shuffle(x, 2), X2622[:, :4]), "r2"),
    Call("pixel_unshuffle", _one(lambda lib, F, t, x: F.pixel_unshuffle(x, 2), X3222), "r2"),
    Call("dropout1d", _seeded(lambda F, x: F.dropout1d(x, 0.4), X238), "p", torch=False),
    Call("dropout2d", _seeded(lambda F, x: F.dropout2d(x, 0.4), X3222), "p", torch=False),
    Call("dropout3d", _seeded(lambda F, x: F.dropout3d(x[None], 0.4), X3222), "p", torch=False),
    Call(
        "alpha_dropout",
        _seeded(lambda F, x: F.alpha_dropout(x, 0.3, training=True), X45),
        "p",
        torch=False,
    ),
    Call(
        "local_response_norm",
        _one(lambda lib, F, t, x: F.local_response_norm(x, 3, 0.5, 0.7, 2.0), X2622),
        "size3",
    ),
    Call("dropout", _dropout, "p", torch=False),
    Call("embedding", _embedding(), "plain"),
    Call("embedding", _embedding(padding_idx=1, scale_grad_by_freq=True), "padding-freq"),
    Call("pad", _one(lambda lib, F, t, x: F.pad(x, (1, 2)), X45), "constant"),
    Call("pad", _one(lambda lib, F, t, x: F.pad(x, (2, 1), mode="reflect"), X238), "reflect"),
    Call(
        "adaptive_avg_pool2d",
        _one(lambda lib, F, t, x: F.adaptive_avg_pool2d(x, (2, 1)), X3222),
        "rows",
    ),
    Call("linear", _wrapped("linear", (2, 8)), "no-bias"),
    Call("conv1d", _wrapped("conv1d", (4, 3, 3), (4,), padding=1), "conv1d"),
    Call("max_pool1d", _wrapped("max_pool1d", kernel_size=2), "max_pool1d"),
    Call("avg_pool1d", _wrapped("avg_pool1d", kernel_size=3, stride=2), "avg_pool1d"),
]
CALLS += [Call(name, build, id) for name, build, id in LAYER_CALLS]  # (by topic)


def tg_tensor(a: np.ndarray, grad: bool = False) -> tg.Tensor:
    return tg.tensor(np.asarray(a, np.float64), requires_grad=grad)


def scalar(out: Any) -> Any:
    """A loss with a non-trivial gradient at `out`: sum(out * c) for fixed c."""
    c = np.random.default_rng(1).uniform(0.5, 1.5, tuple(out.shape))
    return (out * type(out)(c) if isinstance(out, tg.Tensor) else out * _torch().tensor(c)).sum()


def _torch() -> Any:
    import torch

    return torch


def fitted(gi: np.ndarray, shape: tuple) -> np.ndarray:
    if gi.shape == tuple(shape):
        return gi
    axes, keep = unbroadcast_axes(gi.shape, tuple(shape))
    return gi.sum(axis=axes, keepdims=keep).reshape(shape)


IDS = [f"{c.name}-{c.id}" for c in CALLS]


def test_every_composite_has_calls() -> None:
    recorded = set(composites.COMPOSITES) - {"one_hot"}  # (integers: nothing is recorded)
    wrappers = set(composites.WRAPPERS) - {"conv2d", "max_pool2d", "avg_pool2d"}  # (on a batch:
    assert {c.name for c in CALLS} == recorded | wrappers  # one primitive, nothing to fold)


@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_a_call_is_one_step_and_expands_to_its_primitives(call: Call) -> None:
    out, leaves = call.build(tg, TF, tg_tensor)
    loss = scalar(out)
    grouped = tg.explain(loss, show=False)
    steps = [s for s in grouped if s.op == call.name]
    assert len(steps) == 1, [s.node for s in grouped]
    rule = grouping.rule_of(out.grad_fn.composite)
    assert steps[0].node == rule.node_name and steps[0].forward == f"out = {rule.expr}"
    expanded = tg.explain(loss, show=False, expand=True)
    assert all(s.op != call.name or s.node == rule.node_name for s in expanded)
    assert len(expanded) >= len(grouped)
    opened = tg.explain(loss, show=False, expand=[call.name])
    assert all(s.op != call.name for s in opened) and len(grouped) <= len(opened) <= len(expanded)
    # the same gradients at the leaves, grouped, expanded and by backward()
    loss.backward()
    for leaf in leaves:
        want = leaf.grad.numpy()
        for view in (grouped, expanded):
            (got,) = [lf.grad for lf in view.leaves if lf.tensor is leaf]
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_the_textbook_rule_gives_the_gradients_the_inputs_received(call: Call) -> None:
    out, _ = call.build(tg, TF, tg_tensor)
    loss = scalar(out)
    order = execution_order([loss.grad_fn])
    folding = grouping.fold(order)
    (f,) = [s for s in folding.stand_ins if s.out is out.grad_fn]
    seen = tapeinfo.observe(loss)
    values = tapeinfo.node_values(order, tapeinfo.Names(order, loss).outputs)
    folding.observe(seen, values)
    given = {**folding.inputs(f, values), "g": seen.grad_out[f]}
    by_rule = (
        composites.evaluate(call.name, grouping.call_params(f.mark), given)
        if (call.name in composites.COMPOSITES)
        else {}
    )
    checked = 0
    for label, gi in zip(f.labels, seen.grads_in[f]):
        if gi is None or label not in by_rule:
            continue
        np.testing.assert_allclose(
            fitted(np.asarray(by_rule[label], np.float64), gi.shape), gi, rtol=1e-9, atol=1e-12
        )
        checked += 1
    assert checked or call.name in composites.WRAPPERS


@pytest.mark.parametrize(
    "call", [c for c in CALLS if c.torch], ids=[i for c, i in zip(CALLS, IDS) if c.torch]
)
def test_the_gradients_equal_pytorchs(call: Call) -> None:
    torch = pytest.importorskip("torch")

    def t(a: np.ndarray, grad: bool = False) -> Any:
        return torch.tensor(np.asarray(a, np.float64), requires_grad=grad)

    out, leaves = call.build(tg, TF, tg_tensor)
    scalar(out).backward()
    tout, tleaves = call.build(torch, torch.nn.functional, t)
    scalar(tout).backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    for ours, theirs in zip(leaves, tleaves):
        np.testing.assert_allclose(
            ours.grad.numpy(), theirs.grad.numpy(), rtol=call.torch_rtol, atol=1e-13
        )
