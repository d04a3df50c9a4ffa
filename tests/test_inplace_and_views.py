"""In-place ops and views, as PyTorch defines them.

The micrograd idiom (`d += 3 * d`) and what ops with a Python number save; views made before an
in-place op on their base (or a sibling) follow it; integer indexing to one element is a (0-d)
view, and in place on a leaf (or its view) refuses; fill_, zero_ and copy_ are recorded; .view()
aliases or refuses; writes into expanded views; the in-place forms of the unary ops.

Every `@program` is a function of the library it runs on (`torch`): the always-on test runs it on
tapegrad against the closed-form numbers written beside it (worked out by hand); with torch
installed the same function runs on PyTorch, and both must give the same values, structures and
errors (helpers.Programs)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from helpers import Programs, distinct, leaf, matches_pytorch

F64 = tg.float64


PROGRAMS = Programs()
program = PROGRAMS.program


# ---- micrograd's in-place idiom; ops with a Python number save nothing of the tensor -------------
@program(expected={"grad": 4.0})
def micrograd_d_plus_equals_3d(torch):
    a = torch.tensor(2.0, requires_grad=True)
    d = a * 1.0
    d += 3 * d
    d.backward()
    return {"grad": a.grad}


@program(expected={"grad": 3.0 + 3.0 + 0.5})
def scalar_ops_then_inplace(torch):
    a = torch.tensor(2.0, requires_grad=True)
    d = a * 1.0
    e, f, h = d * 3, 3 * d, d / 2.0
    d += 1  # none of e, f, h needs d's value: no in-place error
    (e + f + h).backward()
    return {"grad": a.grad}


@program(expected={"e": 5.0, "grad": -10.0 / 2.0**2})
def reciprocal_then_inplace(torch):
    a = torch.tensor(2.0, requires_grad=True)
    d = a * 1.0
    e = 10.0 / d  # PyTorch: reciprocal (saves its result) times 10; d itself is not saved
    d += 1
    e.backward()
    return {"e": e, "grad": a.grad}


@program(expected={"grad": [1.0, 1.0]})
def relu_then_inplace(torch):
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    d = a * 1.0
    e = d.relu()  # PyTorch's relu saves its result, not its input
    d += 1
    e.sum().backward()
    return {"grad": a.grad}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def matmul_operand_changed_in_place(torch):
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    d = a * 1.0
    e = w @ d  # saves d for w's gradient
    d += 1
    return {"grad": torch.autograd.grad(e.sum(), a)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def multiply_by_itself_in_place(torch):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = x * 1
    b *= b
    return {"grad": torch.autograd.grad(b.sum(), x)}


def test_ops_with_a_python_number_save_nothing_of_the_tensor():
    """d*3, 3*d, d/2.0 and 10.0/d keep no reference to d (PyTorch: mul/div by a scalar save
    nothing; 10.0/d is a reciprocal, which saves its result)."""
    a = tg.tensor([2.0], requires_grad=True)
    d = a * 1.0
    for out in (d * 3, 3 * d, d / 2.0, 10.0 / d):
        saved = out.grad_fn.saved
        kept = [] if saved is None else [s for s in saved if s is d]
        assert not kept, f"{out.grad_fn.name} saved d: {saved}"


def test_each_node_keeps_its_own_number_while_one_number_object_is_shared():
    """record shares the (None, number) pair of nodes made with one number object (the same float
    in a loop); distinct numbers (more than it keeps, -0.0 beside 0.0, ints beside floats) each
    keep their own value, in either position, and the gradients read it."""
    w = leaf([1.5, -2.0])
    numbers = [0.0, -0.0, 3, 3.0] + [1.0 + k / 7 for k in range(600)]
    for c in numbers:
        right, left = w * c, c - w
        assert right.grad_fn.kept_input(1) is c and left.grad_fn.kept_input(0) is c
        (g,) = tg.autograd.grad((right + left).sum(), w)
        assert g.tolist() == [c - 1.0, c - 1.0]
    c = 2.5
    first, second = w * c, w * c
    assert first.grad_fn.saved is second.grad_fn.saved  # (one pair for one number object)
    assert np.copysign(1.0, (w * -0.0).grad_fn.kept_input(1)) == -1.0


# ---- views made before an in-place op on their base (or a sibling) follow it ---------------------
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


# ---- integer indexing to one element is a view (0-d); in place on a leaf's view refuses ----------
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


# ---- fill_ and zero_ (and copy_) are recorded ----------------------------------------------------
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


# ---- .view() aliases or refuses ------------------------------------------------------------------
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


# ---- writes into expanded views ------------------------------------------------------------------
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


# ---- the in-place forms of the unary ops (x.exp_(), x.clamp_(0, 1), ...) -------------------------
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


# ---- an op's saved output changed in place: every way in is seen ------------------------------
# (a node whose rule reads `out` gets the output's version counter when something first changes
# the output in place, so each way of reaching that memory is one to check)
@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_changed_by_a_recorded_inplace_op(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # ExpBackward reads its output
    y.mul_(2)  # recorded: y's history moves on, ExpBackward's output is stale
    return {"grad": torch.autograd.grad(y.sum(), x)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_changed_through_a_view(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.tanh()
    y[0:1].mul_(2)
    return {"grad": torch.autograd.grad(y.sum(), x)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_changed_by_an_index_write_without_grad(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    with torch.no_grad():
        y[0] = 5.0
    return {"grad": torch.autograd.grad(y.sum(), x)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_changed_through_detach(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.detach().add_(1)  # detach() shares the memory and its version counter
    return {"grad": torch.autograd.grad(y.sum(), x)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_changed_after_detach_(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y + 0  # reaches ExpBackward
    y.detach_()  # y leaves the tape, its memory is still ExpBackward's output
    y.add_(1)
    return {"grad": torch.autograd.grad(z.sum(), x)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_reshaped_in_place(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.unsqueeze_(0)
    return {"grad": torch.autograd.grad(y.sum(), x)}


@program(raises=(RuntimeError, "modified by an in-place operation"))
def saved_output_changed_between_two_backwards(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    s = y.sum()
    s.backward(retain_graph=True)
    with torch.no_grad():
        y.view(2, 1).mul_(2)
    s.backward()
    return {"grad": x.grad}


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared.
TORCH_PROGRAMS = {
    "exp_": (lambda m, x: (x * 1.0).exp_(), [(3, 4)]),
    "clamp_": (lambda m, x: (x * 1.0).clamp_(-0.3, 0.4), [(3, 4)]),
    "sigmoid_": (lambda m, x: m.sigmoid_(x * 1.0), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])


# ---- programs: closed forms on tapegrad, their errors, PyTorch's results when installed ----------
test_program_gives_closed_form, test_program_raises_clear_error, test_program_matches_pytorch = (
    PROGRAMS.tests()
)
