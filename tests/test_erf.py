"""tapegrad._erf.erf against the standard library's math.erf (and closed-form special values)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tapegrad._erf import erf


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of the last place of want (want = 0 must be matched exactly)."""
    assert np.all(got[want == 0] == 0)
    nonzero = want != 0
    return np.abs(got[nonzero] - want[nonzero]) / np.spacing(np.abs(want[nonzero]))


def test_matches_math_erf_to_round_off_across_the_range():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.uniform(-7, 7, 20000),
            rng.standard_normal(5000) * 1e-3,  # near 0, where erf(x) ~ 2x/sqrt(pi)
            np.logspace(-310, 1, 2000),  # subnormals to the tails
            -np.logspace(-8, 0.9, 2000),
            np.arange(-6.5, 6.5, 1 / 64),  # exactly on the expansion centres
            np.nextafter(np.arange(-6.5, 6.5, 1 / 64), 10),  # just past them
        ]
    )
    want = np.array([math.erf(v) for v in x])
    got = erf(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    # libm's erf is itself within about one ulp of the exact value, ours within about 1.5
    assert _ulps(got, want).max() <= 3
    assert np.mean(got == want) > 0.6


def test_tails_special_values_and_symmetry():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5.9, 6.0, 6.1, 27.0, -40.0, 1e300])
    got = erf(x)
    assert got[0] == 0.0 and not np.signbit(got[0])
    assert got[1] == 0.0 and np.signbit(got[1])  # erf(-0.0) = -0.0
    assert got[2] == 1.0 and got[3] == -1.0 and np.isnan(got[4])
    assert list(got[5:]) == [math.erf(v) for v in x[5:]]  # 1.0 (or -1.0) from about 5.9 on
    rng = np.random.default_rng(1)
    v = rng.uniform(0, 7, 1000)
    assert np.array_equal(erf(-v), -erf(v))  # odd, exactly
    assert erf(np.array(1e-300)) == pytest.approx(2 / math.sqrt(math.pi) * 1e-300, rel=1e-15)


def test_dtypes_and_shapes():
    x32 = np.linspace(-3, 3, 7, dtype=np.float32)
    out32 = erf(x32)
    assert out32.dtype == np.float32
    assert np.array_equal(out32, np.array([math.erf(v) for v in x32], np.float32))
    assert erf(np.float16([0.5])).dtype == np.float16
    ints = erf(np.array([0, 1, -2]))
    assert ints.dtype == np.float64 and np.allclose(ints, [0.0, math.erf(1), math.erf(-2)])
    scalar = erf(np.array(0.5))
    assert scalar.shape == () and scalar == math.erf(0.5)
    assert erf(np.zeros((2, 0, 3))).shape == (2, 0, 3)
    grid = np.linspace(-2, 2, 24).reshape(2, 3, 4)
    assert np.array_equal(erf(grid), erf(grid.ravel()).reshape(2, 3, 4))
    assert erf(0.5) == math.erf(0.5)  # plain Python numbers work too


def test_float32_is_correctly_rounded_on_a_dense_grid():
    """float32 input uses fewer Taylor terms (_TERMS_SINGLE): the result must still be math.erf
    rounded to float32, across the range, near 0 and in the tails."""
    x = np.concatenate(
        [np.linspace(-7, 7, 200_001), np.geomspace(1e-30, 7, 20_001), -np.geomspace(1e-8, 7, 5001)]
    ).astype(np.float32)
    want = np.array([math.erf(float(v)) for v in x]).astype(np.float32)
    got = erf(x)
    assert got.dtype == np.float32
    assert np.array_equal(got, want)
