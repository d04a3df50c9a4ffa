"""PyTorch's further names (t, norm, cumsum, gather, masked_fill, sort/topk/argsort, flip,
repeat/tile, tril/triu, diag, trace, outer, einsum, erf, floor/ceil/round/trunc/frac, the in-place
unary forms). Printing: test_printing.py.

Always on: values against NumPy and closed forms, gradients by finite differences (float64
gradcheck, second order for the smooth ones), result structures and errors. With torch installed:
the same programs run on both (the API is the same), values and gradients compared.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers import check_grads, leaf

import tapegrad as tg

F64 = tg.float64


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def distinct(*shape, seed=0):
    """Values at least 0.25 apart, in random order (no ties to sort)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) * 0.25 - n * 0.125 + 0.05).reshape(shape)


# ---- t, flip, repeat, tile -------------------------------------------------------------------
def test_t():
    a = rand(2, 3)
    assert np.array_equal(tg.tensor(a).t().numpy(), a.T)
    v = tg.tensor([1.0, 2.0])
    assert v.t() is v and tg.t(tg.tensor(3.0)).item() == 3.0
    with pytest.raises(ValueError, match=r"t\(\) expects a tensor with <= 2 dimensions.*3-D"):
        tg.zeros(2, 3, 4).t()
    check_grads(lambda x: x.t(), a)


def test_flip():
    a = rand(2, 3, 4)
    for dims in [(0,), (0, 2), (-1,), (1, 0)]:
        out = tg.tensor(a).flip(*dims)
        assert np.array_equal(out.numpy(), np.flip(a, dims))
        assert np.array_equal(tg.flip(tg.tensor(a), dims).numpy(), np.flip(a, dims))
    x = tg.tensor(a)
    assert not np.shares_memory(x.flip(0).numpy(), x.numpy())  # a copy, as PyTorch
    check_grads(lambda x: x.flip(0, 2), a)
    with pytest.raises(ValueError, match="repeats"):
        x.flip(0, 0)
    with pytest.raises(TypeError, match="needs the dims"):
        x.flip()


def test_repeat_is_numpys_tile_and_tile_pads():
    a = rand(2, 3)
    assert np.array_equal(tg.tensor(a).repeat(2, 1).numpy(), np.tile(a, (2, 1)))
    assert np.array_equal(tg.tensor(a).repeat((3, 1, 2)).numpy(), np.tile(a, (3, 1, 2)))
    assert np.array_equal(tg.tensor(a).tile(2).numpy(), np.tile(a, 2))
    assert np.array_equal(tg.tile(tg.tensor(a), (2, 2, 1)).numpy(), np.tile(a, (2, 2, 1)))
    x = tg.tensor(a)
    assert x.repeat(0, 1).shape == (0, 3) and not np.shares_memory(x.repeat(1, 1), x)  # a copy
    check_grads(lambda x: x.repeat(2, 1, 3), a)
    x = leaf(a)
    x.repeat(3, 2).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.full((2, 3), 6.0))
    with pytest.raises(ValueError, match="fewer counts than the tensor has dimensions"):
        tg.tensor(a).repeat(2)
    with pytest.raises(ValueError, match=">= 0"):
        tg.tensor(a).tile(-1)


# ---- tril, triu, diag, trace, outer -----------------------------------------------------------
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


