"""tg.linalg's norms and products (vector_norm, matrix_norm, norm, vecdot, multi_dot, cross,
diagonal): values, dtypes, gradients against torch, gradcheck to second order, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).uniform(0.3, 2.0, (2, 3, 4)) * np.random.default_rng(1).choice(
    [-1.0, 1.0], (2, 3, 4)
)  # (no zeros, no ties in |x|: every norm is differentiable there)


def check(fn_tg, fn_torch, *arrays):
    ts = [tg.tensor(a, requires_grad=True) for a in arrays]
    qs = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, want = fn_tg(*ts), fn_torch(*qs)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert got.shape == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "")
    w = np.random.default_rng(5).standard_normal(tuple(want.shape))
    (got * tg.tensor(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    for t, q in zip(ts, qs):
        np.testing.assert_allclose(t.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf, -math.inf, -1])
@pytest.mark.parametrize("dim", [None, -1, (0, 2), [1]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm_as_torch(ord, dim, keepdim):
    check(
        lambda x: tg.linalg.vector_norm(x, ord, dim, keepdim),
        lambda x: torch.linalg.vector_norm(x, ord, dim, keepdim),
        X,
    )


def test_vector_norm_zero_and_dtype():
    x = np.array([0.0, 2.0, -1.0, 0.0])
    assert tg.linalg.vector_norm(x, 0).item() == 2.0
    got = tg.linalg.vector_norm(tg.tensor([3.0, 4.0]), dtype=tg.float64)
    assert got.dtype == np.float64 and got.item() == 5.0
    with pytest.raises(TypeError, match="floating point"):
        tg.linalg.vector_norm(tg.arange(4))
    assert tg.linalg.vector_norm(tg.arange(4), dtype=tg.float32).dtype == np.float32


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_as_torch(ord, dim, keepdim):
    check(
        lambda x: tg.linalg.matrix_norm(x, ord, dim, keepdim),
        lambda x: torch.linalg.matrix_norm(x, ord, dim, keepdim),
        X,
    )


@pytest.mark.parametrize(
    "shape,ord,dim",
    [
        ((2, 3, 4), None, None),
        ((4,), 3, None),
        ((3, 4), None, None),
        ((3, 4), 1, None),
        ((3, 4), "fro", None),
        ((2, 3, 4), math.inf, (1, 2)),
        ((2, 3, 4), 1, 2),
        ((2, 3, 4), None, (0,)),
        ((2, 3, 4), None, (0, 1)),
    ],
)
def test_norm_dispatches_as_torch(shape, ord, dim):
    x = X.reshape(-1)[: int(np.prod(shape))].reshape(shape)
    check(lambda t: tg.linalg.norm(t, ord, dim), lambda t: torch.linalg.norm(t, ord, dim), x)


def test_norm_and_matrix_norm_errors():
    with pytest.raises(ValueError, match="1-D or 2-D"):
        tg.linalg.norm(tg.ones(2, 3, 4), 2)
    with pytest.raises(ValueError, match="length 1 or 2"):
        tg.linalg.norm(tg.ones(2, 3, 4), None, (0, 1, 2))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        tg.linalg.matrix_norm(tg.ones(3))
    with pytest.raises(ValueError, match="not supported"):
        tg.linalg.matrix_norm(tg.ones(3, 3), 3)
    with pytest.raises(ValueError, match="dims must be different"):
        tg.linalg.matrix_norm(tg.ones(3, 3), dim=(1, -1))
    with pytest.raises(ValueError, match="two dims"):
        tg.linalg.norm(tg.ones(3), "fro", 0)


def test_products_as_torch():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    check(tg.linalg.vecdot, torch.linalg.vecdot, a, b)
    check(
        lambda x, y: tg.linalg.vecdot(x, y, dim=0),
        lambda x, y: torch.linalg.vecdot(x, y, dim=0),
        a,
        rng.standard_normal((2, 1)),
    )
    chain = [rng.standard_normal(s) for s in [(3,), (3, 4), (4, 2), (2,)]]
    check(lambda *m: tg.linalg.multi_dot(m), lambda *m: torch.linalg.multi_dot(m), *chain)
    mats = [rng.standard_normal(s) for s in [(2, 3), (3, 4), (4, 2)]]
    check(lambda *m: tg.linalg.multi_dot(m), lambda *m: torch.linalg.multi_dot(m), *mats)
    u, v = rng.standard_normal((3, 2, 3)), rng.standard_normal((1, 2, 3))
    check(tg.linalg.cross, torch.linalg.cross, u, v)
    check(
        lambda x: tg.linalg.diagonal(x, offset=1),
        lambda x: torch.linalg.diagonal(x, offset=1),
        rng.standard_normal((2, 3, 4)),
    )


def test_product_errors():
    with pytest.raises(ValueError, match="at least 2 tensors"):
        tg.linalg.multi_dot([tg.ones(2, 2)])
    with pytest.raises(ValueError, match="middle"):
        tg.linalg.multi_dot([tg.ones(2, 2), tg.ones(2), tg.ones(2, 2)])
    with pytest.raises(ValueError, match="size 3"):
        tg.linalg.cross(tg.ones(2, 3), tg.ones(2, 3), dim=0)
    with pytest.raises(ValueError, match="same number of dimensions"):
        tg.linalg.cross(tg.ones(2, 3), tg.ones(3))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: tg.linalg.vector_norm(x, 3, -1),
        lambda x: tg.linalg.matrix_norm(x),
        lambda x: tg.linalg.norm(x, None, (0, 2)),
        lambda x: tg.linalg.vecdot(x, x * x),
        lambda x: tg.linalg.multi_dot([x[0], x[1].mT, x[1]]),
    ],
)
def test_gradcheck_to_second_order(fn):
    x = tg.tensor(X, requires_grad=True)
    assert tg.autograd.gradcheck(fn, (x,))
    assert tg.autograd.gradgradcheck(fn, (x,))
