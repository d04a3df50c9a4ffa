"""scatter_reduce and index_reduce (values sent to a position combined by a reduction), and the
select/slice/diagonal_scatter family: values, gradients and errors, against PyTorch."""

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

REDUCES = ["sum", "prod", "mean", "amax", "amin"]


def _scatter_reduce_both(x, dim, index, src, reduce, include_self):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    xt, st = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    out_t = xt.scatter_reduce(dim, torch.tensor(index), st, reduce, include_self=include_self)
    w = rng.normal(size=out_t.shape)
    gx_t, gs_t = torch.autograd.grad((out_t * torch.tensor(w)).sum(), (xt, st))
    xg, sg = tg.tensor(x, requires_grad=True), tg.tensor(src, requires_grad=True)
    out_g = xg.scatter_reduce(dim, tg.tensor(index), sg, reduce, include_self=include_self)
    (out_g * tg.tensor(w)).sum().backward()
    np.testing.assert_allclose(out_g.numpy(), out_t.detach().numpy())
    np.testing.assert_allclose(xg.grad.numpy(), gx_t.numpy(), atol=1e-12)
    np.testing.assert_allclose(sg.grad.numpy(), gs_t.numpy(), atol=1e-12)
    assert out_g.shape == tuple(out_t.shape) and out_g.dtype == tg.float64


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch_with_ties_and_zeros(reduce, include_self):
    # ties (5, 5 and self's 5), a zero among the factors, a position sent nothing
    x = np.array([5.0, 2.0, 3.0, 7.0, 0.0])
    src = np.array([5.0, 5.0, 1.0, 7.0, 0.0, 2.0])
    _scatter_reduce_both(x, 0, np.array([0, 0, 1, 3, 3, 4]), src, reduce, include_self)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_reduce_matches_torch_in_two_dimensions(reduce, include_self, dim):
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(3, 4)) * 2)  # (rounded: ties happen)
    axis = dim % 2
    index = rng.integers(0, x.shape[axis], size=(3, 3) if axis else (5, 4))
    src = np.round(rng.normal(size=index.shape) * 2)
    _scatter_reduce_both(x, dim, index, src, reduce, include_self)


@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_gradcheck(reduce):
    rng = np.random.default_rng(4)
    x = tg.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    src = tg.tensor(rng.normal(size=(4, 4)), requires_grad=True)
    index = tg.tensor(rng.integers(0, 3, size=(4, 4)))
    for include_self in (True, False):

        def f(a, b):
            return a.scatter_reduce(0, index, b, reduce, include_self=include_self)

        assert gradcheck(f, (x, src))
        if reduce in ("sum", "mean", "prod"):  # (smooth: second order too)
            assert gradgradcheck(f, (x, src))


def test_scatter_reduce_prod_gradient_with_zeros_is_the_product_of_the_others():
    x = tg.tensor([0.0, 2.0], dtype=tg.float64, requires_grad=True)
    src = tg.tensor([0.0, 3.0, 0.0, 4.0], dtype=tg.float64, requires_grad=True)
    x.scatter_reduce(0, tg.tensor([0, 0, 1, 1]), src, "prod").sum().backward()
    # position 0: two zeros (all gradients 0); position 1: one zero (it gets 2 * 4)
    assert x.grad.tolist() == [0.0, 0.0]
    assert src.grad.tolist() == [0.0, 0.0, 8.0, 0.0]


def test_scatter_reduce_integer_mean_is_floored_as_torch():
    x = tg.tensor([-1, 5])
    out = x.scatter_reduce(0, tg.tensor([0, 0, 1]), tg.tensor([-2, -4, 2]), "mean")
    assert out.tolist() == [-3, 3] and out.dtype == tg.int64  # (-7 / 3 floors to -3)
    out = x.scatter_reduce(0, tg.tensor([1]), tg.tensor([2]), "mean", include_self=False)
    assert out.tolist() == [-1, 2]


def test_scatter_reduce_of_integers_amax_amin_prod():
    x = tg.tensor([1, 9, 4])
    index, src = tg.tensor([0, 0, 2]), tg.tensor([3, -2, 7])
    assert x.scatter_reduce(0, index, src, "amax").tolist() == [3, 9, 7]
    assert x.scatter_reduce(0, index, src, "amin", include_self=False).tolist() == [-2, 9, 7]
    assert x.scatter_reduce(0, index, src, "prod").tolist() == [-6, 9, 28]


def test_scatter_reduce_errors():
    x = tg.zeros(3)
    with pytest.raises(ValueError, match="reduce must be one of"):
        x.scatter_reduce(0, tg.tensor([0]), tg.ones(1), "max_")
    with pytest.raises(TypeError, match="same dtype"):
        x.scatter_reduce(0, tg.tensor([0]), tg.ones(1, dtype=tg.float64), "sum")
    with pytest.raises(TypeError, match="src must be a tensor"):
        x.scatter_reduce(0, tg.tensor([0]), 1.0, "sum")
    with pytest.raises(IndexError, match="out of range"):
        x.scatter_reduce(0, tg.tensor([3]), tg.ones(1), "sum")
    with pytest.raises(TypeError, match="integer"):
        x.scatter_reduce(0, tg.tensor([0.0]), tg.ones(1), "sum")


def test_scatter_reduce_empty_index_is_a_copy():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    out = x.scatter_reduce(0, tg.tensor([], dtype=tg.int64), tg.ones(0), "prod")
    assert out.tolist() == [1.0, 2.0] and out.requires_grad


