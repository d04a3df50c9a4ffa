"""tg.tensordot: PyTorch's pairing of axes (dims as a count, two lists or a tensor), values and
gradients against torch and finite differences (float64, second order: a bilinear product), the
result's axis order (a's axes left, then b's), and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, matches_pytorch, rand

DIMS = {
    "a count": ((2, 3, 4), (3, 4, 5), 2),
    "one axis": ((2, 3), (3, 4), 1),
    "no axis (outer product)": ((2, 3), (4,), 0),
    "two lists, crossed": ((3, 4, 5), (5, 4, 2), ([1, 2], [1, 0])),
    "negative axes": ((3, 4, 5), (5, 4, 2), ([-1, -2], [0, 1])),
    "one axis each, not last": ((4, 3), (4, 2), ([0], [0])),
    "paired axes of size 1 broadcast": ((1, 1, 3), (2, 1, 2), ([0, 1], [2, 0])),
}


@pytest.mark.parametrize("case", DIMS)
def test_tensordot_matches_pytorch_in_values_and_gradients(case):
    sa, sb, dims = DIMS[case]
    matches_pytorch(
        lambda m, a, b: m.tensordot(a, b, dims=dims), [rand(*sa), rand(*sb, seed=1)], True
    )


@pytest.mark.parametrize("case", DIMS)
def test_tensordot_passes_gradcheck_to_second_order(case):
    sa, sb, dims = DIMS[case]
    check_grads(lambda a, b: tg.tensordot(a, b, dims=dims), rand(*sa), rand(*sb, seed=1))


def test_tensordot_equals_the_sum_it_names():
    a, b = rand(2, 3, 4), rand(4, 3, 5, seed=1)
    got = tg.tensordot(tg.tensor(a), tg.tensor(b), dims=([1, 2], [1, 0]))
    want = np.einsum("ijk,kjl->il", a, b)
    assert got.shape == (2, 5) and np.allclose(got.numpy(), want)


def test_tensordot_takes_dims_as_a_tensor():
    a, b = tg.tensor(rand(2, 3)), tg.tensor(rand(3, 4, seed=1))
    expected = tg.tensordot(a, b, dims=1).numpy()
    assert np.allclose(tg.tensordot(a, b, dims=tg.tensor([[1], [0]])).numpy(), expected)
    assert np.allclose(tg.tensordot(a, b, dims=tg.tensor(1)).numpy(), expected)


@pytest.mark.parametrize(
    "dims, error, message",
    [
        (-1, RuntimeError, "tensordot expects dims >= 0, but got dims=-1"),
        (3, RuntimeError, "tensordot expects dims < ndim_a or ndim_b, but got dims=3"),
        (([0], [0]), RuntimeError, "contracted dimensions need to match, but first has size 2"),
        (([1, 0], [0]), RuntimeError, "both dimension lists should have same length"),
        (([5], [0]), IndexError, "axis 5 is out of range"),
        ("ij", TypeError, "an int, or a pair of lists of axes"),
    ],
)
def test_tensordot_refuses_what_pytorch_refuses(dims, error, message):
    a, b = tg.tensor(rand(2, 3)), tg.tensor(rand(3, 4, seed=1))
    with pytest.raises(error, match=message):
        tg.tensordot(a, b, dims=dims)


def test_tensordot_needs_one_dtype():
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        tg.tensordot(tg.ones(2, 3), tg.ones(3, 4, dtype=tg.float64), dims=1)
