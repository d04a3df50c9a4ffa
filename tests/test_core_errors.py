"""Bad input: every error path of the core, asserting its type and a telling part of its message."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg


@pytest.fixture
def x():
    return tg.tensor([1.0, 2.0, 3.0], requires_grad=True)


# ---- backward / grad ------------------------------------------------------------------------------
def test_non_scalar_backward_without_gradient(x):
    with pytest.raises(
        RuntimeError,
        match=r"only for scalar outputs.*this tensor has shape \[3\]"
        r".*pass gradient",
    ):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="scalar outputs.*pass grad_tensors"):
        tg.autograd.backward([x * 2])
    with pytest.raises(RuntimeError, match="scalar outputs.*grad_outputs"):
        tg.autograd.grad(x * 2, x)


def test_gradient_shape_mismatch(x):
    with pytest.raises(RuntimeError, match=r"mismatch in shape: gradient has shape \[2\].*\[3\]"):
        (x * 2).backward(tg.tensor([1.0, 1.0]))
    with pytest.raises(RuntimeError, match="mismatch in shape"):
        tg.autograd.grad(x * 2, x, grad_outputs=tg.ones(2, 3))


def test_wrong_number_of_gradients(x):
    with pytest.raises(ValueError, match="grad_outputs has 2 entries but outputs has 1"):
        tg.autograd.grad([x.sum()], x, grad_outputs=[None, None])


def test_backward_twice(x):
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


def test_backward_on_tensor_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.tensor(1.0).backward()
    with tg.no_grad():
        y = tg.tensor(1.0, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="no_grad"):
        y.backward()


def test_output_not_requiring_grad_in_autograd_grad(x):
    with pytest.raises(RuntimeError, match=r"outputs\[0\] does not require grad"):
        tg.autograd.grad([x.detach().sum()], x)
    with pytest.raises(RuntimeError, match=r"the output does not require grad.*no_grad"):
        tg.autograd.grad(x.detach().sum(), x)


def test_output_that_left_the_tape(x):
    with pytest.raises(TypeError, match="the output is a float.*left the tape"):
        tg.autograd.grad(float((x * 2).sum().item()), x)
    with pytest.raises(TypeError, match="not a tapegrad Tensor"):
        tg.autograd.grad(np.sum((x * 2).numpy()), x)


def test_input_not_requiring_grad(x):
    with pytest.raises(
        RuntimeError, match=r"inputs\[0\] does not require grad.*requires_grad=True"
    ):
        tg.autograd.grad((x * 2).sum(), tg.tensor(1.0))
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a Tensor"):
        tg.autograd.grad((x * 2).sum(), [np.ones(3)])
    with pytest.raises(ValueError, match="empty"):
        tg.autograd.grad((x * 2).sum(), [])


def test_input_unused(x):
    other = tg.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"inputs\[1\].*not used.*allow_unused=True"):
        tg.autograd.grad((x * 2).sum(), [x, other])


# ---- requires_grad and in-place ------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: tg.tensor([1, 2], requires_grad=True),
        lambda: tg.tensor([True], requires_grad=True),
        lambda: tg.zeros(2, dtype=tg.int32, requires_grad=True),
        lambda: tg.tensor([1, 2]).requires_grad_(),
    ],
)
def test_integer_requires_grad(make):
    with pytest.raises(TypeError, match="only floating-point tensors can require gradients"):
        make()


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.__iadd__(1),
        lambda t: t.__imul__(2),
        lambda t: t.add_(1),
        lambda t: t.zero_(),
        lambda t: t.fill_(3),
        lambda t: t.__setitem__(0, 5.0),
        lambda t: t.copy_(tg.ones(3)),
    ],
)
def test_inplace_on_leaf_requiring_grad_outside_no_grad(x, op):
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad.*in-place.*no_grad"):
        op(x)
    assert x.tolist() == [1.0, 2.0, 3.0]


def test_version_error(x):
    a = x * 2
    b = a.sin()
    a += 1
    with pytest.raises(
        RuntimeError,
        match=r"modified by an in-place operation.*SinBackward.*"
        r"version 1; expected version 0",
    ):
        b.sum().backward()


def test_requires_grad_false_on_non_leaf(x):
    with pytest.raises(RuntimeError, match="only change requires_grad of leaf tensors"):
        (x * 2).requires_grad = False


def test_register_hook_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.tensor([1.0]).register_hook(print)


def test_hook_changing_the_gradient_shape(x):
    x.register_hook(lambda g: g.sum())
    with pytest.raises(
        RuntimeError,
        match=r"hook <lambda> returned a gradient of shape \[\] for a "
        r"tensor of shape \[3\]",
    ):
        (x * 2).sum().backward()
    h = tg.tensor([1.0, 2.0], requires_grad=True) * 2
    h.register_hook(lambda g: tg.ones(5))
    with pytest.raises(RuntimeError, match=r"shape \[5\] for a tensor of shape \[2\]"):
        h.sum().backward()


def test_grad_assignment_of_wrong_shape_or_type(x):
    with pytest.raises(RuntimeError, match=r"assigned grad has shape \[2\].*\[3\]"):
        x.grad = tg.zeros(2)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = [0.0, 0.0, 0.0]


# ---- shapes -----------------------------------------------------------------------------------------
def test_matmul_shape_mismatch():
    with pytest.raises(ValueError, match=r"matmul: shapes \[2, 3\] and \[2, 3\] are not aligned"):
        tg.ones(2, 3) @ tg.ones(2, 3)
    with pytest.raises(ValueError, match="not aligned"):
        tg.ones(3) @ tg.ones(4)
    with pytest.raises(ValueError, match="not aligned"):
        tg.ones(()) @ tg.ones(3)


def test_reshape_mismatch():
    with pytest.raises(
        ValueError, match=r"cannot reshape a tensor of shape \[2, 3\].*into \[4, 2\]"
    ):
        tg.ones(2, 3).reshape(4, 2)
    with pytest.raises(ValueError, match="only one dimension can be -1"):
        tg.ones(2, 3).reshape(-1, -1)
    with pytest.raises(ValueError, match="divide evenly"):
        tg.ones(2, 3).reshape(4, -1)


def test_expand_permute_split_and_axis_errors():
    with pytest.raises(ValueError, match=r"cannot expand a tensor of shape \[3\] to \[4, 2\]"):
        tg.ones(3).expand(4, 2)
    with pytest.raises(ValueError, match="not a permutation"):
        tg.ones(2, 3).permute(0, 0)
    with pytest.raises(ValueError, match="do not add up"):
        tg.ones(5).split([2, 2])
    with pytest.raises(IndexError, match="axis 2 is out of range.*2 dimension"):
        tg.ones(2, 3).sum(axis=2)
    with pytest.raises(ValueError, match="repeats an axis"):
        tg.ones(2, 3).sum(axis=(0, -2))


def test_concatenate_and_stack_errors():
    with pytest.raises(ValueError, match=r"tensor 1 has shape \[2, 2\].*all axes except axis 0"):
        tg.cat([tg.ones(2, 3), tg.ones(2, 2)])
    with pytest.raises(ValueError, match="zero-dimensional"):
        tg.cat([tg.tensor(1.0), tg.tensor(2.0)])
    with pytest.raises(ValueError, match="non-empty"):
        tg.stack([])
    with pytest.raises(ValueError, match="equal shapes"):
        tg.stack([tg.ones(2), tg.ones(3)])


def test_inplace_result_shape_mismatch(x):
    y = x * 1
    with pytest.raises(RuntimeError, match=r"result has shape \[2, 3\].*shape \[3\]"):
        y += tg.ones(2, 3)


# ---- dtypes and conversions -----------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["float128x", "complex64", np.complex64, object, 3])
def test_unknown_dtype(bad):
    with pytest.raises(TypeError, match="unknown dtype.*tg.float32"):
        tg.tensor([1.0], dtype=bad)


def test_bad_data():
    with pytest.raises(TypeError, match="cannot make a tensor"):
        tg.tensor("abc")
    with pytest.raises(TypeError, match="unsupported operand"):
        tg.ones(2) + "a"


def test_item_on_non_scalar():
    with pytest.raises(
        ValueError, match=r"item\(\) needs a tensor with exactly one element.*\[2, 2\]"
    ):
        tg.ones(2, 2).item()


def test_truth_value_of_multi_element_tensor():
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(tg.ones(2))


def test_mean_of_integer_tensor_and_clip_without_bounds():
    with pytest.raises(TypeError, match="mean needs a floating-point tensor"):
        tg.tensor([1, 2]).mean()
    with pytest.raises(ValueError, match="at least one of min and max"):
        tg.ones(2).clip()


def test_function_returning_several_outputs():
    class Two(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    a, b = Two.apply(tg.ones(2, requires_grad=True))  # several outputs are fine (as PyTorch),
    with pytest.raises(
        TypeError,
        match=r"Two\.backward cannot take 2 gradient\(s\).*def backward"
        r"\(ctx, g0, g1\)",
    ):  # but backward gets one per output
        (a + b).sum().backward()


def test_save_for_backward_rejects_non_tensors():
    class SaveNumber(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(3.0)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="save_for_backward takes tensors"):
        SaveNumber.apply(tg.ones(2, requires_grad=True))


def test_gradcheck_needs_an_input_requiring_grad():
    with pytest.raises(ValueError, match="requires_grad=True"):
        tg.autograd.gradcheck(lambda t: t * 2, [tg.ones(2, dtype=tg.float64)])


# ---- construction, shapes and axes: clear messages instead of NumPy's (or silent truncation) -----
def test_bad_construction_data():
    with pytest.raises(ValueError, match="cannot make a tensor from this data.*inhomogeneous"):
        tg.tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(TypeError, match="cannot make a tensor from a dict"):
        tg.tensor({"a": 1.0})
    with pytest.raises(TypeError, match="randn samples real numbers.*int32"):
        tg.randn(3, dtype=tg.int32)
    with pytest.raises(TypeError, match="rand samples real numbers"):
        tg.rand(3, dtype=tg.int64)
    with pytest.raises(TypeError, match="manual_seed expects an int"):
        tg.manual_seed("a")


def test_ops_name_themselves_when_numpy_refuses():
    with pytest.raises(ValueError, match=r"^add: operands could not be broadcast.*\(2,3\) \(4,\)"):
        tg.ones(2, 3) + tg.ones(4)
    with pytest.raises(
        ValueError, match=r"^matmul: shapes \[2, 2, 3\] and \[3, 3, 4\]: the batch axes"
    ):
        tg.ones(2, 2, 3) @ tg.ones(3, 3, 4)


def test_shapes_and_axes_must_be_ints_in_range():
    with pytest.raises(TypeError, match="a shape is made of ints, got 2.5"):
        tg.ones(4).reshape(2.5, 2)
    with pytest.raises(TypeError, match="a shape is made of ints"):
        tg.zeros(2.0)
    with pytest.raises(TypeError, match="axis must be an int or a tuple of ints, got 0.5"):
        tg.ones(2, 3).sum(axis=0.5)
    with pytest.raises(IndexError, match="axis 3 is out of range"):
        tg.ones(2).chunk(2, axis=3)
    with pytest.raises(IndexError, match="axis 5 is out of range"):
        tg.ones(2, 3).flatten(0, 5)
    with pytest.raises(ValueError, match="start_dim 1 comes after end_dim 0"):
        tg.ones(2, 3).flatten(1, 0)


def test_untracked_inplace_shape_errors():
    y = tg.ones(3)
    with pytest.raises(RuntimeError, match=r"in-place \+=: the result has shape \[2, 3\].*\[3\]"):
        y += tg.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"in-place \*=: the result has shape \[1, 3\]"):
        y *= tg.ones(1, 3)
    with pytest.raises(ValueError, match=r"__setitem__: could not broadcast.*\(3,\).*\(2,\)"):
        y[0:2] = tg.ones(3)
    with pytest.raises(ValueError, match=r"copy_: could not broadcast.*\(4,\).*\(3,\)"):
        y.copy_(tg.ones(4))
    assert y.tolist() == [1.0, 1.0, 1.0]


def test_retain_grad_and_formula_errors():
    with pytest.raises(RuntimeError, match="retain_grad.*requires_grad=True"):
        tg.ones(2).retain_grad()
    with pytest.raises(TypeError, match="an op is named by a str"):
        tg.autograd.formula(3)


def test_function_forward_returning_none_and_saved_tensor_advice():
    class ReturnsNothing(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            pass

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="ReturnsNothing.forward returned None"):
        ReturnsNothing.apply(tg.ones(2, requires_grad=True))

    class Double(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 2

    h = tg.ones(2, requires_grad=True) * 1
    y = Double.apply(h).sum()
    h += 1
    with pytest.raises(
        RuntimeError,
        match="saved tensor 0 of DoubleBackward is at version 1; expected version 0.*out of place",
    ):
        y.backward()


def test_factories_refuse_negative_sizes_clearly():
    with pytest.raises(ValueError, match="negative size"):
        tg.zeros(2, -1)
    with pytest.raises(ValueError, match="negative size"):
        tg.randn((-3,))
