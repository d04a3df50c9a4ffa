"""GroupNorm, InstanceNorm1d/2d, RMSNorm and F.group_norm / F.instance_norm / F.rms_norm: values
and gradients equal PyTorch's with copied weights, finite differences to second order, running
statistics, state_dict keys, reprs and errors as PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

nn, F = tg.nn, tg.nn.functional


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _copy(ours: nn.Module, theirs) -> None:
    """Random parameters in PyTorch's layer, copied into ours."""
    import torch

    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(_rand(*p.shape, seed=len(name)) * 0.5 + 1.0))
            getattr(ours, name).set_data(p.detach().numpy().copy())


def _same_as_torch(ours: nn.Module, theirs, x: np.ndarray) -> None:
    torch = pytest.importorskip("torch")
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    c = _rand(*x.shape, seed=9)
    out, tout = ours(gx), theirs(tx)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    (out * tg.tensor(c)).sum().backward()
    (tout * torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(gx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-11)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(
            getattr(ours, name).grad.numpy(), p.grad.numpy(), rtol=1e-9, atol=1e-11
        )
    for name, b in theirs.named_buffers():
        np.testing.assert_allclose(getattr(ours, name).numpy(), b.numpy(), rtol=1e-12)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize(
    "args, kwargs, shape",
    [
        ((2, 4), {}, (3, 4, 5)),
        ((3, 6), {"eps": 1e-3}, (2, 6, 3, 2)),
        ((1, 3), {"affine": False}, (2, 3, 4)),
        ((3, 3), {"bias": False}, (2, 3)),
    ],
)
def test_group_norm_equals_pytorchs(args, kwargs, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = nn.GroupNorm(*args, **kwargs).double(), torch.nn.GroupNorm(*args, **kwargs)
    _copy(ours, theirs.double())
    _same_as_torch(ours, theirs, _rand(*shape))


@pytest.mark.parametrize(
    "layer, shape",
    [
        ("InstanceNorm1d", (3, 2, 5)),
        ("InstanceNorm2d", (2, 2, 3, 4)),
        ("InstanceNorm3d", (2, 2, 2, 3, 2)),
    ],
)
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"affine": True}, {"track_running_stats": True, "momentum": 0.3}, {"momentum": None}],
)
def test_instance_norm_equals_pytorchs_in_training_and_eval(layer, shape, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, layer)(2, **kwargs).double(), getattr(torch.nn, layer)(2, **kwargs)
    _copy(ours, theirs.double())
    for step in range(2):  # (the running statistics move twice)
        _same_as_torch(ours, theirs, _rand(*shape, seed=step) * (step + 1) + step)
    ours.eval(), theirs.eval()
    _same_as_torch(ours, theirs, _rand(*shape, seed=5))
    assert ours.num_batches_tracked is None or ours.num_batches_tracked.item() == 0


