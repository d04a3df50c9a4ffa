"""PyTorch's "Double Backward with Custom Functions" tutorial, run on tapegrad as it is written.

`tutorial(torch)` holds the tutorial's four Functions (Square saves an input, Exp saves an output,
Sinh returns its intermediates exp(x) and exp(-x) as extra outputs, Cube's backward calls another
Function, CubeBackward) and its "what not to do" SinhBad, written with `torch.` as the tutorial
writes them; it is called with tapegrad (always) and with PyTorch (when installed, to compare).
Checked in float64: gradcheck and gradgradcheck as the tutorial runs them, first, second and third
derivatives against closed forms, and errors that name the Function where the backward cannot be
differentiated again (a saved intermediate not returned, `.numpy()`/`.item()`/`.data` in backward),
while the same backward without create_graph gives the right first derivative.
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

import tapegrad as tg


def tutorial(torch) -> types.SimpleNamespace:
    """The tutorial's code, verbatim apart from comments, for `torch` = tapegrad or PyTorch."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 2 * x

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = torch.exp(x)
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            (result,) = ctx.saved_tensors
            return result * grad_out

    class Sinh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += _grad_out_exp * expx
            grad_input -= _grad_out_negexp * expnegx
            return grad_input

    def sinh(x):
        return Sinh.apply(x)[0]

    class SinhBad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.expx = expx
            ctx.expnegx = expnegx
            return (expx - expnegx) / 2

        @staticmethod
        def backward(ctx, grad_out):
            expx = ctx.expx
            expnegx = ctx.expnegx
            grad_input = grad_out * (expx + expnegx) / 2
            return grad_input

    def cube_forward(x):
        return x**3

    def cube_backward(grad_out, x):
        return grad_out * 3 * x**2

    def cube_backward_backward(grad_out, sav_grad_out, x):
        return grad_out * sav_grad_out * 6 * x

    def cube_backward_backward_grad_out(grad_out, x):
        return grad_out * 3 * x**2

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return cube_forward(x)

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    class CubeBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return cube_backward(grad_out, x)

        @staticmethod
        def backward(ctx, grad_out):
            x, sav_grad_out = ctx.saved_tensors
            dx = cube_backward_backward(grad_out, sav_grad_out, x)
            dgrad_out = cube_backward_backward_grad_out(grad_out, x)
            return dgrad_out, dx

    return types.SimpleNamespace(
        Square=Square, Exp=Exp, Sinh=Sinh, sinh=sinh, SinhBad=SinhBad, Cube=Cube
    )


TG = tutorial(tg)

# name -> (function of x, its first, second and third derivatives)
CLOSED_FORMS = {
    "Square": (TG.Square.apply, lambda x: 2 * x, lambda x: 2 + 0 * x, lambda x: 0 * x),
    "Exp": (TG.Exp.apply, np.exp, np.exp, np.exp),
    "sinh": (TG.sinh, np.cosh, np.sinh, np.cosh),
    "Cube": (TG.Cube.apply, lambda x: 3 * x**2, lambda x: 6 * x, lambda x: 6 + 0 * x),
}
X = np.array([[0.3, -1.2, 0.05], [2.0, -0.4, 1.1], [0.7, -2.1, 0.0]])


def leaf(values=X) -> tg.Tensor:
    return tg.tensor(np.array(values, dtype=np.float64), requires_grad=True)


# ---------------------------------------------------------------------------------------------
# The tutorial's own checks


def test_square_saving_an_input():
    x = tg.rand(3, 3, requires_grad=True, dtype=tg.double)
    assert tg.autograd.gradcheck(TG.Square.apply, x)
    assert tg.autograd.gradgradcheck(TG.Square.apply, x)


def test_exp_saving_an_output():
    x = tg.tensor(1.0, requires_grad=True, dtype=tg.double).clone()
    assert tg.autograd.gradcheck(TG.Exp.apply, x)
    assert tg.autograd.gradgradcheck(TG.Exp.apply, x)


def test_sinh_returning_its_intermediates():
    x = tg.rand(3, 3, requires_grad=True, dtype=tg.double)
    assert tg.autograd.gradcheck(TG.sinh, x)
    assert tg.autograd.gradgradcheck(TG.sinh, x)


