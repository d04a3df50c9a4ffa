"""Fractional max pooling (F.fractional_max_pool2d/3d, their _with_indices forms, the layers) and
the _with_indices spellings of the max pools: given the same _random_samples, values, indices and
gradients equal PyTorch's exactly (ties, NaNs, float32, unbatched input); without them the windows
come from tapegrad's generator; finite differences to second order; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck
from tapegrad.nn.functional_fractional_pool import intervals

nn, F = tg.nn, tg.nn.functional


def _case(seed: int, dims: int, dtype: str) -> tuple:
    """A random input (sometimes unbatched, with ties or NaNs), kernel, output size, samples."""
    rng = np.random.default_rng(seed)
    shape = (2, 3) + tuple(int(n) for n in rng.integers(4, 10, dims))
    if seed % 4 == 0:
        shape = shape[1:]
    kernel = tuple(int(k) for k in rng.integers(1, 4, dims))
    strict = 1 if dims == 3 else 0  # (PyTorch's 3-D pool needs room for the windows to move)
    outs = tuple(int(rng.integers(1, n - k + 2 - strict)) for n, k in zip(shape[-dims:], kernel))
    x = rng.standard_normal(shape).astype(dtype)
    if seed % 3 == 0:
        x = np.round(x)  # (ties: the first maximum wins)
    if seed % 5 == 1:
        x.flat[::7] = np.nan  # (the last NaN wins)
    batch = shape[0] if len(shape) == dims + 2 else 1
    samples = rng.random((batch, shape[-dims - 1], dims)).astype(dtype)
    return x, kernel, outs, samples


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_equal_to_pytorchs_given_the_same_samples(seed, dims, dtype):
    torch = pytest.importorskip("torch")
    x, kernel, outs, samples = _case(seed, dims, dtype)
    ours = getattr(F, f"fractional_max_pool{dims}d")
    theirs = getattr(torch.nn.functional, f"fractional_max_pool{dims}d")
    gx, tx = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, idx = ours(gx, kernel, outs, return_indices=True, _random_samples=tg.tensor(samples))
    want, want_idx = theirs(
        tx, kernel, outs, return_indices=True, _random_samples=torch.tensor(samples)
    )
    assert out.shape == tuple(want.shape) and out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(idx.numpy(), want_idx.numpy())
    np.testing.assert_array_equal(out.numpy(), want.detach().numpy())
    c = np.random.default_rng(seed + 100).standard_normal(out.shape).astype(dtype)
    (out * tg.tensor(c)).nansum().backward()
    (want * torch.tensor(c)).nansum().backward()
    np.testing.assert_array_equal(gx.grad.numpy(), tx.grad.numpy())


def test_intervals_are_pytorchs_sequence():
    """Window i starts at int((i + u) * a) - int(u * a), a = (n - k) / (o - 1); the last window
    ends at the input's end, and every window lies inside the input."""
    rng = np.random.default_rng(3)
    for n, k, o in [(10, 3, 4), (25, 2, 12), (7, 1, 7), (9, 4, 1), (50, 3, 17)]:
        u = rng.random(20)
        starts = intervals(u, n, o, k, np.float64)
        for row, s in zip(starts, u):
            a = (n - k) / (o - 1) if o > 1 else 0.0
            want = [int((i + s) * a) - int(s * a) for i in range(o - 1)] + [n - k]
            assert row.tolist() == want
            assert row[0] >= 0 and np.all(np.diff(row) >= 0) and row[-1] + k == n


