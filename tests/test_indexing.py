"""Indexing as PyTorch defines it: gather, masked_fill (and in place), and PyTorch's result order
for integer and array indices split by a slice (reading and assigning). Always on: closed forms and
finite differences; with torch installed: PyTorch's values and gradients (helpers.matches_pytorch,
helpers.Programs)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import Programs, check_grads, distinct, leaf, matches_pytorch, rand

F64 = tg.float64


PROGRAMS = Programs()
program = PROGRAMS.program


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


# ---- PyTorch's order for ints and arrays split by a slice ----------------------------------------
@program(
    expected={
        "shape": [4, 2],
        "values": [[0.0, 0.0], [2.0, 2.0], [4.0, 4.0], [6.0, 6.0]],
        "shape_4d": [4, 2],
        "grad": [[[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]],
    }
)
def int_and_array_indices_split_by_a_slice(torch):
    x = torch.arange(8.0).reshape(1, 4, 2)
    y = torch.zeros(2, 4, 3, 5)
    leaf = torch.zeros(1, 4, 2, requires_grad=True)
    picked = leaf[0, :, [0, 0]]
    (grad,) = torch.autograd.grad((picked * torch.full((4, 2), 0.5)).sum(), leaf)
    return {
        "shape": list(x[0, :, [0, 0]].shape),
        "values": x[0, :, [0, 0]],
        "shape_4d": list(y[0, :, 1, [0, 1]].shape),
        "grad": grad,
    }


@program(expected={"x": [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]})
def assign_through_int_and_array_indices(torch):
    x = torch.zeros(1, 4, 2)
    x[0, :, [0, 1]] = torch.arange(8.0).reshape(4, 2)
    return {"x": x[0]}


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared.
TORCH_PROGRAMS = {
    "gather": (lambda m, x: x.gather(1, m.tensor([[0, 0], [3, 1], [2, 2]])), [(3, 4)]),
    "masked_fill": (lambda m, x: x.masked_fill(x > 0, 0.5), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])


# ---- programs: closed forms on tapegrad, their errors, PyTorch's results when installed ----------
# (no program here raises: a test of the errors would have no case)
test_program_gives_closed_form, _, test_program_matches_pytorch = PROGRAMS.tests()
