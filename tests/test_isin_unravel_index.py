"""tg.isin (membership, numbers on either side, invert, NaN in nothing) and tg.unravel_index
(flat row-major positions as coordinates, wrapping around as PyTorch's arithmetic does): values,
dtypes, result structure and errors, against torch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

CASES = {
    "tensors": (lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2, 5]))),
    "a number to test against": (lambda m: m.isin(m.tensor([1, 2, 3]), 2)),
    "a number to test": (lambda m: m.isin(2, m.tensor([2, 5]))),
    "invert, floats among ints": (
        lambda m: m.isin(m.tensor([1.0, 2.0]), m.tensor([2, 5]), invert=True)
    ),
    "nan is in nothing": (
        lambda m: m.isin(m.tensor([1.0, float("nan")]), m.tensor([float("nan"), 1.0]))
    ),
    "test elements of any shape": (lambda m: m.isin(m.tensor([[1, 2, 3]]), m.tensor([[2], [3]]))),
}


@pytest.mark.parametrize("case", CASES)
def test_isin_gives_pytorchs_answer(case):
    got = CASES[case](tg)
    assert got.dtype == np.bool_
    torch = pytest.importorskip("torch")
    want = CASES[case](torch)
    assert got.shape == tuple(want.shape) and got.tolist() == want.tolist()


def test_isin_closed_forms():
    assert tg.isin(tg.tensor([1, 2, 3]), tg.tensor([2, 5])).tolist() == [False, True, False]
    assert tg.isin(tg.tensor([1.0, np.nan]), tg.tensor([np.nan])).tolist() == [False, False]
    assert tg.isin(2, tg.tensor([2, 5])).shape == ()


def test_isin_needs_a_tensor_and_no_lists():
    with pytest.raises(TypeError, match="needs a tensor"):
        tg.isin(2, 3)
    with pytest.raises(TypeError, match="test_elements must be a tensor or a number"):
        tg.isin(tg.tensor([1, 2]), [2])


UNRAVEL = {
    "a vector of indices": (lambda m: m.unravel_index(m.tensor([4, 1, 5]), (2, 3))),
    "one index": (lambda m: m.unravel_index(m.tensor(4), (2, 3))),
    "wrapping past the end": (lambda m: m.unravel_index(m.tensor([7, -1, -7]), (2, 3))),
    "an int shape": (lambda m: m.unravel_index(m.tensor([1, 3]), 5)),
    "int32 indices, three axes": (
        lambda m: m.unravel_index(m.tensor([[0, 23], [11, 12]], dtype=m.int32), (2, 3, 4))
    ),
    "an empty shape": (lambda m: m.unravel_index(m.tensor(1), ())),
}


@pytest.mark.parametrize("case", UNRAVEL)
def test_unravel_index_gives_pytorchs_coordinates(case):
    got = UNRAVEL[case](tg)
    assert isinstance(got, tuple) and all(c.dtype == np.int64 for c in got)
    torch = pytest.importorskip("torch")
    want = UNRAVEL[case](torch)
    assert len(got) == len(want)
    for c, w in zip(got, want):
        assert c.shape == tuple(w.shape) and c.tolist() == w.tolist()


def test_unravel_index_inverts_ravelling():
    shape = (3, 4, 5)
    flat = np.arange(60)
    coords = tg.unravel_index(tg.tensor(flat), shape)
    assert np.array_equal(np.ravel_multi_index([c.numpy() for c in coords], shape), flat)


@pytest.mark.parametrize(
    "indices, shape, error, message",
    [
        (tg.tensor(1.0), (2, 3), TypeError, "expected 'indices' to be integer dtype"),
        (tg.tensor(True), (2, 3), TypeError, "expected 'indices' to be integer dtype"),
        (tg.tensor(1), (-2, 3), ValueError, "'shape' cannot have negative values"),
        (tg.tensor(1), (3.0, 2), TypeError, "only contain ints"),
        (tg.tensor(1), tg.tensor([3, 2]), TypeError, "expected 'shape' to be int or sequence"),
        (tg.tensor(1), (0, 3), RuntimeError, "has no element to index"),
    ],
)
def test_unravel_index_refuses_what_pytorch_refuses(indices, shape, error, message):
    with pytest.raises(error, match=message):
        tg.unravel_index(indices, shape)
