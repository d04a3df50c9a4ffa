"""The calls of test_composites.py's table for the second batch of PyTorch's layers (adaptive and
un-pooling, bilinear, embedding_bag, channel_shuffle, fold/unfold, ctc_loss), the third (lp_pool,
gumbel_softmax, affine_grid, grid_sample, conv3d) and the 3-D pools: (name, build, id) rows, each
build(lib, F, t) -> (out, leaves) written once for tapegrad and PyTorch."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

R = np.random.default_rng(5)
X238 = R.standard_normal((2, 3, 8))
X234 = R.standard_normal((2, 3, 4))
X23345 = R.standard_normal((2, 3, 3, 4, 5))
X2622 = R.standard_normal((2, 6, 2, 2))
X12_2 = R.standard_normal((12, 2))
THETA = R.standard_normal((2, 2, 3))
GRID = R.uniform(-1.3, 1.3, (2, 3, 2, 2))
LOGITS = np.eye(3)[[0, 2, 1, 2]] * 60.0 + R.standard_normal((4, 3)) * 0.1


def _one(fn: Callable, a: np.ndarray) -> Callable:
    def build(lib, F, t):
        x = t(a, True)
        return fn(F, x), [x]

    return build


def _unpool(dims: int) -> Callable:
    def build(lib, F, t):
        data = {1: X238, 2: X23345[0, ..., :4], 3: X23345[:, :, :2, :, :4]}[dims]
        _, idx = getattr(F, f"max_pool{dims}d")(t(data), 2, return_indices=True)
        x = t(np.random.default_rng(12).standard_normal(tuple(idx.shape)), True)
        return getattr(F, f"max_unpool{dims}d")(x, idx, 2), [x]

    return build


def _sample(mode: str, padding_mode: str) -> Callable:
    def build(lib, F, t):
        x, grid = t(X23345[:, 0], True), t(GRID, True)
        return F.grid_sample(x, grid, mode, padding_mode, align_corners=False), [x, grid]

    return build


def _fractional(dims: int) -> Callable:
    def build(lib, F, t):
        data = {2: X23345[0], 3: np.concatenate([X23345, X23345[:, :, ::-1]], 2)}[dims]
        samples = t(np.random.default_rng(15).uniform(size=data.shape[:2] + (dims,)))
        pool = getattr(F, f"fractional_max_pool{dims}d")
        x = t(data, True)
        return pool(x, 2, output_size=2, _random_samples=samples), [x]

    return build


def _conv3d(lib, F, t):
    x, w = t(X23345, True), t(np.random.default_rng(9).standard_normal((4, 3, 2, 2, 3)), True)
    b = t(np.random.default_rng(10).standard_normal(4), True)
    return F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 1)), [x, w, b]


def _conv_transpose3d(lib, F, t):
    x, w = t(X23345, True), t(np.random.default_rng(13).standard_normal((3, 2, 2, 3, 2)), True)
    b = t(np.random.default_rng(14).standard_normal(4), True)
    geometry = dict(stride=(2, 1, 2), padding=(1, 1, 0), output_padding=(1, 0, 1), dilation=2)
    return F.conv_transpose3d(x[:, :2], w[:2], b, groups=2, **geometry), [x, w, b]


def _bag(mode: str, psw: bool = False, **kw: Any) -> Callable:
    def build(lib, F, t):
        w = t(np.random.default_rng(8).standard_normal((6, 3)), True)
        idx, offsets = lib.tensor([1, 3, 4, 1, 0, 5, 3]), lib.tensor([0, 3, 3, 5])
        weights = t(np.linspace(0.5, 2.0, 7), True) if psw else None
        out = F.embedding_bag(idx, w, offsets, mode=mode, per_sample_weights=weights, **kw)
        return out, [w] + ([weights] if psw else [])

    return build


def _bilinear(bias: bool) -> Callable:
    def build(lib, F, t):
        x1, x2 = t(X234, True), t(X234[:, :, :3] * 0.5, True)
        w = t(np.random.default_rng(3).standard_normal((5, 4, 3)), True)
        b = t(np.random.default_rng(6).standard_normal(5), True) if bias else None
        return F.bilinear(x1, x2, w, b), [x1, x2, w] + ([b] if bias else [])

    return build


def _ctc(concatenated: bool, **kw: Any) -> Callable:
    def build(lib, F, t):
        x = t(np.random.default_rng(9).standard_normal((6, 3, 4)), True)
        padded = np.array([[1, 2, 2], [3, 1, 0], [2, 2, 2]])
        lengths = np.array([3, 2, 3])
        targets = (
            np.concatenate([r[:n] for r, n in zip(padded, lengths)]) if concatenated else padded
        )
        frames = lib.tensor(np.array([6, 5, 4]))  # (the last: too short to spell 2, 2, 2)
        out = F.ctc_loss(x.log_softmax(2), lib.tensor(targets), frames, lib.tensor(lengths), **kw)
        return out, [x]

    return build


LAYER_CALLS = [
    ("adaptive_avg_pool1d", _one(lambda F, x: F.adaptive_avg_pool1d(x, 3), X238), "3"),
    (
        "adaptive_avg_pool3d",
        _one(lambda F, x: F.adaptive_avg_pool3d(x, (2, None, 3)), X23345),
        "uneven",
    ),
    ("adaptive_max_pool1d", _one(lambda F, x: F.adaptive_max_pool1d(x, 3), X238), "3"),
    (
        "adaptive_max_pool2d",
        _one(lambda F, x: F.adaptive_max_pool2d(x, (None, 3)), X23345[0]),
        "none",
    ),
    (
        "adaptive_max_pool3d",
        _one(lambda F, x: F.adaptive_max_pool3d(x, (2, 2, 3)), X23345),
        "uneven",
    ),
    ("bilinear", _bilinear(True), "bias"),
    ("bilinear", _bilinear(False), "no-bias"),
    ("embedding_bag", _bag("sum", psw=True), "sum-psw"),
    ("embedding_bag", _bag("mean", padding_idx=3), "mean-padding"),
    ("embedding_bag", _bag("max"), "max"),
    ("channel_shuffle", _one(lambda F, x: F.channel_shuffle(x, 3), X2622), "3"),
    ("unfold", _one(lambda F, x: F.unfold(x, 2, padding=1, stride=(2, 1)), X23345[0]), "pad"),
    ("fold", _one(lambda F, x: F.fold(x, (2, 4), 2, dilation=(1, 2)), X12_2), "dilated"),
    ("max_unpool1d", _unpool(1), "stride2"),
    ("max_unpool2d", _unpool(2), "plain"),
    ("ctc_loss", _ctc(False, zero_infinity=True), "padded-mean"),
    ("ctc_loss", _ctc(True, reduction="sum", zero_infinity=True, blank=0), "concatenated-sum"),
    ("ctc_loss", _ctc(False, reduction="none", zero_infinity=True), "none"),
    # (third batch, branch layers3: positive inputs, as x ** 2.5 needs)
    ("lp_pool1d", _one(lambda F, x: F.lp_pool1d(x, 2.5, 3, 2, True), np.abs(X238) + 0.1), "ceil"),
    ("lp_pool2d", _one(lambda F, x: F.lp_pool2d(x, 2, (2, 3), 1), X23345[0]), "stride1"),
    # (logits 60 apart: the one-hot is PyTorch's whatever either library's noise, w.p. ~1 - 1e-26)
    ("gumbel_softmax", _one(lambda F, x: F.gumbel_softmax(x, 0.5, True, dim=1), LOGITS), "hard"),
    ("affine_grid", _one(lambda F, t: F.affine_grid(t, (2, 1, 3, 4), False), THETA), "2d"),
    ("grid_sample", _sample("bilinear", "reflection"), "bilinear-reflection"),
    ("grid_sample", _sample("nearest", "zeros"), "nearest-zeros"),
    ("grid_sample", _sample("bicubic", "border"), "bicubic-border"),
    ("conv3d", _conv3d, "strided-padded"),
    # (3-D pooling family: branch layers4)
    (
        "max_pool3d",
        _one(
            lambda F, x: F.max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), True), X23345
        ),
        "padded-dilated-ceil",
    ),
    (
        "avg_pool3d",
        _one(lambda F, x: F.avg_pool3d(x, (2, 3, 2), (2, 1, 2), (1, 1, 0), True, False), X23345),
        "padded-ceil-exclude",
    ),
    ("lp_pool3d", _one(lambda F, x: F.lp_pool3d(x, 3, 2, 1), np.abs(X23345) + 0.1), "stride1"),
    ("max_unpool3d", _unpool(3), "plain"),
    ("conv_transpose3d", _conv_transpose3d, "strided-padded-grouped"),
    # (interpolate's other modes: branch resample)
    (
        "interpolate",
        _one(
            lambda F, x: F.interpolate(x, (4, 3, 7), mode="trilinear", align_corners=True), X23345
        ),
        "trilinear",
    ),
    ("interpolate", _one(lambda F, x: F.interpolate(x, scale_factor=1.5), X23345), "nearest-3d"),
    (
        "interpolate",
        _one(lambda F, x: F.interpolate(x, scale_factor=(1.7, 0.6), mode="bicubic"), X23345[0]),
        "bicubic",
    ),
    (
        "interpolate",
        _one(lambda F, x: F.interpolate(x, (2, 3), mode="bilinear", antialias=True), X23345[0]),
        "antialias",
    ),
    ("fractional_max_pool2d", _fractional(2), "samples"),
    ("fractional_max_pool3d", _fractional(3), "samples"),
]
