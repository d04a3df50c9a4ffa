"""Window functions (tapegrad/windows.py, tapegrad/signal/windows.py): against torch (every
window, lengths 0..9, periodic and symmetric, float32 and float64, their parameters), against
NumPy's windows and closed forms without torch, PyTorch's errors (RuntimeError for tg.*_window,
ValueError for tg.signal.windows), the default dtype, and results as leaves (requires_grad=)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

FACTORIES = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]
SIGNAL = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine"]
SIGNAL += ["general_hamming", "hamming", "hann", "kaiser", "nuttall"]
LENGTHS = range(10)


def _params(name: str) -> list[dict]:
    return {
        "hamming_window": [{}, {"alpha": 0.5, "beta": 0.3}],
        "kaiser_window": [{}, {"beta": 2.5}, {"beta": 0.0}],
        "exponential": [{}, {"tau": 2.5}],
        "gaussian": [{}, {"std": 0.7}],
        "general_cosine": [{"a": [0.46, 0.23, 0.31]}, {"a": (1.0,)}],
        "general_hamming": [{}, {"alpha": 0.3}],
        "kaiser": [{}, {"beta": 2.5}, {"beta": 0.0}],
    }.get(name, [{}])


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_equals_pytorchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(tg, name), getattr(torch, name)
    for params in _params(name):
        extra = list(params.values())  # (torch takes alpha, beta only positionally)
        for n in LENGTHS:
            for periodic in (True, False):
                got = ours(n, periodic, *extra, dtype=tg.float64)
                want = theirs(n, periodic, *extra, dtype=torch.float64)
                assert got.shape == tuple(want.shape) and got.dtype == np.float64
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-15)
                single = ours(n, periodic, *extra)
                assert str(single.dtype) == "float32" and not single.requires_grad
                np.testing.assert_allclose(
                    single.numpy(), theirs(n, periodic, *extra).numpy(), rtol=1e-6, atol=1e-6
                )


@pytest.mark.parametrize("name", SIGNAL)
def test_signal_window_equals_pytorchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    windows = pytest.importorskip("torch.signal.windows")
    ours, theirs = getattr(tg.signal.windows, name), getattr(windows, name)
    for params in _params(name):
        for n in LENGTHS:
            for sym in (True, False):
                got = ours(n, sym=sym, dtype=tg.float64, **params)
                want = theirs(n, sym=sym, dtype=torch.float64, **params)
                assert got.shape == tuple(want.shape)
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(
                    ours(n, sym=sym, **params).numpy(),
                    theirs(n, sym=sym, **params).numpy(),
                    rtol=1e-6,
                    atol=1e-6,
                )
    if name == "exponential":
        got = ours(6, center=1.5, sym=False, tau=2.0, dtype=tg.float64)
        want = theirs(6, center=1.5, sym=False, tau=2.0, dtype=torch.float64)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_against_numpys_windows() -> None:
    """NumPy's symmetric windows (np.hanning, ...), and a periodic window as the symmetric one of
    length M + 1 without its last value."""
    s = tg.signal.windows
    for m in (2, 5, 8):
        f64 = {"dtype": tg.float64}
        np.testing.assert_allclose(s.hann(m, **f64).numpy(), np.hanning(m), atol=1e-15)
        np.testing.assert_allclose(s.hamming(m, **f64).numpy(), np.hamming(m), atol=1e-15)
        np.testing.assert_allclose(s.blackman(m, **f64).numpy(), np.blackman(m), atol=1e-15)
        np.testing.assert_allclose(s.bartlett(m, **f64).numpy(), np.bartlett(m), atol=1e-15)
        np.testing.assert_allclose(
            s.kaiser(m, beta=5.0, **f64).numpy(), np.kaiser(m, 5.0), rtol=1e-13
        )
        periodic = tg.hann_window(m, dtype=tg.float64).numpy()
        np.testing.assert_allclose(periodic, np.hanning(m + 1)[:-1], atol=1e-15)
        n = np.arange(m)
        np.testing.assert_allclose(
            s.cosine(m, **f64).numpy(), np.sin(np.pi * (n + 0.5) / m), atol=1e-15
        )
        np.testing.assert_allclose(
            s.gaussian(m, std=1.5, **f64).numpy(),
            np.exp(-((n - (m - 1) / 2) ** 2) / (2 * 1.5**2)),
            rtol=1e-14,
        )


def test_kaiser_large_beta_is_finite() -> None:
    """I0(beta) overflows float32 past beta ~ 90 (PyTorch's float32 kaiser gives NaN there):
    tapegrad's ratio of exp-scaled I0 stays finite and equals the float64 window."""
    w32 = tg.signal.windows.kaiser(16, beta=100.0).numpy()
    w64 = tg.signal.windows.kaiser(16, beta=100.0, dtype=tg.float64).numpy()
    assert np.isfinite(w32).all()
    np.testing.assert_allclose(w32, w64, rtol=1e-6, atol=1e-30)
    np.testing.assert_allclose(w64, np.kaiser(16, 100.0), rtol=1e-12)
    assert np.isfinite(tg.kaiser_window(8, beta=1000.0).numpy()).all()


def test_errors_are_pytorchs() -> None:
    with pytest.raises(RuntimeError, match="non-negative window_length"):
        tg.hann_window(-1)
    with pytest.raises(RuntimeError, match="expects floating point dtypes"):
        tg.kaiser_window(3, dtype=tg.int64)
    with pytest.raises(TypeError, match="must be int, not float"):
        tg.bartlett_window(3.0)
    with pytest.raises(TypeError, match="must be int, not bool"):
        tg.hann_window(True)
    with pytest.raises(RuntimeError, match="layout"):
        tg.hann_window(3, layout=object())
    s = tg.signal.windows
    with pytest.raises(ValueError, match="non-negative window_length"):
        s.hann(-1)
    for dtype in (tg.int64, tg.float16):
        with pytest.raises(ValueError, match="expects float32 or float64"):
            s.gaussian(3, dtype=dtype)
    with pytest.raises(ValueError, match="strided tensors only"):
        s.cosine(3, layout=object())
    with pytest.raises(TypeError, match="must be int, not float"):
        s.nuttall(3.0)
    with pytest.raises(ValueError, match="beta must be non-negative"):
        s.kaiser(5, beta=-1.0)
    with pytest.raises(ValueError, match="Standard deviation must be positive"):
        s.gaussian(1, std=0.0)
    with pytest.raises(ValueError, match="Tau must be positive"):
        s.exponential(0, tau=-1.0)
    with pytest.raises(ValueError, match="Center must be None for symmetric"):
        s.exponential(5, center=1.0)
    with pytest.raises(TypeError, match="Coefficients must be a list/tuple"):
        s.general_cosine(5, a=0.5)
    with pytest.raises(ValueError, match="Coefficients cannot be empty"):
        s.general_cosine(5, a=[])
    assert s.hann(True).tolist() == [1.0]  # (a bool is an int to torch.signal.windows)
    assert s.hann(tg.tensor(3)).tolist() == [0.0, 1.0, 0.0]


def test_default_dtype_and_leaves() -> None:
    old = tg.get_default_dtype()
    try:
        tg.set_default_dtype(tg.float64)
        assert tg.hann_window(4).dtype == np.float64
        assert tg.signal.windows.kaiser(4).dtype == np.float64
    finally:
        tg.set_default_dtype(old)
    w = tg.hamming_window(5, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    x = tg.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    (w * x).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), x.numpy())
    g = tg.signal.windows.gaussian(3, requires_grad=True, dtype=tg.float64)
    assert g.requires_grad and g.is_leaf
    assert tg.bartlett_window(0).shape == (0,) and tg.kaiser_window(1, False).tolist() == [1.0]