# ---- norm ------------------------------------------------------------------------------------
def test_norm_values():
    x = tg.tensor([3.0, -4.0, 0.0])
    assert x.norm().item() == pytest.approx(5.0)
    assert x.norm(p=2).item() == pytest.approx(5.0)
    assert x.norm(1).item() == pytest.approx(7.0)
    assert x.norm(math.inf).item() == 4.0 and x.norm(-math.inf).item() == 0.0
    assert x.norm(0).item() == 2.0
    assert x.norm(3).item() == pytest.approx((27 + 64) ** (1 / 3))
    assert x.norm(0.5).item() == pytest.approx((math.sqrt(3) + 2) ** 2)
    assert x.norm(-1).item() == 0.0  # |0| ** -1 = inf, as PyTorch
    a = rand(2, 3, 4)
    t = tg.tensor(a)
    assert np.allclose(t.norm(dim=1).numpy(), np.sqrt((a * a).sum(1)))
    assert np.allclose(tg.norm(t, "fro", (1, 2)).numpy(), np.sqrt((a * a).sum((1, 2))))
    assert t.norm(p=3, dim=(0, 1), keepdim=True).shape == (1, 1, 4)
    assert np.allclose(t.norm(1, dim=-1).numpy(), np.abs(a).sum(-1))
    assert t.norm(dtype=tg.float64).dtype == np.float64


@pytest.mark.parametrize("p", ["fro", 2, 1, 3, 0.5, -1, math.inf, -math.inf, 0])
def test_norm_gradient_at_zero_is_zero(p):
    x = tg.tensor([0.0, 0.0, 0.0], requires_grad=True)
    x.norm(p).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, -1.5, math.inf, -math.inf])
def test_norm_gradcheck(p):
    a = distinct(3, 4)
    smooth = p in (2, 3)
    check_grads(lambda x: x.norm(p), a, second=smooth)
    check_grads(lambda x: x.norm(p, dim=1, keepdim=True), a, second=smooth)
    # with an exact zero in the vector: PyTorch's subgradient there (0)
    z = np.array([0.0, 1.5, -2.0])
    x = leaf(z)
    x.norm(p).backward()
    assert x.grad.numpy()[0] == 0.0 and np.all(np.isfinite(x.grad.numpy()))


def test_norm_errors():
    with pytest.raises(ValueError, match="nuclear"):
        tg.ones(2, 2).norm("nuc")
    with pytest.raises(ValueError, match="'abc' is not supported"):
        tg.ones(2).norm("abc")
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([3, 4]).norm()
    with pytest.raises(ValueError, match="one dimension or two"):
        tg.ones(2, 2, 2).norm("fro", dim=(0, 1, 2))


# ---- cumsum ----------------------------------------------------------------------------------
def test_cumsum():
    a = rand(3, 4)
    assert np.allclose(tg.tensor(a).cumsum(1).numpy(), np.cumsum(a, 1))
    assert np.allclose(tg.cumsum(tg.tensor(a), dim=0).numpy(), np.cumsum(a, 0))
    assert tg.tensor([1, 2], dtype=tg.int32).cumsum(0).dtype == np.int64  # (as PyTorch)
    assert tg.tensor([True, True]).cumsum(0).tolist() == [1, 2]
    assert tg.ones(3).cumsum(0, dtype=tg.float64).dtype == np.float64
    x = leaf([1.0, 2.0, 3.0, 4.0])
    x.cumsum(0).sum().backward()  # x_i appears in n - i of the running sums
    assert x.grad.tolist() == [4.0, 3.0, 2.0, 1.0]
    with pytest.raises(TypeError, match="needs the dimension"):
        tg.ones(3).cumsum()


# ---- gather, masked_fill -------------------------------------------------------------------------
def test_gather():
    a = rand(3, 4)
    idx = np.array([[0, 0], [3, 1], [2, 2]])
    out = tg.tensor(a).gather(1, tg.tensor(idx))
    assert np.array_equal(out.numpy(), np.take_along_axis(a, idx, 1))
    idx0 = np.array([[2, 0, 1, 1]])
    assert np.array_equal(tg.gather(tg.tensor(a), 0, idx0).numpy(), np.take_along_axis(a, idx0, 0))
    smaller = np.array([[1], [0]])  # index may be smaller than the input off dim
    assert tg.tensor(a).gather(1, smaller).tolist() == [[a[0, 1]], [a[1, 0]]]
    x = leaf(a)
    x.gather(1, tg.tensor(idx)).sum().backward()  # a scatter-add: repeats accumulate
    expected = np.zeros((3, 4))
    np.add.at(expected, (np.arange(3)[:, None], idx), 1.0)
    assert np.array_equal(x.grad.numpy(), expected)
    check_grads(lambda x: x.gather(0, tg.tensor(idx0)), a)


