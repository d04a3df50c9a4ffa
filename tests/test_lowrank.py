"""tg.svd_lowrank and tg.pca_lowrank: PyTorch's random draws (same seed, same subspace: singular
values and the low-rank reconstruction equal PyTorch's; singular vectors up to each column's sign,
as LAPACK builds differ), gradients against finite differences and against PyTorch's, errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(21)


def _low_rank(shape: tuple[int, ...], rank: int) -> np.ndarray:
    *batch, m, n = shape
    noise = 1e-3 * RNG.standard_normal(shape)
    return RNG.standard_normal((*batch, m, rank)) @ RNG.standard_normal((*batch, rank, n)) + noise


def _reconstruction(usv: tuple) -> np.ndarray:
    u, s, v = (np.asarray(x.detach().numpy()) for x in usv)
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


def _same_up_to_column_signs(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    signs = np.sign(np.sum(got * want, axis=-2, keepdims=True))
    np.testing.assert_allclose(got * signs, want, rtol=rtol, atol=rtol)


CASES = [
    ((7, 5), 3, 2, np.float64),
    ((5, 7), 3, 2, np.float64),
    ((2, 6, 4), 2, 1, np.float64),
    ((6, 4), 6, 2, np.float64),
    ((8, 6), 4, 0, np.float32),
    ((3, 4, 9), 3, 3, np.float32),
]


@pytest.mark.parametrize("shape,q,niter,dtype", CASES)
def test_svd_lowrank_against_torch(shape: tuple, q: int, niter: int, dtype: type) -> None:
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape).astype(dtype)  # full rank: S depends on the random draws
    rtol = 1e-10 if dtype == np.float64 else 2e-4
    torch.manual_seed(5)
    tg.manual_seed(5)
    want = torch.svd_lowrank(torch.tensor(a), q=q, niter=niter)
    got = tg.svd_lowrank(tg.tensor(a), q=q, niter=niter)
    assert type(got) is tuple and len(got) == 3
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape) and g.dtype == getattr(tg, str(w.dtype)[6:])
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=rtol)
    _same_up_to_column_signs(got[0].numpy(), want[0].numpy(), rtol)
    _same_up_to_column_signs(got[2].numpy(), want[2].numpy(), rtol)
    np.testing.assert_allclose(_reconstruction(got), _reconstruction(want), rtol=rtol, atol=rtol)
    # the generator advanced as PyTorch's did
    np.testing.assert_array_equal(tg.randn(3).numpy(), torch.randn(3).numpy())


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("shape,q", [((9, 4), None), ((4, 9), 3), ((2, 7, 5), 2)])
def test_pca_lowrank_against_torch(shape: tuple, q: int | None, center: bool) -> None:
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape) + 3.0
    torch.manual_seed(9)
    tg.manual_seed(9)
    want = torch.pca_lowrank(torch.tensor(a), q=q, center=center)
    got = tg.pca_lowrank(tg.tensor(a), q=q, center=center)
    assert type(got) is tuple
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-10)
    _same_up_to_column_signs(got[0].numpy(), want[0].numpy(), 1e-9)
    _same_up_to_column_signs(got[2].numpy(), want[2].numpy(), 1e-9)


def test_svd_lowrank_with_mean_against_torch() -> None:
    torch = pytest.importorskip("torch")
    a, mean = _low_rank((6, 8), 2), RNG.standard_normal((1, 8))
    torch.manual_seed(1)
    tg.manual_seed(1)
    want = torch.svd_lowrank(torch.tensor(a), q=3, M=torch.tensor(mean))
    got = tg.svd_lowrank(tg.tensor(a), q=3, M=tg.tensor(mean))
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-10)
    np.testing.assert_allclose(_reconstruction(got), _reconstruction(want), atol=1e-10)
    np.testing.assert_allclose(_reconstruction(got), a - mean, atol=1e-2)  # a rank-2 + noise fit


def _seeded(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    def run(a: tg.Tensor) -> tuple:
        tg.manual_seed(3)  # the same random matrix at every evaluation
        u, s, v = fn(a, *args, **kwargs)
        return s, (u * s.unsqueeze(-2)) @ v.mT, u * u  # sign-independent results

    return run


def test_gradients_finite_differences() -> None:
    a = tg.tensor(_low_rank((5, 4), 4), requires_grad=True)
    assert tg.autograd.gradcheck(_seeded(tg.svd_lowrank, q=2, niter=1), (a,))
    b = tg.tensor(_low_rank((2, 4, 6), 3), requires_grad=True)
    assert tg.autograd.gradcheck(_seeded(tg.pca_lowrank, q=2), (b,))


def test_gradients_against_torch() -> None:
    torch = pytest.importorskip("torch")
    a = _low_rank((7, 5), 5)
    weights = RNG.standard_normal((7, 5))
    grads = []
    for lib, fn in ((torch, torch.svd_lowrank), (tg, tg.svd_lowrank)):
        x = lib.tensor(a, requires_grad=True)
        lib.manual_seed(4)
        u, s, v = fn(x, q=3, niter=2)
        recon = (u * s.unsqueeze(-2)) @ v.mT
        ((recon * lib.tensor(weights)).sum() + (s**2).sum() + (u * u)[:, 0].sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-8, atol=1e-10)


def test_errors_as_torch() -> None:
    torch = pytest.importorskip("torch")
    a = np.ones((4, 3))
    for kwargs in ({"q": 4}, {"q": -1}, {"niter": -1}):
        with pytest.raises(ValueError) as want:
            torch.pca_lowrank(torch.tensor(a), **kwargs)
        with pytest.raises(ValueError) as got:
            tg.pca_lowrank(tg.tensor(a), **kwargs)
        assert str(got.value) == str(want.value)
    for fn in ("svd_lowrank", "pca_lowrank"):
        with pytest.raises(ValueError):
            getattr(torch, fn)(torch.ones(3))
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            getattr(tg, fn)(tg.ones(3))
    with pytest.raises(RuntimeError):
        torch.svd_lowrank(torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="floating point"):
        tg.svd_lowrank(tg.ones(3, 3, dtype=tg.int64))
