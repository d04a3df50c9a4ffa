"""Functions of several tensors (tapegrad/combining.py: hstack, vstack, dstack, column_stack,
atleast_*d, broadcast_tensors/shapes, meshgrid, cartesian_prod, combinations, block_diag), the
pieces room's tensor_split/hsplit/vsplit/dsplit, and rot90, diff, diag_embed, logspace,
tril/triu_indices and the function forms of names that were methods only (movedim, unflatten,
ravel, fliplr, ...).

Values, shapes and dtypes against torch (float64), gradients through each input against torch and
by finite differences; PyTorch's warning and errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(9)


def _torch():
    return pytest.importorskip("torch")


def _flat(result) -> list:
    return list(result) if isinstance(result, tuple | list) else [result]


def _same_program(fn, *arrays) -> None:
    """fn(lib, *tensors) on tapegrad and torch: the same outputs (every one of a tuple), and the
    same gradients of the weighted sum of all of them for every float input."""
    torch = _torch()
    found = []
    for lib in (tg, torch):
        xs = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        outs = _flat(fn(lib, *xs))
        total = None
        for k, out in enumerate(outs):
            if out.requires_grad:
                part = (out * (k + 1.5)).sum()
                total = part if total is None else total + part
        if total is not None:
            total.backward()
        found.append(([o.detach().numpy() for o in outs], [x.grad for x in xs if x.requires_grad]))
    (mine, my_grads), (theirs, their_grads) = found
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-14)
    for a, b in zip(my_grads, their_grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)


A, B, V = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)), RNG.standard_normal(3)
S = np.array(1.5)
PROGRAMS = {
    "hstack": (lambda lib, a, b: lib.hstack([a, b]), [A, B]),
    "hstack vectors": (lambda lib, v, s: lib.hstack((v, s)), [V, S]),
    "vstack": (lambda lib, a, v: lib.vstack([a, v]), [A, V]),
    "row_stack": (lambda lib, a, v: lib.row_stack([a, v]), [A, V]),
    "dstack": (lambda lib, a: lib.dstack([a, a * 2.0]), [A]),
    "column_stack": (lambda lib, v, a: lib.column_stack([v[:2], a]), [V, A]),
    "atleast_1d": (lambda lib, s, v: lib.atleast_1d(s, v), [S, V]),
    "atleast_2d": (lambda lib, s: lib.atleast_2d(s), [S]),
    "atleast_3d": (lambda lib, v, a: lib.atleast_3d((v, a)), [V, A]),
    "broadcast_tensors": (lambda lib, a, v: lib.broadcast_tensors(a, v), [A, V]),
    "meshgrid ij": (lambda lib, v, s, w: lib.meshgrid(v, s, w, indexing="ij"), [V, S, V[:2]]),
    "meshgrid xy": (lambda lib, v, w: lib.meshgrid([v, w], indexing="xy"), [V, V[:2]]),
    "cartesian_prod": (lambda lib, v, w: lib.cartesian_prod(v, w), [V, V[:2]]),
    "block_diag": (lambda lib, a, v, s: lib.block_diag(a, v, s), [A, V, S]),
    "tensor_split sections": (lambda lib, b: b.tensor_split(3, dim=1), [B]),
    "tensor_split indices": (lambda lib, b: lib.tensor_split(b, [1, 5, 2], 1), [B]),
    "hsplit": (lambda lib, b: b.hsplit(2), [B]),
    "vsplit": (lambda lib, b: lib.vsplit(b, [1]), [B]),
    "dsplit": (lambda lib, b: b.reshape(1, 2, 4).dsplit([3]), [B]),
    "rot90": (lambda lib, a: a.rot90(1, [1, 0]), [A]),
    "rot90 k=2": (lambda lib, a: lib.rot90(a, 2), [A]),
    "rot90 k=-1": (lambda lib, a: a.rot90(-1), [A]),
    "diff": (lambda lib, b: b.diff(), [B]),
    "diff n=2 prepend append": (
        lambda lib, b: lib.diff(b, 2, 0, prepend=b[:1], append=b * 2.0),
        [B],
    ),
    "diag_embed": (lambda lib, a: a.diag_embed(), [A]),
    "diag_embed offset dims": (lambda lib, a: lib.diag_embed(a, -1, 0, 2), [A]),
    "movedim": (lambda lib, a: lib.movedim(a.reshape(1, 2, 3), 0, 2), [A]),
    "unflatten": (lambda lib, b: lib.unflatten(b, 1, (2, 2)), [B]),
    "ravel, fliplr, flipud": (lambda lib, a: (lib.ravel(a), lib.fliplr(a), lib.flipud(a)), [A]),
    "clamp_min, clamp_max": (lambda lib, a: (lib.clamp_min(a, 0.1), lib.clamp_max(a, 0.1)), [A]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_gradients_against_torch(name: str) -> None:
    fn, arrays = PROGRAMS[name]
    _same_program(fn, *arrays)


@pytest.mark.parametrize("name", ["hstack", "block_diag", "diff n=2 prepend append", "diag_embed"])
def test_gradients_to_second_order(name: str) -> None:
    fn, arrays = PROGRAMS[name]

    def f(*xs):
        return sum(((o * o).sum() for o in _flat(fn(tg, *xs))), tg.tensor(0.0, dtype=tg.float64))

    inputs = tuple(tg.tensor(a, requires_grad=True) for a in arrays)
    assert gradcheck(f, inputs) and gradgradcheck(f, inputs)


def test_tensor_split_matches_numpy_array_split_everywhere() -> None:
    torch = _torch()
    for n in range(0, 8):
        for cuts in (1, 2, 3, 5, [1, 3], [3, 1], [-2, 9], [0, 0]):
            mine = [p.shape for p in tg.zeros(n).tensor_split(cuts)]
            assert mine == [tuple(p.shape) for p in torch.zeros(n).tensor_split(cuts)], (n, cuts)
    pieces = tg.tensor([1.0, 2.0, 3.0]).tensor_split(tg.tensor([1]))
    assert [p.tolist() for p in pieces] == [[1.0], [2.0, 3.0]]


def test_meshgrid_without_indexing_warns_and_uses_ij() -> None:
    with pytest.warns(UserWarning, match="indexing"):
        a, b = tg.meshgrid(tg.tensor([1, 2, 3]), tg.tensor([4, 5]))
    assert a.shape == (3, 2) and b.tolist() == [[4, 5]] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tg.meshgrid(tg.tensor([1]), indexing="xy")


def test_logspace_and_triangle_indices_as_torch() -> None:
    torch = _torch()
    for args, kwargs in [
        ((0, 2, 3), {}),
        ((0, 1.2, 4), {"dtype": torch.int64}),
        ((1, 3, 3, 2), {}),
    ]:
        mine_kwargs = {"dtype": tg.int64} if kwargs else {}
        mine, theirs = tg.logspace(*args, **mine_kwargs), torch.logspace(*args, **kwargs)
        assert mine.dtype == theirs.numpy().dtype
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)
    for row, col, offset in [(3, 3, 0), (3, 4, 1), (4, 3, -1), (2, 5, -3), (0, 3, 0)]:
        for name in ("tril_indices", "triu_indices"):
            mine = getattr(tg, name)(row, col, offset)
            theirs = getattr(torch, name)(row, col, offset)
            assert mine.dtype == np.int64 and mine.tolist() == theirs.tolist(), (name, row, col)


def test_broadcast_shapes_and_clamp_in_place() -> None:
    assert tg.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    x = tg.tensor([-1.0, 0.5, 2.0])
    assert x.clamp_min_(0.0) is x and x.clamp_max_(1.0).tolist() == [0.0, 0.5, 1.0]


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: tg.hstack([]), "non-empty"),
        (lambda: tg.broadcast_shapes((2,), (3,)), "cannot be broadcast"),
        (lambda: tg.meshgrid(tg.ones(2, 2), indexing="ij"), "0-D or 1-D"),
        (lambda: tg.meshgrid(tg.ones(2), indexing="yx"), "indexing"),
        (lambda: tg.cartesian_prod(tg.ones(2, 2)), "1-D"),
        (lambda: tg.block_diag(tg.ones(1, 1, 1)), "2 or fewer"),
        (lambda: tg.ones(5).tensor_split(0), "larger than 0"),
        (lambda: tg.ones(2, 5).hsplit(2), "not divisible"),
        (lambda: tg.ones(5).vsplit(1), "at least 2 dimension"),
        (lambda: tg.ones(3, 3).rot90(1, (0, 0)), "different"),
        (lambda: tg.ones(3).rot90(), "total dims >= 2"),
        (lambda: tg.tensor(1.0).diff(), "one-dimensional"),
        (lambda: tg.tensor(1.0).diag_embed(), "at least 1 dimension"),
    ],
)
def test_bad_arguments_are_clear_errors(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


COMBINATIONS = {
    "pairs": (2, False),
    "pairs with replacement": (2, True),
    "triples": (3, False),
    "one": (1, False),
    "none": (0, False),
    "more than there are": (5, False),
}


@pytest.mark.parametrize("case", COMBINATIONS)
def test_combinations_matches_pytorch_in_rows_and_gradients(case):
    r, again = COMBINATIONS[case]
    torch = pytest.importorskip("torch")
    x = np.array([0.5, -1.0, 2.0, 3.0])
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got = tg.combinations(ours, r=r, with_replacement=again)
    want = torch.combinations(theirs, r=r, with_replacement=again)
    assert got.shape == tuple(want.shape) and np.allclose(got.numpy(), want.detach().numpy())
    if got.numel():
        w = np.arange(got.numel(), dtype=np.float64).reshape(got.shape)
        (got * tg.tensor(w)).sum().backward()
        (want * torch.tensor(w)).sum().backward()
        assert np.allclose(ours.grad.numpy(), theirs.grad.numpy())


def test_combinations_closed_form_and_errors():
    assert tg.combinations(tg.tensor([1, 2, 3])).tolist() == [[1, 2], [1, 3], [2, 3]]
    with pytest.raises(RuntimeError, match="Expect a 1D vector, but got shape"):
        tg.combinations(tg.ones(2, 2))
    with pytest.raises(RuntimeError, match="Expect a non-negative number"):
        tg.combinations(tg.ones(2), r=-1)
