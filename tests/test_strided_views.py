"""as_strided and as_strided_scatter: views by sizes, strides and storage offset on the tensor's
memory, as PyTorch's: values, view semantics, gradients and refusals."""

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

GEOMETRIES = [
    ((2, 2), (1, 2), 1),
    ((3, 2), (2, 1), None),
    ((2, 2), (1, 1), 0),  # (overlapping windows: an element read twice)
    ((4,), (0,), 2),  # (one element repeated)
    ((0, 3), (1, 1), 0),
]


@pytest.mark.parametrize(("size", "stride", "offset"), GEOMETRIES)
def test_as_strided_matches_torch_with_gradients(size, stride, offset):
    torch = pytest.importorskip("torch")
    x = np.arange(6.0)
    ours, theirs = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a, b = ours.as_strided(size, stride, offset), theirs.as_strided(size, stride, offset)
    np.testing.assert_array_equal(a.numpy(), b.detach().numpy())
    assert a.shape == tuple(b.shape) and a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset()
    w = np.random.default_rng(0).normal(size=a.shape)
    (a * tg.tensor(w)).sum().backward()
    (b * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())
    assert gradcheck(lambda t: t.as_strided(size, stride, offset), (ours,))
    assert gradgradcheck(lambda t: t.as_strided(size, stride, offset), (ours,))


def test_as_strided_of_a_transpose_and_of_a_slice_as_torch():
    torch = pytest.importorskip("torch")
    ours = tg.arange(12.0).reshape(3, 4)
    theirs = torch.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(
        ours.t().as_strided((2, 2), (4, 1)).numpy(), theirs.t().as_strided((2, 2), (4, 1)).numpy()
    )
    np.testing.assert_array_equal(  # (the default offset: the slice's own)
        ours.reshape(-1)[2:].as_strided((2,), (1,)).numpy(),
        theirs.reshape(-1)[2:].as_strided((2,), (1,)).numpy(),
    )


def test_as_strided_is_a_view_on_and_off_the_tape():
    base = tg.zeros(6)
    view = base.as_strided((2,), (2,), 1)
    view.add_(1.0)
    assert base.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert view.storage_offset() == 1 and view.stride() == (2,)
    a = tg.ones(4, requires_grad=True)
    b = a.clone()
    w = tg.tensor([2.0, 3.0], requires_grad=True)
    b.as_strided((2,), (2,)).mul_(w)
    assert b.tolist() == [2.0, 1.0, 3.0, 1.0]
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 1.0, 3.0, 1.0] and w.grad.tolist() == [1.0, 1.0]


def test_as_strided_refusals():
    x = tg.arange(6.0)
    with pytest.raises(RuntimeError, match="need a storage of 7 elements, but this tensor's has 6"):
        x.as_strided((3, 3), (1, 2))
    with pytest.raises(RuntimeError, match="negative sizes or strides"):
        x.as_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        x.as_strided((2,), (1,), -1)
    with pytest.raises(RuntimeError, match="mismatch in length"):
        x.as_strided((2, 2), (1,))
    with pytest.raises(RuntimeError, match="outside this tensor's own elements"):
        x[2:].as_strided((2,), (1,), 0)
    with pytest.raises(RuntimeError, match="overlap in memory"):
        tg.ones(1).expand(3).as_strided((1,), (1,))


def test_as_strided_scatter_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x, src = rng.normal(size=6), rng.normal(size=(2, 2))
    ours = [tg.tensor(v, requires_grad=True) for v in (x, src)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (x, src)]
    a = tg.as_strided_scatter(ours[0], ours[1], (2, 2), (1, 2), 1)
    b = torch.as_strided_scatter(theirs[0], theirs[1], (2, 2), (1, 2), 1)
    np.testing.assert_array_equal(a.numpy(), b.detach().numpy())
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_array_equal(ours[1].grad.numpy(), theirs[1].grad.numpy())
    # self's gradient: 1 where it survives, 0 at the four positions src replaced (the closed
    # form; PyTorch 2.13 gives the complement here, which no finite difference supports)
    assert ours[0].grad.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    assert gradcheck(lambda t, s: t.as_strided_scatter(s, (2, 2), (1, 2), 1), tuple(ours))
    with pytest.raises(RuntimeError, match="src has shape"):
        tg.zeros(4).as_strided_scatter(tg.ones(3), (2,), (2,))


def test_as_strided_in_place_reshapes_self_and_refuses_grad():
    x = tg.arange(4.0)
    assert x.as_strided_((2,), (2,)) is x and x.tolist() == [0.0, 2.0]
    with pytest.raises(RuntimeError, match="requires grad"):
        tg.ones(4, requires_grad=True).as_strided_((2,), (1,))


def test_new_empty_strided_is_pytorchs_layout():
    torch = pytest.importorskip("torch")
    for size, stride in [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((0, 4), (4, 1)), ((), ())]:
        got = tg.ones(2).new_empty_strided(size, stride)
        want = torch.ones(2).new_empty_strided(size, stride)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride()
        assert got.dtype == tg.float32 and not got.requires_grad
    typed = tg.ones(2).new_empty_strided((2,), (1,), dtype=tg.int64, requires_grad=False)
    assert typed.dtype == tg.int64
    leaf = tg.ones(2, dtype=tg.float64).new_empty_strided((3,), (2,), requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf and leaf.dtype == tg.float64
    assert leaf.storage_offset() == 0 and leaf.tolist() == [0.0, 0.0, 0.0]


def test_new_empty_strided_checks_like_the_other_new_factories():
    # (placement and requires_grad through the new_* factories' one helper: errors name it)
    with pytest.raises(RuntimeError, match="new_empty_strided: device 'cuda' is not available"):
        tg.ones(2).new_empty_strided((2,), (1,), device="cuda")
    with pytest.raises(RuntimeError, match="new_empty_strided: pin_memory=True"):
        tg.ones(2).new_empty_strided((2,), (1,), pin_memory=True)


@pytest.mark.parametrize("sizes", [(2, 2), (3, 3), (6,), (0,), (1, 2, 3)])
def test_resize_reads_memory_in_storage_order_as_torch(sizes):
    torch = pytest.importorskip("torch")
    builds = [
        lambda m: m.arange(6.0),
        lambda m: m.arange(6.0).reshape(2, 3).t(),  # (storage order, not logical order)
        lambda m: m.arange(12.0)[2:8],  # (an offset into a bigger memory)
    ]
    for build in builds:
        got, want = build(tg), build(torch)
        assert got.resize_(*sizes) is got
        want.resize_(*sizes)
        assert got.shape == tuple(want.shape)
        kept = min(6, int(np.prod(sizes)))  # (beyond: PyTorch's memory is uninitialised)
        np.testing.assert_array_equal(got.numpy().ravel()[:kept], want.numpy().ravel()[:kept])


def test_resize_shrinking_shares_memory_and_guards_the_tape():
    x = tg.arange(6.0)
    x.resize_((2, 2))
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert tg.zeros(4).resize_as_(tg.ones(2, 2)).shape == (2, 2)
    assert tg.resize_as_(tg.zeros(4), tg.ones(1, 3)).shape == (1, 3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        tg.ones(2, requires_grad=True).resize_(3)
    w, c = tg.ones(3, requires_grad=True), tg.arange(3.0)
    y = (c * w).sum()
    c.resize_(3)  # (saved for w's gradient, then changed: the backward refuses, as PyTorch)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()
