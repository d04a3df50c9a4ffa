"""The values of a tensor inside vmap (BatchedArray): NumPy on them equals NumPy on each example,
stacked, for ufuncs, reductions (every axis spelling, keepdims), argmax/cumsum/sort, np.where,
reshapes and joins, and indexing (basic, advanced apart and together, per-example indices, boolean
masks); a value read as one number only when every example agrees; the rest refused clearly."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.primitives.batched_array import BatchedArray, Level

RNG = np.random.default_rng(0)
B = 3
A = RNG.standard_normal((B, 4, 5))  # three examples of shape (4, 5)
C = RNG.standard_normal((B, 5))  # three of shape (5,)
S = RNG.standard_normal((4, 5))  # one array every example shares


LEVEL = Level(1, B, "error")  # (one vmap level for the values of a test)


def batched(values, level=None):
    return BatchedArray(values, level or LEVEL, True)


def per_example(fn, *arrays):
    """fn on each example (arrays with a leading batch axis; others shared), stacked."""
    out = []
    for b in range(B):
        out.append(
            fn(
                *[
                    a[b] if isinstance(a, np.ndarray) and a.shape[:1] == (B,) and a is not S else a
                    for a in arrays
                ]
            )
        )
    return np.stack([np.asarray(o) for o in out])


def check(got, want) -> None:
    assert isinstance(got, BatchedArray) and got.batched
    assert got.shape == want.shape[1:]
    np.testing.assert_allclose(got.physical, want)


FUNCS = {
    "ufunc": lambda a, c: np.exp(a) * c - 1.0,
    "shared": lambda a, c: a + S,
    "compare": lambda a, c: (a > 0) & (c < 1),
    "sum-all": lambda a, c: np.sum(a),
    "sum-axis": lambda a, c: a.sum(axis=-1, keepdims=True),
    "mean-tuple": lambda a, c: np.mean(a, axis=(0, 1)),
    "max": lambda a, c: np.max(a, axis=0),
    "reduce": lambda a, c: np.add.reduce(a, axis=1),
    "argmax-all": lambda a, c: np.argmax(a),
    "argmax-keep": lambda a, c: np.argmax(a, axis=1, keepdims=True),
    "cumsum": lambda a, c: np.cumsum(a, axis=0),
    "cumsum-flat": lambda a, c: np.cumsum(a),
    "sort": lambda a, c: np.sort(a),
    "where": lambda a, c: np.where(a > 0, a, c),
    "isfinite": lambda a, c: np.isfinite(a / c),
    "reshape": lambda a, c: a.reshape(5, 4),
    "transpose": lambda a, c: a.T,
    "moveaxis": lambda a, c: np.moveaxis(a, 0, -1),
    "expand": lambda a, c: np.expand_dims(c, 0) * a,
    "squeeze": lambda a, c: np.squeeze(a[:1]),
    "broadcast": lambda a, c: np.broadcast_to(c, (2, 5)),
    "concatenate": lambda a, c: np.concatenate([a, S], axis=0),
    "stack": lambda a, c: np.stack([c, S[0]], axis=1),
    "astype": lambda a, c: (a > 0).astype(np.float32),
    "index-basic": lambda a, c: a[1:, None, ::2],
    "index-int-array": lambda a, c: a[[0, 2, 2]],
    "index-apart": lambda a, c: a[[0, 1], 1:3][:, None],
    "index-together-later": lambda a, c: a[:, [4, 0, 1]],
    "index-mask": lambda a, c: a[S > 0],
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_numpy_on_batched_values_equals_each_example(name):
    fn = FUNCS[name]
    check(fn(batched(A), batched(C)), per_example(fn, A, C))


def test_indexing_with_an_index_per_example():
    level = Level(1, B, "error")
    labels = batched(np.array([2, 0, 3]), level)
    cols = batched(np.array([[0, 4], [1, 1], [3, 2]]), level)
    a = batched(A, level)
    check(a[labels], np.stack([A[b][[2, 0, 3][b]] for b in range(B)]))
    check(a[:, cols], np.stack([A[b][:, [[0, 4], [1, 1], [3, 2]][b]] for b in range(B)]))
    check(
        a[labels, cols],
        np.stack([A[b][[2, 0, 3][b], [[0, 4], [1, 1], [3, 2]][b]] for b in range(B)]),
    )
    shared = BatchedArray(S, level, False)  # (values the batch shares, indexed per example)
    check(shared[labels], np.stack([S[[2, 0, 3][b]] for b in range(B)]))
    with pytest.raises(IndexError, match="boolean mask"):
        a[batched(A > 0, level)]


def test_shape_and_one_value_when_all_agree():
    a = batched(A)
    assert (a.shape, a.ndim, a.size, a.dtype, len(a)) == ((4, 5), 2, 20, A.dtype, 4)
    same = batched(np.full((B, 2), 7.0))
    assert float(same.sum()) == 14.0 and bool(same[0] > 1) and int(same[0]) == 7
    with pytest.raises(RuntimeError, match="differs between the examples"):
        float(a.sum())
    with pytest.raises(RuntimeError, match="differs between the examples"):
        bool(batched(C)[0] > 0)


def test_nan_agrees_with_nan():
    assert np.isnan(float(batched(np.full((B,), np.nan))))


def test_refusals_are_clear():
    a = batched(A)
    with pytest.raises(TypeError, match="cannot become one NumPy array"):
        np.asarray(a)
    with pytest.raises(TypeError, match="np.median"):
        np.median(a)
    with pytest.raises(TypeError, match="tolist"):
        a.tolist()
    with pytest.raises(TypeError, match="writing into"):
        a[0] = 1.0


def test_an_inactive_level_is_an_escaped_value():
    level = Level(1, B, "error")
    a = batched(A, level)
    level.active = False
    with pytest.raises(RuntimeError, match="after its vmap returned"):
        a + 1.0


def test_nested_levels_index_and_reduce_per_example():
    outer, inner = Level(1, 2, "error"), Level(2, B, "error")
    data = RNG.standard_normal((2, B, 4))
    values = BatchedArray(BatchedArray(data, outer, True), inner, True)
    got = np.max(values, axis=0)
    physical = got.physical.physical
    np.testing.assert_allclose(physical, data.max(axis=2))
    assert tg.tensor(1.0).ndim == 0  # (tapegrad itself is untouched)


def test_ufunc_out_into_batched_values_and_not_into_shared_ones():
    a = batched(A.copy())
    centered = a - 1.0
    squares = np.multiply(centered, centered, out=centered)
    assert squares is centered
    check(squares, (A - 1.0) ** 2)
    with pytest.raises(TypeError, match="batch shares"):
        np.add(a, 1.0, out=np.empty((4, 5)))