def test_cube_with_a_recorded_backward_of_its_own():
    x = tg.tensor(2.0, requires_grad=True, dtype=tg.double)
    assert tg.autograd.gradcheck(TG.Cube.apply, x)
    assert tg.autograd.gradgradcheck(TG.Cube.apply, x)


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_gradient_is_a_function_of_x(name):
    """The tutorial's graphs: under create_graph the gradient itself is on the tape."""
    fn = CLOSED_FORMS[name][0]
    x = tg.tensor(1.0, requires_grad=True, dtype=tg.double).clone()
    (grad_x,) = tg.autograd.grad(fn(x), x, create_graph=True)
    assert grad_x.requires_grad and grad_x.grad_fn is not None


# ---------------------------------------------------------------------------------------------
# Closed forms to third order, on the tape and through the functional API


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_derivatives_to_third_order(name):
    fn, d1, d2, d3 = CLOSED_FORMS[name]
    x = leaf()
    (g1,) = tg.autograd.grad(fn(x).sum(), x, create_graph=True)
    (g2,) = tg.autograd.grad(g1.sum(), x, create_graph=True)
    if g2.requires_grad:
        (g3,) = tg.autograd.grad(g2.sum(), x, allow_unused=True)
        g3 = np.zeros_like(X) if g3 is None else g3.numpy()
    else:  # a constant (Square: 2), as in PyTorch: the third derivative is zero
        g3 = np.zeros_like(X)
    assert np.allclose(g1.numpy(), d1(X), rtol=1e-12, atol=1e-12)
    assert np.allclose(g2.numpy(), d2(X), rtol=1e-12, atol=1e-12)
    assert np.allclose(g3, d3(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_functional_second_derivative_and_hessian(name):
    fn, _, d2, _ = CLOSED_FORMS[name]
    got = tg.grad(tg.grad(fn))(tg.tensor(0.7, dtype=tg.float64))
    assert got.item() == pytest.approx(float(d2(np.float64(0.7))), rel=1e-12, abs=1e-12)
    # f(v) * v: (f v)'' = f'' v + 2 f'
    v = np.array([0.5, -1.5])
    h = tg.hessian(lambda t: (fn(t) * t).sum())(tg.tensor(v, dtype=tg.float64))
    d1 = CLOSED_FORMS[name][1]
    assert np.allclose(h.numpy(), np.diag(d2(v) * v + 2 * d1(v)), rtol=1e-12, atol=1e-12)


def test_sinh_extra_outputs_carry_their_own_gradients():
    """Using exp(x) and exp(-x) (the extra outputs) in the loss: their gradients are accumulated in
    backward, to second order: L = sinh(x) * e^x + (e^-x)^2."""
    x = leaf()
    s, expx, expnegx = TG.Sinh.apply(x)
    (g,) = tg.autograd.grad((s * expx + expnegx * expnegx).sum(), x, create_graph=True)
    (h,) = tg.autograd.grad(g.sum(), x)
    # s e^x = (e^2x - 1) / 2: d = e^2x, d2 = 2 e^2x; e^-2x: d = -2 e^-2x, d2 = 4 e^-2x
    assert np.allclose(g.numpy(), np.exp(2 * X) - 2 * np.exp(-2 * X), rtol=1e-12)
    assert np.allclose(h.numpy(), 2 * np.exp(2 * X) + 4 * np.exp(-2 * X), rtol=1e-12)


def test_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch when it is installed")
    pt = tutorial(torch)
    for name in CLOSED_FORMS:
        ours = CLOSED_FORMS[name][0]
        theirs = {"Square": pt.Square.apply, "Exp": pt.Exp.apply, "sinh": pt.sinh}.get(
            name, pt.Cube.apply
        )
        x = leaf()
        (g1,) = tg.autograd.grad(ours(x).sum(), x, create_graph=True)
        (g2,) = tg.autograd.grad((g1 * g1).sum(), x)
        xt = torch.tensor(X, dtype=torch.float64, requires_grad=True)
        (t1,) = torch.autograd.grad(theirs(xt).sum(), xt, create_graph=True)
        (t2,) = torch.autograd.grad((t1 * t1).sum(), xt)
        assert np.allclose(g1.numpy(), t1.detach().numpy(), rtol=1e-12), name
        assert np.allclose(g2.numpy(), t2.numpy(), rtol=1e-12), name


# ---------------------------------------------------------------------------------------------
# What not to do: intermediates that are not returned


def test_sinh_bad_as_written_first_derivative_is_right():
    x = leaf()
    (g,) = tg.autograd.grad(TG.SinhBad.apply(x).sum(), x)
    assert np.allclose(g.numpy(), np.cosh(X), rtol=1e-12)


def test_sinh_bad_as_written_refuses_create_graph():
    """Its backward reads exp(x) kept on ctx, which forward made off the tape: differentiating the
    backward again would give a silent zero (PyTorch leaves grad_x off the graph)."""
    x = leaf()
    out = TG.SinhBad.apply(x)
    with pytest.raises(RuntimeError, match="SinhBad"):
        tg.autograd.grad(out.sum(), x, create_graph=True)


def test_sinh_bad_second_derivative_is_never_a_silent_zero():
    with pytest.raises(RuntimeError, match="SinhBad"):
        tg.grad(tg.grad(TG.SinhBad.apply))(tg.tensor(0.5, dtype=tg.float64))


class SinhSavedNotReturned(tg.autograd.Function):
    """The tutorial's intermediates, saved with save_for_backward but not returned."""

    @staticmethod
    def forward(ctx, x):
        expx = tg.exp(x)
        expnegx = tg.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx, expnegx = ctx.saved_tensors
        return grad_out * (expx + expnegx) / 2


def test_saved_intermediate_not_returned_works_without_create_graph():
    x = leaf()
    (g,) = tg.autograd.grad(SinhSavedNotReturned.apply(x).sum(), x)
    assert np.allclose(g.numpy(), np.cosh(X), rtol=1e-12)


def test_saved_intermediate_not_returned_raises_under_create_graph():
    x = leaf()
    out = SinhSavedNotReturned.apply(x)
    with pytest.raises(RuntimeError, match="SinhSavedNotReturned") as err:
        tg.autograd.grad(out.sum(), x, create_graph=True)
    assert "return" in str(err.value).lower()
    with pytest.raises(RuntimeError, match="SinhSavedNotReturned"):
        tg.grad(tg.grad(SinhSavedNotReturned.apply))(tg.tensor(0.5, dtype=tg.float64))


# ---------------------------------------------------------------------------------------------
# Backwards that leave the tape


def _exp_with_backward(name: str, backward_body):
    """An Exp saving its output whose backward computes `backward_body(result, grad_out)`."""

    def forward(ctx, x):
        result = tg.exp(x)
        ctx.save_for_backward(result)
        return result

    def backward(ctx, grad_out):
        (result,) = ctx.saved_tensors
        return backward_body(result, grad_out)

    return type(
        name,
        (tg.autograd.Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )


OFF_TAPE = {
    "NumpyExp": lambda r, g: g * tg.tensor(r.numpy()),
    "NumpyFunctionExp": lambda r, g: g * tg.tensor(np.exp(np.log(r.numpy()))),
    "ItemExp": lambda r, g: g * r.item(),
    "DataExp": lambda r, g: g * r.data,
    # PyTorch refuses .numpy() on a tensor that requires grad, so its users write these:
    "DetachNumpyExp": lambda r, g: g * tg.tensor(r.detach().numpy()),
    "DetachCpuNumpyExp": lambda r, g: g * tg.tensor(r.detach().cpu().numpy()),
    "DetachItemExp": lambda r, g: g * r.detach().item(),
    "DetachAsarrayExp": lambda r, g: g * tg.tensor(np.asarray(r.detach())),
    "TensorOfTensorExp": lambda r, g: g * tg.tensor(r),
}


@pytest.mark.parametrize("name", list(OFF_TAPE))
def test_off_tape_backward_works_without_create_graph(name):
    fn = _exp_with_backward(name, OFF_TAPE[name])
    x = tg.tensor(0.5, dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad(fn.apply(x), x)
    assert g.item() == pytest.approx(math.exp(0.5), rel=1e-12)
    x.grad = None
    fn.apply(x).backward()
    assert x.grad.item() == pytest.approx(math.exp(0.5), rel=1e-12)


@pytest.mark.parametrize("name", list(OFF_TAPE))
def test_off_tape_backward_raises_under_create_graph(name):
    fn = _exp_with_backward(name, OFF_TAPE[name])
    x = tg.tensor(0.5, dtype=tg.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=name):
        tg.autograd.grad(fn.apply(x), x, create_graph=True)


@pytest.mark.parametrize("name", list(OFF_TAPE))
def test_off_tape_backward_second_derivative_is_never_a_silent_zero(name):
    fn = _exp_with_backward(name, OFF_TAPE[name])
    with pytest.raises(RuntimeError, match=name):
        tg.grad(tg.grad(fn.apply))(tg.tensor(1.0, dtype=tg.float64))


def test_detached_values_stay_usable_where_nothing_is_lost():
    """Only what .detach() makes of a tensor on the tape inside a recorded backward is refused in
    NumPy: a detached constant used as a tensor, and .detach().numpy() elsewhere, are fine."""
    fn = _exp_with_backward("DetachedConstantExp", lambda r, g: g * r.detach() + 0 * r)
    x = tg.tensor(0.5, dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad(fn.apply(x), x, create_graph=True)
    assert g.item() == pytest.approx(math.exp(0.5), rel=1e-12)
    assert g.detach().numpy() == pytest.approx(math.exp(0.5), rel=1e-12)
    assert (x * 2).detach().numpy() == pytest.approx(1.0)


def test_backward_returning_a_numpy_array_raises_under_create_graph():
    fn = _exp_with_backward("ArrayExp", lambda r, g: np.asarray(g.numpy() * r.numpy()))
    x = tg.tensor(0.5, dtype=tg.float64, requires_grad=True)
    assert tg.autograd.grad(fn.apply(x), x)[0].item() == pytest.approx(math.exp(0.5))
    with pytest.raises(RuntimeError, match="ArrayExp"):
        tg.autograd.grad(fn.apply(x), x, create_graph=True)


# ---------------------------------------------------------------------------------------------
# A saved output changed in place afterwards


@pytest.mark.parametrize(
    "change",
    [
        lambda y: y.mul_(2),
        lambda y: y[0].mul_(3),
        lambda y: y.__setitem__(0, 2.0),
    ],
    ids=["mul_", "view-mul_", "setitem"],
)
def test_saved_output_changed_in_place_is_detected(change):
    """Exp's backward reads its output: once that output is changed in place the gradient would
    be silently wrong, so backward raises (as PyTorch does)."""
    x = tg.tensor([0.5, 1.0], dtype=tg.float64, requires_grad=True)
    y = TG.Exp.apply(x)
    change(y)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        tg.autograd.grad(y.sum(), x)


def test_saved_output_zeroed_in_place_gives_the_right_zero():
    """After y.zero_() nothing of the old y reaches the loss: the gradient is zero whatever Exp
    saved, so tapegrad gives those zeros (PyTorch runs Exp's backward anyway and raises)."""
    x = tg.tensor([0.5, 1.0], dtype=tg.float64, requires_grad=True)
    y = TG.Exp.apply(x)
    y.zero_()
    (gx,) = tg.autograd.grad(y.sum(), x)
    assert gx.tolist() == [0.0, 0.0]


def test_saved_extra_output_changed_in_place_is_detected():
    x = tg.tensor([0.5, 1.0], dtype=tg.float64, requires_grad=True)
    s, expx, _ = TG.Sinh.apply(x)
    expx *= 2
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        tg.autograd.grad(s.sum(), x)


def test_saved_input_changed_in_place_is_detected():
    x = tg.tensor([0.5, 1.0], dtype=tg.float64, requires_grad=True)
    b = x * 1
    y = TG.Square.apply(b)
    b += 1
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        tg.autograd.grad(y.sum(), x)


# ---- a Function saving its output: second derivative and Hessian (and PyTorch's) -----------------
class Exp(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = tg.exp(x)
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return r * g


def test_second_derivative_of_a_function_saving_its_output():
    d2 = tg.grad(tg.grad(Exp.apply))(tg.tensor(1.0, dtype=tg.float64))
    assert d2.item() == pytest.approx(math.e, rel=1e-12)


def test_hessian_through_a_function_saving_its_output():
    h = tg.hessian(lambda v: (Exp.apply(v) * v).sum())(tg.tensor([0.5], dtype=tg.float64))
    # d2/dv2 (v e^v) = (v + 2) e^v
    assert np.allclose(h.numpy(), [[2.5 * math.exp(0.5)]], rtol=1e-12)


def test_exp_examples_match_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch when it is installed")

    class TorchExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = torch.exp(x)
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return r * g

    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(TorchExp.apply(x), x, create_graph=True)
    (d2,) = torch.autograd.grad(g, x)
    assert tg.grad(tg.grad(Exp.apply))(tg.tensor(1.0, dtype=tg.float64)).item() == pytest.approx(
        d2.item(), rel=1e-12
    )
    v = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad((TorchExp.apply(v) * v).sum(), v, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), v)
    ours = tg.hessian(lambda v: (Exp.apply(v) * v).sum())(tg.tensor([0.5], dtype=tg.float64))
    assert np.allclose(ours.numpy().ravel(), h.numpy(), rtol=1e-12)
