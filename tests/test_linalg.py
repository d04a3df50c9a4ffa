"""Matrices as PyTorch names them: tril, triu, diag (both ways), trace, outer, einsum (against
NumPy's, with gradients and clear errors), mm and bmm. Always on: values against NumPy, gradients
by finite differences; with torch installed: PyTorch's values, gradients and second derivatives
(helpers.matches_pytorch)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, distinct, leaf, matches_pytorch, rand

F64 = tg.float64


# ---- tril, triu, diag, trace, outer --------------------------------------------------------------
def test_tril_triu():
    a = rand(2, 3, 4)
    for k in (0, 1, -1, 5, -5):
        assert np.array_equal(tg.tensor(a).tril(k).numpy(), np.tril(a, k))
        assert np.array_equal(tg.triu(tg.tensor(a), diagonal=k).numpy(), np.triu(a, k))
    assert tg.tensor([[1, 2], [3, 4]]).tril().dtype == np.int64
    x = leaf(a)
    x.tril(1).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.tril(np.ones((2, 3, 4)), 1))
    check_grads(lambda x: x.triu(-1), a)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        tg.tensor([1.0, 2.0]).tril()


def test_diag_both_ways_and_trace():
    v, m = rand(3), rand(3, 4)
    for k in (0, 1, -2):
        assert np.array_equal(tg.tensor(v).diag(k).numpy(), np.diag(v, k))
        assert np.array_equal(tg.diag(tg.tensor(m), k).numpy(), np.diag(m, k))
    assert tg.tensor(m).diag(7).shape == (0,)
    check_grads(lambda x: x.diag(1), v)
    check_grads(lambda x: x.diag(-1), m)
    assert tg.tensor(m).trace().item() == pytest.approx(np.trace(m))
    assert tg.trace(tg.tensor([[1, 2], [3, 4]])).item() == 5
    x = leaf(m)
    x.trace().backward()
    assert np.array_equal(x.grad.numpy(), np.eye(3, 4))
    with pytest.raises(ValueError, match="1-D tensor .* or a 2-D one"):
        tg.zeros(2, 2, 2).diag()
    with pytest.raises(ValueError, match="trace: expected a matrix"):
        tg.zeros(3).trace()


def test_outer():
    a, b = rand(3), rand(4, seed=1)
    assert np.allclose(tg.outer(tg.tensor(a), tg.tensor(b)).numpy(), np.outer(a, b))
    check_grads(lambda x, y: x.outer(y), a, b)
    with pytest.raises(ValueError, match="outer: expected 1-D tensors, but self is 2-D"):
        tg.zeros(2, 2).outer(tg.zeros(2))


# ---- einsum --------------------------------------------------------------------------------------
EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (1, 3, 4)]),
    ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    ("i...i", [(3, 2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i,j->ij", [(3,), (2,)]),
    ("ij,ij->i", [(3, 1), (3, 4)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("->", [()]),
]


@pytest.mark.parametrize("equation, shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_numpy(equation, shapes):
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    out = tg.einsum(equation, *[tg.tensor(a) for a in arrays])
    assert np.allclose(out.numpy(), np.einsum(equation.replace(" ", ""), *arrays))


def test_einsum_gradients_and_list_operands():
    a, b = rand(2, 3), rand(3, 4, seed=1)
    assert np.allclose(tg.einsum("ij,jk", [tg.tensor(a), tg.tensor(b)]).numpy(), a @ b)
    check_grads(lambda x, y: tg.einsum("ij,jk->ik", x, y), a, b)
    check_grads(lambda x: tg.einsum("...ii->...i", x), rand(2, 3, 3))
    check_grads(lambda x, y: tg.einsum("iij,j->ji", x, y), rand(2, 2, 3), rand(3))
    x = leaf(rand(3, 3))
    tg.einsum("ii->i", x).backward(tg.tensor([1.0, 2.0, 3.0], dtype=F64))
    assert np.array_equal(x.grad.numpy(), np.diag([1.0, 2.0, 3.0]))


@pytest.mark.parametrize(
    "equation, shapes, match",
    [
        ("ij,jk->ik", [(2, 3)], "2 operand term.*but 1 operand"),
        ("ij,jk->ik", [(2, 3), (3, 4), (1,)], "2 operand term.*but 3 operand"),
        ("ij,jk->ik", [(2, 3), (4, 4)], "subscript 'j' has size 3 in operand 0 but 4 in operand 1"),
        ("ijk,jk->ik", [(2, 3), (3, 4)], "operand 0 has 2 dimension.*names 3"),
        ("ij,jk->il", [(2, 3), (3, 4)], "output subscript 'l'.*appears in no input"),
        ("ij,jk->ii", [(2, 3), (3, 4)], "output subscript 'i' appears more than once"),
        ("i1,jk->ik", [(2, 3), (3, 4)], "the character '1'"),
        ("i.j", [(2, 3)], "'.' that is not part of '...'"),
        ("ij->i->", [(2, 3)], "more than one '->'"),
        ("ii->i", [(2, 3)], "'i' is repeated in operand 0.*sizes 2 and 3"),
        ("...i...", [(2, 3)], "more than one '...'"),
    ],
)
def test_einsum_errors_say_what_is_wrong(equation, shapes, match):
    with pytest.raises(ValueError, match=match):
        tg.einsum(equation, *[tg.zeros(*s) for s in shapes])


def test_einsum_equation_must_be_a_string():
    with pytest.raises(TypeError, match="must be a str"):
        tg.einsum(3, tg.zeros(2))


# ---- mm, bmm -------------------------------------------------------------------------------------
def test_mm_and_bmm():
    a, b = rand(2, 3), rand(3, 4, seed=1)
    assert np.allclose(tg.tensor(a).mm(tg.tensor(b)).numpy(), a @ b)
    assert np.allclose(tg.mm(tg.tensor(a), b).numpy(), a @ b)
    check_grads(lambda x, y: x.mm(y), a, b)
    p, q = rand(5, 2, 3), rand(5, 3, 4, seed=1)
    assert np.allclose(tg.bmm(tg.tensor(p), tg.tensor(q)).numpy(), p @ q)
    check_grads(lambda x, y: x.bmm(y), p, q)
    with pytest.raises(ValueError, match="mm: self must be a matrix"):
        tg.ones(3).mm(tg.ones(3, 2))
    with pytest.raises(ValueError, match="mm: mat2 must be a matrix"):
        tg.ones(2, 3).mm(tg.ones(2, 3, 2))
    with pytest.raises(ValueError, match=r"cannot be multiplied \(2x3 and 4x5\)"):
        tg.mm(tg.ones(2, 3), tg.ones(4, 5))
    with pytest.raises(ValueError, match="batch1 must be a 3D tensor"):
        tg.bmm(tg.ones(3, 4), tg.ones(2, 4, 5))
    with pytest.raises(ValueError, match="batch2 must be a 3D tensor"):
        tg.bmm(tg.ones(2, 3, 4), tg.ones(4, 5))
    with pytest.raises(ValueError, match=r"to be: \[2, 4\] but got: \[1, 4\]"):  # no broadcasting
        tg.bmm(tg.ones(2, 3, 4), tg.ones(1, 4, 5))
    with pytest.raises(ValueError, match=r"to be: \[2, 4\] but got: \[2, 5\]"):
        tg.bmm(tg.ones(2, 3, 4), tg.ones(2, 5, 5))


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared; SECOND_ORDER_PROGRAMS: second derivatives too.
TORCH_PROGRAMS = {
    "tril": (lambda m, x: x.tril(1), [(2, 3, 4)]),
    "triu": (lambda m, x: m.triu(x, -1), [(3, 4)]),
    "diag-vector": (lambda m, x: x.diag(-1), [(3,)]),
    "diag-matrix": (lambda m, x: m.diag(x, 1), [(3, 4)]),
    "trace": (lambda m, x: x.trace(), [(3, 4)]),
    "outer": (lambda m, x, y: m.outer(x, y), [(3,), (4,)]),
    "einsum": (lambda m, x, y: m.einsum("bij,bjk->bik", x, y), [(2, 3, 4), (2, 4, 2)]),
    "einsum-diag": (lambda m, x: m.einsum("...ii->...i", x), [(2, 3, 3)]),
    "einsum-broadcast": (lambda m, x, y: m.einsum("ij,ij->i", x, y), [(3, 1), (3, 4)]),
}
SECOND_ORDER_PROGRAMS = {
    "mm": (lambda m, x, y: x.mm(y), [(3, 4), (4, 2)]),
    "mm-fn": (lambda m, x, y: m.mm(x, y), [(3, 4), (4, 2)]),
    "bmm": (lambda m, x, y: m.bmm(x, y), [(2, 3, 4), (2, 4, 2)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", list(SECOND_ORDER_PROGRAMS))
def test_against_pytorch_to_second_order(name):
    fn, shapes = SECOND_ORDER_PROGRAMS[name]
    matches_pytorch(fn, [rand(*s, seed=i) for i, s in enumerate(shapes)], second_order=True)
