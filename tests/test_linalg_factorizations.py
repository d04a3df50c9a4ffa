"""tg.linalg.qr (and Tensor.qr / tg.qr) and matrix_exp (Tensor.matrix_exp, tg.matrix_exp):
values, named-tuple results, gradients against PyTorch's and finite differences (to second
order), and the errors PyTorch raises."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck


def normal(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _taylor_expm(a):
    """exp(a) of one small matrix by 40 terms of its series: a reference independent of Pade."""
    term = out = np.eye(a.shape[-1])
    for k in range(1, 40):
        term = term @ a / k
        out = out + term
    return out


# ---- qr ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 5), (2, 1, 4, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_factors_are_orthonormal_and_triangular_and_multiply_back(shape, mode):
    a = normal(*shape)
    q, r = tg.linalg.qr(tg.tensor(a), mode=mode)
    k = min(shape[-2:]) if mode == "reduced" else shape[-2]
    assert q.shape == shape[:-2] + (shape[-2], k) and r.shape == shape[:-2] + (k, shape[-1])
    np.testing.assert_allclose(
        (q.mT @ q).numpy(), np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), atol=1e-12
    )
    np.testing.assert_allclose(np.tril(r.numpy(), -1), 0.0)
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)


def test_qr_result_is_a_named_tuple_with_numpys_signs():
    a = normal(5, 3)
    result = tg.linalg.qr(tg.tensor(a))
    assert isinstance(result, tg.linalg.QRResult) and result._fields == ("Q", "R")
    q, r = np.linalg.qr(a)
    np.testing.assert_allclose(result.Q.numpy(), q, atol=1e-13)
    np.testing.assert_allclose(result.R.numpy(), r, atol=1e-13)


def test_qr_mode_r_gives_an_empty_q():
    result = tg.linalg.qr(tg.tensor(normal(2, 4, 3)), mode="r")
    assert result.Q.shape == (0,) and result.Q.dtype == tg.float64
    np.testing.assert_allclose(np.abs(result.R.numpy()), np.abs(np.linalg.qr(normal(2, 4, 3))[1]))


def test_tensor_qr_and_tg_qr_take_the_old_some_flag():
    a = tg.tensor(normal(4, 2))
    assert tg.qr(a).Q.shape == (4, 2) and a.qr(some=False).Q.shape == (4, 4)
    assert tg.qr(a, some=False).R.shape == (4, 2)


def test_qr_keeps_float32():
    q, r = tg.linalg.qr(tg.tensor(normal(3, 2), dtype=tg.float32))
    assert q.dtype == tg.float32 and r.dtype == tg.float32


def _qr_loss(q, r):
    """A function of both factors that weighs every entry differently."""
    return (q * q * q).sum() + (r * r).sum() + 2 * q.sum() + (r * 0.5).sin().sum()


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 5), (2, 4, 2)])
def test_qr_gradient_matches_torch_and_finite_differences(shape):
    torch = pytest.importorskip("torch")
    a = normal(*shape, seed=1)
    x = tg.tensor(a, requires_grad=True)
    _qr_loss(*tg.linalg.qr(x)).backward()
    t = torch.tensor(a, requires_grad=True)
    _qr_loss(*torch.linalg.qr(t)).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)

    def f(m):
        return _qr_loss(*tg.linalg.qr(m))

    assert gradcheck(f, (tg.tensor(a, requires_grad=True),))
    assert gradgradcheck(f, (tg.tensor(a, requires_grad=True),))


def test_qr_backward_refuses_mode_r_and_complete_of_a_tall_matrix_as_torch():
    x = tg.tensor(normal(4, 3), requires_grad=True)
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        tg.linalg.qr(x, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        tg.linalg.qr(x, mode="complete").Q.sum().backward()
    square = tg.tensor(normal(3, 3), requires_grad=True)  # (complete is reduced there)
    tg.linalg.qr(square, mode="complete").R.sum().backward()
    assert square.grad is not None and np.all(np.isfinite(square.grad.numpy()))


def test_qr_errors():
    with pytest.raises(RuntimeError, match="unrecognized mode 'x'"):
        tg.linalg.qr(tg.ones(2, 2), mode="x")
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.qr(tg.ones(3))
    with pytest.raises(RuntimeError, match="float32 or float64"):
        tg.linalg.qr(tg.ones(2, 2, dtype=tg.int64))
    with pytest.raises(NotImplementedError, match="float32 or float64"):
        tg.linalg.qr(tg.ones(2, 2, dtype=tg.float16))


def test_qr_of_empty_matrices_has_torchs_shapes():
    assert tg.linalg.qr(tg.zeros(0, 3, 2)).R.shape == (0, 2, 2)
    q, r = tg.linalg.qr(tg.zeros(3, 0), mode="complete")
    assert q.shape == (3, 3) and r.shape == (3, 0)


# ---- matrix_exp --------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [0.1, 1.0, 8.0])
def test_matrix_exp_matches_its_series_at_every_scale(scale):
    a = normal(3, 3) * scale
    # (the series of a large matrix from exp(a / 2^s)^(2^s): squaring is exact in the reference)
    s = 6
    expected = np.linalg.matrix_power(_taylor_expm(a / 2**s), 2**s)
    got = tg.linalg.matrix_exp(tg.tensor(a)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-12)


def test_matrix_exp_of_known_matrices():
    rotation = tg.linalg.matrix_exp(
        tg.tensor([[0.0, -np.pi / 2], [np.pi / 2, 0.0]], dtype=tg.float64)
    )
    np.testing.assert_allclose(rotation.numpy(), [[0.0, -1.0], [1.0, 0.0]], atol=1e-15)
    diag = tg.tensor(np.diag([1.0, -2.0, 0.5]))
    np.testing.assert_allclose(diag.matrix_exp().numpy(), np.diag(np.exp([1.0, -2.0, 0.5])))
    assert tg.matrix_exp(tg.zeros(0, 2, 2)).shape == (0, 2, 2)


def test_matrix_exp_scales_each_matrix_of_a_batch_on_its_own():
    small, large = normal(2, 2) * 0.01, normal(2, 2, seed=3) * 20
    both = tg.linalg.matrix_exp(tg.tensor(np.stack([small, large]))).numpy()
    np.testing.assert_allclose(both[0], tg.linalg.matrix_exp(tg.tensor(small)).numpy())
    np.testing.assert_allclose(both[1], tg.linalg.matrix_exp(tg.tensor(large)).numpy())


def test_matrix_exp_matches_torch_with_its_gradient():
    torch = pytest.importorskip("torch")
    a = normal(2, 3, 3, seed=2) * 2
    x = tg.tensor(a, requires_grad=True)
    out = tg.linalg.matrix_exp(x)
    out.sin().sum().backward()
    t = torch.tensor(a, requires_grad=True)
    expected = torch.linalg.matrix_exp(t)
    expected.sin().sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    f32 = tg.linalg.matrix_exp(tg.tensor(a, dtype=tg.float32))
    assert f32.dtype == tg.float32


def test_matrix_exp_gradient_to_second_order():
    for a in (normal(3, 3), normal(2, 2, 2, seed=4) * 4):

        def f(m):
            return (tg.linalg.matrix_exp(m) * tg.tensor(normal(*m.shape, seed=5))).sum()

        assert gradcheck(f, (tg.tensor(a, requires_grad=True),))
        assert gradgradcheck(f, (tg.tensor(a, requires_grad=True),))


def test_matrix_exp_of_a_commuting_direction_is_exp_times_it():
    # d/dt exp(A + tB) at t=0 is exp(A) B when A and B commute: here B = A, so the gradient of
    # sum(G * exp(A)) is exp(A)^T G (closed form), for any G
    a = normal(3, 3) * 0.7
    g = normal(3, 3, seed=6)
    x = tg.tensor(a, requires_grad=True)
    (tg.linalg.matrix_exp(x) * tg.tensor(g)).sum().backward()
    # directional derivative along A itself: <grad, A> = <G, exp(A) A>
    e = tg.linalg.matrix_exp(tg.tensor(a)).numpy()
    np.testing.assert_allclose(np.sum(x.grad.numpy() * a), np.sum(g * (e @ a)), rtol=1e-12)


def test_matrix_exp_errors_and_non_finite_input():
    with pytest.raises(RuntimeError, match="square matrices"):
        tg.linalg.matrix_exp(tg.zeros(2, 3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tg.linalg.matrix_exp(tg.zeros(3))
    with pytest.raises(RuntimeError, match="float32 or float64"):
        tg.linalg.matrix_exp(tg.zeros(2, 2, dtype=tg.int64))
    out = tg.linalg.matrix_exp(tg.tensor([[[np.inf, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]))
    assert np.isnan(out.numpy()[0]).all()  # (as PyTorch: NaN for a matrix with inf)
    np.testing.assert_allclose(out.numpy()[1], np.eye(2))


# ---- LU ----------------------------------------------------------------------------------------
LU_SHAPES = [(3, 3), (2, 4, 3), (2, 3, 5), (1, 1), (2, 1, 3, 3)]


@pytest.mark.parametrize("shape", LU_SHAPES)
def test_lu_factors_multiply_back_with_torchs_pivots(shape):
    torch = pytest.importorskip("torch")
    a = normal(*shape)
    p, lower, upper = tg.linalg.lu(tg.tensor(a))
    np.testing.assert_allclose((p @ lower @ upper).numpy(), a, atol=1e-13)
    k = min(shape[-2:])
    assert lower.shape == shape[:-1] + (k,) and upper.shape == shape[:-2] + (k, shape[-1])
    np.testing.assert_allclose(np.diagonal(lower.numpy(), axis1=-2, axis2=-1), 1.0)
    assert np.abs(lower.numpy()).max() <= 1.0  # (partial pivoting: |L| <= 1)
    factored = tg.linalg.lu_factor(tg.tensor(a))
    expected = torch.linalg.lu_factor(torch.tensor(a))
    assert factored.pivots.dtype == tg.int32 and factored.pivots.shape == shape[:-2] + (k,)
    np.testing.assert_array_equal(factored.pivots.numpy(), expected.pivots.numpy())
    np.testing.assert_allclose(factored.LU.numpy(), expected.LU.numpy(), atol=1e-13)
    np.testing.assert_array_equal(p.numpy(), torch.linalg.lu(torch.tensor(a)).P.numpy())


def test_lu_results_are_named_tuples_as_torchs():
    a = tg.tensor(normal(3, 3))
    assert tg.linalg.lu(a)._fields == ("P", "L", "U")
    assert tg.linalg.lu_factor(a)._fields == ("LU", "pivots")
    assert tg.linalg.lu_factor_ex(a)._fields == ("LU", "pivots", "info")
    assert tg.lu_unpack(*tg.linalg.lu_factor(a))._fields == ("P", "L", "U")
    old = tg.lu(a)  # (torch.lu: a plain pair; with get_infos the named triple)
    assert type(old) is tuple and len(old) == 2
    assert a.lu(get_infos=True)._fields == ("LU", "pivots", "info")


def test_lu_unpack_inverts_lu_factor():
    a = normal(2, 4, 3)
    p, lower, upper = tg.lu_unpack(*tg.linalg.lu_factor(tg.tensor(a)))
    expected = tg.linalg.lu(tg.tensor(a))
    for got, want in zip((p, lower, upper), expected):
        np.testing.assert_allclose(got.numpy(), want.numpy())
    only_p = tg.lu_unpack(*tg.linalg.lu_factor(tg.tensor(a)), unpack_data=False)
    assert only_p.L.shape == (0,) and only_p.P.shape == (2, 4, 4)


def test_singular_matrices_report_the_first_zero_pivot():
    singular = tg.tensor([[1.0, 2.0], [2.0, 4.0]])
    packed, pivots, info = tg.linalg.lu_factor_ex(singular)
    assert int(info) == 2 and pivots.tolist() == [2, 2]
    np.testing.assert_allclose(packed.numpy(), [[2.0, 4.0], [0.5, 0.0]])
    assert int(tg.linalg.lu_factor_ex(tg.zeros(3, 3)).info) == 1
    with pytest.raises(tg.linalg.LinAlgError, match=r"U\[1,1\] is zero"):
        tg.linalg.lu_factor(singular)
    with pytest.raises(tg.linalg.LinAlgError, match="is zero"):
        tg.linalg.lu_factor_ex(singular, check_errors=True)
    with pytest.raises(RuntimeError, match="is zero"):
        singular.lu()
    p, lower, upper = tg.linalg.lu(tg.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))
    np.testing.assert_allclose((p @ lower @ upper).numpy(), [[1, 2], [2, 4], [3, 6]])


def _lu_loss(p, lower, upper):
    return lower.sin().sum() + (upper * upper).sum() + (p @ lower).sum()


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (2, 3, 5)])
def test_lu_gradient_matches_torch_and_finite_differences(shape):
    torch = pytest.importorskip("torch")
    a, w = normal(*shape, seed=1), normal(*shape, seed=2)
    x = tg.tensor(a, requires_grad=True)
    _lu_loss(*tg.linalg.lu(x)).backward()
    t = torch.tensor(a, requires_grad=True)
    _lu_loss(*torch.linalg.lu(t)).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    y = tg.tensor(a, requires_grad=True)
    (tg.linalg.lu_factor(y).LU * tg.tensor(w)).sum().backward()
    u = torch.tensor(a, requires_grad=True)
    (torch.linalg.lu_factor(u).LU * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), u.grad.numpy(), rtol=1e-10, atol=1e-12)

    def f(m):
        return _lu_loss(*tg.linalg.lu(m))

    assert gradcheck(f, (tg.tensor(a, requires_grad=True),))
    assert gradgradcheck(f, (tg.tensor(a, requires_grad=True),))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_matches_torch_with_gradients(left, adjoint):
    torch = pytest.importorskip("torch")
    a = normal(2, 3, 3, seed=3)
    b = normal(2, 3, 2, seed=4) if left else normal(2, 2, 3, seed=4)
    x, y = tg.tensor(a, requires_grad=True), tg.tensor(b, requires_grad=True)
    f = tg.linalg.lu_factor(x)
    out = tg.linalg.lu_solve(f.LU, f.pivots, y, left=left, adjoint=adjoint)
    out.sin().sum().backward()
    s, t = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    tf = torch.linalg.lu_factor(s)
    expected = torch.linalg.lu_solve(tf.LU, tf.pivots, t, left=left, adjoint=adjoint)
    expected.sin().sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), s.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)

    def solved(m, rhs):
        g = tg.linalg.lu_factor(m)
        return tg.linalg.lu_solve(g.LU, g.pivots, rhs, left=left, adjoint=adjoint)

    inputs = (tg.tensor(a, requires_grad=True), tg.tensor(b, requires_grad=True))
    assert gradcheck(solved, inputs) and gradgradcheck(solved, inputs)


def test_lu_errors():
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        tg.linalg.lu_factor(tg.ones(3))
    with pytest.raises(NotImplementedError, match="float32 or float64"):
        tg.linalg.lu(tg.ones(2, 2, dtype=tg.float16))
    with pytest.raises(RuntimeError, match="without pivoting is not implemented"):
        tg.linalg.lu(tg.ones(2, 2), pivot=False)
    f = tg.linalg.lu_factor(tg.tensor(normal(3, 3)))
    with pytest.raises(RuntimeError, match="square"):
        tg.linalg.lu_solve(tg.ones(3, 4), f.pivots, tg.ones(3, 1))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        tg.linalg.lu_solve(f.LU, f.pivots, tg.ones(2, 1, dtype=f.LU.dtype))
    with pytest.raises(RuntimeError, match="int32"):
        tg.lu_unpack(f.LU, f.pivots.to(tg.int64))
    with pytest.raises(RuntimeError, match="between 1 and"):
        tg.lu_unpack(f.LU, tg.tensor([1, 2, 4], dtype=tg.int32))