@pytest.mark.parametrize("reduce", REDUCES[1:])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_torch(reduce, include_self):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x, src = np.round(rng.normal(size=(4, 3)) * 2), np.round(rng.normal(size=(5, 3)) * 2)
    index = np.array([0, 2, 0, 3, 0])
    xt, st = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    with warnings.catch_warnings():  # (torch warns that index_reduce is in beta)
        warnings.simplefilter("ignore")
        out_t = xt.index_reduce(0, torch.tensor(index), st, reduce, include_self=include_self)
    gx_t, gs_t = torch.autograd.grad(out_t.sum(), (xt, st))
    xg, sg = tg.tensor(x, requires_grad=True), tg.tensor(src, requires_grad=True)
    out_g = xg.index_reduce(0, tg.tensor(index), sg, reduce, include_self=include_self)
    out_g.sum().backward()
    np.testing.assert_allclose(out_g.numpy(), out_t.detach().numpy())
    np.testing.assert_allclose(xg.grad.numpy(), gx_t.numpy())
    np.testing.assert_allclose(sg.grad.numpy(), gs_t.numpy())


def test_index_reduce_along_a_later_dim_and_its_errors():
    x = tg.ones(2, 3)
    out = x.index_reduce(1, tg.tensor([2, 2]), tg.tensor([[2.0, 3.0], [4.0, 5.0]]), "prod")
    assert out.tolist() == [[1.0, 1.0, 6.0], [1.0, 1.0, 20.0]]
    with pytest.raises(ValueError, match="reduce must be one of prod, mean, amax, amin"):
        x.index_reduce(0, tg.tensor([0]), tg.ones(1, 3), "sum")
    with pytest.raises(ValueError, match="source has shape"):
        x.index_reduce(0, tg.tensor([0]), tg.ones(2, 3), "prod")


def test_in_place_forms_and_free_functions():
    x = tg.ones(3)
    assert x.scatter_reduce_(0, tg.tensor([0, 0]), tg.tensor([2.0, 3.0]), "prod") is x
    assert x.tolist() == [6.0, 1.0, 1.0]
    y = tg.zeros(3, requires_grad=True).clone()
    y.index_reduce_(0, tg.tensor([1]), tg.tensor([4.0]), "amax")
    assert y.tolist() == [0.0, 4.0, 0.0] and y.grad_fn is not None
    z = tg.scatter_reduce(tg.zeros(2), 0, tg.tensor([1, 1]), tg.tensor([1.0, 2.0]), "sum")
    assert z.tolist() == [0.0, 3.0]
    w = tg.index_reduce(tg.ones(2), 0, tg.tensor([0]), tg.tensor([3.0]), "amin")
    assert w.tolist() == [1.0, 1.0]


# ---- select_scatter, slice_scatter, diagonal_scatter ------------------------------------------
CASES = [
    ("select_scatter", (2, 3), (3,), (0, 1), {}),
    ("select_scatter", (2, 3), (2,), (1, -1), {}),
    ("slice_scatter", (2, 5), (2, 2), (1, 1, None, 2), {}),
    ("slice_scatter", (4, 5), (2, 5), (), {"start": -2}),
    ("diagonal_scatter", (3, 4), (3,), (1,), {}),
    ("diagonal_scatter", (2, 3, 4), (3, 1), (-1, 0, 2), {}),
]


@pytest.mark.parametrize(("name", "shape", "src_shape", "args", "kwargs"), CASES)
def test_view_scatters_match_torch(name, shape, src_shape, args, kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    x, src = rng.normal(size=shape), rng.normal(size=src_shape)
    xt, st = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    out_t = getattr(xt, name)(st, *args, **kwargs)
    w = rng.normal(size=out_t.shape)
    gx_t, gs_t = torch.autograd.grad((out_t * torch.tensor(w)).sum(), (xt, st))
    xg, sg = tg.tensor(x, requires_grad=True), tg.tensor(src, requires_grad=True)
    out_g = getattr(xg, name)(sg, *args, **kwargs)
    (out_g * tg.tensor(w)).sum().backward()
    np.testing.assert_array_equal(out_g.numpy(), out_t.detach().numpy())
    np.testing.assert_array_equal(xg.grad.numpy(), gx_t.numpy())
    np.testing.assert_array_equal(sg.grad.numpy(), gs_t.numpy())
    assert gradgradcheck(lambda a, b: getattr(a, name)(b, *args, **kwargs), (xg, sg))
    assert getattr(tg, name)(xg, sg, *args, **kwargs).tolist() == out_g.tolist()


def test_view_scatters_cast_src_and_refuse_other_shapes():
    out = tg.zeros(2, 3).select_scatter(tg.ones(3, dtype=tg.float64), 0, 1)
    assert out.dtype == tg.float32 and out.tolist() == [[0.0] * 3, [1.0] * 3]
    out = tg.zeros(2, 2).diagonal_scatter(tg.tensor([1, 2]))
    assert out.dtype == tg.float32 and out.tolist() == [[1.0, 0.0], [0.0, 2.0]]
    with pytest.raises(ValueError, match="src has shape \\[2\\], the slice \\[3\\]"):
        tg.zeros(2, 3).select_scatter(tg.ones(2), 0, 1)
    with pytest.raises(ValueError, match="src has shape \\[1, 3\\]"):
        tg.zeros(2, 3).select_scatter(tg.ones(1, 3), 0, 1)  # (no broadcasting, as torch)
    with pytest.raises(ValueError, match="step must be positive"):
        tg.zeros(2, 3).slice_scatter(tg.ones(2, 2), dim=1, step=0)
    with pytest.raises(IndexError, match="out of range"):
        tg.zeros(2, 3).select_scatter(tg.ones(3), 0, 5)
