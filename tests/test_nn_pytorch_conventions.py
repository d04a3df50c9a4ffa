"""nn as PyTorch programs call it: forward(input=...) and losses' target=, clip_grad_norm_'s dtype
and keywords, clip_grad_value_, integer convolutions and average pools, one-element tuples for 2-D
ops, padding and batch norm of empty inputs; compared with torch where it is installed."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn as nn
import tapegrad.nn.functional as F

MODULES = {
    "Linear": (lambda: nn.Linear(3, 2), (2, 3)),
    "Conv1d": (lambda: nn.Conv1d(1, 2, 2), (1, 1, 5)),
    "Conv2d": (lambda: nn.Conv2d(1, 2, 2), (1, 1, 4, 4)),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(3), (4, 3)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(2), (2, 2, 3, 3)),
    "LayerNorm": (lambda: nn.LayerNorm(3), (2, 3)),
    "MaxPool2d": (lambda: nn.MaxPool2d(2), (1, 1, 4, 4)),
    "AvgPool2d": (lambda: nn.AvgPool2d(2), (1, 1, 4, 4)),
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d(1), (1, 1, 4, 4)),
    "ReLU": (lambda: nn.ReLU(), (3,)),
    "Tanh": (lambda: nn.Tanh(), (3,)),
    "Sigmoid": (lambda: nn.Sigmoid(), (3,)),
    "GELU": (lambda: nn.GELU(), (3,)),
    "LeakyReLU": (lambda: nn.LeakyReLU(), (3,)),
    "SiLU": (lambda: nn.SiLU(), (3,)),
    "Softplus": (lambda: nn.Softplus(), (3,)),
    "ELU": (lambda: nn.ELU(), (3,)),
    "Softmax": (lambda: nn.Softmax(dim=-1), (3,)),
    "LogSoftmax": (lambda: nn.LogSoftmax(dim=-1), (3,)),
    "Dropout": (lambda: nn.Dropout(0.5), (3,)),
    "Flatten": (lambda: nn.Flatten(), (2, 3, 4)),
    "Identity": (lambda: nn.Identity(), (3,)),
    "Sequential": (lambda: nn.Sequential(nn.Linear(3, 3), nn.ReLU()), (2, 3)),
}
LOSSES = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_forward_takes_input_by_keyword(name):
    make, shape = MODULES[name]
    module = make()
    x = tg.rand(*shape)
    tg.manual_seed(0)
    by_keyword = module(input=x)
    tg.manual_seed(0)
    assert np.array_equal(by_keyword.numpy(), module(x).numpy())
    assert list(inspect.signature(module.forward).parameters)[0] == "input"


@pytest.mark.parametrize("name", LOSSES)
def test_losses_take_input_and_target_by_keyword(name):
    loss = getattr(nn, name)()
    x, y = tg.rand(4), tg.rand(4)
    assert loss(input=x, target=y).item() == loss(x, y).item()
    ce = nn.CrossEntropyLoss()
    assert ce(input=tg.ones(2, 3), target=tg.tensor([0, 1])).item() == pytest.approx(np.log(3))


def test_forward_names_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    for name in list(MODULES) + LOSSES + ["CrossEntropyLoss", "NLLLoss", "Embedding"]:
        ours = list(inspect.signature(getattr(nn, name).forward).parameters)[1:]
        theirs = list(inspect.signature(getattr(torch.nn, name).forward).parameters)[1:]
        assert ours[: len(theirs)] == theirs, name


# ---- gradient clipping -------------------------------------------------------------------------
def with_grads(*grads):
    params = []
    for g in grads:
        p = nn.Parameter(tg.zeros(len(g), dtype=g.dtype))
        p.grad = tg.tensor(g)
        params.append(p)
    return params


def test_clip_grad_norm_returns_the_norm_in_the_gradients_dtype():
    params = with_grads(np.full(3, 2.0))
    total = nn.utils.clip_grad_norm_(params, 1.0)
    assert total.dtype == np.float64 and total.item() == pytest.approx(np.sqrt(12))
    np.testing.assert_allclose(params[0].grad.numpy(), np.full(3, 2.0) / (np.sqrt(12) + 1e-6))
    mixed = with_grads(np.ones(2, np.float32), np.ones(3, np.float64))
    assert nn.utils.clip_grad_norm_(mixed, 10.0, foreach=True).dtype == np.float64
    assert nn.utils.clip_grad_norm_(with_grads(np.ones(2, np.float32)), 1.0).dtype == np.float32
    none = nn.utils.clip_grad_norm_([nn.Parameter(tg.ones(2))], 1.0)
    assert none.dtype == np.float32 and none.item() == 0.0
    assert nn.utils.clip_grad_norm_(with_grads(np.array([3.0, -4.0])), 9.0, "inf").item() == 4.0
    with pytest.raises(RuntimeError, match="non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(with_grads(np.array([np.inf, 1.0])), 1.0, error_if_nonfinite=True)


def test_clip_grad_value():
    params = with_grads(np.array([-3.0, 0.2, 5.0]))
    assert nn.utils.clip_grad_value_(params, 0.5, foreach=False) is None
    assert params[0].grad.tolist() == [-0.5, 0.2, 0.5]


def test_clipping_matches_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=n) * 3 for n in (3, 4, 5)]
    for norm_type in (2.0, 1.0, 3.5, float("inf")):
        ours = with_grads(*arrays)
        theirs = [torch.zeros(len(a), dtype=torch.float64, requires_grad=True) for a in arrays]
        for p, a in zip(theirs, arrays):
            p.grad = torch.tensor(a)
        got = nn.utils.clip_grad_norm_(ours, 1.5, norm_type)
        want = torch.nn.utils.clip_grad_norm_(theirs, 1.5, norm_type)
        assert str(got.dtype) == str(want.dtype).replace("torch.", "")
        assert got.item() == pytest.approx(want.item(), rel=1e-12)
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
    ours, theirs = with_grads(arrays[0]), [torch.zeros(3, dtype=torch.float64)]
    theirs[0].grad = torch.tensor(arrays[0])
    nn.utils.clip_grad_value_(ours, 0.7)
    torch.nn.utils.clip_grad_value_(theirs, 0.7)
    np.testing.assert_array_equal(ours[0].grad.numpy(), theirs[0].grad.numpy())


# ---- integer convolution and pooling, PyTorch's argument forms, empty inputs -------------------
def test_integer_convolutions_and_average_pools():
    x = tg.tensor(np.arange(16).reshape(1, 1, 4, 4) - 5)
    w = tg.tensor(np.array([[[[1, -2], [3, 1]]]]))
    out = F.conv2d(x, w, tg.tensor([7]), padding=1)
    assert out.dtype == np.int64 and out.shape == (1, 1, 5, 5)
    assert out.numpy()[0, 0, 1, 1] == (-5) * 1 + (-4) * -2 + (-1) * 3 + 0 * 1 + 7
    assert F.conv1d(
        tg.ones(1, 1, 3, dtype=tg.int32), tg.ones(1, 1, 2, dtype=tg.int32)
    ).tolist() == [[[2, 2]]]
    assert F.avg_pool2d(tg.tensor([[[[1, 2], [3, 5]]]]), 2).tolist() == [[[[2]]]]  # 11/4 -> 2
    assert F.avg_pool2d(tg.tensor([[[[-1, -2], [-3, -5]]]]), 2).tolist() == [[[[-2]]]]  # toward 0
    with pytest.raises(NotImplementedError, match="int32"):
        F.avg_pool2d(tg.ones(1, 1, 2, 2, dtype=tg.int32), 2)
    with pytest.raises(TypeError, match="same dtype"):
        F.conv2d(x, w.to(tg.float32))


def test_integer_ops_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    tF = torch.nn.functional
    rng = np.random.default_rng(1)
    a = rng.integers(-9, 9, size=(2, 4, 5, 6))
    w = rng.integers(-3, 3, size=(6, 2, 2, 3))
    b = rng.integers(-3, 3, size=6)
    for dtype in (np.int64, np.int32, np.int16, np.int8, np.uint8):
        if dtype == np.uint8:
            a, w, b = np.abs(a), np.abs(w), np.abs(b)
        strided = dict(stride=(2, 1), padding=(1,), dilation=(1, 2), groups=2)
        # (PyTorch dilates only int64 convolutions; tapegrad all of them)
        for kw in (dict(groups=2), strided) if dtype == np.int64 else (dict(groups=2),):
            ours = F.conv2d(*(tg.tensor(v.astype(dtype)) for v in (a, w, b)), **kw)
            theirs = tF.conv2d(*(torch.tensor(v.astype(dtype)) for v in (a, w, b)), **kw)
            assert ours.dtype == dtype and ours.tolist() == theirs.tolist()
        conv1 = F.conv1d(
            tg.tensor(a[:, :, 0].astype(dtype)), tg.tensor(w[:, :, 0].astype(dtype)), groups=2
        )
        assert (
            conv1.tolist()
            == tF.conv1d(
                torch.tensor(a[:, :, 0].astype(dtype)),
                torch.tensor(w[:, :, 0].astype(dtype)),
                groups=2,
            ).tolist()
        )
    for kw in (
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=(2,), padding=(1,), divisor_override=3),
        dict(kernel_size=2, divisor_override=-2),  # (a negative divisor: cut toward zero too)
    ):
        ours = F.avg_pool2d(tg.tensor(a), **kw)
        assert (
            ours.dtype == np.int64
            and ours.tolist() == tF.avg_pool2d(torch.tensor(a), **kw).tolist()
        )
    kw1 = dict(kernel_size=3, stride=2, padding=1)
    assert (
        F.avg_pool1d(tg.tensor(a[0]), **kw1).tolist()
        == tF.avg_pool1d(torch.tensor(a[0]), **kw1).tolist()
    )


def test_one_element_tuples_for_2d_ops_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    tF = torch.nn.functional
    x = np.random.default_rng(2).normal(size=(1, 2, 5, 5))
    cases = [
        ("avg_pool2d", dict(kernel_size=3, padding=(1,))),
        ("avg_pool2d", dict(kernel_size=(3,), stride=(2,), padding=(1,))),
        ("max_pool2d", dict(kernel_size=3, stride=(2,), padding=(1,), dilation=(1,))),
    ]
    for name, kw in cases:
        ours = getattr(F, name)(tg.tensor(x), **kw)
        np.testing.assert_allclose(ours.numpy(), getattr(tF, name)(torch.tensor(x), **kw).numpy())
    w = np.random.default_rng(3).normal(size=(3, 2, 3, 3))
    ours = F.conv2d(tg.tensor(x), tg.tensor(w), padding=(1,), stride=(2,), dilation=(1,))
    theirs = tF.conv2d(torch.tensor(x), torch.tensor(w), padding=(1,), stride=(2,), dilation=(1,))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_padding_and_batch_norm_of_empty_inputs():
    for mode in ("replicate", "reflect"):
        with pytest.raises(
            RuntimeError, match=r"other non-zero dimensions for input, but got: \[1, 0, 3\]"
        ):
            F.pad(tg.ones(1, 0, 3), (1, 1), mode=mode)
        assert F.pad(tg.ones(0, 2, 3), (1, 1), mode=mode).shape == (0, 2, 5)  # (an empty batch)
    assert F.pad(tg.ones(1, 0, 3), (1, 1), mode="circular").shape == (1, 0, 5)
    for training in (True, False):
        out = F.batch_norm(tg.ones(0), tg.ones(0), tg.ones(0), training=training)
        assert out.shape == (0,)
    bn = nn.BatchNorm1d(3)
    x = tg.ones(0, 3, requires_grad=True)
    bn(x).sum().backward()
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert x.grad.shape == (0, 3)


def test_empty_inputs_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    tF = torch.nn.functional
    for shape, pad in (
        ((1, 0, 3), (1, 1)),
        ((2, 0), (1, 1)),
        ((1, 2, 0), (1, 1)),
        ((1, 0, 3, 3), (1, 1, 1, 1)),
    ):
        for mode in ("replicate", "reflect"):
            with pytest.raises(RuntimeError) as theirs:
                tF.pad(torch.ones(shape), pad, mode=mode)
            with pytest.raises(RuntimeError) as ours:
                F.pad(tg.ones(*shape), pad, mode=mode)
            assert str(theirs.value) in str(ours.value)
    got = F.batch_norm(tg.ones(0), tg.ones(0), tg.ones(0), training=True)
    assert got.shape == tuple(
        tF.batch_norm(torch.ones(0), torch.ones(0), torch.ones(0), training=True).shape
    )