@pytest.mark.parametrize(
    "index, error, match",
    [
        (np.array([[0.0]]), TypeError, "integer tensor"),
        (np.array([0, 1]), ValueError, "same number"),
        (np.array([[4]]), IndexError, "index 4 is out of bounds for dimension 1 with size 4"),
        (np.array([[-1]]), IndexError, "index -1 is out of bounds"),
        (np.zeros((4, 1), int), ValueError, "size 4 in dimension 0 but the tensor only 3"),
    ],
)
def test_gather_errors(index, error, match):
    with pytest.raises(error, match=match):
        tg.zeros(3, 4).gather(1, index)


def test_masked_fill():
    a = rand(3, 4)
    mask = a > 0
    out = tg.tensor(a).masked_fill(tg.tensor(mask), -1.0)
    assert np.array_equal(out.numpy(), np.where(mask, -1.0, a))
    assert tg.masked_fill(tg.tensor(a), mask[0], 2.0).shape == (3, 4)  # the mask broadcasts
    assert tg.tensor(a).masked_fill(np.ones((2, 3, 4), bool), 0.0).shape == (2, 3, 4)
    ints = tg.tensor([1, 2, 3]).masked_fill(tg.tensor([True, False, True]), 2.7)
    assert ints.tolist() == [2, 2, 2]  # the value takes the tensor's dtype
    x, v = leaf(a), tg.tensor(3.0, dtype=F64, requires_grad=True)
    x.masked_fill(tg.tensor(mask), v).sum().backward()
    assert np.array_equal(x.grad.numpy(), (~mask).astype(float))
    assert v.grad.item() == mask.sum()
    check_grads(lambda x: x.masked_fill(tg.tensor(mask), 0.5), a)
    with pytest.raises(TypeError, match="boolean"):
        tg.ones(3).masked_fill(tg.tensor([1, 0, 1]), 0.0)
    with pytest.raises(ValueError, match="0-dimensional"):
        tg.ones(3).masked_fill(tg.tensor([True, False, True]), tg.ones(2))


def test_masked_fill_in_place():
    x = tg.tensor([1.0, 2.0, 3.0])
    assert x.masked_fill_(tg.tensor([False, True, False]), 0.0) is x
    assert x.tolist() == [1.0, 0.0, 3.0]
    w = leaf([1.0, 2.0, 3.0])
    y = w * 2
    y.masked_fill_(tg.tensor([True, False, False]), 5.0)  # recorded on the tape
    y.sum().backward()
    assert w.grad.tolist() == [0.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="does not match the tensor's shape"):
        tg.ones(3).masked_fill_(np.ones((2, 3), bool), 0.0)


# ---- sort, argsort, topk ------------------------------------------------------------------------
def test_sort_structure_values_and_gradient():
    a = distinct(3, 5)
    out = tg.tensor(a).sort()
    assert type(out).__name__ == "sort" and out._fields == ("values", "indices")
    values, indices = out
    assert np.array_equal(values.numpy(), np.sort(a, -1))
    assert indices.dtype == np.int64 and np.array_equal(indices.numpy(), np.argsort(a, -1))
    down = tg.sort(tg.tensor(a), dim=0, descending=True)
    assert np.array_equal(down.values.numpy(), -np.sort(-a, 0))
    x = leaf(a)
    w = rand(3, 5, seed=3)
    (x.sort(1).values * tg.tensor(w)).sum().backward()  # each weight goes back to its source
    expected = np.zeros((3, 5))
    np.put_along_axis(expected, np.argsort(a, 1), w, 1)
    assert np.allclose(x.grad.numpy(), expected)
    check_grads(lambda x: x.sort(0, descending=True).values, a)


