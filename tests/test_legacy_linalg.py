"""PyTorch's older linear algebra forms (tapegrad/tensor/legacy_linalg.py): tg.svd / Tensor.svd
(U, S, V), pinverse, cholesky_inverse and triangular_solve against torch: values, named tuples,
gradients, gradcheck to second order, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(5)
TALL = RNG.standard_normal((2, 4, 3))
LOWER = np.tril(RNG.standard_normal((3, 3))) + 3 * np.eye(3)
RHS = RNG.standard_normal((3, 2))


def _grads(tg_out, torch_out, leaves, t_leaves):
    torch = pytest.importorskip("torch")
    w = RNG.standard_normal(tg_out.shape)
    grads = tg.autograd.grad((tg_out * tg.tensor(w)).sum(), leaves)
    t_grads = torch.autograd.grad((torch_out * torch.tensor(w)).sum(), t_leaves)
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("some", [True, False])
def test_svd_gives_v_as_torch(some):
    torch = pytest.importorskip("torch")
    got, want = tg.svd(tg.tensor(TALL), some=some), torch.svd(torch.tensor(TALL), some=some)
    assert type(got).__name__ == "SVDOldResult" and got._fields == ("U", "S", "V")
    assert [x.shape for x in got] == [tuple(x.shape) for x in want]
    np.testing.assert_allclose(got.S.numpy(), want.S.numpy(), rtol=1e-12)
    k = 3
    rebuilt = (got.U[..., :k] * got.S.unsqueeze(-2)) @ got.V[..., :k].mT
    np.testing.assert_allclose(rebuilt.numpy(), TALL, atol=1e-12)
    # gradients of sign-invariant outputs (U V^T and S) match torch's
    x, t_x = tg.tensor(TALL, requires_grad=True), torch.tensor(TALL, requires_grad=True)
    u, s, v = tg.Tensor.svd(x)
    tu, ts, tv = torch.svd(t_x)
    _grads(u @ v.mT, tu @ tv.mT, [x], [t_x])
    _grads(*(svd(a).S for svd, a in ((tg.svd, x), (torch.svd, t_x))), [x], [t_x])
    assert tg.autograd.gradcheck(lambda a: tg.svd(a).S, (x,))


def test_svd_without_uv_is_zero_filled():
    torch = pytest.importorskip("torch")
    got = tg.svd(tg.tensor(TALL), compute_uv=False)
    want = torch.svd(torch.tensor(TALL), compute_uv=False)
    assert [x.shape for x in got] == [tuple(x.shape) for x in want]
    assert not got.U.numpy().any() and not got.V.numpy().any()
    np.testing.assert_allclose(got.S.numpy(), want.S.numpy(), rtol=1e-12)


@pytest.mark.parametrize("rcond", [1e-15, 0.5])
def test_pinverse_matches_torch(rcond):
    torch = pytest.importorskip("torch")
    x, t_x = tg.tensor(TALL, requires_grad=True), torch.tensor(TALL, requires_grad=True)
    got, want = x.pinverse(rcond), torch.pinverse(t_x, rcond)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-12)
    if rcond < 0.1:  # (at constant rank: the derivative exists)
        _grads(got, want, [x], [t_x])
        assert tg.autograd.gradgradcheck(tg.pinverse, (x,))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_matches_torch(upper):
    torch = pytest.importorskip("torch")
    factor = LOWER.T if upper else LOWER
    x, t_x = tg.tensor(factor, requires_grad=True), torch.tensor(factor, requires_grad=True)
    got = tg.cholesky_inverse(x, upper=upper)
    want = torch.cholesky_inverse(t_x, upper=upper)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    _grads(got, want, [x], [t_x])
    # (only the triangle is read, the gradient is the full factor's: checked on the triangle)
    triangle = (lambda f: f.triu()) if upper else (lambda f: f.tril())
    assert tg.autograd.gradgradcheck(lambda f: triangle(f).cholesky_inverse(upper), (x,))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_triangular_solve_matches_torch(upper, transpose, unitriangular):
    torch = pytest.importorskip("torch")
    a = LOWER.T if upper else LOWER
    b, t_b = tg.tensor(RHS, requires_grad=True), torch.tensor(RHS, requires_grad=True)
    x, t_x = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    flags = {"upper": upper, "transpose": transpose, "unitriangular": unitriangular}
    got = tg.triangular_solve(b, x, **flags)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's deprecation notice)
        want = torch.triangular_solve(t_b, t_x, **flags)
    assert type(got).__name__ == "TriangularSolveResult"
    assert got._fields == ("solution", "cloned_coefficient")
    np.testing.assert_allclose(got.solution.detach().numpy(), want.solution.detach().numpy())
    np.testing.assert_array_equal(got.cloned_coefficient.detach().numpy(), a)
    _grads(got.solution, want.solution, [b, x], [t_b, t_x])
    assert tg.autograd.gradgradcheck(lambda p, q: p.triangular_solve(q, **flags).solution, (b, x))


def test_errors():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.svd(tg.ones(3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.pinverse(tg.ones(3))
    with pytest.raises(RuntimeError, match="square"):
        tg.cholesky_inverse(tg.ones(2, 3))
    with pytest.raises(RuntimeError, match="B must be a matrix"):
        tg.triangular_solve(tg.ones(3), tg.eye(3))
