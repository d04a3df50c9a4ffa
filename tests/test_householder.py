"""tg.linalg.householder_product and orgqr (tapegrad/tensor/legacy_linalg.py) against torch:
values, gradients in A and tau, gradcheck to second order, geqrf-style input, errors; geqrf and
ormqr (applying Q from the reflectors) against torch."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads

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


def test_geqrf_is_lapacks_compact_qr_as_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((2, 5, 3))
    ours, theirs = tg.geqrf(tg.tensor(a)), torch.geqrf(torch.tensor(a))
    assert ours._fields == ("a", "tau") and ours.a.shape == (2, 5, 3) and ours.tau.shape == (2, 3)
    np.testing.assert_allclose(ours.a.numpy(), theirs.a.numpy(), atol=1e-13)
    np.testing.assert_allclose(ours.tau.numpy(), theirs.tau.numpy(), atol=1e-13)
    q = tg.linalg.householder_product(ours.a, ours.tau)  # (its reflectors give qr's Q and R)
    np.testing.assert_allclose((q @ ours.a.triu()[..., :3, :]).numpy(), a, atol=1e-12)
    x = tg.tensor(a, requires_grad=True)
    with pytest.raises(NotImplementedError, match="derivative of geqrf"):
        tg.geqrf(x).a.sum().backward()
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        tg.geqrf(tg.ones(3))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_applies_q_as_pytorch(left: bool, transpose: bool) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    a, c = rng.standard_normal((5, 3)), rng.standard_normal((5, 2) if left else (2, 5))
    reflectors, tau = torch.geqrf(torch.tensor(a))
    mine = [tg.tensor(t.numpy(), requires_grad=True) for t in (reflectors, tau)]
    mine.append(tg.tensor(c, requires_grad=True))
    theirs = [t.clone().requires_grad_(True) for t in (reflectors, tau, torch.tensor(c))]
    out = tg.ormqr(*mine, left=left, transpose=transpose)
    expected = torch.ormqr(*theirs, left=left, transpose=transpose)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-13)
    out.sum().backward()
    expected.sum().backward()
    for ours, reference in zip(mine, theirs):
        np.testing.assert_allclose(ours.grad.numpy(), reference.grad.numpy(), atol=1e-12)
    check_grads(lambda r, t, m: tg.ormqr(r, t, m, left, transpose), *(x.numpy() for x in mine))


def test_ormqr_errors_are_pytorchs() -> None:
    a, tau = tg.ones(4, 3), tg.ones(3)
    with pytest.raises(RuntimeError, match=r"other.shape\[-2\] must be equal to input.shape\[-2\]"):
        tg.ormqr(a, tau, tg.ones(3, 2))
    with pytest.raises(RuntimeError, match=r"tau.shape\[-1\] must be equal to min"):
        tg.ormqr(a, tg.ones(4), tg.ones(4, 2))
    with pytest.raises(RuntimeError, match="other must have at least 2 dimensions"):
        tg.ormqr(a, tau, tg.ones(4))


def test_geqrf_under_vmap_is_each_examples() -> None:
    stack = np.random.default_rng(6).standard_normal((3, 4, 2))
    batched = tg.func.vmap(lambda m: tg.geqrf(m).a)(tg.tensor(stack))
    tau = tg.func.vmap(lambda m: tg.geqrf(m).tau)(tg.tensor(stack))
    for i, m in enumerate(stack):
        one = tg.geqrf(tg.tensor(m))
        np.testing.assert_allclose(batched[i].numpy(), one.a.numpy(), atol=1e-14)
        np.testing.assert_allclose(tau[i].numpy(), one.tau.numpy(), atol=1e-14)