def test_sort_ties_nan_and_0d():
    t = tg.tensor([[3.0, 1.0, 2.0, 3.0], [0.0, 5.0, 5.0, -1.0]])
    asc, desc = t.sort(), t.sort(descending=True, stable=True)
    assert asc.indices.tolist() == [[1, 2, 0, 3], [3, 0, 1, 2]]  # stable: ties keep their order
    assert desc.indices.tolist() == [[0, 3, 2, 1], [1, 2, 0, 3]]
    assert t.argsort(dim=1, descending=True).tolist() == desc.indices.tolist()
    n = tg.tensor([2.0, math.nan, 1.0, math.nan, 3.0])
    assert n.sort().indices.tolist() == [2, 0, 4, 1, 3]  # NaN last ascending (as PyTorch)
    assert n.sort(descending=True).indices.tolist()[:2] == [1, 3]  # and first descending
    s = tg.tensor(3.0).sort()
    assert s.values.item() == 3.0 and s.indices.item() == 0 and s.indices.shape == ()
    assert tg.tensor(3.0).argsort().item() == 0


def test_topk():
    a = distinct(3, 5)
    out = tg.tensor(a).topk(2)
    assert type(out).__name__ == "topk" and out._fields == ("values", "indices")
    assert np.array_equal(out.values.numpy(), -np.sort(-a, 1)[:, :2])
    assert np.array_equal(out.indices.numpy(), np.argsort(-a, 1)[:, :2])
    low = tg.topk(tg.tensor(a), 3, dim=0, largest=False)
    assert np.array_equal(low.values.numpy(), np.sort(a, 0)[:3])
    assert tg.tensor(a).topk(0).values.shape == (3, 0)
    x = leaf(a)
    x.topk(1).values.sum().backward()
    assert np.array_equal(x.grad.numpy(), (a == a.max(1, keepdims=True)).astype(float))
    check_grads(lambda x: x.topk(2, dim=0).values, a)
    for k in (6, -1):
        with pytest.raises(ValueError, match=f"k={k} is out of range"):
            tg.tensor(a).topk(k)
    with pytest.raises(TypeError, match="k must be an int"):
        tg.tensor(a).topk(1.5)


# ---- einsum ----------------------------------------------------------------------------------
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


# ---- erf and rounding ------------------------------------------------------------------------
def test_erf_values_gradient_and_gelu():
    a = np.array([-2.0, -0.5, 0.0, 0.3, 1.0, 4.0])
    assert np.allclose(tg.erf(tg.tensor(a, dtype=F64)).numpy(), [math.erf(v) for v in a])
    assert tg.tensor([0, 1]).erf().dtype == np.float32
    x = leaf(a)
    x.erf().sum().backward()
    assert np.allclose(x.grad.numpy(), 2 / math.sqrt(math.pi) * np.exp(-a * a))
    check_grads(lambda x: x.erf(), rand(3, 2))
    y = tg.nn.functional.gelu(leaf(a))
    assert "GeluBackward" in str(tg.explain(y.sum(), show=False))  # (one step: its own rule)
    assert "ErfBackward" in str(tg.explain(y.sum(), show=False, expand=True))
    expected = 0.5 * a * (1 + np.array([math.erf(v / math.sqrt(2)) for v in a]))
    assert np.allclose(y.numpy(), expected)


def test_rounding_values_and_zero_gradients():
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.23456, -0.7])
    t = tg.tensor(a, dtype=F64)
    for name, ref in [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc)]:
        assert np.array_equal(getattr(t, name)().numpy(), ref(a))
        assert np.array_equal(getattr(tg, name)(t).numpy(), ref(a))
    assert t.round().tolist() == [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 1.0, -1.0]  # halves to even
    assert tg.round(t, decimals=2).numpy()[6] == 1.23
    assert np.allclose(t.frac().numpy(), a - np.trunc(a))
    assert tg.tensor([1, 2]).floor().dtype == np.int64  # integers as they are
    for name in ("floor", "ceil", "trunc", "round"):
        x = leaf(a)
        getattr(x, name)().sum().backward()
        assert x.grad.tolist() == [0.0] * len(a)  # zeros, not None (as PyTorch)
    x = leaf(a)
    x.frac().sum().backward()
    assert x.grad.tolist() == [1.0] * len(a)
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([1, 2]).frac()


