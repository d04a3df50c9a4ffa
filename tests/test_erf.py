"""tapegrad._erf.erf against the standard library's math.erf (and closed-form special values)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import tapegrad as tg
from tapegrad._erf import BLOCK, erf


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
    # libm's erf and ours are each within one ulp of the exact value (ours: checked with mpmath)
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


def _float32_between(lo: float, hi: float, stride: int) -> np.ndarray:
    """Every stride-th float32 from lo to hi (consecutive bit patterns are consecutive floats)."""
    bits = np.array([lo, hi], np.float32).view(np.uint32)
    return np.arange(bits[0], bits[1], stride, dtype=np.uint32).view(np.float32)


def test_float32_is_correctly_rounded_but_within_5e_12_of_a_tie():
    """float32 results use a shorter expansion (DEGREE_SINGLE): each is within 0.5 ulp + 5e-12
    relative of the exact value, so it is the correctly rounded float32 except within 5e-12 of a
    tie (every float32 in [0, 6] checked once against mpmath: 1,349 of 1,086,324,737 are not, 1.2
    per million, the largest error 0.50013 ulp; the earlier 4-term table: 1,351 and 0.50023).
    Samples: the whole range, near 1/512 (the error of the centre 0 peaks there) and near 0.5
    (the left-out term peaks there), both signs, and where erf rounds to 1."""
    x = np.concatenate(
        [
            _float32_between(0.0, 6.0, 4099),
            _float32_between(1.5e-3, 2e-3, 31),
            _float32_between(0.5, 0.51, 31),
            -_float32_between(0.4, 0.41, 29),
            _float32_between(3.8, 4.0, 101),
            np.linspace(-7, 7, 20_001, dtype=np.float32),
        ]
    )
    exact = np.array([math.erf(float(v)) for v in x])  # float64: ~1e-16, far below a float32 ulp
    got = erf(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    ulp32 = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got - exact) / ulp32) <= 0.5 + 2e-4  # (every float32: 0.50013)
    assert np.mean(got == exact.astype(np.float32)) > 1 - 1e-4


def test_float16_is_correctly_rounded_everywhere():
    x = np.arange(2**16, dtype=np.uint16).view(np.float16)  # every float16, inf and nan included
    got = erf(x)
    want = np.array([math.erf(float(v)) for v in x]).astype(np.float16)
    assert got.dtype == np.float16
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))  # erf(-0.0) = -0.0 too


def test_blocks_strides_and_input_untouched():
    """Large input is computed in blocks (BLOCK elements): the values do not depend on where a
    block starts, nor on the input's strides, and the input is never written."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal(2 * BLOCK + 5) * 2
    x[[0, BLOCK - 1, BLOCK, -1]] = [np.nan, -0.0, np.inf, 1e-300]
    before = x.copy()
    got = erf(x)
    assert np.array_equal(x, before, equal_nan=True)
    pieces = np.concatenate([erf(x[:7]), erf(x[7 : BLOCK + 11]), erf(x[BLOCK + 11 :])])
    assert np.array_equal(got, pieces, equal_nan=True)
    assert np.signbit(got[BLOCK - 1]) and got[BLOCK] == 1.0 and np.isnan(got[0])
    want = np.array([math.erf(v) for v in x[1:]])
    assert _ulps(got[1:], want).max() <= 3
    grid = x[: 6 * 100].reshape(6, 100)
    assert np.array_equal(erf(grid.T), erf(grid).T, equal_nan=True)
    assert np.array_equal(erf(x[::3]), got[::3], equal_nan=True)
    assert np.array_equal(erf(x[::3].astype(np.float32)), erf(x.astype(np.float32))[::3], True)


def test_integer_bool_and_other_dtypes():
    assert erf(np.array([True, False])).dtype == np.float64
    assert list(erf(np.array([1, 0], np.uint8))) == [math.erf(1), 0.0]
    assert list(erf(np.array([-3, 9], np.int64))) == [math.erf(-3), 1.0]
    wide = np.array([0.5], np.longdouble)
    assert erf(wide).dtype == np.longdouble and float(erf(wide)[0]) == math.erf(0.5)
    with pytest.raises(TypeError, match="real numbers.*complex"):
        erf(np.array([1 + 2j]))
    with pytest.raises(TypeError, match="real numbers"):
        erf(np.array(["0.5"]))


def test_the_benchmark_arms_compute_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/erf_gelu.py checks every arm against tapegrad's values before timing: run on tiny
    sizes, with this erf as the --before arm, its hand-fused NumPy GELU (forward and backward)
    agrees with F.gelu's, and the before arm leaves tg.erf's primitive as it found it."""
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "erf_gelu_bench", root / "benchmarks" / "erf_gelu.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    forward = tg.primitives.elementwise.erf.forward
    bench.main(["--quick", "--before", str(root / "tapegrad" / "_erf.py")])
    assert tg.primitives.elementwise.erf.forward is forward
    printed = capsys.readouterr().out
    assert "gelu 2x4x8 fwd+bwd" in printed and "fused numpy" in printed and "before" in printed
