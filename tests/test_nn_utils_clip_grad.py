"""tg.nn.utils's gradient norms and clipping (clip_grad.py): get_total_norm, clip_grads_with_norm_,
clip_grad_norm_ (the two composed), clip_grad_value_ and the deprecated clip_grad_norm: values,
dtypes, warnings and errors as PyTorch's (compared with torch when installed)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg

utils = tg.nn.utils


def _params(*grads: np.ndarray) -> list:
    params = []
    for g in grads:
        p = tg.nn.Parameter(tg.zeros(*g.shape, dtype=g.dtype))
        p.grad = tg.tensor(g.copy())
        params.append(p)
    return params


def _arrays() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.normal(size=(2, 3)) * 2, np.array([0.0, 0.0]), rng.normal(size=5)]


def test_the_old_imports_still_work():
    from tapegrad.nn import clip_grad_norm_
    from tapegrad.nn.utils import clip_grad_value_
    from tapegrad.nn.utils.clip_grad import clip_grad_norm_ as same

    assert clip_grad_norm_ is same is utils.clip_grad_norm_
    assert clip_grad_value_ is utils.clip_grad_value_
    for name in ("get_total_norm", "clip_grads_with_norm_", "parameters_to_vector", "rnn"):
        assert name in utils.__all__


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0, "inf", float("-inf"), -1.5])
def test_get_total_norm_matches_torch(norm_type):
    torch = pytest.importorskip("torch")
    arrays = _arrays()
    got = utils.get_total_norm([tg.tensor(a) for a in arrays], norm_type)
    want = torch.nn.utils.get_total_norm([torch.tensor(a) for a in arrays], norm_type)
    assert got.dtype == np.float64 and got.shape == ()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_get_total_norm_values_and_dtypes():
    assert utils.get_total_norm([tg.tensor([3.0]), tg.tensor([4.0])]).item() == pytest.approx(5.0)
    assert utils.get_total_norm(tg.tensor([3.0, -4.0]), "inf").item() == 4.0
    # norm_type 0: the norm of per-tensor counts, i.e. the tensors with a nonzero entry (PyTorch's)
    zeros = [tg.tensor([0.0, 1.0]), tg.tensor([0.0, 0.0]), tg.tensor([3.0, 2.0])]
    assert utils.get_total_norm(zeros, 0).item() == 2.0
    empty = utils.get_total_norm([])
    assert empty.dtype == np.float32 and empty.item() == 0.0
    mixed = [tg.ones(2, dtype=tg.float32), tg.ones(3, dtype=tg.float64)]
    assert utils.get_total_norm(mixed).dtype == np.float64
    assert utils.get_total_norm([tg.ones(2, dtype=tg.float32)]).dtype == np.float32
    with pytest.raises(RuntimeError, match="non-finite, so it cannot be clipped"):
        utils.get_total_norm([tg.tensor([np.nan])], error_if_nonfinite=True)
    assert np.isnan(utils.get_total_norm([tg.tensor([np.nan])]).item())
    with pytest.raises(RuntimeError, match="floating point"):
        utils.get_total_norm([tg.tensor([1, 2])])
    with pytest.raises(ValueError, match="norm_type"):
        utils.get_total_norm([tg.ones(2)], "two")


def test_get_total_norm_float32_matches_torch():
    torch = pytest.importorskip("torch")
    arrays = [a.astype(np.float32) for a in _arrays()]
    got = utils.get_total_norm([tg.tensor(a) for a in arrays])
    want = torch.nn.utils.get_total_norm([torch.tensor(a) for a in arrays])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grads_with_norm_matches_torch(max_norm):
    torch = pytest.importorskip("torch")
    arrays = _arrays()
    ours = _params(*arrays)
    theirs = [torch.zeros(a.shape, dtype=torch.float64, requires_grad=True) for a in arrays]
    for p, a in zip(theirs, arrays):
        p.grad = torch.tensor(a)
    total = utils.get_total_norm([p.grad for p in ours])
    assert utils.clip_grads_with_norm_(ours, max_norm, total) is None
    torch.nn.utils.clip_grads_with_norm_(
        theirs, max_norm, torch.nn.utils.get_total_norm([p.grad for p in theirs])
    )
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)
    if max_norm > total.item():  # never scaled up
        for p, a in zip(ours, arrays):
            np.testing.assert_array_equal(p.grad.numpy(), a)


def test_clip_grads_with_norm_takes_a_tensor_and_a_single_parameter():
    p = _params(np.ones(2))[0]
    utils.clip_grads_with_norm_(p, 1.0, tg.tensor(5.0))
    np.testing.assert_allclose(p.grad.numpy(), np.full(2, 1.0 / (5.0 + 1e-6)))
    with pytest.raises(TypeError, match="total_norm must be a Tensor"):
        utils.clip_grads_with_norm_(p, 1.0, 5.0)
    utils.clip_grads_with_norm_([tg.nn.Parameter(tg.ones(2))], 1.0, tg.tensor(5.0))  # no grads


def test_clip_grad_norm_is_the_two_composed():
    arrays = _arrays()
    a, b = _params(*arrays), _params(*arrays)
    total = utils.clip_grad_norm_(a, 1.0, 3.0)
    want = utils.get_total_norm([p.grad for p in b], 3.0)
    utils.clip_grads_with_norm_(b, 1.0, want)
    assert total.item() == want.item()
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_warnings_as_pytorchs():
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        utils.clip_grad_norm_((p for p in []), 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.clip_grad_norm_([], 1.0)  # (a list: no warning)
    p = _params(np.array([3.0, 4.0]))
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        total = utils.clip_grad_norm(p, 1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(p[0].grad.numpy(), np.array([3.0, 4.0]) / (5 + 1e-6))


def test_clip_grad_value_single_tensor_and_torch():
    torch = pytest.importorskip("torch")
    a = _arrays()[0]
    ours = _params(a)[0]
    theirs = torch.zeros(a.shape, dtype=torch.float64, requires_grad=True)
    theirs.grad = torch.tensor(a)
    utils.clip_grad_value_(ours, 0.3)
    torch.nn.utils.clip_grad_value_(theirs, 0.3)
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
    assert np.abs(ours.grad.numpy()).max() == 0.3
