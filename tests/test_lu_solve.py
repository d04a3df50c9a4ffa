"""tg.lu_solve (PyTorch's older torch.lu_solve(b, LU_data, LU_pivots), and Tensor.lu_solve) next
to tg.linalg.lu_solve: the same solutions, gradients to LU and B (first and second order, against
finite differences and torch), the deprecation warning, and PyTorch's error types."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, rand
from tapegrad.tensor import factorizations


def _system(seed: int = 0, batch: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
    a = rand(*batch, 3, 3, seed=seed) + 3 * np.eye(3)  # (well conditioned)
    return a, rand(*batch, 3, 2, seed=seed + 1)


def test_old_spelling_solves_as_linalgs():
    a, b = _system()
    f = tg.linalg.lu_factor(tg.tensor(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = tg.lu_solve(tg.tensor(b), f.LU, f.pivots)
        method = tg.tensor(b).lu_solve(f.LU, f.pivots)
    new = tg.linalg.lu_solve(f.LU, f.pivots, tg.tensor(b))
    np.testing.assert_array_equal(old.numpy(), new.numpy())
    np.testing.assert_array_equal(method.numpy(), new.numpy())
    np.testing.assert_allclose(a @ old.numpy(), b, atol=1e-12)
    assert tg.lu_solve.__module__ == "tapegrad.linear_algebra"


def test_old_spelling_warns_once_as_torchs():
    a, b = _system()
    f = tg.linalg.lu_factor(tg.tensor(a))
    factorizations._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tg.lu_solve(tg.tensor(b), f.LU, f.pivots)
        tg.lu_solve(tg.tensor(b), f.LU, f.pivots)
    assert len(caught) == 1 and caught[0].category is UserWarning
    message = str(caught[0].message)
    assert "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve" in message


def test_factor_unpack_and_pivots_agree():
    a, _ = _system(batch=(2,))
    packed, pivots = tg.linalg.lu_factor(tg.tensor(a))
    ex = tg.linalg.lu_factor_ex(tg.tensor(a))
    np.testing.assert_array_equal(ex.LU.numpy(), packed.numpy())
    assert pivots.dtype == ex.pivots.dtype == np.int32 and pivots.shape == (2, 3)
    assert int(pivots.numpy().min()) >= 1  # (1-based, as LAPACK's and PyTorch's)
    p, lower, upper = tg.lu_unpack(packed, pivots)
    np.testing.assert_allclose((p @ lower @ upper).numpy(), a, atol=1e-12)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_gradients_to_lu_and_b_against_finite_differences(left, adjoint):
    a, b = _system(seed=5)
    packed, pivots = tg.linalg.lu_factor(tg.tensor(a))
    rhs = b if left else b.T

    def solved(lu_data, right):
        return tg.linalg.lu_solve(lu_data, pivots, right, left=left, adjoint=adjoint)

    check_grads(solved, packed.numpy(), rhs)

    def old(right, lu_data):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tg.lu_solve(right, lu_data, pivots)

    check_grads(old, b, packed.numpy())


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_gradients_match_torch_to_second_order(left, adjoint):
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    a, b = _system(seed=7, batch=(2,))
    rhs = b if left else b.swapaxes(-1, -2)
    packed, pivots = tg.linalg.lu_factor(tg.tensor(a))
    t_packed, t_pivots = torch.linalg.lu_factor(torch.tensor(a))
    np.testing.assert_array_equal(pivots.numpy(), t_pivots.numpy())
    ours = [tg.tensor(packed.numpy(), requires_grad=True), tg.tensor(rhs, requires_grad=True)]
    theirs = [torch.tensor(x.detach().numpy(), requires_grad=True) for x in ours]
    out = tg.linalg.lu_solve(ours[0], pivots, ours[1], left=left, adjoint=adjoint)
    ref = torch.linalg.lu_solve(theirs[0], t_pivots, theirs[1], left=left, adjoint=adjoint)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    w = rand(*out.shape, seed=11)
    gs = tg.autograd.grad((out * tg.tensor(w)).sum(), ours, create_graph=True)
    rs = torch.autograd.grad((ref * torch.tensor(w)).sum(), theirs, create_graph=True)
    for g, r in zip(gs, rs):
        np.testing.assert_allclose(g.detach().numpy(), r.detach().numpy(), rtol=1e-10, atol=1e-12)
    v = [rand(*x.shape, seed=20 + i) for i, x in enumerate(ours)]
    hs = tg.autograd.grad(sum((g * tg.tensor(u)).sum() for g, u in zip(gs, v)), ours)
    hr = torch.autograd.grad(sum((r * torch.tensor(u)).sum() for r, u in zip(rs, v)), theirs)
    for h, r in zip(hs, hr):
        np.testing.assert_allclose(h.numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


def test_old_spelling_matches_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    a, b = _system(seed=9, batch=(2,))
    packed, pivots = tg.linalg.lu_factor(tg.tensor(a))
    t_packed, t_pivots = torch.linalg.lu_factor(torch.tensor(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = tg.lu_solve(tg.tensor(b), packed, pivots)
        theirs = torch.lu_solve(torch.tensor(b), t_packed, t_pivots)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "case, message",
    [
        ("vector", "B must have at least 2 dimensions"),
        ("rows", r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 4x2\)"),
        ("int64 pivots", "pivots should be a Tensor of scalar type torch.int32"),
        ("wide", "A must be batches of square matrices, but they are 2 by 3 matrices"),
        ("dtypes", "Expected LU and B to have the same dtype"),
    ],
)
def test_errors_are_pytorchs_runtime_errors(case, message):
    a, b = _system()
    packed, pivots = tg.linalg.lu_factor(tg.tensor(a))
    rhs = tg.tensor(b)
    args = {
        "vector": (packed, pivots, tg.tensor(b[:, 0])),
        "rows": (packed, pivots, tg.tensor(rand(4, 2))),
        "int64 pivots": (packed, pivots.to(tg.int64), rhs),
        "wide": (packed[:2], pivots, rhs),
        "dtypes": (packed, pivots, rhs.to(tg.float32)),
    }[case]
    with pytest.raises(RuntimeError, match=message):
        tg.linalg.lu_solve(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=message):
            tg.lu_solve(args[2], args[0], args[1])


def test_factor_and_unpack_errors_are_runtime_errors():
    packed, pivots = tg.linalg.lu_factor(tg.tensor(_system()[0]))
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        tg.linalg.lu_factor(tg.ones(3))
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        tg.linalg.lu_factor_ex(tg.ones(3))
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        tg.lu_unpack(tg.ones(3), pivots)
    with pytest.raises(RuntimeError, match="torch.int32"):
        tg.lu_unpack(packed, pivots.to(tg.int64))


def test_docstring_examples_run():
    import doctest
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (lu_solve's deprecation warning)
        result = doctest.testmod(
            importlib.import_module("tapegrad.tensor.factorizations"),
            extraglobs={"tg": tg},
            optionflags=doctest.NORMALIZE_WHITESPACE,
        )
    assert result.attempted and not result.failed