def test_without_samples_the_windows_come_from_tapegrads_generator():
    x = tg.tensor(np.random.default_rng(0).standard_normal((2, 3, 11, 9)))
    tg.manual_seed(7)
    first, first_idx = F.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    tg.manual_seed(7)
    again, again_idx = F.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    np.testing.assert_array_equal(first_idx.numpy(), again_idx.numpy())
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    draws = {
        tuple(F.fractional_max_pool2d(x, 2, (5, 4), return_indices=True)[1].numpy().ravel())
        for _ in range(5)
    }
    assert len(draws) > 1  # (the steps vary from call to call)
    # (each value is the input's at its index)
    flat = x.numpy().reshape(2, 3, -1)
    picked = np.take_along_axis(flat, first_idx.numpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(picked.reshape(first.shape), first.numpy())


@pytest.mark.parametrize("dims", [2, 3])
def test_gradients_to_second_order(dims):
    rng = np.random.default_rng(dims)
    shape = (2, 2) + (6,) * dims
    x = tg.tensor(rng.permutation(np.prod(shape)).reshape(shape) / 10.0, requires_grad=True)
    samples = tg.tensor(rng.random((2, 2, dims)))
    pool = getattr(F, f"fractional_max_pool{dims}d")

    def fn(x):
        return pool(x, 2, output_size=3, _random_samples=samples) ** 2

    assert gradcheck(fn, [x])
    assert gradgradcheck(fn, [x])


def test_layers_equal_pytorchs():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).standard_normal((2, 3, 9, 8, 7))
    u = np.random.default_rng(2).random((2, 3, 3))
    layers = [
        (nn.FractionalMaxPool2d(3, output_ratio=0.5), torch.nn.FractionalMaxPool2d(3, None, 0.5)),
        (
            nn.FractionalMaxPool2d((2, 3), output_size=(4, 3), return_indices=True),
            torch.nn.FractionalMaxPool2d((2, 3), output_size=(4, 3), return_indices=True),
        ),
        (
            nn.FractionalMaxPool3d(2, (4, 3, 2), _random_samples=tg.tensor(u)),
            torch.nn.FractionalMaxPool3d(2, (4, 3, 2), _random_samples=torch.tensor(u)),
        ),
    ]
    for ours, theirs in layers:
        assert repr(ours) == repr(theirs)
        assert ours.kernel_size == theirs.kernel_size
        assert ours.output_size == theirs.output_size
        assert ours.output_ratio == theirs.output_ratio
        data = x if isinstance(ours, nn.FractionalMaxPool3d) else x[..., 0]
        got, want = ours(tg.tensor(data)), theirs(torch.tensor(data))
        if ours.return_indices:
            (got, _), (want, _) = got, want
        assert got.shape == tuple(want.shape)
    (ours, theirs) = layers[2]
    np.testing.assert_array_equal(ours(tg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy())
    assert "_random_samples" in dict(ours.named_buffers())


def test_errors_are_pytorchs():
    torch = pytest.importorskip("torch")
    x = np.zeros((2, 3, 7, 6))
    calls = [
        (x, 2, {}),
        (x, 2, {"output_size": 7}),
        (x, 2, {"output_size": 3, "_random_samples": np.zeros((1, 3, 2))}),
        (x, 2, {"output_size": 3, "_random_samples": np.zeros((2, 2, 2))}),
        (x, 2, {"output_size": 3, "_random_samples": np.zeros((2, 3, 3))}),
        (x, 2, {"output_size": 3, "_random_samples": np.zeros((2, 3))}),
        (x, 2, {"output_size": 3, "_random_samples": np.zeros((2, 3, 2), np.float32)}),
        (x, (2, 2, 2), {"output_size": 3}),
        (x, 2, {"output_size": (3, 3, 3)}),
        (np.zeros((2, 3, 0, 6)), 2, {"output_size": 3}),
        (np.zeros((7, 6)), 2, {"output_size": 3}),
        (np.zeros((1, 2, 3, 7, 6)), 2, {"output_size": 3}),
        (np.zeros((2, 3, 7, 6), np.int64), 2, {"output_size": 3}),
    ]
    for data, kernel, kw in calls:
        theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        ours = {k: tg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        with pytest.raises(Exception) as want:
            torch.nn.functional.fractional_max_pool2d(torch.tensor(data), kernel, **theirs)
        with pytest.raises(want.type):
            F.fractional_max_pool2d(tg.tensor(data), kernel, **ours)
    with pytest.raises(RuntimeError, match="pool time 2 too large relative to input time 5"):
        F.fractional_max_pool3d(tg.zeros(1, 1, 5, 5, 5), 2, output_size=(4, 2, 2))
    with pytest.raises(ValueError, match="requires specifying either an output size"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        nn.FractionalMaxPool3d(2, 3, 0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)


def test_with_indices_spellings_equal_pytorchs():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    calls = [
        ("max_pool1d_with_indices", (2, 3, 9), (3, 2, 1)),
        ("max_pool2d_with_indices", (2, 3, 7, 6), (3, 2, 1, 2, True)),
        ("max_pool3d_with_indices", (1, 2, 5, 6, 5), (2, 1, 1)),
        ("adaptive_max_pool1d_with_indices", (2, 3, 9), (4,)),
        ("adaptive_max_pool2d_with_indices", (2, 3, 7, 6), ((3, 4),)),
        ("adaptive_max_pool3d_with_indices", (1, 2, 5, 6, 5), (2,)),
    ]
    for name, shape, args in calls:
        x = rng.standard_normal(shape)
        gx, tx = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out, idx = getattr(F, name)(gx, *args)
        want, want_idx = getattr(torch.nn.functional, name)(tx, *args)
        np.testing.assert_array_equal(out.numpy(), want.detach().numpy())
        np.testing.assert_array_equal(idx.numpy(), want_idx.numpy())
        out.sum().backward()
        want.sum().backward()
        np.testing.assert_array_equal(gx.grad.numpy(), tx.grad.numpy())
        # (return_indices=False changes nothing: these names always return both)
        assert len(getattr(F, name)(gx, *args, return_indices=False)) == 2
        assert "dL/dx" in tg.autograd.formula(f"F.{name}")


def test_docstring_examples_run():
    import doctest

    import tapegrad.nn.fractional_pooling as layers
    import tapegrad.nn.functional_fractional_pool as functional
    import tapegrad.nn.functional_pool_indices as indices

    for module in (functional, layers, indices):
        flags = doctest.NORMALIZE_WHITESPACE
        result = doctest.testmod(module, extraglobs={"tg": tg, "F": F, "np": np}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0, module.__name__
