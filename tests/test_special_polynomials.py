"""torch.special's orthogonal polynomials (tapegrad/special_polynomials.py), spherical_bessel_j0
and the modified_bessel_i0/i1 names: values against torch at random points, the ends x = +-1, a
degree below 0 (0), a fractional degree (cut), high degrees (Chebyshev's trigonometric forms),
tensor degrees, dtypes; against closed forms without torch; values off the tape, as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import special_polynomials as SP

RNG = np.random.default_rng(0)
X = np.concatenate([RNG.uniform(-1.3, 1.3, 40), [-1.0, 1.0, 0.0, 0.5, -0.5, 2.0, -3.0]])
DEGREES = [-2, 0, 1, 2, 3, 5, 7, 9, 12, 25]


@pytest.mark.parametrize("name", SP.__all__)
def test_polynomial_equals_pytorchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(tg.special, name), getattr(torch.special, name)
    for n in DEGREES:
        got, want = ours(tg.tensor(X), n), theirs(torch.tensor(X), n)
        assert got.dtype == np.float64 and not got.requires_grad
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-9)
    degrees = np.array([0, 3, 8, 2.7, -1, 11])
    points = np.array([0.3, 1.0, -1.0, 0.9, 0.2, -0.7])
    got = ours(tg.tensor(points), tg.tensor(degrees))
    want = theirs(torch.tensor(points), torch.tensor(degrees))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9, atol=1e-9)
    scalar = ours(0.5, tg.tensor([2, 3]))
    np.testing.assert_allclose(scalar.numpy(), theirs(0.5, torch.tensor([2, 3])).numpy(), rtol=1e-6)
    assert str(ours(tg.tensor([1, 2]), tg.tensor([2, 3])).dtype) == "float32"


def test_polynomials_closed_forms() -> None:
    x = tg.tensor([0.5, 2.0], dtype=tg.float64)
    v = x.numpy()
    special = tg.special
    np.testing.assert_allclose(special.chebyshev_polynomial_t(x, 3).numpy(), 4 * v**3 - 3 * v)
    np.testing.assert_allclose(special.chebyshev_polynomial_u(x, 2).numpy(), 4 * v**2 - 1)
    np.testing.assert_allclose(special.hermite_polynomial_h(x, 3).numpy(), 8 * v**3 - 12 * v)
    np.testing.assert_allclose(special.hermite_polynomial_he(x, 3).numpy(), v**3 - 3 * v)
    np.testing.assert_allclose(special.laguerre_polynomial_l(x, 2).numpy(), (v**2 - 4 * v + 2) / 2)
    np.testing.assert_allclose(special.legendre_polynomial_p(x, 2).numpy(), (3 * v**2 - 1) / 2)
    shifted = special.shifted_chebyshev_polynomial_t(x, 2).numpy()
    np.testing.assert_allclose(shifted, special.chebyshev_polynomial_t(2 * x - 1, 2).numpy())
    t = np.cos(40 * np.arccos(0.3))  # (a high degree inside (-1, 1): cos(n acos x))
    np.testing.assert_allclose(
        special.chebyshev_polynomial_t(tg.tensor([0.3], dtype=tg.float64), 40).numpy(), t
    )
    assert special.legendre_polynomial_p(tg.tensor([0.3]), -1).tolist() == [0.0]


def test_polynomials_need_a_tensor() -> None:
    with pytest.raises(TypeError, match="needs a tensor for input or for n"):
        tg.special.legendre_polynomial_p(0.5, 2)


def test_spherical_bessel_j0_and_the_modified_bessel_names() -> None:
    x = np.array([0.0, 1e-9, 0.3, -0.49, 0.51, 1.0, 10.0, -7.5, np.inf, np.nan])
    got = tg.special.spherical_bessel_j0(tg.tensor(x)).numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(x == 0, 1.0, np.where(np.isinf(x), 0.0, np.sin(x) / x))
    np.testing.assert_allclose(got, want, rtol=1e-13, equal_nan=True)
    assert tg.special.modified_bessel_i0 is tg.special.i0
    assert tg.special.modified_bessel_i1 is tg.special.i1
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(
        got, torch.special.spherical_bessel_j0(torch.tensor(x)).numpy(), rtol=1e-13, equal_nan=True
    )
