"""has_aux on tg.vjp / tg.jvp / tg.jacobian, and tg.jacrev / tg.jacfwd (argnums= or MindSpore's
grad_position=): result structures as torch.func and MindSpore document them, values against
closed forms (always) and torch.func (when torch is installed).
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

X = np.array([0.3, -1.2, 2.0])
Y = np.array([1.5, 0.4, -0.8])


def f_aux(x, y):
    return tg.sin(x) * y, (x * x).sum()


def _np(t):
    return np.asarray(t.numpy())


# ---- closed forms -------------------------------------------------------------------------------
def test_vjp_has_aux_returns_out_vjp_fn_aux():
    out, vjp_fn, aux = tg.vjp(f_aux, tg.tensor(X), tg.tensor(Y), has_aux=True)
    np.testing.assert_allclose(_np(out), np.sin(X) * Y)
    assert aux.item() == pytest.approx((X * X).sum())
    gx, gy = vjp_fn(tg.ones(3))  # one gradient per input, as a tuple
    np.testing.assert_allclose(_np(gx), np.cos(X) * Y)
    np.testing.assert_allclose(_np(gy), np.sin(X))
    assert not aux.requires_grad and not out.requires_grad  # outermost call: off the tape


def test_vjp_has_aux_with_more_than_two_outputs_gives_the_rest_as_a_tuple():
    out, _, aux = tg.vjp(lambda x: (x * 2, x, x + 1), tg.tensor(1.0), has_aux=True)  # MindSpore
    assert isinstance(aux, tuple) and [a.item() for a in aux] == [1.0, 2.0]


def test_vjp_fn_returns_a_tuple_even_for_one_input():
    _, vjp_fn = tg.vjp(lambda x: x * x, tg.tensor(3.0))
    grads = vjp_fn(tg.tensor(1.0))
    assert isinstance(grads, tuple) and len(grads) == 1 and grads[0].item() == 6.0


def test_jvp_has_aux():
    out, tangent, aux = tg.jvp(
        f_aux, (tg.tensor(X), tg.tensor(Y)), (tg.ones(3), tg.zeros(3)), has_aux=True
    )
    np.testing.assert_allclose(_np(tangent), np.cos(X) * Y)
    assert aux.item() == pytest.approx((X * X).sum())
    out2, tangent2 = tg.jvp(lambda x: tg.exp(x), (tg.tensor(X),), (tg.tensor(Y),))
    np.testing.assert_allclose(_np(tangent2), np.exp(X) * Y)


@pytest.mark.parametrize("jac", [tg.jacobian, tg.jacrev, tg.jacfwd])
def test_jacobians_closed_form_and_structures(jac):
    jx = jac(lambda x, y: tg.sin(x) * y)(tg.tensor(X), tg.tensor(Y))
    np.testing.assert_allclose(_np(jx), np.diag(np.cos(X) * Y), atol=1e-12)
    jx, jy = jac(lambda x, y: tg.sin(x) * y, argnums=(0, 1))(tg.tensor(X), tg.tensor(Y))
    np.testing.assert_allclose(_np(jy), np.diag(np.sin(X)), atol=1e-12)
    jy2 = jac(lambda x, y: tg.sin(x) * y, grad_position=1)(tg.tensor(X), tg.tensor(Y))
    np.testing.assert_allclose(_np(jy2), _np(jy))
    (j, aux) = jac(f_aux, 1, True)(tg.tensor(X), tg.tensor(Y))  # MindSpore's positional has_aux
    np.testing.assert_allclose(_np(j), np.diag(np.sin(X)), atol=1e-12)
    assert aux.item() == pytest.approx((X * X).sum())
    # a (2, 3) -> (3,) function: shape out.shape + in.shape
    m = np.arange(6.0).reshape(2, 3) / 7
    j = jac(lambda a: (a * a).sum(0))(tg.tensor(m))
    assert j.shape == (3, 2, 3)
    want = np.zeros((3, 2, 3))
    for i in range(3):
        want[i, :, i] = 2 * m[:, i]
    np.testing.assert_allclose(_np(j), want, atol=1e-12)
    # a tuple result gives a tuple of jacobians
    ja, jb = jac(lambda x: (x * 2, x.sum()))(tg.tensor(X))
    assert ja.shape == (3, 3) and jb.shape == (3,)


def test_jacfwd_equals_jacrev_on_a_mixed_function():
    def f(x, y):
        return tg.tanh(x[:, None] * y[None, :]).sum(1) + x * y.sum()

    a, b = tg.tensor(X), tg.tensor(Y)
    r = tg.jacrev(f, (0, 1))(a, b)
    fwd = tg.jacfwd(f, (0, 1))(a, b)
    for p, q in zip(r, fwd):
        np.testing.assert_allclose(_np(p), _np(q), rtol=1e-10, atol=1e-12)


def test_jacobians_nest_into_a_hessian():
    f = lambda x: (tg.sin(x) * x).sum()  # noqa: E731
    h = tg.jacfwd(tg.jacrev(f))(tg.tensor(X))
    np.testing.assert_allclose(_np(h), np.diag(2 * np.cos(X) - X * np.sin(X)), atol=1e-10)
    np.testing.assert_allclose(_np(h), _np(tg.hessian(f)(tg.tensor(X))), atol=1e-10)


def test_errors():
    with pytest.raises(ValueError, match=r"has_aux=True needs fn to return a tuple"):
        tg.vjp(lambda x: x, tg.tensor(1.0), has_aux=True)
    with pytest.raises(ValueError, match=r"has_aux=True needs fn to return a tuple"):
        tg.jacfwd(lambda x: x, has_aux=True)(tg.tensor([1.0]))
    with pytest.raises(TypeError, match="not both"):
        tg.jacrev(lambda x, y: x, argnums=1, grad_position=0)
    with pytest.raises(TypeError, match="True or False"):
        tg.jvp(lambda x: x, (tg.tensor(1.0),), (tg.tensor(1.0),), has_aux="yes")
    with pytest.raises(ValueError, match="out of range"):
        tg.jacfwd(lambda x: x, argnums=3)(tg.tensor([1.0]))


# ---- against torch.func ----------------------------------------------------------------------
def test_against_torch_func():
    torch = pytest.importorskip("torch", reason="compares with torch.func")
    from torch.func import jacfwd, jacrev, jvp, vjp

    def tf_aux(x, y):
        return torch.sin(x) * y, (x * x).sum()

    tx, ty = torch.tensor(X), torch.tensor(Y)
    v = torch.tensor([0.5, -1.0, 2.0])
    out, fn, aux = vjp(tf_aux, tx, ty, has_aux=True)
    mine = tg.vjp(f_aux, tg.tensor(X), tg.tensor(Y), has_aux=True)
    assert len(mine) == 3
    for a, b in zip(fn(v), mine[1](tg.tensor(v.numpy()))):
        np.testing.assert_allclose(_np(b), a.numpy())
    out, t, aux = jvp(tf_aux, (tx, ty), (v, v), has_aux=True)
    m_out, m_t, m_aux = tg.jvp(
        f_aux, (tg.tensor(X), tg.tensor(Y)), (tg.tensor(v.numpy()),) * 2, True
    )
    np.testing.assert_allclose(_np(m_t), t.numpy())
    assert m_aux.item() == pytest.approx(aux.item())
    for theirs, ours in ((jacrev, tg.jacrev), (jacfwd, tg.jacfwd)):
        (jx, jy), a = theirs(tf_aux, argnums=(0, 1), has_aux=True)(tx, ty)
        (mx, my), ma = ours(f_aux, argnums=(0, 1), has_aux=True)(tg.tensor(X), tg.tensor(Y))
        np.testing.assert_allclose(_np(mx), jx.numpy(), atol=1e-12)
        np.testing.assert_allclose(_np(my), jy.numpy(), atol=1e-12)
        assert ma.item() == pytest.approx(a.item())