# ---- in place --------------------------------------------------------------------------------
UNARY_INPLACE = [
    "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu",
    "erf", "abs", "neg", "sign", "floor", "ceil", "trunc", "round", "frac", "square",
]  # fmt: skip


@pytest.mark.parametrize("name", UNARY_INPLACE)
def test_inplace_unary_matches_out_of_place(name):
    a = np.array([0.3, 1.7, 2.5, 0.9])
    x = tg.tensor(a, dtype=F64)
    expected = getattr(tg.tensor(a, dtype=F64), name)().numpy()
    assert getattr(x, name + "_")() is x
    assert np.allclose(x.numpy(), expected)
    if hasattr(tg, name + "_"):
        y = tg.tensor(a, dtype=F64)
        assert getattr(tg, name + "_")(y) is y and np.allclose(y.numpy(), expected)
    # on the tape: the same gradient as the out-of-place op
    w = leaf(a)
    z = w * 1.0
    getattr(z, name + "_")()
    (g_in,) = tg.autograd.grad((z * z).sum(), w)
    w2 = leaf(a)
    (g_out,) = tg.autograd.grad((getattr(w2 * 1.0, name)() ** 2).sum(), w2)
    assert np.allclose(g_in.numpy(), g_out.numpy())


def test_inplace_forms_with_arguments_and_errors():
    x = tg.tensor([-1.0, 0.5, 2.0])
    assert x.clamp_(0.0, 1.0).tolist() == [0.0, 0.5, 1.0]
    assert tg.clip_(tg.tensor([3.0]), max=2.0).tolist() == [2.0]
    assert tg.tensor([2.0, 3.0]).pow_(2).tolist() == [4.0, 9.0]
    assert tg.tensor([1.26]).round_(decimals=1).tolist() == pytest.approx([1.3])
    w = leaf([1.0, 2.0])
    y = w * 1.0
    y.pow_(3)
    y.sum().backward()
    assert w.grad.tolist() == [3.0, 12.0]
    with pytest.raises(RuntimeError, match="cannot hold"):
        tg.arange(3).exp_()
    with pytest.raises(RuntimeError, match="cannot hold"):
        tg.arange(3).pow_(2.5)
    assert tg.arange(3).abs_().tolist() == [0, 1, 2]
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        leaf([1.0]).exp_()
    with pytest.raises(ValueError, match="at least one of min and max"):
        tg.ones(2).clamp_()
    a = leaf([0.5, 1.0])
    b = a * 1.0
    s = b.sin()  # saves b
    b.exp_()
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        s.sum().backward()


# ---- free functions -------------------------------------------------------------------------
def test_every_name_is_also_a_tg_function():
    names = (
        "t norm cumsum gather masked_fill topk sort argsort flip tile tril triu diag trace "
        "outer einsum erf floor ceil round trunc frac exp_ log_ sqrt_ clamp_ clip_ relu_"
    ).split()
    for name in names:
        assert callable(getattr(tg, name)), name
        assert getattr(tg, name).__doc__, name
    x = tg.tensor(rand(3, 3))
    assert np.array_equal(tg.tril(x).numpy(), x.tril().numpy())
    assert tg.sort(x, 0).indices.tolist() == x.sort(0).indices.tolist()


