"""tg.linalg's square systems (det, slogdet, inv, solve, solve_triangular, cholesky, matrix_power,
the _ex forms) and the Tensor/tg.* spellings: values, result structure, gradients and errors
against torch, gradcheck to second order."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

torch = pytest.importorskip("torch")


def conditioned(*shape, seed=0):
    """Square matrices of this shape well away from singular: 3 I plus noise of size 1/2."""
    return 3 * np.eye(shape[-1]) + 0.5 * np.random.default_rng(seed).standard_normal(shape)


def spd(*shape, seed=0):
    a = conditioned(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2)


def both(a):
    """The same float64 values as a tapegrad and a torch leaf needing gradients."""
    return tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def check(fn_tg, fn_torch, *arrays, tol=1e-9):
    """Values and gradients (of a weighted sum) of fn on each side agree."""
    pairs = [both(a) for a in arrays]
    out_tg, out_t = fn_tg(*[p[0] for p in pairs]), fn_torch(*[p[1] for p in pairs])
    np.testing.assert_allclose(out_tg.numpy(), out_t.detach().numpy(), rtol=tol, atol=tol)
    assert out_tg.shape == tuple(out_t.shape) and out_tg.dtype == np.float64
    w = np.random.default_rng(9).standard_normal(out_t.shape)
    (out_tg * tg.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()
    for p_tg, p_t in pairs:
        np.testing.assert_allclose(p_tg.grad.numpy(), p_t.grad.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2)])
def test_det_inv_slogdet_logdet_match_torch(shape):
    a = conditioned(*shape)
    a[..., 0, :] *= -1  # (some negative determinants)
    check(tg.linalg.det, torch.linalg.det, a)
    check(tg.linalg.inv, torch.linalg.inv, a)
    check(lambda m: tg.linalg.slogdet(m).logabsdet, lambda m: torch.linalg.slogdet(m)[1], a)
    check(lambda m: m.logdet(), lambda m: m.logdet(), a @ np.swapaxes(a, -1, -2))
    sign = tg.linalg.slogdet(a).sign.numpy()
    np.testing.assert_array_equal(sign, torch.linalg.slogdet(torch.tensor(a)).sign.numpy())


def test_result_structures_are_named_tuples():
    s = tg.linalg.slogdet(tg.tensor(spd(2, 2, 2)))
    assert s._fields == ("sign", "logabsdet") and s.sign.shape == (2,)
    on_tape = tg.linalg.slogdet(tg.tensor(spd(2, 2), requires_grad=True))
    assert on_tape.sign.grad_fn is not None  # (as PyTorch's: its gradient is 0)
    on_tape.sign.sum().backward()
    assert type(tg.slogdet(tg.eye(2))) is type(tg.eye(2).slogdet()) is type(s)
    assert tg.linalg.inv_ex(tg.eye(2))._fields == ("inverse", "info")
    assert tg.linalg.cholesky_ex(tg.eye(2))._fields == ("L", "info")
    assert tg.linalg.solve_ex(tg.eye(2), tg.ones(2))._fields == ("result", "info")
    assert tg.linalg.inv_ex(tg.eye(2)).info.dtype == np.int32


def test_logdet_nan_and_minus_inf_as_torch():
    for m in ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]]):
        got, want = tg.logdet(tg.tensor(m)).item(), torch.logdet(torch.tensor(m)).item()
        assert (np.isnan(got) and np.isnan(want)) or got == want


@pytest.mark.parametrize(
    "a_shape,b_shape",
    [
        ((3, 3), (3,)),
        ((2, 3, 3), (2, 3)),
        ((3, 3), (3, 2)),
        ((2, 3, 3), (3, 2)),
        ((3, 3), (2, 3, 1)),
    ],
)
def test_solve_vector_and_matrix_rules_as_torch(a_shape, b_shape):
    a, b = conditioned(*a_shape), np.random.default_rng(1).standard_normal(b_shape)
    check(tg.linalg.solve, torch.linalg.solve, a, b)


def test_solve_left_false():
    a, b = conditioned(2, 3, 3), np.random.default_rng(2).standard_normal((2, 4, 3))
    check(
        lambda x, y: tg.linalg.solve(x, y, left=False),
        lambda x, y: torch.linalg.solve(x, y, left=False),
        a,
        b,
    )


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_as_torch(upper, left, unit):
    a = conditioned(2, 3, 3)
    b = np.random.default_rng(3).standard_normal((2, 3, 2) if left else (2, 2, 3))
    kw = dict(upper=upper, left=left, unitriangular=unit)
    check(
        lambda x, y: tg.linalg.solve_triangular(x, y, **kw),
        lambda x, y: torch.linalg.solve_triangular(x, y, **kw),
        a,
        b,
    )


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_values_and_symmetric_gradient_as_torch(upper):
    a = spd(2, 3, 3)
    check(
        lambda m: tg.linalg.cholesky(m, upper=upper),
        lambda m: torch.linalg.cholesky(m, upper=upper),
        a,
    )
    check(lambda m: m.cholesky(), lambda m: torch.linalg.cholesky(m), a)


def test_cholesky_solve_as_torch():
    """Values read the factor's triangle only; its gradient is PyTorch's (the factor taken as a
    full matrix)."""
    a, b = spd(2, 3, 3), np.random.default_rng(4).standard_normal((2, 3, 2))
    low = np.linalg.cholesky(a)
    for upper, factor in ((False, low), (True, np.swapaxes(low, -1, -2).copy())):
        check(
            lambda x, f: tg.cholesky_solve(x, f, upper=upper),
            lambda x, f: torch.cholesky_solve(x, f, upper),
            b,
            factor,
        )
        check(
            lambda m, x: x.cholesky_solve(tg.linalg.cholesky(m, upper=upper), upper=upper),
            lambda m, x: torch.cholesky_solve(x, torch.linalg.cholesky(m, upper=upper), upper),
            a,
            b,
        )
    noisy = low + np.triu(np.ones((3, 3)), 1)  # (what lies above the triangle is not read)
    want = torch.cholesky_solve(torch.tensor(b), torch.tensor(noisy)).numpy()
    np.testing.assert_allclose(tg.cholesky_solve(b, noisy).numpy(), want, rtol=1e-12)


def test_matrix_power_as_torch():
    for n in (-3, -1, 0, 1, 2, 5):
        check(
            lambda m, n=n: tg.linalg.matrix_power(m, n),
            lambda m, n=n: torch.linalg.matrix_power(m, n),
            conditioned(2, 3, 3) / 3,
        )
    check(lambda m: tg.matrix_power(m, 2), lambda m: torch.matrix_power(m, 2), conditioned(3, 3))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m: tg.linalg.det(m),
        lambda m: tg.linalg.inv(m),
        lambda m: tg.linalg.slogdet(m).logabsdet,
        lambda m: tg.linalg.cholesky(m @ m.mT),
        lambda m: tg.linalg.solve(m, m[..., 0]),
        lambda m: tg.linalg.solve_triangular(m, m, upper=True, left=False),
        lambda m: tg.linalg.matrix_power(m, -2),
    ],
)
def test_gradcheck_to_second_order(fn):
    m = tg.tensor(conditioned(2, 3, 3), requires_grad=True)
    assert tg.autograd.gradcheck(fn, (m,))
    assert tg.autograd.gradgradcheck(fn, (m,))


def test_vmap_of_square_systems_is_the_batch():
    a = tg.tensor(conditioned(4, 3, 3))
    for fn in (tg.linalg.det, tg.linalg.inv, lambda m: tg.linalg.slogdet(m).logabsdet):
        np.testing.assert_allclose(tg.vmap(fn)(a).numpy(), fn(a).numpy(), rtol=1e-12)
    b = tg.tensor(np.ones((4, 3)))
    np.testing.assert_allclose(
        tg.vmap(tg.linalg.solve)(a, b).numpy(), tg.linalg.solve(a, b).numpy(), rtol=1e-12
    )


def test_errors_say_what_was_wrong():
    singular = tg.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(tg.linalg.LinAlgError, match="singular"):
        tg.linalg.inv(singular)
    with pytest.raises(RuntimeError, match="singular"):
        tg.linalg.solve(singular, tg.ones(2))
    with pytest.raises(tg.linalg.LinAlgError, match="positive-definite"):
        tg.linalg.cholesky(-tg.eye(2))
    with pytest.raises(RuntimeError, match="square matrices, but they are 2 by 3"):
        tg.linalg.det(tg.ones(2, 3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.inv(tg.ones(3))
    with pytest.raises(RuntimeError, match="float32 or float64"):
        tg.linalg.det(tg.ones(2, 2, dtype=tg.int64))
    with pytest.raises(RuntimeError, match="incompatible shapes"):
        tg.linalg.solve(tg.eye(3), tg.ones(2, 3))
    with pytest.raises(RuntimeError, match="same dtype"):
        tg.linalg.solve(tg.eye(2), tg.ones(2, dtype=tg.float64))
    with pytest.raises(RuntimeError, match="B must be a matrix"):
        tg.linalg.solve_triangular(tg.eye(2), tg.ones(2), upper=True)
    with pytest.raises(TypeError, match="n must be an integer"):
        tg.linalg.matrix_power(tg.eye(2), 1.5)


def test_ex_forms_report_info_as_torch():
    singular = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    got, want = tg.linalg.inv_ex(singular), torch.linalg.inv_ex(torch.tensor(singular))
    assert got.info.item() == want.info.item() and np.isnan(got.inverse.numpy()).all()
    batch = np.stack([np.eye(2), np.zeros((2, 2))])
    got_s = tg.linalg.solve_ex(batch, np.ones((2, 2)))
    want_s = torch.linalg.solve_ex(torch.tensor(batch), torch.ones(2, 2, dtype=torch.float64))
    np.testing.assert_array_equal(got_s.info.numpy(), want_s.info.numpy())
    np.testing.assert_array_equal(got_s.result.numpy()[0], [1.0, 1.0])
    not_pd = np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    got_c = tg.linalg.cholesky_ex(not_pd)
    assert got_c.info.item() == torch.linalg.cholesky_ex(torch.tensor(not_pd)).info.item()
    ok = tg.linalg.cholesky_ex(spd(3, 3))
    assert ok.info.item() == 0
    np.testing.assert_allclose(ok.L.numpy(), np.linalg.cholesky(spd(3, 3)))
    with pytest.raises(tg.linalg.LinAlgError):
        tg.linalg.inv_ex(singular, check_errors=True)
