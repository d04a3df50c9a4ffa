"""PyTorch's named pickers (index_select, select, masked_select, take_along_dim,
repeat_interleave, nonzero/argwhere, diagonal) and the scatter family (scatter, scatter_add,
index_copy, index_add, index_fill, masked_scatter and their in-place forms).

Each is getitem or index_put/scatter_add underneath, so gradients are theirs: checked against
torch (float64) and by finite differences to second order. diagonal is a view, as PyTorch's: a
write into it reaches the tensor, with and without the tape.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)
X = RNG.standard_normal((4, 5))
IDX = np.array([3, 0, 3])


def _torch():
    return pytest.importorskip("torch")


def _both(fn, *arrays):
    """fn(lib, *tensors) on tapegrad and torch (float arrays require grad): outputs and the
    gradients of sum(out * weights)."""
    torch = _torch()
    found = []
    for lib in (tg, torch):
        xs = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = fn(lib, *xs)
        weights = lib.tensor(np.linspace(0.5, 2.0, out.numel()).reshape(tuple(out.shape)))
        if out.dtype.is_floating_point if lib is torch else out.dtype.kind == "f":
            (out * weights).sum().backward()
        grads = [x.grad for x in xs if x.requires_grad]
        found.append((out, grads))
    (mine, my_grads), (theirs, their_grads) = found
    np.testing.assert_allclose(mine.numpy(), theirs.detach().numpy(), rtol=1e-15)
    assert mine.numpy().dtype == theirs.detach().numpy().dtype
    for a, b in zip(my_grads, their_grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)


PROGRAMS = {
    "index_select": (lambda lib, x, i: x.index_select(1, i), [X, IDX]),
    "index_select 0-d index": (lambda lib, x, i: lib.index_select(x, 0, i), [X, np.array(2)]),
    "select": (lambda lib, x: x.select(1, -2), [X]),
    "masked_select broadcast": (lambda lib, x, m: x.masked_select(m), [X, X[0] > 0]),
    "take_along_dim": (
        lambda lib, x, i: lib.take_along_dim(x, i, dim=1),
        [X, np.array([[0, -1], [2, 2], [4, 0], [1, 1]])],
    ),
    "take_along_dim broadcast": (
        lambda lib, x, i: x.take_along_dim(i, 0),
        [X, np.array([[3], [1]])],
    ),
    "take_along_dim flat": (lambda lib, x, i: lib.take_along_dim(x, i), [X, np.array([19, 0, 7])]),
    "repeat_interleave int": (lambda lib, x: x.repeat_interleave(2, dim=0), [X]),
    "repeat_interleave counts": (
        lambda lib, x, r: lib.repeat_interleave(x, r, dim=1),
        [X, np.array([0, 1, 2, 0, 3])],
    ),
    "repeat_interleave flat": (lambda lib, x: x.repeat_interleave(3), [X[:2, :2]]),
    "diagonal": (lambda lib, x: x.diagonal(), [X]),
    "diagonal offset": (lambda lib, x: lib.diagonal(x, 2, 1, 0), [X.reshape(2, 2, 5)]),
    "diagonal negative offset": (lambda lib, x: x.diagonal(-1), [X]),
    "scatter": (
        lambda lib, x, i, s: x.scatter(1, i, s),
        [X, np.array([[0, 2], [4, 1], [3, 2], [0, 1]]), RNG.standard_normal((4, 2))],
    ),
    "scatter value": (lambda lib, x, i: x.scatter(0, i, value=2.5), [X, np.array([[1, 2, 0]])]),
    "scatter_add": (
        lambda lib, x, i, s: lib.scatter_add(x, 0, i, s),
        [X, np.array([[1, 1, 0], [3, 1, 1]]), RNG.standard_normal((2, 3))],
    ),
    "index_copy": (lambda lib, x, i, s: x.index_copy(0, i, s), [X, np.array([2, 0]), X[:2] * 3]),
    "index_add": (
        lambda lib, x, i, s: x.index_add(1, i, s, alpha=2.0),
        [X, IDX, RNG.standard_normal((4, 3))],
    ),
    "index_fill": (lambda lib, x, i: x.index_fill(1, i, -1.0), [X, IDX]),
    "index_fill tensor value": (
        lambda lib, x, i, v: lib.index_fill(x, 0, i, v),
        [X, np.array([1, 1, 3]), np.array(0.7)],
    ),
    "masked_scatter": (
        lambda lib, x, m, s: x.masked_scatter(m, s),
        [X, X > 0.3, RNG.standard_normal(20)],
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_gradients_against_torch(name: str) -> None:
    fn, arrays = PROGRAMS[name]
    _both(fn, *arrays)


@pytest.mark.parametrize("name", ["index_select", "take_along_dim", "diagonal offset", "scatter"])
def test_gradients_to_second_order(name: str) -> None:
    fn, arrays = PROGRAMS[name]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]

    def f(*xs):
        full = list(arrays)
        for i, x in zip(floats, xs):
            full[i] = x
        args = [a if isinstance(a, tg.Tensor) else tg.tensor(a) for a in full]
        return fn(tg, *args) ** 2

    inputs = tuple(tg.tensor(arrays[i], requires_grad=True) for i in floats)
    assert gradcheck(f, inputs) and gradgradcheck(f, inputs)


def test_nonzero_and_argwhere_as_torch() -> None:
    torch = _torch()
    for values in ([[0.0, 1.0], [2.0, 0.0]], [0.0, 0.0], 3.0, 0.0, [[True, False]]):
        mine, theirs = tg.tensor(values), torch.tensor(values)
        a, b = mine.nonzero(), theirs.nonzero()
        assert a.dtype == np.int64 and a.tolist() == b.tolist() and a.shape == tuple(b.shape)
        assert tg.argwhere(mine).tolist() == torch.argwhere(theirs).tolist()
        pairs = zip(mine.nonzero(as_tuple=True), theirs.nonzero(as_tuple=True))
        assert all(p.tolist() == q.tolist() for p, q in pairs)


def test_diagonal_is_a_view_that_writes_through() -> None:
    K = tg.tensor(np.arange(9.0).reshape(3, 3))
    K.diagonal().add_(100.0)  # (jitter on a kernel matrix, as GP code writes it)
    assert K.diagonal().tolist() == [100.0, 104.0, 108.0] and K[0, 1].item() == 1.0
    x = tg.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    y = x * 1.0
    d = y.diagonal(offset=1, dim1=1, dim2=2)
    d.mul_(10.0)
    torch = _torch()
    tx = torch.tensor(x.numpy(), requires_grad=True)
    ty = tx * 1.0
    ty.diagonal(offset=1, dim1=1, dim2=2).mul_(10.0)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    y.sum().backward(), ty.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert d._version == y._version  # (one memory, one version counter)


def test_in_place_forms_write_and_record() -> None:
    torch = _torch()
    steps = [
        lambda t, lib: t.scatter_(1, lib.tensor([[0], [2], [1], [4]]), lib.tensor(X[:, :1] * 5)),
        lambda t, lib: t.scatter_add_(0, lib.tensor([[1, 3, 3, 0, 0]]), lib.tensor(X[:1])),
        lambda t, lib: t.index_copy_(1, lib.tensor([4, 1]), lib.tensor(X[:, :2])),
        lambda t, lib: t.index_add_(0, lib.tensor([0, 0]), lib.tensor(X[1:3]), alpha=-1.0),
        lambda t, lib: t.index_fill_(1, lib.tensor([3]), 9.0),
        lambda t, lib: t.masked_scatter_(lib.tensor(X > 1.0), lib.tensor(X.ravel() - 7)),
    ]
    for step in steps:
        results = []
        for lib in (tg, torch):
            leaf = lib.tensor(X, requires_grad=True)
            t = leaf * 2.0
            assert step(t, lib) is t
            (t * t).sum().backward()
            results.append((t.detach().numpy(), leaf.grad.numpy()))
        np.testing.assert_allclose(results[0][0], results[1][0])
        np.testing.assert_allclose(results[0][1], results[1][1])
    plain = tg.zeros(3)
    assert plain.index_add_(0, tg.tensor([2, 2]), tg.tensor([1.0, 2.0])).tolist() == [0, 0, 3.0]


def test_scatter_reduce_add_is_scatter_add_with_gradients() -> None:
    torch = _torch()  # (PyTorch computes it, without a derivative: tapegrad's is scatter_add's)
    idx, src = np.array([[1, 1, 0]]), RNG.standard_normal((2, 3))
    theirs = torch.tensor(X).scatter(0, torch.tensor(idx), torch.tensor(src), reduce="add")
    x, s = tg.tensor(X, requires_grad=True), tg.tensor(src, requires_grad=True)
    mine = x.scatter(0, tg.tensor(idx), s, reduce="add")
    np.testing.assert_allclose(mine.detach().numpy(), theirs.numpy())
    other = tg.tensor(X, requires_grad=True).scatter_add(0, tg.tensor(idx), s)
    assert gradcheck(lambda a, b: a.scatter(0, tg.tensor(idx), b, reduce="add"), (x, s))
    np.testing.assert_allclose(mine.detach().numpy(), other.detach().numpy())


def test_repeat_interleave_of_counts_alone() -> None:
    assert tg.repeat_interleave(tg.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    assert tg.tensor([1.0, 2.0]).repeat_interleave(2, output_size=4).tolist() == [1, 1, 2, 2.0]


def test_scatter_multiply_values_and_no_gradient() -> None:
    torch = _torch()
    idx, src = np.array([[0, 0, 1]]), np.array([[2.0, 3.0, 4.0]])
    mine = tg.ones(2, 3, dtype=tg.float64).scatter(
        0, tg.tensor(idx), tg.tensor(src), reduce="multiply"
    )
    theirs = torch.ones(2, 3, dtype=torch.float64).scatter(
        0, torch.tensor(idx), torch.tensor(src), reduce="multiply"
    )
    assert mine.tolist() == theirs.tolist()
    with pytest.raises(RuntimeError, match="no gradient"):
        tg.ones(2, 3, dtype=tg.float64, requires_grad=True).scatter(
            0, tg.tensor(idx), tg.tensor(src), reduce="multiply"
        )


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda x: x.index_select(0, tg.tensor([0.5])), TypeError, "integer tensor"),
        (lambda x: x.index_select(0, tg.tensor([[0]])), ValueError, "0-D or 1-D"),
        (lambda x: x.index_select(1, tg.tensor([5])), IndexError, "out of range"),
        (lambda x: x.select(0, 4), IndexError, "out of range"),
        (lambda x: x.masked_select(tg.tensor([1, 0, 1, 0, 1])), TypeError, "boolean"),
        (lambda x: x.take_along_dim(tg.tensor([0]), 1), ValueError, "same number"),
        (lambda x: x.repeat_interleave(tg.tensor([1, 2])), ValueError, "elements"),
        (lambda x: x.repeat_interleave(-1), ValueError, "negative"),
        (lambda x: x.diagonal(0, 1, 1), ValueError, "cannot be identical"),
        (lambda x: x.scatter(0, tg.tensor([[0]])), TypeError, "exactly one"),
        (lambda x: x.scatter(0, tg.tensor([[9]]), value=1.0), IndexError, "out of range"),
        (lambda x: x.scatter(0, tg.tensor([0]), value=1.0), ValueError, "same number"),
        (
            lambda x: x.index_add(0, tg.tensor([0]), tg.ones(2, 5)),
            ValueError,
            "expected \\[1, 5\\]",
        ),
        (lambda x: x.masked_scatter(x > -9, tg.ones(3).double()), ValueError, "at least as many"),
        (lambda x: x.scatter(0, tg.tensor([[0]]), value=1.0, reduce="max"), ValueError, "reduce"),
        (lambda x: x.scatter(0, tg.tensor([[0]]), tg.ones(1, 1)), TypeError, "same dtype"),
        (lambda x: x.index_add(0, tg.tensor([0]), tg.ones(1, 5)), TypeError, "same dtype"),
        (lambda x: x.masked_scatter(x > 0, tg.ones(20)), TypeError, "same dtype"),
    ],
)
def test_bad_arguments_are_clear_errors(call, error, message: str) -> None:
    with pytest.raises(error, match=message):
        call(tg.tensor(X))


# ---- take, put, index_put, unfold (a view), and the rest of the batch ----------------------------
MORE = {
    "take": (lambda lib, x, i: x.take(i), [X, np.array([[0, 19], [-1, 7]])]),
    "put": (
        lambda lib, x, i, s: lib.put(x, i, s),
        [X, np.array([3, 0, 11]), RNG.standard_normal(3)],
    ),
    "put accumulate": (
        lambda lib, x, i, s: x.put(i, s, accumulate=True),
        [X, np.array([3, 3, 11]), RNG.standard_normal(3)],
    ),
    "index_put": (
        lambda lib, x, i, s: x.index_put((i, i), s),
        [X, np.array([0, 2]), RNG.standard_normal(2)],
    ),
    "index_put accumulate": (
        lambda lib, x, i, s: lib.index_put(x, (i,), s, accumulate=True),
        [X, np.array([1, 1]), RNG.standard_normal(5)],
    ),
    "unfold": (lambda lib, x: x.unfold(1, 2, 2), [X]),
    "unfold overlapping": (lambda lib, x: x.unfold(0, 3, 1), [X]),
    "sum_to_size": (lambda lib, x: x.sum_to_size(1, 5), [X]),
    "narrow_copy": (lambda lib, x: lib.narrow_copy(x, 1, 1, 3), [X]),
    "diagflat": (lambda lib, x: x[:2, :2].diagflat(-1), [X]),
    "addr": (
        lambda lib, x, u, v: x.addr(u, v, beta=0.5, alpha=2.0),
        [X, RNG.standard_normal(4), RNG.standard_normal(5)],
    ),
    "renorm": (lambda lib, x: lib.renorm(x, 2, 0, 1.5), [X]),
    "erfc": (lambda lib, x: (x * 3).erfc(), [X]),
}


@pytest.mark.parametrize("name", sorted(MORE))
def test_more_values_and_gradients_against_torch(name: str) -> None:
    fn, arrays = MORE[name]
    _both(fn, *arrays)


def test_unfold_is_a_view_and_split_with_sizes() -> None:
    y = tg.zeros(5)
    y.unfold(0, 2, 2).fill_(1.0)
    assert y.tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
    x = tg.tensor(X, requires_grad=True)
    z = x * 1.0
    z.unfold(1, 2, 3).mul_(2.0)
    torch = _torch()
    t = torch.tensor(X, requires_grad=True)
    u = t * 1.0
    u.unfold(1, 2, 3).mul_(2.0)
    np.testing.assert_allclose(z.detach().numpy(), u.detach().numpy())
    (z * z).sum().backward(), (u * u).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    assert [p.shape for p in tg.zeros(5).split_with_sizes([2, 3])] == [(2,), (3,)]
    with pytest.raises(ValueError, match="maximum size"):
        tg.zeros(3).unfold(0, 4, 1)
    with pytest.raises(ValueError, match="not expandable"):
        tg.zeros(2, 3).sum_to_size(3, 3)
    assert tg.erfc(tg.tensor([10.0], dtype=tg.float64)).item() == pytest.approx(
        2.088487583762545e-45
    )
