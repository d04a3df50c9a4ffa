"""Shape ops as PyTorch names them: t, flip, repeat (NumPy's tile) and tile, narrow and unbind
(views), cat with empty inputs. Always on: values against NumPy and closed forms, gradients by
finite differences; with torch installed: PyTorch's values and gradients (helpers.matches_pytorch,
helpers.Programs)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import Programs, check_grads, distinct, leaf, matches_pytorch, rand


PROGRAMS = Programs()
program = PROGRAMS.program


# ---- t, flip, repeat, tile -----------------------------------------------------------------------
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


# ---- narrow, unbind ------------------------------------------------------------------------------
def test_narrow_is_a_view():
    a = rand(3, 5)
    x = tg.tensor(a)
    for dim, start, length in [(0, 1, 2), (1, 0, 5), (1, -3, 2), (-1, 2, 0), (1, 5, 0)]:
        s = start % a.shape[dim] if start < 0 else start
        expected = np.take(a, np.arange(s, s + length), axis=dim)
        assert np.array_equal(x.narrow(dim, start, length).numpy(), expected)
        assert np.array_equal(tg.narrow(x, dim, start, length).numpy(), expected)
    v = x.narrow(1, tg.tensor(1), 2)
    assert np.shares_memory(v.numpy(), x.numpy())
    v[0, 0] = 100.0  # writes through, as PyTorch's narrow
    assert x[0, 1].item() == 100.0
    check_grads(lambda x: x.narrow(1, 1, 3) * 2.0, a)
    with pytest.raises(ValueError, match=r"start \(3\) \+ length \(3\) exceeds dimension size"):
        x.narrow(1, 3, 3)
    with pytest.raises(IndexError, match=r"start out of range.*\[-5, 5\].*-6"):
        x.narrow(1, -6, 1)
    with pytest.raises(ValueError, match="length must be non-negative"):
        x.narrow(0, 0, -1)
    with pytest.raises(ValueError, match="0-dim"):
        tg.tensor(1.0).narrow(0, 0, 1)
    with pytest.raises(IndexError, match="out of range"):
        x.narrow(2, 0, 1)


def test_unbind_gives_views():
    a = rand(2, 3, 4)
    x = tg.tensor(a)
    for dim in (0, 1, 2, -1):
        parts = x.unbind(dim)
        assert isinstance(parts, tuple) and len(parts) == a.shape[dim]
        for i, p in enumerate(parts):
            assert np.array_equal(p.numpy(), np.take(a, i, axis=dim))
            assert np.shares_memory(p.numpy(), x.numpy())
    assert len(tg.unbind(x)) == 2 and tg.unbind(x, dim=1)[2].shape == (2, 4)
    check_grads(lambda x: x.unbind(1)[0] * 2.0 + x.unbind(1)[2], a)
    y = leaf(a)
    sum(p * float(i) for i, p in enumerate(y.unbind(2))).sum().backward()
    assert np.array_equal(y.grad.numpy(), np.broadcast_to(np.arange(4.0), a.shape))
    with pytest.raises(IndexError, match="no dimensions"):
        tg.tensor(1.0).unbind()
    assert tg.zeros(0, 3).unbind() == ()


# ---- cat with empty inputs -----------------------------------------------------------------------
@program(expected={"grad": [[2.0, 2.0, 2.0]]})
def cat_with_an_empty_block(torch):
    x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    (grad,) = torch.autograd.grad(torch.cat([torch.zeros(0, 3), x * 2]).sum(), x)
    return {"grad": grad}


@program(expected={"grad": [2.0, 2.0, 2.0]})
def cat_with_an_empty_vector(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (grad,) = torch.autograd.grad(torch.cat([torch.zeros(0), x * 2]).sum(), x)
    return {"grad": grad}


@program(expected={"grad": [2.0, 2.0, 2.0]})
def cat_with_an_empty_vector_last(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (grad,) = torch.autograd.grad(torch.cat([x * 2, torch.zeros(0)]).sum(), x)
    return {"grad": grad}


@program(expected={"grad": [[2.0, 2.0, 2.0]]})
def cat_with_an_empty_column_block(torch):
    x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    (grad,) = torch.autograd.grad(torch.cat([torch.zeros(1, 0), x * 2], 1).sum(), x)
    return {"grad": grad}


@program(expected={"shape": [2, 3], "x": np.zeros((0, 3)), "y": np.full((2, 3), 18.0)})
def cat_with_empty_leaves_that_require_grad(torch):
    x = torch.zeros(0, 3, requires_grad=True)
    y = torch.ones(2, 3, requires_grad=True)
    z = torch.cat([x, y * 3, x])
    gx, gy = torch.autograd.grad((z * z).sum(), [x, y])
    return {"shape": list(z.shape), "x": gx, "y": gy}


@program(expected={"grad": [2.0 * 3 * 3 * 1.0, 2.0 * 3 * 3 * 2.0]})
def cat_with_empty_slices(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = torch.cat([x[:0], x * 3, x[2:]])
    (grad,) = torch.autograd.grad((z * z).sum(), x)
    return {"grad": grad}


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared; SECOND_ORDER_PROGRAMS: second derivatives too.
TORCH_PROGRAMS = {
    "t": (lambda m, x: x.t(), [(3, 4)]),
    "flip": (lambda m, x: x.flip(0, 1), [(3, 4)]),
    "repeat": (lambda m, x: x.repeat(2, 1, 3), [(3, 4)]),
    "tile": (lambda m, x: m.tile(x, (2,)), [(3, 4)]),
}
SECOND_ORDER_PROGRAMS = {
    "narrow": (lambda m, x: x.narrow(1, 1, 2), [(3, 4)]),
    "narrow-neg": (lambda m, x: m.narrow(x, 0, -2, 2), [(3, 4)]),
    "unbind": (lambda m, x: x.unbind(1)[1] * x.unbind(1)[3], [(3, 4)]),
    "unbind-fn": (lambda m, x: m.unbind(x)[2], [(3, 4)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", list(SECOND_ORDER_PROGRAMS))
def test_against_pytorch_to_second_order(name):
    fn, shapes = SECOND_ORDER_PROGRAMS[name]
    matches_pytorch(fn, [rand(*s, seed=i) for i, s in enumerate(shapes)], second_order=True)


# ---- programs: closed forms on tapegrad, their errors, PyTorch's results when installed ----------
# (no program here raises: a test of the errors would have no case)
test_program_gives_closed_form, _, test_program_matches_pytorch = PROGRAMS.tests()
