"""nn.CrossMapLRN2d (PyTorch's values, its channel window included; gradient = derivative of those
values), nn.NLLLoss2d (NLLLoss with PyTorch's FutureWarning), nn.SyncBatchNorm on one process
(plain batch norm in train and eval, as PyTorch's on the CPU) and convert_sync_batchnorm.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 9])
@pytest.mark.parametrize("channels", [1, 3, 7])
def test_cross_map_lrn_values_against_torch(size: int, channels: int) -> None:
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, channels, 3, 2))
    for dtype, rtol in ((np.float64, 1e-13), (np.float32, 1e-6)):
        want = torch.nn.CrossMapLRN2d(size, 0.3, 0.6, 2.0)(torch.tensor(x.astype(dtype)))
        got = nn.CrossMapLRN2d(size, 0.3, 0.6, 2.0)(tg.tensor(x.astype(dtype)))
        assert got.dtype == getattr(tg, np.dtype(dtype).name)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=1e-7)


def test_cross_map_lrn_gradient_finite_differences() -> None:
    layer = nn.CrossMapLRN2d(3, alpha=0.3, beta=0.6, k=2.0)
    x = tg.tensor(RNG.standard_normal((2, 6, 2, 2)), requires_grad=True)
    assert tg.autograd.gradcheck(layer, (x,))
    assert tg.autograd.gradgradcheck(layer, (x,))


def test_cross_map_lrn_torch_backward_is_not_its_forward_derivative() -> None:
    """Why the gradient is not compared with torch's: its hand-written backward fails its own
    gradcheck (tapegrad's passes above)."""
    torch = pytest.importorskip("torch")
    x = torch.tensor(RNG.standard_normal((2, 6, 2, 2)), requires_grad=True)
    layer = torch.nn.CrossMapLRN2d(3, alpha=0.3, beta=0.6, k=2.0)
    assert not torch.autograd.gradcheck(layer, (x,), raise_exception=False)


def test_cross_map_lrn_repr_defaults_and_errors() -> None:
    torch = pytest.importorskip("torch")
    assert repr(nn.CrossMapLRN2d(3)) == repr(torch.nn.CrossMapLRN2d(3))
    layer = nn.CrossMapLRN2d(5)
    assert (layer.alpha, layer.beta, layer.k) == (1e-4, 0.75, 1)
    with pytest.raises(ValueError) as want:
        torch.nn.CrossMapLRN2d(3)(torch.ones(2, 3, 4))
    with pytest.raises(ValueError) as got:
        layer(tg.ones(2, 3, 4))
    assert str(got.value) == str(want.value)


def test_nll_loss_2d_warns_and_is_nll_loss() -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theirs = torch.nn.NLLLoss2d(ignore_index=1)
        ours = nn.NLLLoss2d(ignore_index=1)
    assert [w.category for w in caught] == [FutureWarning, FutureWarning]
    assert str(caught[0].message) == str(caught[1].message)
    assert isinstance(ours, nn.NLLLoss) and repr(ours) == repr(theirs)
    x = np.ascontiguousarray(
        np.log(RNG.dirichlet(np.ones(3), size=(2, 4, 4))).transpose(0, 3, 1, 2)
    )
    y = RNG.integers(0, 3, (2, 4, 4))
    xt, xo = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    lt, lo = theirs(xt, torch.tensor(y)), ours(xo, tg.tensor(y))
    np.testing.assert_allclose(lo.item(), lt.item(), rtol=1e-12)
    lt.backward()
    lo.backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (5, 3, 4), (4, 3, 2, 2), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_sync_batch_norm_is_batch_norm_on_one_process(shape: tuple, momentum: object) -> None:
    torch = pytest.importorskip("torch")
    theirs = torch.nn.SyncBatchNorm(3, momentum=momentum).double()
    ours = nn.SyncBatchNorm(3, momentum=momentum, dtype=tg.float64)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs) and ours.process_group is None
    with torch.no_grad():
        theirs.weight.uniform_(0.5, 2)
        theirs.bias.uniform_(-1, 1)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    for mode in ("train", "train", "eval"):
        theirs.train(mode == "train")
        ours.train(mode == "train")
        x = RNG.standard_normal(shape)
        xt, xo = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        yt, yo = theirs(xt), ours(xo)
        np.testing.assert_allclose(yo.numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
        (yt**3).sum().backward()
        (yo**3).sum().backward()
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-10)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), rtol=1e-12)


def test_sync_batch_norm_gradcheck_and_errors() -> None:
    torch = pytest.importorskip("torch")
    layer = nn.SyncBatchNorm(2, dtype=tg.float64, track_running_stats=False)
    x = tg.tensor(RNG.standard_normal((4, 2, 3)), requires_grad=True)
    assert tg.autograd.gradcheck(layer, (x,))
    theirs = torch.nn.SyncBatchNorm(3)
    for shape in ((3,), (4, 0, 2)):
        with pytest.raises(ValueError) as want:
            theirs(torch.ones(shape))
        with pytest.raises(ValueError) as got:
            nn.SyncBatchNorm(3)(tg.ones(*shape))
        assert str(got.value) == str(want.value)
    with pytest.raises(RuntimeError):
        theirs(torch.ones(3, 5))
    with pytest.raises(RuntimeError):
        nn.SyncBatchNorm(3)(tg.ones(3, 5))


def test_convert_sync_batchnorm_as_torch() -> None:
    torch = pytest.importorskip("torch")

    def model(lib: object) -> object:
        n = lib.nn  # type: ignore[attr-defined]
        inner = n.Sequential(n.BatchNorm1d(3, affine=False, momentum=None))
        return n.Sequential(n.Conv2d(3, 3, 1), n.BatchNorm2d(3, eps=1e-3), inner, n.ReLU())

    theirs, ours = model(torch), model(tg)
    ours[1].running_mean.fill_(2.0)
    ours[1].eval()
    weight, mean = ours[1].weight, ours[1].running_mean
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(ours)
    want = torch.nn.SyncBatchNorm.convert_sync_batchnorm(theirs)
    assert converted is ours and repr(converted) == repr(want)
    assert list(converted.state_dict()) == list(want.state_dict())
    assert type(converted[1]) is nn.SyncBatchNorm and type(converted[2][0]) is nn.SyncBatchNorm
    assert converted[1].weight is weight and converted[1].running_mean is mean
    assert not converted[1].training and converted[2][0].momentum is None
    assert (
        nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3d(2), "group").process_group == "group"
    )
    single = nn.Linear(2, 2)
    assert nn.SyncBatchNorm.convert_sync_batchnorm(single) is single
