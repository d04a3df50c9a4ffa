"""Issue 11's findings 1-8, each as the program a PyTorch user writes, run with `torch` = tapegrad.

Views made before an in-place op on their base, 0-d views from integer indexing, recorded fill_ and
zero_, infinite gradients selected away at kinks (and subgradients at kinks), cat with empty
inputs, .view() aliasing or refusing, softmax/log_softmax/logsumexp over a size-0 axis, sign's zero
gradient, PyTorch's order for int and array indices split by a slice, writes through expanded
views. Closed forms on tapegrad always; PyTorch's results when it is installed (see
tests/pytorch_programs.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tapegrad as tg
from pytorch_programs import Programs

PROGRAMS = Programs()
program = PROGRAMS.program


# ---------------------------------------------------------------------------------------------
# Finding 1: views made before an in-place op on their base (or a sibling) follow it


@program(expected={"v": [2.0, 4.0], "grad": [2.0, 2.0, 0.0]})
def view_made_before_inplace_on_base(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v = b[0:2]
    b *= 2
    (grad,) = torch.autograd.grad(v.sum(), x)
    return {"v": v, "grad": grad}


@program(expected={"w": [4.0, 3.0], "grad": [0.0, 2.0, 1.0]})
def sibling_view_sees_inplace_through_other_view(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v, w = b[0:2], b[1:]
    v *= 2
    (grad,) = torch.autograd.grad(w.sum(), x)
    return {"w": w, "grad": grad}


@program(expected={"vv": [4.0], "grad": [0.0, 2 * 4.0 * 2 * 2.0, 0.0]})
def view_of_a_view_sees_inplace_on_root(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    vv = b[0:2][1:]
    b *= x  # b = x * x
    (grad,) = torch.autograd.grad((vv * vv).sum(), x)  # vv = x1^2: d(x1^4) = 4 x1^3 = 32
    return {"vv": vv, "grad": grad}


@program(expected={"b": [[4.0, 2.0], [7.0, 4.0]], "grad": [[8.0, 4.0], [22.0, 22.0]]})
def inplace_through_a_transposed_view(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    t = b.T
    t[0] += x[1]  # b[:, 0] += x[1]
    (grad,) = torch.autograd.grad((b * b).sum(), x)
    return {"b": b, "grad": grad}


@program(expected={"f": [1.0, 4.0, 9.0, 16.0], "grad": [[4.0, 32.0], [108.0, 256.0]]})
def flat_view_made_before_inplace_on_base(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    f = b.view(4)
    b.mul_(x)
    (grad,) = torch.autograd.grad((f * f).sum(), x)  # f = x^2 flattened: d(x^4) = 4 x^3
    return {"f": f, "grad": grad}


@program(expected={"b_grad": [12.0, 24.0, 36.0], "x_grad": [72.0, 144.0, 216.0]})
def retained_grad_is_of_the_updated_tensor(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 2
    b.retain_grad()
    b *= 3  # b = 6x: d(b^2)/db = 2b
    (b * b).sum().backward()
    return {"b_grad": b.grad, "x_grad": x.grad}


@program(expected={"b_grad": [2.0, 8.0, 12.0]})
def retained_grad_after_an_element_write(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 2
    b.retain_grad()
    b[0] = 1.0
    (b * b).sum().backward()
    return {"b_grad": b.grad}


@program(expected={"v_grad": [8.0, 12.0], "x_grad": [0.0, 16.0, 24.0]})
def retained_grad_of_a_view_after_its_base_changed(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 2
    v = b[1:]
    v.retain_grad()
    b[0] = 7.0
    (v * v).sum().backward()
    return {"v_grad": v.grad, "x_grad": x.grad}


# ---------------------------------------------------------------------------------------------
# Finding 2: integer indexing to one element is a view (0-d); in-place on a leaf's view refuses


@program(expected={"b": [1.0, 20.0, 3.0], "grad": [2.0, 2 * 20.0 * 10, 6.0]})
def zero_dim_view_written_in_place(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    e = b[1]
    e *= 10
    (grad,) = torch.autograd.grad((b * b).sum(), x)
    return {"b": b, "grad": grad}


@program(expected={"b": [[1.0, 5.0], [3.0, 4.0]], "grad": [[2.0, 0.0], [6.0, 8.0]]})
def chained_indexing_assignment(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    b[0][1] = 5.0
    (grad,) = torch.autograd.grad((b * b).sum(), x)
    return {"b": b, "grad": grad}


@program(expected={"e": [3.0, 7.0], "grad": [[0.0, 0.0], [6.0, 0.0]]})
def row_view_sees_later_element_write(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    e = b[-1]
    b[1, 1] = 7.0
    (grad,) = torch.autograd.grad((e * e).sum(), x)
    return {"e": e, "grad": grad}


@program(raises=(RuntimeError, "leaf"))
def divide_element_of_leaf_in_place(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[0] /= 2
    return {"x": x}


def test_refused_inplace_on_a_leaf_leaves_it_unchanged():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for change in (lambda: x[0].__itruediv__(2), lambda: x[0:2].zero_(), lambda: x.fill_(0.0)):
        with pytest.raises(RuntimeError, match="leaf"):
            change()
        assert x.tolist() == [1.0, 2.0, 3.0]


# ---------------------------------------------------------------------------------------------
# Finding 3: fill_ and zero_ (and copy_) are recorded


@program(expected={"b": [0.0, 0.0, 3.0], "grad": [0.0, 0.0, 1.0]})
def zero_part_of_a_non_leaf(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    b[0:2].zero_()
    (grad,) = torch.autograd.grad(b.sum(), x)
    return {"b": b, "grad": grad}


@program(raises=(RuntimeError, "leaf"))
def zero_a_view_of_a_leaf(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[0:2].zero_()
    return {"x": x}


@program(expected={"requires_grad": True, "has_grad_fn": True, "grad": [0.0, 0.0, 0.0]})
def zero_a_whole_non_leaf_keeps_it_on_the_tape(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    b.zero_()
    (grad,) = torch.autograd.grad(b.sum(), x)  # zeros, not "does not require grad"
    return {"requires_grad": b.requires_grad, "has_grad_fn": b.grad_fn is not None, "grad": grad}


@program(expected={"v": [2.0, 2.0], "grad": [0.0, 2.0, 2.0]})
def fill_base_seen_by_earlier_view(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * x
    v = b[1:]
    b.fill_(2.0)
    (grad,) = torch.autograd.grad((v * x[1:]).sum(), x)  # v is the constant 2 now
    return {"v": v, "grad": grad}


@program(expected={"b": [1.0, 1.0, 2.0], "grad": [3 * 1.0**2 + 2.0, 1.0 + 3.0, 2.0]})
def fill_then_add_through_a_view(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * x
    v = b[1:]
    v.zero_()
    v += x[:2]  # b = [x0^2, x0, x1]
    (grad,) = torch.autograd.grad((b * x).sum(), x)  # x0^3 + x0 x1 + x1 x2
    return {"b": b, "grad": grad}


@program(expected={"x": [1.0, 1.0, 3.0]})
def fill_a_leafs_view_under_no_grad(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        x[0:2].fill_(1.0)
    return {"x": x}


@program(expected={"x": [0.0, 0.0], "y": [6.0, 8.0], "y_grad": [6.0, 8.0]})
def copy_a_leaf_into_a_non_leaf(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    b = x * 1
    b.copy_(y)
    gx, gy = torch.autograd.grad((b * b).sum(), [x, y], allow_unused=True)
    c = x * 1
    c.copy_(y)
    (c * c).sum().backward()  # y gets the gradient (c is not a leaf)
    return {"x": gx, "y": gy, "y_grad": y.grad}


@program(expected={"requires_grad": True, "is_leaf": False, "grad": [1.0, 1.0]})
def copy_a_constant_keeps_a_non_leaf_on_the_tape(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    b.copy_(torch.tensor([3.0, 4.0]))
    flags = {"requires_grad": b.requires_grad, "is_leaf": b.is_leaf}
    (grad,) = torch.autograd.grad((b + x).sum(), x)
    return {**flags, "grad": grad}


@program(expected={"b": [2.0, 3.0], "grad": [4.0, 6.0]})
def copy_then_add_in_place(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    b.copy_(x)
    b += 1
    (grad,) = torch.autograd.grad((b * b).sum(), x)
    return {"b": b, "grad": grad}


# ---------------------------------------------------------------------------------------------
# Finding 4: an infinite gradient is selected away at kinks, never turned into NaN


@program(expected={"grad": [0.0, 0.25]})
def sqrt_of_relu(torch):
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    (grad,) = torch.autograd.grad(x.relu().sqrt().sum(), x)
    return {"grad": grad}


@program(expected={"grad": [0.0, 0.1]})
def sqrt_of_clamped_squared_distance(torch):
    d2 = torch.tensor([-1e-9, 25.0], requires_grad=True)  # a rounding error made d2[0] negative
    dist = torch.sqrt(torch.clamp(d2, min=0))
    (grad,) = torch.autograd.grad(dist.sum(), d2)
    return {"grad": grad}


@program(expected={"upper": [0.0, 0.25, 0.0], "maximum": [0.0, 0.25], "minimum": [-0.25, 0.0]})
def sqrt_after_clamp_maximum_minimum(torch):
    x = torch.tensor([-1.0, 4.0, 9.0], requires_grad=True)
    (upper,) = torch.autograd.grad(x.clamp(0, 5).sqrt().sum(), x)
    y = torch.tensor([-1.0, 4.0], requires_grad=True)
    (maximum,) = torch.autograd.grad(torch.maximum(y, torch.zeros(2)).sqrt().sum(), y)
    z = torch.tensor([-4.0, 1.0], requires_grad=True)
    (minimum,) = torch.autograd.grad((-torch.minimum(z, torch.zeros(2))).sqrt().sum(), z)
    return {"upper": upper, "maximum": maximum, "minimum": minimum}


@program(
    expected={
        "relu": [0.0, 0.0, 1.0],
        "abs": [-1.0, 0.0, 1.0],
        "clamp": [0.0, 1.0, 1.0],
        "clamp_max": [1.0, 1.0, 0.0],
        "maximum": [[0.0, 0.5, 1.0], [1.0, 0.5, 0.0]],
        "sign": [0.0, 0.0, 0.0],
        "amax": [0.0, 0.5, 0.5],
    }
)
def subgradients_at_kinks(torch):
    def grads(f, *xs):
        return torch.autograd.grad(f(*xs).sum(), xs)

    def leaf(values):
        return torch.tensor(values, requires_grad=True)

    return {
        "relu": grads(torch.relu, leaf([-1.0, 0.0, 2.0]))[0],
        "abs": grads(torch.abs, leaf([-1.0, 0.0, 2.0]))[0],
        "clamp": grads(lambda v: v.clamp(0, 2), leaf([-1.0, 0.0, 2.0]))[0],  # inclusive
        "clamp_max": grads(lambda v: v.clamp(max=0), leaf([-1.0, 0.0, 2.0]))[0],
        "maximum": list(grads(torch.maximum, leaf([-1.0, 0.0, 2.0]), leaf([0.0, 0.0, 1.0]))),
        "sign": grads(torch.sign, leaf([-1.0, 0.0, 2.0]))[0],
        "amax": grads(lambda v: v.amax(), leaf([1.0, 3.0, 3.0]))[0],  # ties share evenly
    }


@program(expected={"x": [0.0, 1.0, 1.0], "low": [1.0, 0.0, 0.0]})
def clamp_with_tensor_bounds_that_require_grad(torch):
    x = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    low = torch.zeros(3, requires_grad=True)
    torch.clamp(x, min=low).sum().backward()  # the bound gets its share, as in PyTorch
    return {"x": x.grad, "low": low.grad}


# ---------------------------------------------------------------------------------------------
# Finding 5: cat with empty inputs


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


# ---------------------------------------------------------------------------------------------
# Finding 6: .view() aliases or refuses


@program(expected={"y": [[100.0, 4.0], [1.0, 2.0]]})
def view_of_a_fancy_indexed_copy_aliases_it(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = x[[1, 0]]  # a new tensor (a copy of x's rows): .view() of it aliases it
    v = y.view(4)
    v[0] = 100.0
    return {"y": y}


@program(raises=(RuntimeError, "reshape"))
def view_of_a_transpose_refuses(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    return {"v": x.T.view(4)}


@program(raises=(RuntimeError, "reshape"))
def view_of_a_transposed_fancy_index_refuses(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    return {"v": x[:, [1, 0]].T.view(4)}


@program(expected={"x": [[1.0, 2.0], [7.0, 4.0]]})
def view_of_a_row_writes_through(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x[1].view(1, 2)
    v[0, 0] = 7.0
    return {"x": x}


# ---------------------------------------------------------------------------------------------
# Finding 7: softmax, log_softmax and logsumexp over a size-0 axis


@program(
    expected={
        "softmax": np.zeros((2, 0)),
        "log_softmax": np.zeros((2, 0)),
        "logsumexp": [-math.inf, -math.inf],
        "g_softmax": np.zeros((2, 0)),
        "g_lse": np.zeros((2, 0)),
    }
)
def softmax_family_over_an_empty_axis(torch):
    x = torch.zeros(2, 0, requires_grad=True)
    (g_softmax,) = torch.autograd.grad(torch.softmax(x, 1).sum(), x)
    (g_lse,) = torch.autograd.grad(torch.logsumexp(x, 1).exp().sum(), x)
    return {
        "softmax": torch.softmax(x, 1),
        "log_softmax": torch.log_softmax(x, dim=1),
        "logsumexp": torch.logsumexp(x, 1),
        "g_softmax": g_softmax,
        "g_lse": g_lse,
    }


@program(expected={"softmax": np.zeros((0, 3)), "logsumexp": np.zeros(3), "grad": np.zeros((0, 3))})
def softmax_family_with_no_rows(torch):
    x = torch.zeros(0, 3, requires_grad=True)
    (grad,) = torch.autograd.grad(torch.log_softmax(x, 1).sum(), x)
    return {"softmax": torch.softmax(x, 1), "logsumexp": torch.logsumexp(x, 0).exp(), "grad": grad}


def test_logsumexp_over_an_empty_axis_is_minus_inf_without_numpy_warnings():
    """-inf is the answer (log of an empty sum), as PyTorch gives it: no NumPy RuntimeWarning."""
    x = tg.zeros((2, 0), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = tg.logsumexp(x, 1)
    assert out.tolist() == [-math.inf, -math.inf]


# ---------------------------------------------------------------------------------------------
# Finding 8: sign's leaf gets zeros; PyTorch's order for ints and arrays split by a slice;
# writes through an expanded view


@program(expected={"grad": [0.0, 0.0, 0.0]})
def sign_gives_a_zero_gradient(torch):
    x = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
    x.sign().sum().backward()
    return {"grad": x.grad}


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


@program(raises=(RuntimeError, "clone"))
def add_in_place_to_an_expanded_view(torch):
    x = torch.zeros(3).expand(2, 3)
    x += 1.0
    return {"x": x}


def test_write_into_an_expanded_view_says_what_to_do():
    """PyTorch writes into the shared memory; tapegrad refuses clearly (never NumPy's raw
    'assignment destination is read-only')."""
    x = tg.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="clone") as err:
        x[0, 0] = 1.0
    assert "assignment destination" not in str(err.value)


# ---------------------------------------------------------------------------------------------
# Each program: closed forms on tapegrad, its error, and PyTorch's results when installed

test_program_gives_closed_form, test_program_raises_clear_error, test_program_matches_pytorch = (
    PROGRAMS.tests()
)
