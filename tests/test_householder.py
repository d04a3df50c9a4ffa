"""tg.linalg.householder_product and orgqr (tapegrad/tensor/legacy_linalg.py) against torch:
values, gradients in A and tau, gradcheck to second order, geqrf-style input, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("shape, k", [((4, 3), 3), ((2, 5, 3), 2), ((3, 3), 1)])
def test_matches_torch(shape, k):
    torch = pytest.importorskip("torch")
    a, tau = RNG.standard_normal(shape), RNG.standard_normal(shape[:-2] + (k,))
    x, tx = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    t, tt = tg.tensor(tau, requires_grad=True), torch.tensor(tau, requires_grad=True)
    got, want = tg.linalg.householder_product(x, t), torch.linalg.householder_product(tx, tt)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-12)
    w = RNG.standard_normal(got.shape)
    grads = tg.autograd.grad((got * tg.tensor(w)).sum(), [x, t])
    t_grads = torch.autograd.grad((want * torch.tensor(w)).sum(), [tx, tt])
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), atol=1e-10)
    assert tg.autograd.gradgradcheck(tg.linalg.householder_product, (x, t))
    assert tg.orgqr(x, t).allclose(got) and x.orgqr(t).allclose(got)  # (PyTorch's other name)


def test_no_reflectors_is_the_identity_on_the_tape():
    x = tg.tensor(RNG.standard_normal((3, 2)), requires_grad=True)
    t = tg.zeros(0, dtype=tg.float64, requires_grad=True)
    q = tg.linalg.householder_product(x, t)
    assert q.tolist() == np.eye(3, 2).tolist()
    gx, gt = tg.autograd.grad(q.sum(), [x, t])
    assert not gx.numpy().any() and gt.shape == (0,)


def test_geqrf_reflectors_give_q():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((5, 3))
    reflectors, tau = torch.geqrf(torch.tensor(a))
    q = tg.linalg.householder_product(tg.tensor(reflectors.numpy()), tg.tensor(tau.numpy()))
    np.testing.assert_allclose(q.numpy(), torch.linalg.qr(torch.tensor(a)).Q.numpy(), atol=1e-12)


def test_errors():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.householder_product(tg.ones(3), tg.ones(1))
    with pytest.raises(RuntimeError, match=r"input.shape\[-2\] must be greater"):
        tg.linalg.householder_product(tg.ones(2, 3), tg.ones(2))
    with pytest.raises(RuntimeError, match=r"greater than or equal to tau.shape\[-1\]"):
        tg.linalg.householder_product(tg.ones(3, 2), tg.ones(3))
