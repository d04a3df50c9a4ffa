"""`x @ w.T` as one product (tensor/linalg.py): recorded as matmul_nt(x, w) when the transpose is
a temporary nothing else holds, as two nodes otherwise. Values, gradients (first and second order,
against finite differences and PyTorch), the graph's structure, and that a transpose the user can
still reach (a name, a container, a call of __matmul__ by name) keeps its own node: its gradient,
hooks and retain_grad see what they saw before the fold."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, leaf, matches_pytorch, rand


def _names(t: tg.Tensor) -> list[str]:
    """The node names behind t, from its own down to the leaves (depth first)."""
    names, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and hasattr(node, "next_functions"):
            names.append(node.name)
            stack.extend(e for e, _ in node.next_functions)
    return names


def test_a_temporary_transpose_is_one_product_node():
    x, w = leaf(rand(4, 3)), leaf(rand(5, 3, seed=1))
    out = x @ w.T
    assert out.grad_fn.name == "MatmulNtBackward"
    assert [e for e, _ in out.grad_fn.next_functions] == [x, w]  # (w itself: no transpose node)
    assert np.array_equal(out.numpy(), x.numpy() @ w.numpy().T)
    out.sum().backward()
    assert np.allclose(w.grad.numpy(), np.ones((4, 5)).T @ x.numpy())
    assert np.allclose(x.grad.numpy(), np.ones((4, 5)) @ w.numpy())
    assert w.grad.numpy().flags.c_contiguous  # (a fresh product: no transposed view to copy)


def test_folded_gradients_to_second_order():
    check_grads(lambda x, w: (x @ w.T).tanh(), rand(4, 3), rand(5, 3, seed=1))
    check_grads(lambda x, w: x @ w.T, rand(2, 4, 3), rand(5, 3, seed=1))  # (batch axes of x)
    check_grads(lambda x, p: x @ (2 * p).T, rand(4, 3), rand(5, 3, seed=1))  # (w not a leaf)


@pytest.mark.parametrize("second_order", [False, True])
def test_folded_product_matches_pytorch(second_order):
    def mlp(m, x, w1, b1, w2):
        return ((x @ w1.T + b1).tanh() @ w2.T).square().mean()

    arrays = [rand(4, 3), rand(5, 3, seed=1), rand(5, seed=2), rand(2, 5, seed=3)]
    matches_pytorch(mlp, arrays, second_order=second_order)


def test_a_named_transpose_keeps_its_node_and_its_gradient():
    x, w = leaf(rand(4, 3)), leaf(rand(5, 3, seed=1))
    wt = w.T
    out = x @ wt
    assert out.grad_fn.name == "MatmulBackward"
    assert "TransposeBackward" in _names(out)
    (g,) = tg.autograd.grad(out.sum(), wt)
    assert np.allclose(g.numpy(), x.numpy().T @ np.ones((4, 5)))


def test_hooks_and_retain_grad_on_a_named_transpose_still_run():
    x, w = leaf(rand(4, 3)), leaf(rand(5, 3, seed=1))
    wt = w.T
    seen = []
    wt.register_hook(lambda g: seen.append(g.shape))
    wt.retain_grad()
    (x @ wt).sum().backward()
    assert seen == [(3, 5)]
    assert np.allclose(wt.grad.numpy(), x.numpy().T @ np.ones((4, 5)))
    assert np.allclose(w.grad.numpy(), wt.grad.numpy().T)


@pytest.mark.parametrize(
    "product",
    [
        operator.matmul,
        lambda x, wt: x.__matmul__(wt),
        lambda x, wt: x.matmul(wt),
        tg.matmul,
    ],
    ids=["operator.matmul", "__matmul__ by name", "Tensor.matmul", "tg.matmul"],
)
def test_a_transpose_reached_otherwise_keeps_its_node(product):
    x, w = leaf(rand(4, 3)), leaf(rand(5, 3, seed=1))
    held = [w.T]  # (a container holds it: still reachable after the product)
    out = product(x, held[0])
    assert "TransposeBackward" in _names(out)
    (g,) = tg.autograd.grad(out.sum(), held[0])
    assert np.allclose(g.numpy(), x.numpy().T @ np.ones((4, 5)))


def test_no_fold_where_the_transpose_is_not_a_matrix_transpose_of_the_tensor_itself():
    x, p = leaf(rand(4, 3)), leaf(rand(6, 3, seed=1))
    out = x @ p[1:].T  # (w.T of a view: the transpose's base is p, not the row slice)
    assert "TransposeBackward" in _names(out)
    out.sum().backward()
    want = np.zeros((6, 3))
    want[1:] = np.ones((4, 5)).T @ x.numpy()
    assert np.allclose(p.grad.numpy(), want)
    v = leaf(rand(3))
    assert np.allclose((v @ p.T).numpy(), v.numpy() @ p.numpy().T)  # (a vector on the left)


def test_an_in_place_change_of_w_after_the_product_is_still_caught():
    x, w = leaf(rand(4, 3)), leaf(rand(5, 3, seed=1))
    out = x @ w.T
    with tg.no_grad():
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        out.sum().backward()


def test_inside_vmap_the_batched_rules_run():
    w = leaf(rand(5, 3, seed=1))
    xs = tg.tensor(rand(2, 4, 3))
    out = tg.vmap(lambda x: x @ w.T)(xs)
    assert np.allclose(out.numpy(), xs.numpy() @ w.numpy().T)
    out.sum().backward()
    assert np.allclose(w.grad.numpy(), np.ones((8, 5)).T @ xs.numpy().reshape(8, 3))


def test_the_raw_hessian_vector_product_equals_the_linear_layers():
    x, t = tg.tensor(rand(6, 3)), tg.tensor(rand(6, 2, seed=4))
    arrays = [rand(4, 3, seed=1), rand(4, seed=2), rand(2, 4, seed=3), rand(2, seed=5)]
    direction = [tg.tensor(rand(*a.shape, seed=10 + i)) for i, a in enumerate(arrays)]

    def hvp(loss_of):
        params = [leaf(a) for a in arrays]
        grads = tg.autograd.grad(loss_of(params), params, create_graph=True)
        dot = sum((g * v).sum() for g, v in zip(grads, direction))
        return [h.numpy() for h in tg.autograd.grad(dot, params)]

    def raw(p):
        return ((x @ p[0].T + p[1]).tanh() @ p[2].T + p[3] - t).square().mean()

    def linear(p):
        h = tg.nn.functional.linear(x, p[0], p[1]).tanh()
        return (tg.nn.functional.linear(h, p[2], p[3]) - t).square().mean()

    for a, b in zip(hvp(raw), hvp(linear)):
        assert np.allclose(a, b)
