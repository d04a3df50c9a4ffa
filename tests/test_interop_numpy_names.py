"""Issue 15, found by an audit: NumPy functions tapegrad has under PyTorch's meaning (np.cumsum,
np.flip, np.sort, ...) run them with NumPy's meaning; np.reciprocal runs the reciprocal primitive;
a number divided by an integer tensor is a true division (through NumPy and the operator alike)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize(
    "number, make",
    [(2, lambda t: 2 / t), (2.0, lambda t: 2.0 / t), (2.0, lambda t: np.divide(2.0, t))],
)
def test_a_number_over_an_integer_tensor_is_a_true_division(number, make) -> None:
    out = make(tg.tensor([2, 4]))
    assert out.dtype == tg.float32  # (as PyTorch: an integer tensor divides into floats)
    np.testing.assert_allclose(out.numpy(), [number / 2, number / 4])
    assert (1.0 / tg.tensor([True])).tolist() == [1.0]


def test_np_reciprocal_runs_the_primitive_with_its_gradient() -> None:
    x = tg.tensor([0.5, 2.0, -4.0], dtype=tg.float64, requires_grad=True)
    y = np.reciprocal(x)
    assert y.grad_fn.name == "ReciprocalBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -1 / x.numpy() ** 2)
    np.testing.assert_allclose(np.reciprocal(tg.tensor([2, 4])).numpy(), [0.5, 0.25])


def test_numpy_meaning_where_tapegrad_follows_pytorch() -> None:
    a = np.arange(1.0, 7.0).reshape(2, 3)
    t = tg.tensor(a, dtype=tg.float64, requires_grad=True)
    assert np.cumsum(t).shape == (6,)  # every axis (tg.cumsum needs a dim)
    np.testing.assert_array_equal(np.flip(t).numpy(), np.flip(a))  # every axis
    assert isinstance(np.sort(t), tg.Tensor)  # the values (tg.sort: (values, indices))
    np.testing.assert_array_equal(np.outer(t, t).numpy(), np.outer(a, a))  # flattened
    for f in (np.cumsum, np.flip, np.sort, np.outer):

        def with_t(x, f=f):
            return f(x, x) if f is np.outer else f(x)

        weights = np.random.default_rng(0).normal(size=with_t(a).shape)
        t.grad = None
        (with_t(t) * weights).sum().backward()
        np.testing.assert_allclose(
            t.grad.numpy(), _fd(lambda x: float((with_t(x) * weights).sum()), a), rtol=1e-6
        )


def test_numpy_meaning_refusals_are_clear() -> None:
    t = tg.ones(2, 3)
    with pytest.raises(TypeError, match="np.cumsum.*out="):
        np.cumsum(t, out=np.zeros(6))
    with pytest.raises(TypeError, match="order="):
        np.sort(t, order="x")
    with pytest.raises(TypeError, match="np.trace.*main diagonal"):
        np.trace(t, offset=1)
    with pytest.raises(TypeError, match="subscripts"):
        np.einsum(t, [0, 1])
    assert tg.interop.numpy_support()["np.cumsum"] == "op"
