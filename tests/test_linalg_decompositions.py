"""tg.linalg.eigh and eigvalsh: values, result structure, gradients against torch (of functions no
eigenvector sign changes), gradcheck to second order, vmap, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

torch = pytest.importorskip("torch")


def symmetric(*shape, seed=0):
    """Symmetric matrices with eigenvalues about 1 apart."""
    n = shape[-1]
    a = np.diag(np.arange(n) + 1.0) + 0.1 * np.random.default_rng(seed).standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def projector_sum(values, vectors):
    """sum_i L_i^3 v_i v_i^T: depends on the eigenvectors, not on their signs."""
    return (vectors * (values**3).unsqueeze(-2)) @ vectors.mT


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
@pytest.mark.parametrize("UPLO", ["L", "U"])
def test_eigh_values_and_gradients_as_torch(shape, UPLO):
    a = symmetric(*shape)
    noisy = a + np.triu(np.ones(shape[-2:]), 1) * (UPLO == "L")  # (the other triangle unread)
    noisy -= np.tril(np.ones(shape[-2:]), -1) * (UPLO == "U")
    x, t = tg.tensor(noisy, requires_grad=True), torch.tensor(noisy, requires_grad=True)
    got, want = tg.linalg.eigh(x, UPLO), torch.linalg.eigh(t, UPLO)
    assert got._fields == ("eigenvalues", "eigenvectors")
    np.testing.assert_allclose(got.eigenvalues.numpy(), want.eigenvalues.detach().numpy())
    np.testing.assert_allclose(
        np.abs(got.eigenvectors.numpy()), np.abs(want.eigenvectors.detach().numpy()), atol=1e-12
    )
    w = np.random.default_rng(3).standard_normal(shape)
    (projector_sum(*got) * tg.tensor(w)).sum().backward()
    (projector_sum(*want) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        tg.linalg.eigvalsh(noisy, UPLO).numpy(), torch.linalg.eigvalsh(t, UPLO).detach().numpy()
    )


def test_eigvalsh_gradient_as_torch():
    a = symmetric(2, 3, 3)
    x, t = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    w = np.array([1.0, -2.0, 0.5])
    (tg.linalg.eigvalsh(x) * tg.tensor(w)).sum().backward()
    (torch.linalg.eigvalsh(t) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: tg.linalg.eigvalsh(a + a.mT),
        lambda a: projector_sum(*tg.linalg.eigh(a + a.mT)),
        lambda a: tg.linalg.eigh(a + a.mT, UPLO="U").eigenvectors.abs(),
    ],
)
def test_gradcheck_to_second_order(fn):
    a = tg.tensor(symmetric(2, 3, 3) / 2, requires_grad=True)
    assert tg.autograd.gradcheck(fn, (a,))
    assert tg.autograd.gradgradcheck(fn, (a,))


def test_vmap_is_the_batch():
    a = tg.tensor(symmetric(4, 3, 3))
    np.testing.assert_allclose(
        tg.vmap(tg.linalg.eigvalsh)(a).numpy(), tg.linalg.eigvalsh(a).numpy(), rtol=1e-12
    )
    got = tg.vmap(lambda m: tg.linalg.eigh(m).eigenvectors)(a).numpy()
    np.testing.assert_allclose(got, tg.linalg.eigh(a).eigenvectors.numpy(), rtol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="UPLO must be 'L' or 'U'"):
        tg.linalg.eigh(tg.eye(2), "X")
    with pytest.raises(ValueError, match="square matrices"):
        tg.linalg.eigvalsh(tg.ones(2, 3))
    with pytest.raises(TypeError, match="float32 or float64"):
        tg.linalg.eigh(tg.ones(2, 2, dtype=tg.int64))
