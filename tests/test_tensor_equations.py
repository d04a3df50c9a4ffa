"""tg.linalg.tensorinv, tensorsolve and vander (tapegrad/tensor_equations.py), and eig/eigvals'
refusal: PyTorch's values, shapes, dtypes and errors; gradients against torch and gradcheck to
second order."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(11)
A = RNG.standard_normal((2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 3
B = RNG.standard_normal((2, 3))


def _both(tg_fn, torch_fn, *arrays, **kwargs):
    """tapegrad's and torch's value and gradient of sum(fn(*arrays) * w) for every array."""
    torch = pytest.importorskip("torch")
    leaves = [tg.tensor(a, requires_grad=True) for a in arrays]
    t_leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, want = tg_fn(*leaves, **kwargs), torch_fn(*t_leaves, **kwargs)
    assert got.shape == tuple(want.shape) and got.dtype == tg.float64
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10)
    w = RNG.standard_normal(got.shape)
    grads = tg.autograd.grad((got * tg.tensor(w)).sum(), leaves)
    t_grads = torch.autograd.grad((want * torch.tensor(w)).sum(), t_leaves)
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=1e-9, atol=1e-12)


def test_tensorinv_matches_torch():
    torch = pytest.importorskip("torch")
    _both(tg.linalg.tensorinv, torch.linalg.tensorinv, A, ind=2)
    _both(tg.linalg.tensorinv, torch.linalg.tensorinv, A.reshape(6, 2, 3), ind=1)


def test_tensorsolve_matches_torch():
    torch = pytest.importorskip("torch")
    _both(tg.linalg.tensorsolve, torch.linalg.tensorsolve, A, B)
    _both(tg.linalg.tensorsolve, torch.linalg.tensorsolve, A.transpose(2, 0, 1), B, dims=(0,))


@pytest.mark.parametrize("N", [None, 2, 5])
def test_vander_matches_torch(N):
    torch = pytest.importorskip("torch")
    x = np.array([[0.0, 1.5, -2.0], [0.5, 0.0, 3.0]])  # (zeros: x**0's gradient there is 0)
    _both(tg.linalg.vander, torch.linalg.vander, x, N=N)
    ints = tg.linalg.vander(tg.tensor([1, 2, 3]), N=N)
    want = torch.linalg.vander(torch.tensor([1, 2, 3]), N=N)
    assert ints.dtype == tg.int64
    np.testing.assert_array_equal(ints.numpy(), want.numpy())


def test_gradients_to_second_order():
    a = tg.tensor(A[0, :2, :2] + 2 * np.eye(2), requires_grad=True)
    b = tg.tensor(B[0, :2], requires_grad=True)
    assert tg.autograd.gradgradcheck(lambda m: tg.linalg.tensorinv(m, ind=1), (a,))
    assert tg.autograd.gradgradcheck(tg.linalg.tensorsolve, (a, b))
    x = tg.tensor([0.0, 0.7, -1.2], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradgradcheck(lambda v: tg.linalg.vander(v, N=4), (x,))


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="strictly positive integer for 'ind', but got 0"):
        tg.linalg.tensorinv(tg.eye(2), 0)
    with pytest.raises(RuntimeError, match=r"prod\(self.shape\[ind:\]\).*got 3 != 2"):
        tg.linalg.tensorinv(tg.ones(2, 3), 1)
    with pytest.raises(RuntimeError, match=r"prod\(self.shape\[other.ndim:\]\).*got 3 != 2"):
        tg.linalg.tensorsolve(tg.ones(2, 3), tg.ones(2))
    with pytest.raises(RuntimeError, match="N must be greater than 1"):
        tg.linalg.vander(tg.ones(2), N=1)
    with pytest.raises(RuntimeError, match="N must be greater than 1"):
        tg.linalg.vander(tg.tensor(1.0))  # (a number is a vector of one: N defaults to 1)
    assert tg.linalg.vander(tg.tensor(3.0), N=2).tolist() == [[1.0, 3.0]]


def test_eig_and_eigvals_refuse_clearly():
    for fn in (tg.linalg.eig, tg.linalg.eigvals):
        with pytest.raises(TypeError, match="no complex dtype.*eigh"):
            fn(tg.eye(2))