@pytest.mark.parametrize(
    "layer, shape",
    [("InstanceNorm1d", (2, 5)), ("InstanceNorm2d", (2, 3, 4)), ("InstanceNorm3d", (2, 2, 3, 4))],
)
def test_instance_norm_takes_an_unbatched_input(layer, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = (
        getattr(nn, layer)(2, affine=True).double(),
        getattr(torch.nn, layer)(2, affine=True),
    )
    _copy(ours, theirs.double())
    _same_as_torch(ours, theirs, _rand(*shape))


@pytest.mark.parametrize(
    "args, kwargs, shape",
    [
        ((4,), {}, (3, 4)),
        (((3, 4),), {"eps": 1e-3}, (2, 3, 4)),
        ((5,), {"elementwise_affine": False}, (2, 5)),
    ],
)
def test_rms_norm_equals_pytorchs(args, kwargs, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = nn.RMSNorm(*args, **kwargs).double(), torch.nn.RMSNorm(*args, **kwargs)
    _copy(ours, theirs.double())
    _same_as_torch(ours, theirs, _rand(*shape))


def test_rms_norm_default_eps_is_the_dtypes_machine_epsilon():
    torch = pytest.importorskip("torch")
    x = np.full((1, 3), 1e-5, np.float32)
    got = F.rms_norm(tg.tensor(x), (3,)).numpy()
    want = torch.nn.functional.rms_norm(torch.tensor(x), (3,)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == np.float32


@pytest.mark.parametrize(
    "args, shape", [((2,), (2, 5, 3)), ((3, 1e-2, 0.5, 2.0), (2, 4, 3, 2)), ((5,), (1, 3, 2, 2, 2))]
)
def test_local_response_norm_equals_pytorchs(args, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = nn.LocalResponseNorm(*args), torch.nn.LocalResponseNorm(*args)
    assert repr(ours) == repr(theirs)
    _same_as_torch(ours, theirs, _rand(*shape))


def test_closed_forms():
    x = _rand(2, 4, 3)
    rows = x.reshape(2, 2, -1)
    want = (rows - rows.mean(2, keepdims=True)) / np.sqrt(rows.var(2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(F.group_norm(tg.tensor(x), 2).numpy(), want.reshape(x.shape))
    want = (x - x.mean(2, keepdims=True)) / np.sqrt(x.var(2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(F.instance_norm(tg.tensor(x)).numpy(), want)
    want = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(F.rms_norm(tg.tensor(x), 3, eps=1e-6).numpy(), want)


def _leaves(*shapes: tuple) -> list:
    return [tg.tensor(_rand(*s, seed=i), requires_grad=True) for i, s in enumerate(shapes)]


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
        (lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [(2, 3, 4), (3,), (3,)]),
        (lambda x, w: F.rms_norm(x, (2, 3), w, eps=1e-3), [(2, 2, 3), (2, 3)]),
        (lambda x: F.local_response_norm(x, 3, 0.5, 0.7, 2.0), [(2, 4, 3)]),
    ],
    ids=["group_norm", "instance_norm", "rms_norm", "local_response_norm"],
)
def test_gradients_to_second_order(fn, shapes):
    inputs = _leaves(*shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_instance_norm_running_statistics_closed_form():
    x = _rand(3, 2, 5)
    mean, var = tg.zeros(2, dtype=tg.float64), tg.ones(2, dtype=tg.float64)
    F.instance_norm(tg.tensor(x), mean, var, momentum=0.25)
    np.testing.assert_allclose(mean.numpy(), 0.25 * x.mean(2).mean(0))
    np.testing.assert_allclose(var.numpy(), 0.75 + 0.25 * x.var(2, ddof=1).mean(0))
    out = F.instance_norm(tg.tensor(x), mean, var, use_input_stats=False)
    want = (x - mean.numpy()[:, None]) / np.sqrt(var.numpy()[:, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), want)


def test_errors_are_pytorchs():
    with pytest.raises(
        ValueError, match=r"num_channels \(4\) must be divisible by num_groups \(3\)"
    ):
        nn.GroupNorm(3, 4)
    with pytest.raises(RuntimeError, match="divisible by num_groups, but got input of shape"):
        nn.GroupNorm(2, 4)(tg.randn(2, 3, 5))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.group_norm(tg.randn(4), 2)
    with pytest.raises(ValueError, match=r"weight has shape \(3,\).*needs shape \(4,\)"):
        F.group_norm(tg.randn(2, 4), 2, tg.ones(3))
    with pytest.raises(TypeError, match="num_groups must be an int"):
        nn.GroupNorm(2.0, 4)
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.InstanceNorm1d(3)(tg.randn(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"size at dim=1 to match num_features \(3\), but got: 4"):
        nn.InstanceNorm1d(3, affine=True)(tg.randn(2, 4, 5))
    with pytest.warns(UserWarning, match="size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(3)(tg.randn(2, 4, 5))
    with pytest.raises(ValueError, match="more than 1 spatial element when training"):
        F.instance_norm(tg.randn(2, 3, 1))
    with pytest.raises(ValueError, match="use_input_stats=False needs running_mean"):
        F.instance_norm(tg.randn(2, 3, 4), use_input_stats=False)
    with pytest.raises(ValueError, match=r"normalized_shape=\[3\].*input of shape \(2, 4\)"):
        nn.RMSNorm(3)(tg.randn(2, 4))
    with pytest.raises(TypeError, match="takes a tapegrad Tensor"):
        F.rms_norm(np.ones((2, 3)), 3)
    with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality input \(got 2"):
        F.local_response_norm(tg.randn(2, 3), 2)


def test_a_matching_instance_norm_input_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.InstanceNorm2d(3)(tg.randn(2, 3, 4, 4))


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.functional_group_norm as functional
    import tapegrad.nn.group_norms as layers

    for module in (functional, layers):
        result = doctest.testmod(
            module, extraglobs={"tg": tg, "F": F}, optionflags=doctest.NORMALIZE_WHITESPACE
        )
        assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("GroupNorm", (2, 4), {}),
        ("GroupNorm", (2, 4), {"affine": False}),
        ("GroupNorm", (2, 4), {"bias": False}),
        ("InstanceNorm1d", (3,), {"affine": True}),
        ("InstanceNorm2d", (3,), {"affine": True, "bias": False}),
        ("RMSNorm", ((2, 3),), {}),
        ("RMSNorm", (3,), {"elementwise_affine": False}),
        ("LayerNorm", ((2, 3),), {"bias": False}),
        ("LayerNorm", (3,), {"elementwise_affine": False}),
        ("BatchNorm1d", (3,), {"affine": False}),
        ("BatchNorm2d", (3,), {"bias": False}),
    ],
)
def test_affine_parameters_and_their_reset_are_pytorchs(name, args, kwargs):
    # one rule (normalization._AffineNorm) makes and resets every norm layer's weight and bias
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    for attr in ("weight", "bias"):
        assert hasattr(ours, attr) == hasattr(theirs, attr), attr
        mine, yours = getattr(ours, attr, None), getattr(theirs, attr, None)
        assert (mine is None) == (yours is None), attr
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for p in ours.parameters():
        p.set_data(np.full(p.shape, 7.0))
    ours.reset_parameters()
    theirs.reset_parameters()
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(p.numpy(), q.detach().numpy(), err_msg=n)
        assert p.dtype == np.float32, n
