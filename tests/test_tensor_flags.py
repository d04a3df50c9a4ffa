"""Tensor's small PyTorch names: the memory-kind flags and layout, pin_memory/share_memory_,
output_nr, H, nonzero_static, unsafe_split_with_sizes, unique_consecutive, hardshrink and prelu
as methods: values, structures and errors against PyTorch."""

import itertools

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck


def test_memory_kind_flags_are_those_of_a_dense_cpu_tensor():
    torch = pytest.importorskip("torch")
    ours, theirs = tg.ones(2, 3), torch.ones(2, 3)
    for name in ("is_sparse", "is_quantized", "is_meta", "is_mkldnn", "is_nested", "output_nr"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.is_shared() is theirs.is_shared() is False
    assert ours.is_pinned() is theirs.is_pinned() is False
    assert ours.layout is tg.strided and str(theirs.layout) == "torch.strided"
    assert (ours * 2).output_nr == 0
    assert ours.share_memory_() is ours
    with pytest.raises(RuntimeError, match="accelerator"):
        ours.pin_memory()


def test_H_is_the_matrix_transpose_and_refuses_other_ranks():
    x = tg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    assert x.H.tolist() == [[1.0], [2.0], [3.0]]
    x.H.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0]]
    assert tg.tensor(2.0).H.item() == 2.0
    for shape in [(2,), (2, 2, 2)]:
        with pytest.raises(ValueError, match="only supported on matrices"):
            tg.ones(*shape).H


def test_nonzero_static_pads_or_cuts_as_torch():
    torch = pytest.importorskip("torch")
    cases = [([0, 1, 0, 2], 3, -1), ([0, 1, 0, 2], 1, -5), ([[0, 1], [2, 0]], 3, -1), (3.0, 2, 0)]
    for values, size, fill in cases:
        ours = tg.tensor(values).nonzero_static(size=size, fill_value=fill)
        theirs = torch.tensor(values).nonzero_static(size=size, fill_value=fill)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert ours.shape == tuple(theirs.shape) and ours.dtype == tg.int64
    with pytest.raises(ValueError, match="non-negative integer"):
        tg.ones(2).nonzero_static(size=-1)


def test_unsafe_split_with_sizes_is_split_with_sizes():
    pieces = tg.arange(5.0).unsafe_split_with_sizes([2, 3])
    assert [p.tolist() for p in pieces] == [[0.0, 1.0], [2.0, 3.0, 4.0]]


UNIQUE_CASES = [
    [1, 1, 2, 2, 3, 1, 1, 2],
    [[1, 1], [1, 1], [2, 3]],
    [[1, 2], [1, 2], [1, 3]],
    [float("nan"), float("nan"), 1.0],
    [5],
]


@pytest.mark.parametrize("values", UNIQUE_CASES)
def test_unique_consecutive_matches_torch(values):
    torch = pytest.importorskip("torch")
    ndim = np.ndim(values)
    for dim, inverse, counts in itertools.product(
        [None, *range(-ndim, ndim)], [False, True], [False, True]
    ):
        ours = tg.tensor(values).unique_consecutive(inverse, counts, dim)
        theirs = torch.tensor(values).unique_consecutive(
            return_inverse=inverse, return_counts=counts, dim=dim
        )
        ours = ours if isinstance(ours, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert a.shape == tuple(b.shape)


def test_unique_consecutive_of_a_scalar_the_function_and_no_gradient():
    values, inverse, counts = tg.unique_consecutive(tg.tensor(5), True, True)
    assert values.tolist() == [5] and inverse.shape == () and counts.tolist() == [1]
    with pytest.raises(RuntimeError, match="no derivative"):
        tg.ones(2, requires_grad=True).unique_consecutive()


def test_hardshrink_and_prelu_match_torch_with_gradients():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = np.array([-1.0, -0.5, 0.0, 0.5, 2.0])
    ours = tg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    ours.hardshrink().sum().backward()
    theirs.hardshrink().sum().backward()
    np.testing.assert_array_equal(ours.hardshrink().numpy(), theirs.hardshrink().detach().numpy())
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())
    for shape, weight_shape in [((5,), (1,)), ((2, 3, 4), (3,)), ((4, 3, 2, 2), (3,)), ((), ())]:
        v = np.array([-1.0, -0.5, 0.0, 0.5, 2.0]) if shape == (5,) else rng.normal(size=shape)
        w = rng.uniform(0.1, 0.5, size=weight_shape)
        xs = tg.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        ws = tg.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
        outs = [xi.prelu(wi) for xi, wi in zip(xs, ws)]
        for out in outs:
            out.sum().backward()
        np.testing.assert_allclose(outs[0].numpy(), outs[1].detach().numpy())
        for a, b in [(xs[0].grad, xs[1].grad), (ws[0].grad, ws[1].grad)]:
            np.testing.assert_allclose(a.numpy(), b.numpy())
            assert a.shape == tuple(b.shape)
    x = tg.tensor(rng.normal(size=(2, 3, 4)), requires_grad=True)
    w = tg.tensor([0.1, 0.2, 0.3], dtype=tg.float64, requires_grad=True)
    assert gradcheck(lambda a, b: a.prelu(b), (x, w))
    with pytest.raises(ValueError, match="mismatch of parameter numbers"):
        tg.ones(2, 3, 4).prelu(tg.ones(4))


def test_hardshrink_method_agrees_with_functional_and_torch_at_nan_and_bounds():
    torch = pytest.importorskip("torch")
    values = [float("nan"), -0.5, 0.5, 0.2, -1.0, 2.0]
    mine = tg.tensor(values).hardshrink()
    np.testing.assert_array_equal(mine.numpy(), tg.nn.functional.hardshrink(tg.tensor(values)))
    np.testing.assert_array_equal(mine.numpy(), torch.tensor(values).hardshrink().numpy())


def test_hardshrink_method_has_pytorchs_gradient_at_nan_and_refuses_integers():
    # one implementation (Tensor.hardshrink), which F.hardshrink calls and marks
    torch = pytest.importorskip("torch")
    values = [float("nan"), -0.5, 0.5, 0.2, -1.0, 2.0] + [0.0] * 10  # (PyTorch's vector kernel)
    mine = tg.tensor(values, requires_grad=True)
    mine.hardshrink().sum().backward()
    theirs = torch.tensor(values, requires_grad=True)
    theirs.hardshrink().sum().backward()
    np.testing.assert_array_equal(mine.grad.numpy(), theirs.grad.numpy())
    with pytest.raises(TypeError, match="hardshrink_cpu.*not implemented for integer input"):
        tg.tensor([1, 2]).hardshrink()
    with pytest.raises(TypeError, match="hardshrink: lambd must be a number"):
        tg.ones(2).hardshrink("0.5")
