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
    with pytest.raises(RuntimeError, match="UPLO must be 'L' or 'U'"):
        tg.linalg.eigh(tg.eye(2), "X")
    with pytest.raises(RuntimeError, match="square matrices"):
        tg.linalg.eigvalsh(tg.ones(2, 3))
    with pytest.raises(NotImplementedError, match="float32 or float64"):  # (PyTorch's type)
        tg.linalg.eigh(tg.ones(2, 2, dtype=tg.int64))


# ---- svd ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 5)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_values_structure_and_gradients_as_torch(shape, full_matrices):
    a = np.random.default_rng(0).standard_normal(shape)
    x, t = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    got, want = tg.linalg.svd(x, full_matrices), torch.linalg.svd(t, full_matrices)
    assert got._fields == ("U", "S", "Vh")
    for mine, theirs in zip(got, want):
        assert mine.shape == tuple(theirs.shape)
    np.testing.assert_allclose(got.S.numpy(), want.S.detach().numpy(), rtol=1e-12)
    k = min(shape[-2:])
    u, vh = got.U.numpy(), got.Vh.numpy()
    np.testing.assert_allclose((u[..., :k] * got.S.numpy()[..., None, :]) @ vh[..., :k, :], a)
    np.testing.assert_allclose(
        np.swapaxes(u, -1, -2) @ u,
        np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2),
        atol=1e-12,
    )

    def sign_free(r):  # U diag(S^3) Vh and U U^T weighted: no shared sign flip changes them
        uk, vk = r.U[..., :k], r.Vh[..., :k, :]
        return ((uk * (r.S**3).unsqueeze(-2)) @ vk).sum() + ((uk @ uk.mT) ** 2).sum() * 0.5

    sign_free(got).backward()
    sign_free(want).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_svdvals_and_matrix_norms_from_singular_values_as_torch():
    a = np.random.default_rng(1).standard_normal((2, 3, 4))
    for ord in ("nuc", 2, -2):
        for dim in ((-2, -1), (0, 2)):
            x, t = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
            got = tg.linalg.matrix_norm(x, ord, dim, keepdim=True)
            want = torch.linalg.matrix_norm(t, ord, dim, keepdim=True)
            np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-12)
            got.sum().backward()
            want.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        tg.linalg.svdvals(a).numpy(), torch.linalg.svdvals(torch.tensor(a)).numpy(), rtol=1e-12
    )
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.svd(tg.ones(3))


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: tg.linalg.svdvals(a),
        lambda a: tg.linalg.svd(a, full_matrices=False).U.abs(),
        lambda a: tg.linalg.svd(a, full_matrices=False).Vh.abs(),
        lambda a: tg.linalg.matrix_norm(a, "nuc"),
    ],
)
@pytest.mark.parametrize("shape", [(3, 2), (2, 3)])
def test_svd_gradcheck_to_second_order(fn, shape):
    a = tg.tensor(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    assert tg.autograd.gradcheck(fn, (a,))
    assert tg.autograd.gradgradcheck(fn, (a,))


# ---- pinv and lstsq ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_values_and_gradients_as_torch(shape, hermitian):
    a = np.random.default_rng(4).standard_normal(shape)
    if hermitian:
        a = a @ np.swapaxes(a, -1, -2) + np.eye(shape[-2])
    x, t = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    got, want = tg.linalg.pinv(x, hermitian=hermitian), torch.linalg.pinv(t, hermitian=hermitian)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(5).standard_normal(got.shape)
    (got * tg.tensor(w)).sum().backward()
    (want * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
    rank_one = np.ones((2, 2))  # (the zero singular value is cut off)
    np.testing.assert_allclose(tg.linalg.pinv(rank_one).numpy(), np.full((2, 2), 0.25))


@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
def test_lstsq_structure_and_values_as_torch(driver):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    got = tg.linalg.lstsq(a, b, driver=driver)
    want = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    assert got._fields == ("solution", "residuals", "rank", "singular_values")
    for mine, theirs in zip(got, want):
        assert mine.shape == tuple(theirs.shape)
        assert str(mine.dtype) == str(theirs.dtype).replace("torch.", "")
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
    vec = tg.linalg.lstsq(a[0], b[0, :, 0]).solution
    np.testing.assert_allclose(vec.numpy(), np.linalg.lstsq(a[0], b[0, :, 0])[0], rtol=1e-10)


def test_lstsq_gradient_and_errors():
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    xa, xb = tg.tensor(a, requires_grad=True), tg.tensor(b, requires_grad=True)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    tg.linalg.lstsq(xa, xb).solution.sum().backward()
    torch.linalg.lstsq(ta, tb).solution.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(xb.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(RuntimeError, match="driver"):
        tg.linalg.lstsq(a, b, driver="magic")
    with pytest.raises(RuntimeError, match="same number of rows"):
        tg.linalg.lstsq(a, b[:4])
