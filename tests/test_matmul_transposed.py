"""`x @ w.T` records one matmul_nt node (as linear's rule does), not a transpose and a matmul: same
values and gradients to second order, and the transpose stays on the tape wherever w.T's own
gradient is asked for (a hook, retain_grad) or w.T is not w's plain transpose."""

from __future__ import annotations

import numpy as np

import tapegrad as tg

RNG = np.random.default_rng(5)


def t64(*shape, grad=True):
    return tg.tensor(RNG.standard_normal(shape), requires_grad=grad)


def test_one_node_and_the_gradients_of_the_transpose_path():
    x, w = t64(4, 3), t64(5, 3)
    out = x @ w.T
    assert out.grad_fn.name == "MatmulNtBackward"
    np.testing.assert_allclose(out.numpy(), x.numpy() @ w.numpy().T, rtol=1e-14)
    gx, gw = tg.autograd.grad((out * out).sum(), [x, w])
    wt = w.T.detach().requires_grad_()  # (the reference: the transpose as a tensor of its own)
    ref = x @ wt
    assert ref.grad_fn.name == "MatmulBackward"
    rx, rwt = tg.autograd.grad((ref * ref).sum(), [x, wt])
    np.testing.assert_allclose(gx.numpy(), rx.numpy(), rtol=1e-13)
    np.testing.assert_allclose(gw.numpy(), rwt.numpy().T, rtol=1e-13)


def test_second_order():
    x, w, b = t64(4, 3), t64(5, 3), t64(5)
    assert tg.autograd.gradgradcheck(lambda x, w, b: (x @ w.T + b).tanh(), (x, w, b))
    assert tg.autograd.gradgradcheck(lambda x, w: x @ w.T, (t64(2, 4, 3), w))  # batched x


def test_the_transpose_stays_where_its_own_gradient_is_asked_for():
    x, w = t64(4, 3), t64(5, 3)
    seen = []
    wt = w.T
    wt.register_hook(lambda g: seen.append(g.shape))
    (x @ wt).sum().backward()
    assert seen == [(3, 5)]
    np.testing.assert_allclose(w.grad.numpy(), np.ones((4, 5)).T @ x.numpy(), rtol=1e-14)
    wt = w.T
    wt.retain_grad()
    out = x @ wt
    assert out.grad_fn.name == "MatmulBackward"
    out.sum().backward()
    assert wt.grad.shape == (3, 5)


def test_only_a_plain_transpose_of_a_matrix_that_requires_grad():
    x, w = t64(4, 3), t64(5, 3)
    assert (x @ w.T[:, 1:].T.T).grad_fn.name == "MatmulBackward"  # a view of a view
    assert (x @ t64(5, 3, grad=False).T).grad_fn.name == "MatmulBackward"  # w needs no grad
    assert (x.T @ t64(4, 2)).grad_fn.name == "MatmulBackward"  # x, the left operand
    p = t64(2, 5, 3)
    assert (x @ p[0].T).grad_fn.name == "MatmulBackward"  # w a view itself: steps from p
    with tg.no_grad():
        assert (x @ w.T).grad_fn is None
