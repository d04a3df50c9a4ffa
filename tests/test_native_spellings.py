"""PyTorch's ATen-level spellings at torch.*: native_layer_norm, native_batch_norm,
native_group_norm (the output with the saved statistics), constant_pad_nd and empty_permuted, as
PyTorch returns them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads

R = np.random.default_rng(11)
X = R.standard_normal((3, 4, 5))


def _pair(torch: Any, x: np.ndarray, *others: Any) -> tuple:
    """(tapegrad's leaves, torch's leaves): float64 tensors that require grad; None stays None."""
    ours = [tg.tensor(a, requires_grad=True) if a is not None else None for a in (x, *others)]
    theirs = [torch.tensor(a, requires_grad=True) if a is not None else None for a in (x, *others)]
    return ours, theirs


def _same(ours: tuple, theirs: tuple, our_leaves: list, their_leaves: list) -> None:
    """Each output equal in value, shape and whether it requires grad; the gradients of the
    normalized output equal."""
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert a.shape == tuple(b.shape) and a.requires_grad == b.requires_grad
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    cotangent = R.standard_normal(ours[0].shape)
    (ours[0] * tg.tensor(cotangent)).sum().backward()
    import torch

    (theirs[0] * torch.tensor(cotangent)).sum().backward()
    for a, b in zip(our_leaves, their_leaves):
        if a is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_native_layer_norm_returns_the_output_mean_and_rstd_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(torch, X, R.standard_normal(5), R.standard_normal(5))
    out = tg.native_layer_norm(ours[0], (5,), ours[1], ours[2], 1e-5)
    expected = torch.native_layer_norm(theirs[0], (5,), theirs[1], theirs[2], 1e-5)
    _same(out, expected, ours, theirs)
    assert out[1].shape == (3, 4, 1)


def test_native_batch_norm_in_training_and_evaluation_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(torch, X, R.standard_normal(4), R.standard_normal(4))
    our_stats = [tg.zeros(4, dtype=tg.float64), tg.ones(4, dtype=tg.float64)]
    their_stats = [torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)]
    out = tg.native_batch_norm(ours[0], ours[1], ours[2], *our_stats, True, 0.3, 1e-5)
    expected = torch.native_batch_norm(*theirs, *their_stats, True, 0.3, 1e-5)
    _same(out, expected, ours, theirs)
    for a, b in zip(our_stats, their_stats):  # (the running statistics moved alike)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    evaluation = tg.native_batch_norm(tg.tensor(X), None, None, *our_stats, False, 0.3, 1e-5)
    assert [t.shape for t in evaluation[1:]] == [(0,), (0,)]
    with pytest.raises(RuntimeError, match="running_mean and running_var must be given"):
        tg.native_batch_norm(tg.tensor(X), None, None, None, None, False, 0.1, 1e-5)


def test_native_group_norm_statistics_are_recorded_as_pytorchs_require_grad() -> None:
    torch = pytest.importorskip("torch")
    x = R.standard_normal((2, 6, 5))
    ours, theirs = _pair(torch, x, R.standard_normal(6), None)
    out = tg.native_group_norm(ours[0], ours[1], None, 2, 6, 5, 3, 1e-5)
    expected = torch.native_group_norm(theirs[0], theirs[1], None, 2, 6, 5, 3, 1e-5)
    _same(out, expected, ours, theirs)
    assert out[1].shape == (2, 3)
    empty = tg.native_group_norm(tg.zeros(0, 2), None, None, 0, 2, 1, 1, 1e-5)  # (an empty batch)
    assert [t.shape for t in empty] == [(0, 2), (0, 1), (0, 1)]
    with pytest.raises(RuntimeError, match="do not describe an input of shape"):
        tg.native_group_norm(tg.tensor(x), None, None, 2, 6, 4, 3, 1e-5)


def test_the_recorded_group_statistics_have_their_true_gradients() -> None:
    def statistics(x: tg.Tensor) -> tg.Tensor:
        _, mean, rstd = tg.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-3)
        return mean * rstd

    check_grads(statistics, R.standard_normal((2, 4, 3)))


def test_constant_pad_nd_pads_and_crops_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    x = R.standard_normal((2, 3))
    for pad in [(1, 2), (1, 1, 0, 2), (-1, 2)]:
        ours = tg.constant_pad_nd(tg.tensor(x), pad, 2.5)
        theirs = torch.constant_pad_nd(torch.tensor(x), pad, 2.5)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    check_grads(lambda t: tg.constant_pad_nd(t, (1, -1, 2, 0)), x)


def test_empty_permuted_lays_the_axes_out_in_the_order_given() -> None:
    torch = pytest.importorskip("torch")
    for size, layout in [((2, 3, 4), (2, 0, 1)), ((2, 3), (1, 0)), ((5,), (0,)), ((), ())]:
        ours = tg.empty_permuted(size, layout, dtype=tg.int64)
        theirs = torch.empty_permuted(size, layout, dtype=torch.int64)
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        assert ours.dtype == tg.int64
    assert tg.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
        tg.empty_permuted((2, 3), (1, 1))
    with pytest.raises(RuntimeError, match="len\\(size\\) = 2 is not equal"):
        tg.empty_permuted((2, 3), (0, 1, 2))


def test_grid_sampler_takes_atens_mode_codes() -> None:
    torch = pytest.importorskip("torch")
    x, grid = R.standard_normal((2, 3, 4, 5)), R.uniform(-1.2, 1.2, (2, 3, 2, 2))
    for interpolation, padding, align in [(0, 0, False), (1, 1, True), (0, 2, True), (2, 2, False)]:
        ours = tg.grid_sampler_2d(tg.tensor(x), tg.tensor(grid), interpolation, padding, align)
        theirs = torch.grid_sampler_2d(
            torch.tensor(x), torch.tensor(grid), interpolation, padding, align
        )
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    check_grads(lambda a, g: tg.grid_sampler(a, g, 0, 1, False), x, grid, second=False)
    with pytest.raises(RuntimeError, match="codes 0, 1 or 2"):
        tg.grid_sampler(tg.tensor(x), tg.tensor(grid), 3, 0, False)
    with pytest.raises(RuntimeError, match="expected 4D input"):
        tg.grid_sampler_2d(tg.tensor(x[0]), tg.tensor(grid), 0, 0, False)


def test_python_protocols_pytorch_defines() -> None:
    import copy
    import pickle

    t = tg.tensor([1.0, 2.0, 4.0], requires_grad=True)
    np.testing.assert_array_equal(reversed(t).numpy(), [4.0, 2.0, 1.0])  # (one tensor: flip(0))
    np.testing.assert_array_equal(t.__rdiv__(2.0).detach().numpy(), [2.0, 1.0, 0.5])
    np.testing.assert_array_equal(t.__div__(2.0).detach().numpy(), [0.5, 1.0, 2.0])
    halved = tg.tensor([2.0])
    halved.__idiv__(2.0)
    assert halved.tolist() == [1.0]
    t.grad = tg.ones(3)
    copied = copy.deepcopy(t)
    assert copied is not t and copied.requires_grad and copied.tolist() == t.tolist()
    assert copied.grad is not t.grad and copied.grad.tolist() == [1.0, 1.0, 1.0]
    assert pickle.loads(pickle.dumps(t)).tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="graph leaves"):  # (PyTorch's error: not a tape copy)
        copy.deepcopy(t * 2)
    for result in (pickle.loads(pickle.dumps(t * 2)), copy.copy(t * 2)):  # (as PyTorch: a leaf)
        assert (
            result.grad_fn is None and result.requires_grad and result.tolist() == [2.0, 4.0, 8.0]
        )
