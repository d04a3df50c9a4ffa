"""tapegrad/_blas.py: SciPy's axpy writes y in place, or declines and leaves y alone; the
optimizers give the same parameters with and without it (and without SciPy at all)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import _blas, nn

pytest.importorskip("scipy", reason="the accelerated path needs SciPy (the `fast` extra)")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_axpy_writes_y_in_its_own_memory(dtype):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal((3, 4)).astype(dtype)
    want, before = y - 0.5 * x, y.__array_interface__["data"][0]
    assert _blas.axpy(-0.5, x, y)
    assert y.__array_interface__["data"][0] == before
    np.testing.assert_allclose(y, want, rtol=1e-6 if dtype == np.float32 else 1e-15)


@pytest.mark.parametrize(
    "x,y",
    [
        (np.ones(4, np.float32), np.ones(4, np.float64)),  # f2py would write a float64 copy
        (np.ones(4, np.float64), np.ones(4, np.float32)),
        (np.ones((4, 2), np.float32), np.ones((2, 4), np.float32).T),  # y not C-contiguous
        (np.ones((2, 4), np.float32).T, np.ones((4, 2), np.float32)),  # x not C-contiguous
        (np.ones(4, np.float32), np.ones(5, np.float32)),  # shapes differ
        (np.ones(4, np.int64), np.ones(4, np.int64)),  # no integer axpy
        (np.ones(4, np.float16), np.ones(4, np.float16)),
    ],
)
def test_axpy_declines_what_it_cannot_write_in_place(x, y):
    before = y.copy()
    assert not _blas.axpy(-1.0, x, y)
    np.testing.assert_array_equal(y, before)


def test_axpy_declines_read_only_memory_and_when_turned_off():
    x, y = np.ones(3), np.ones(3)
    y.setflags(write=False)
    assert not _blas.axpy(1.0, x, y)
    z = np.ones(3)
    _blas.use_blas(False)
    try:
        assert not _blas.axpy(1.0, x, z)
    finally:
        _blas.use_blas(True)
    np.testing.assert_array_equal(z, 1.0)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizers_agree_with_and_without_scipy(name, monkeypatch):
    rng = np.random.default_rng(1)
    shapes = [(5, 3), (3,)]
    starts = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(4)]

    def train() -> list:
        params = [nn.Parameter(tg.tensor(a.copy())) for a in starts]
        opt = getattr(tg.optim, name)(params, lr=0.1)
        for gs in grads:
            opt.step([tg.tensor(g) for g in gs])
        return [p.numpy() for p in params]

    with_blas = train()
    monkeypatch.setattr(_blas, "_AXPY", {})  # as if SciPy were not installed
    without = train()
    for a, b in zip(with_blas, without):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_a_read_only_parameter_still_gets_the_clear_error():
    data = np.ones(3)
    data.setflags(write=False)
    p = nn.Parameter(tg.tensor(data))
    p._data = data  # (a parameter over read-only memory, e.g. np.frombuffer)
    opt = tg.optim.SGD([p], lr=0.1)
    with pytest.raises(RuntimeError, match="read-only"):
        opt.step([tg.ones(3)])
