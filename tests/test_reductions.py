"""Reductions and scans as PyTorch names them.

norm (every p, dims, the gradient at zero), cumsum, cumprod (zeros in the input, to second order),
max/min with PyTorch's (values, indices) for a dim and NumPy's values for axis=, amax/amin and
max(a, b); softmax, log_softmax and logsumexp over a size-0 axis. Always on: values against NumPy
and closed forms, gradients by finite differences; with torch installed: PyTorch's values and
gradients (helpers.matches_pytorch, helpers.Programs)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tapegrad as tg
from helpers import Programs, check_grads, distinct, finite_differences, leaf, matches_pytorch, rand


PROGRAMS = Programs()
program = PROGRAMS.program


# ---- norm ----------------------------------------------------------------------------------------
def test_norm_values():
    x = tg.tensor([3.0, -4.0, 0.0])
    assert x.norm().item() == pytest.approx(5.0)
    assert x.norm(p=2).item() == pytest.approx(5.0)
    assert x.norm(1).item() == pytest.approx(7.0)
    assert x.norm(math.inf).item() == 4.0 and x.norm(-math.inf).item() == 0.0
    assert x.norm(0).item() == 2.0
    assert x.norm(3).item() == pytest.approx((27 + 64) ** (1 / 3))
    assert x.norm(0.5).item() == pytest.approx((math.sqrt(3) + 2) ** 2)
    assert x.norm(-1).item() == 0.0  # |0| ** -1 = inf, as PyTorch
    a = rand(2, 3, 4)
    t = tg.tensor(a)
    assert np.allclose(t.norm(dim=1).numpy(), np.sqrt((a * a).sum(1)))
    assert np.allclose(tg.norm(t, "fro", (1, 2)).numpy(), np.sqrt((a * a).sum((1, 2))))
    assert t.norm(p=3, dim=(0, 1), keepdim=True).shape == (1, 1, 4)
    assert np.allclose(t.norm(1, dim=-1).numpy(), np.abs(a).sum(-1))
    assert t.norm(dtype=tg.float64).dtype == np.float64


@pytest.mark.parametrize("p", ["fro", 2, 1, 3, 0.5, -1, math.inf, -math.inf, 0])
def test_norm_gradient_at_zero_is_zero(p):
    x = tg.tensor([0.0, 0.0, 0.0], requires_grad=True)
    x.norm(p).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, -1.5, math.inf, -math.inf])
def test_norm_gradcheck(p):
    a = distinct(3, 4)
    smooth = p in (2, 3)
    check_grads(lambda x: x.norm(p), a, second=smooth)
    check_grads(lambda x: x.norm(p, dim=1, keepdim=True), a, second=smooth)
    # with an exact zero in the vector: PyTorch's subgradient there (0)
    z = np.array([0.0, 1.5, -2.0])
    x = leaf(z)
    x.norm(p).backward()
    assert x.grad.numpy()[0] == 0.0 and np.all(np.isfinite(x.grad.numpy()))


def test_norm_errors():
    with pytest.raises(ValueError, match="nuclear"):
        tg.ones(2, 2).norm("nuc")
    with pytest.raises(ValueError, match="'abc' is not supported"):
        tg.ones(2).norm("abc")
    with pytest.raises(TypeError, match="floating-point"):
        tg.tensor([3, 4]).norm()
    with pytest.raises(ValueError, match="one dimension or two"):
        tg.ones(2, 2, 2).norm("fro", dim=(0, 1, 2))


def test_norm_gradient_at_zero_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for p in ["fro", 2, 1, 3, 0.5, -1, float("inf"), float("-inf")]:
        a = np.array([0.0, 2.0, -2.0, 1.0])
        x, y = leaf(a), torch.tensor(a, requires_grad=True)
        x.norm(p).backward()
        y.norm(p).backward()
        assert np.allclose(x.grad.numpy(), y.grad.numpy()), p


# ---- cumsum, cumprod -----------------------------------------------------------------------------
def test_cumsum():
    a = rand(3, 4)
    assert np.allclose(tg.tensor(a).cumsum(1).numpy(), np.cumsum(a, 1))
    assert np.allclose(tg.cumsum(tg.tensor(a), dim=0).numpy(), np.cumsum(a, 0))
    assert tg.tensor([1, 2], dtype=tg.int32).cumsum(0).dtype == np.int64  # (as PyTorch)
    assert tg.tensor([True, True]).cumsum(0).tolist() == [1, 2]
    assert tg.ones(3).cumsum(0, dtype=tg.float64).dtype == np.float64
    x = leaf([1.0, 2.0, 3.0, 4.0])
    x.cumsum(0).sum().backward()  # x_i appears in n - i of the running sums
    assert x.grad.tolist() == [4.0, 3.0, 2.0, 1.0]
    with pytest.raises(TypeError, match="needs the dimension"):
        tg.ones(3).cumsum()


WITH_ZEROS = np.array([[1.5, 0.0, -2.0, 0.5, 0.0, 3.0], [0.0, 2.0, 0.7, -1.0, 1.2, 0.9]])


def test_cumprod_values_and_dtypes():
    a = rand(3, 4)
    for dim in (0, 1, -1):
        assert np.allclose(tg.tensor(a).cumprod(dim).numpy(), np.cumprod(a, axis=dim))
    assert np.allclose(tg.cumprod(tg.tensor(a), dim=0).numpy(), np.cumprod(a, axis=0))
    assert tg.tensor([1, 2, 3], tg.int32).cumprod(0).dtype == np.int64  # as PyTorch
    assert tg.tensor([True, False]).cumprod(0).dtype == np.int64
    assert tg.tensor([1.0, 2.0]).cumprod(0, dtype=tg.float64).dtype == np.float64
    assert tg.tensor(2.0).cumprod(-1).item() == 2.0
    with pytest.raises(TypeError, match="needs the dimension"):
        tg.tensor(a).cumprod()
    with pytest.raises(IndexError, match="out of range"):
        tg.tensor(a).cumprod(2)
    with pytest.raises(TypeError, match="dim must be an int"):
        tg.tensor(a).cumprod(1.0)


def test_cumprod_gradient_without_and_with_zeros():
    check_grads(lambda x: x.cumprod(1), rand(3, 4))
    check_grads(lambda x: x.cumprod(0), rand(2, 3, 2))
    check_grads(lambda x: x.cumprod(1), WITH_ZEROS)  # first and second order at the zeros
    check_grads(lambda x: x.cumprod(0), WITH_ZEROS.T)
    check_grads(lambda x: x.cumprod(0), np.zeros(4))
    # the exact gradient: dL/dx_i = sum over j >= i of w_j * prod over m <= j, m != i of x_m
    w = rand(*WITH_ZEROS.shape, seed=3)
    x = leaf(WITH_ZEROS)
    (x.cumprod(1) * tg.tensor(w)).sum().backward()
    expected = np.zeros_like(WITH_ZEROS)
    for r, row in enumerate(WITH_ZEROS):
        for i in range(row.size):
            expected[r, i] = sum(w[r, j] * np.prod(np.delete(row[: j + 1], i)) for j in range(i, 6))
    assert np.allclose(x.grad.numpy(), expected)
    fd = finite_differences(lambda v: float((np.cumprod(v[0], axis=1) * w).sum()), [WITH_ZEROS])
    assert np.allclose(x.grad.numpy(), fd[0], atol=1e-6)


def test_cumprod_second_derivative_with_zeros_is_exact():
    # d2/dx_i dx_z of sum(cumprod(x)) for x_z = 0: the NumPy shortcut (0 after the first zero)
    # would give 0 here; create_graph uses the exact form
    x = leaf([2.0, 0.0, 3.0])
    (g,) = tg.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
    assert np.allclose(g.numpy(), [1.0, 2.0 + 6.0, 0.0])
    (h,) = tg.autograd.grad(g[2], x)
    assert np.allclose(h.numpy(), [0.0, 2.0, 0.0])  # d/dx_1 of x_0 * x_1


def test_cumprod_plain_backward_with_zeros_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for a in (WITH_ZEROS, np.zeros((2, 3)), np.array([[0.0, 0.0, 2.0, 0.0, 5.0]])):
        for dim in (0, 1):
            x, y = leaf(a), torch.tensor(a, requires_grad=True)
            w = rand(*a.shape, seed=5)
            (x.cumprod(dim) * tg.tensor(w)).sum().backward()
            (y.cumprod(dim) * torch.tensor(w)).sum().backward()
            assert np.allclose(x.grad.numpy(), y.grad.numpy())


# ---- max / min: (values, indices) with a dim; values with axis=; amax/amin; max(a, b) ------------
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


# ---- softmax, log_softmax and logsumexp over a size-0 axis ---------------------------------------
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


NAN, INF = math.nan, math.inf


# A row whose max is +inf is nan throughout (inf - inf), as PyTorch computes it; -inf entries
# beside finite ones get 0 (log: -inf); a row of -inf is 0/0 = nan. logsumexp keeps inf, and its
# gradient there is exp(x - inf): 0 beside the inf, as PyTorch's.
@program(
    expected={
        "softmax": [[NAN, NAN, NAN, NAN], [NAN, NAN, NAN, NAN], [0.5, 0.0, 0.5, 0.0]],
        "log_softmax": [[NAN] * 4, [NAN] * 4, [-math.log(2), -INF, -math.log(2), -INF]],
        "logsumexp": [INF, INF, math.log(2)],
        "g_lse": [[0.0, NAN, 0.0, 0.0], [NAN, NAN, 0.0, NAN], [0.5, 0.0, 0.5, 0.0]],
    }
)
def softmax_family_with_infinite_entries(torch):
    rows = [[1.0, INF, 2.0, -INF], [INF, INF, -INF, INF], [0.0, -INF, 0.0, -INF]]
    x = torch.tensor(rows, requires_grad=True)
    (g_lse,) = torch.autograd.grad(torch.logsumexp(x, 1).sum(), x)
    return {
        "softmax": torch.softmax(x, 1),
        "log_softmax": torch.log_softmax(x, 1),
        "logsumexp": torch.logsumexp(x, 1),
        "g_lse": g_lse,
    }


def test_logsumexp_over_an_empty_axis_is_minus_inf_without_numpy_warnings():
    """-inf is the answer (log of an empty sum), as PyTorch gives it: no NumPy RuntimeWarning."""
    x = tg.zeros((2, 0), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = tg.logsumexp(x, 1)
    assert out.tolist() == [-math.inf, -math.inf]


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared; SECOND_ORDER_PROGRAMS: second derivatives too.
# (`zeros`: WITH_ZEROS as the input)
TORCH_PROGRAMS = {
    "norm": (lambda m, x: m.norm(x), [(3, 4)]),
    "norm-p3-dim": (lambda m, x: x.norm(p=3, dim=1, keepdim=True), [(3, 4)]),
    "norm-fro-dims": (lambda m, x: x.norm("fro", dim=(0, 1)), [(2, 3, 4)]),
    "norm-inf": (lambda m, x: x.norm(float("inf"), dim=0), [(3, 4)]),
    "norm-1": (lambda m, x: x.norm(1), [(3, 4)]),
    "norm-half": (lambda m, x: x.norm(0.5, dim=-1), [(3, 4)]),
    "cumsum": (lambda m, x: m.cumsum(x, dim=1), [(3, 4)]),
}
SECOND_ORDER_PROGRAMS = {
    "cumprod": (lambda m, x: x.cumprod(1), [(3, 4)], None),
    "cumprod-fn-dim0": (lambda m, x: m.cumprod(x, dim=0), [(3, 4)], None),
    "cumprod-zeros": (lambda m, x: x.cumprod(1), [(2, 6)], "zeros"),
    "cumprod-zeros-dim0": (lambda m, x: m.cumprod(x.t(), 0), [(2, 6)], "zeros"),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", list(SECOND_ORDER_PROGRAMS))
def test_against_pytorch_to_second_order(name):
    fn, shapes, kind = SECOND_ORDER_PROGRAMS[name]
    matches_pytorch(
        fn,
        [WITH_ZEROS.copy()]
        if kind == "zeros"
        else [rand(*s, seed=i) for i, s in enumerate(shapes)],
        second_order=True,
    )


# ---- programs: closed forms on tapegrad, their errors, PyTorch's results when installed ----------
# (no program here raises: a test of the errors would have no case)
test_program_gives_closed_form, _, test_program_matches_pytorch = PROGRAMS.tests()
