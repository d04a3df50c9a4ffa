"""Issue 11's cases, each as the program a PyTorch user writes, run with `torch` = tapegrad.

Every `@program` is a function of the library it runs on (`torch`): the always-on test runs it on
tapegrad against the closed-form numbers written beside it (worked out by hand); with torch
installed the same function runs on PyTorch, and both must give the same values, structures and
errors (see tests/pytorch_programs.py). Here: the micrograd in-place idiom and what ops with a
Python number save, `tg.max(logits, 1)` and the max/min/amax/amin spellings, the two warnings, and
the issue's two Exp examples (a custom Function saving its output). Findings 1-8 of the issue are
in test_trust_findings.py.
"""

from __future__ import annotations

import math
import warnings
from typing import Callable

import numpy as np
import pytest

import tapegrad as tg
from pytorch_programs import Programs

PROGRAMS = Programs()
program = PROGRAMS.program


# ---------------------------------------------------------------------------------------------
# micrograd's in-place idiom; ops with a Python number save nothing of the tensor


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


# ---------------------------------------------------------------------------------------------
# max / min: PyTorch's (values, indices) with a dim; values with axis=; amax/amin; max(a, b)

LOGITS = [[1.0, 3.0, 2.0], [5.0, 0.0, 1.0]]


@program(expected={"pred": [1, 0], "correct": 2})
def max_over_dim_1_gives_predictions(torch):
    logits = torch.tensor(LOGITS)
    labels = torch.tensor([1, 0])
    _, pred = torch.max(logits, 1)
    return {"pred": pred, "correct": (pred == labels).sum().item()}


@program(
    expected={
        "values": [3.0, 5.0],
        "indices": [1, 0],
        "first": [3.0, 5.0],
        "second": [1, 0],
        "is_tuple": True,
        "length": 2,
        "indices_int64": True,
    }
)
def max_dim_is_a_named_tuple(torch):
    r = torch.max(torch.tensor(LOGITS), 1)
    return {
        "values": r.values,
        "indices": r.indices,
        "first": r[0],
        "second": r[1],
        "is_tuple": isinstance(r, tuple),
        "length": len(r),
        "indices_int64": r.indices.dtype == torch.int64,
    }


@program(
    expected={
        "kw": [[5.0, 3.0, 2.0]],
        "kw_i": [[1, 0, 0]],
        "method": [1.0, 0.0],
        "method_i": [0, 1],
        "neg_dim": [1.0, 0.0],
        "positional_keepdim": [[1.0], [0.0]],
    }
)
def max_min_spellings_with_a_dim(torch):
    logits = torch.tensor(LOGITS)
    kw = torch.max(logits, dim=0, keepdim=True)
    m = logits.min(1)
    return {
        "kw": kw.values,
        "kw_i": kw.indices,
        "method": m.values,
        "method_i": m.indices,
        "neg_dim": logits.min(dim=-1)[0],
        "positional_keepdim": logits.min(1, True).values,
    }


@program(
    expected={
        "max": 5.0,
        "min": 0.0,
        "amax": [3.0, 5.0],
        "amin": [1.0, 0.0, 1.0],
        "amax_all": 5.0,
        "amin_keep": [[1.0], [0.0]],
    }
)
def max_min_without_dim_and_amax_amin(torch):
    logits = torch.tensor(LOGITS)
    return {
        "max": torch.max(logits),
        "min": logits.min(),
        "amax": torch.amax(logits, 1),
        "amin": torch.amin(logits, 0),
        "amax_all": logits.amax(dim=(0, 1)),
        "amin_keep": logits.amin(-1, keepdim=True),
    }


@program(
    expected={
        "max": [3.0, 5.0],
        "min": [1.0, 2.0],
        "method": [3.0, 5.0],
        "broadcast": [[3.0, 5.0], [2.0, 5.0]],
    }
)
def max_of_two_tensors_is_maximum(torch):
    a, b = torch.tensor([1.0, 5.0]), torch.tensor([3.0, 2.0])
    return {
        "max": torch.max(a, b),
        "min": torch.min(a, b),
        "method": a.max(b),
        "broadcast": torch.max(a.reshape(1, 2), b.reshape(2, 1)),
    }


@program(
    expected={
        "grad": [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        "indices_require_grad": False,
        "values_require_grad": True,
    }
)
def gradient_through_max_values(torch):
    x = torch.tensor([[1.0, 3.0, 3.0], [5.0, 5.0, 1.0]], requires_grad=True)
    v, i = torch.max(x, 1)  # ties: the first maximum's index, which gets the gradient
    v.sum().backward()
    return {
        "grad": x.grad,
        "indices_require_grad": i.requires_grad,
        "values_require_grad": v.requires_grad,
    }


def test_max_with_axis_keyword_gives_values_as_numpy():
    logits = tg.tensor(LOGITS)
    for r in (tg.max(logits, axis=1), logits.max(axis=1), tg.amax(logits, axis=1)):
        assert isinstance(r, tg.Tensor)
        assert r.tolist() == [3.0, 5.0]
    assert tg.min(logits, axis=0, keepdims=True).tolist() == [[1.0, 0.0, 1.0]]


# ---------------------------------------------------------------------------------------------
# Warnings where PyTorch warns


def _record_warnings(fn: Callable) -> list:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in seen]


@program(expected={"non_leaf": True, "leaf": False, "retained": False, "retained_grad": [1.0, 1.0]})
def grad_of_a_non_leaf_warns(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y, z = x * 2, x * 3
    z.retain_grad()
    (y.sum() + z.sum()).backward()

    def says_retain_grad(read):
        return any(c == "UserWarning" and "retain_grad" in m for c, m in _record_warnings(read))

    return {
        "non_leaf": says_retain_grad(lambda: y.grad),
        "leaf": says_retain_grad(lambda: x.grad),
        "retained": says_retain_grad(lambda: z.grad),
        "retained_grad": z.grad,
    }


@program(
    expected={
        "mse": float(np.mean((np.arange(4.0)[:, None] - np.arange(4.0)[None, :]) ** 2)),
        "l1": float(np.mean(np.abs(np.arange(4.0)[:, None] - np.arange(4.0)[None, :]))),
        "mse_warns": True,
        "l1_warns": True,
        "same_shape_warns": False,
    }
)
def losses_with_broadcasting_shapes_warn(torch):
    inp, target = torch.arange(4.0).reshape(4, 1), torch.arange(4.0)
    out = {}

    def warns(fn):
        seen = _record_warnings(fn)
        return any(c == "UserWarning" and "target size" in m for c, m in seen)

    out["mse_warns"] = warns(lambda: out.setdefault("mse", torch.nn.MSELoss()(inp, target)))
    out["l1_warns"] = warns(lambda: out.setdefault("l1", torch.nn.L1Loss()(inp, target)))
    out["same_shape_warns"] = warns(lambda: torch.nn.MSELoss()(inp, target.reshape(4, 1)))
    return out


# ---------------------------------------------------------------------------------------------
# The two Exp examples (a custom Function saving its output)


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


# ---------------------------------------------------------------------------------------------
# Each program: closed forms on tapegrad, its error, and PyTorch's results when installed

test_program_gives_closed_form, test_program_raises_clear_error, test_program_matches_pytorch = (
    PROGRAMS.tests()
)