# ---- against PyTorch -------------------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch: values and gradients compared.
TORCH_PROGRAMS = {
    "t": (lambda m, x: x.t(), [(3, 4)]),
    "norm": (lambda m, x: m.norm(x), [(3, 4)]),
    "norm-p3-dim": (lambda m, x: x.norm(p=3, dim=1, keepdim=True), [(3, 4)]),
    "norm-fro-dims": (lambda m, x: x.norm("fro", dim=(0, 1)), [(2, 3, 4)]),
    "norm-inf": (lambda m, x: x.norm(float("inf"), dim=0), [(3, 4)]),
    "norm-1": (lambda m, x: x.norm(1), [(3, 4)]),
    "norm-half": (lambda m, x: x.norm(0.5, dim=-1), [(3, 4)]),
    "cumsum": (lambda m, x: m.cumsum(x, dim=1), [(3, 4)]),
    "gather": (lambda m, x: x.gather(1, m.tensor([[0, 0], [3, 1], [2, 2]])), [(3, 4)]),
    "masked_fill": (lambda m, x: x.masked_fill(x > 0, 0.5), [(3, 4)]),
    "topk": (lambda m, x: x.topk(2, dim=0).values, [(3, 4)]),
    "topk-smallest": (lambda m, x: m.topk(x, 3, largest=False).values, [(3, 4)]),
    "sort": (lambda m, x: x.sort(descending=True).values, [(3, 4)]),
    "sort-indices": (lambda m, x: x.sort(0)[1], [(3, 4)]),
    "argsort": (lambda m, x: m.argsort(x, dim=1, descending=True), [(3, 4)]),
    "flip": (lambda m, x: x.flip(0, 1), [(3, 4)]),
    "repeat": (lambda m, x: x.repeat(2, 1, 3), [(3, 4)]),
    "tile": (lambda m, x: m.tile(x, (2,)), [(3, 4)]),
    "tril": (lambda m, x: x.tril(1), [(2, 3, 4)]),
    "triu": (lambda m, x: m.triu(x, -1), [(3, 4)]),
    "diag-vector": (lambda m, x: x.diag(-1), [(3,)]),
    "diag-matrix": (lambda m, x: m.diag(x, 1), [(3, 4)]),
    "trace": (lambda m, x: x.trace(), [(3, 4)]),
    "outer": (lambda m, x, y: m.outer(x, y), [(3,), (4,)]),
    "einsum": (lambda m, x, y: m.einsum("bij,bjk->bik", x, y), [(2, 3, 4), (2, 4, 2)]),
    "einsum-diag": (lambda m, x: m.einsum("...ii->...i", x), [(2, 3, 3)]),
    "einsum-broadcast": (lambda m, x, y: m.einsum("ij,ij->i", x, y), [(3, 1), (3, 4)]),
    "erf": (lambda m, x: m.erf(x), [(3, 4)]),
    "floor": (lambda m, x: x.floor() * x, [(3, 4)]),
    "round": (lambda m, x: m.round(x, decimals=1) + x, [(3, 4)]),
    "frac": (lambda m, x: x.frac(), [(3, 4)]),
    "exp_": (lambda m, x: (x * 1.0).exp_(), [(3, 4)]),
    "clamp_": (lambda m, x: (x * 1.0).clamp_(-0.3, 0.4), [(3, 4)]),
    "sigmoid_": (lambda m, x: m.sigmoid_(x * 1.0), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch", reason="compares values and gradients with PyTorch")
    fn, shapes = TORCH_PROGRAMS[name]
    arrays = [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)]
    ours = [leaf(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = fn(tg, *ours), fn(torch, *theirs)
    assert out.shape == tuple(ref.shape) and np.allclose(out.numpy(), ref.detach().numpy())
    if not ref.requires_grad:
        assert out.dtype == np.int64 and not out.requires_grad
        return
    w = rand(*ref.shape, seed=9)
    (out * tg.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for x, y in zip(ours, theirs):
        assert np.allclose(x.grad.numpy(), y.grad.numpy()), name


def test_norm_gradient_at_zero_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for p in ["fro", 2, 1, 3, 0.5, -1, float("inf"), float("-inf")]:
        a = np.array([0.0, 2.0, -2.0, 1.0])
        x, y = leaf(a), torch.tensor(a, requires_grad=True)
        x.norm(p).backward()
        y.norm(p).backward()
        assert np.allclose(x.grad.numpy(), y.grad.numpy()), p
