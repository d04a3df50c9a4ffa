"""tg.linalg.matrix_rank and tg.linalg.cond (tapegrad/matrix_measures.py): PyTorch's values,
dtypes, keyword rules and errors, and cond's gradients (gradcheck to second order, torch's)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(7)
SQUARE = RNG.standard_normal((3, 4, 4))
WIDE = RNG.standard_normal((2, 3, 5))
RANK_ONE = np.array([[1.0, 2.0], [2.0, 4.0]])
RANK_KWARGS = [{}, {"atol": 1.0}, {"rtol": 0.5}, {"atol": 0.1, "rtol": 0.3}, {"tol": 0.5}]


@pytest.mark.parametrize("kwargs", RANK_KWARGS + [{"hermitian": True}])
@pytest.mark.parametrize("matrix", [SQUARE, WIDE, RANK_ONE, SQUARE @ SQUARE.swapaxes(-1, -2)])
def test_matrix_rank_matches_torch(matrix, kwargs):
    torch = pytest.importorskip("torch")
    if kwargs.get("hermitian") and matrix.shape[-1] != matrix.shape[-2]:
        return
    got = tg.linalg.matrix_rank(tg.tensor(matrix), **kwargs)
    want = torch.linalg.matrix_rank(torch.tensor(matrix), **kwargs)
    assert got.dtype == tg.int64 and got.shape == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_matrix_rank_counts_and_edges():
    assert tg.linalg.matrix_rank(tg.tensor(RANK_ONE)).item() == 1
    assert tg.linalg.matrix_rank(tg.eye(3)).item() == 3
    assert tg.linalg.matrix_rank(tg.zeros(2, 0, 3)).tolist() == [0, 0]
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.matrix_rank(tg.ones(3))
    with pytest.raises(RuntimeError, match="tol cannot be given together"):
        tg.linalg.matrix_rank(tg.eye(2), 0.5, atol=0.1)


ORDERS = [None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("p", ORDERS)
def test_cond_matches_torch(p):
    torch = pytest.importorskip("torch")
    for matrix in (SQUARE, WIDE) if p in (None, 2, -2) else (SQUARE,):
        got = tg.linalg.cond(tg.tensor(matrix), p)
        want = torch.linalg.cond(torch.tensor(matrix), p)
        assert got.dtype == tg.float64 and got.shape == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
        if p not in (None, 2, -2):  # (PyTorch 2.13's backward fails there: an in-place fill)
            continue
        leaf = tg.tensor(matrix, requires_grad=True)
        t_leaf = torch.tensor(matrix, requires_grad=True)
        (g,) = tg.autograd.grad(tg.linalg.cond(leaf, p).sum(), [leaf])
        (t_g,) = torch.autograd.grad(torch.linalg.cond(t_leaf, p).sum(), [t_leaf])
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("p", [None, "fro", 1, -math.inf, -2])
def test_cond_gradients_to_second_order(p):
    x = tg.tensor(SQUARE[0] + 4 * np.eye(4), requires_grad=True)
    assert tg.autograd.gradcheck(lambda a: tg.linalg.cond(a, p), (x,))
    assert tg.autograd.gradgradcheck(lambda a: tg.linalg.cond(a, p), (x,))


def test_cond_of_singular_matrices_is_inf_in_the_inverse_norms():
    torch = pytest.importorskip("torch")
    batch = np.stack([RANK_ONE, np.eye(2)])
    for p in ("fro", 1, -1, math.inf, -math.inf):
        got = tg.linalg.cond(tg.tensor(batch), p).numpy()
        want = torch.linalg.cond(torch.tensor(batch), p).numpy()
        assert got[0] == math.inf
        np.testing.assert_allclose(got, want)


def test_cond_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.cond(tg.ones(3))
    with pytest.raises(RuntimeError, match="invalid norm type: 3"):
        tg.linalg.cond(tg.eye(2), 3)
    with pytest.raises(RuntimeError, match="square matrices, but they are 2 by 3"):
        tg.linalg.cond(tg.ones(2, 3), 1)
