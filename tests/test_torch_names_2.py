"""More of PyTorch's names: rsqrt, reciprocal(_), rsqrt_, cumprod (with zeros in the input),
narrow, unbind, mm, bmm; F.softplus, F.elu, F.normalize, nn.Softplus, nn.ELU; SGD/Adam/AdamW's
maximize=, foreach=, amsgrad=.

Always on: values against NumPy and closed forms, gradients by finite differences (float64
gradcheck and gradgradcheck), views, errors. With torch installed: the same programs run on both,
values and gradients (and second derivatives) compared.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from helpers import check_grads, finite_differences, leaf

import tapegrad as tg
from tapegrad import nn
from tapegrad.nn import functional as F


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


WITH_ZEROS = np.array([[1.5, 0.0, -2.0, 0.5, 0.0, 3.0], [0.0, 2.0, 0.7, -1.0, 1.2, 0.9]])


# ---- rsqrt, reciprocal --------------------------------------------------------------------------
def test_rsqrt_and_reciprocal():
    a = np.abs(rand(3, 4)) + 0.5
    assert np.allclose(tg.tensor(a).rsqrt().numpy(), 1 / np.sqrt(a))
    assert np.allclose(tg.rsqrt(tg.tensor(a)).numpy(), 1 / np.sqrt(a))
    assert np.allclose(tg.tensor(a).reciprocal().numpy(), 1 / a)
    assert tg.tensor([4.0]).rsqrt().dtype == np.float32
    check_grads(lambda x: x.rsqrt(), a)
    check_grads(lambda x: x.reciprocal(), a)
    x = leaf(a)
    x.rsqrt().sum().backward()
    assert np.allclose(x.grad.numpy(), -0.5 * a**-1.5)  # closed form
    x = leaf([0.0])
    with np.errstate(divide="ignore"):  # (NumPy's warning on 1/0; PyTorch is silent)
        x.rsqrt().sum().backward()
    assert x.grad.item() == -np.inf  # as PyTorch: -0.5 * 0 ** -1.5


def test_in_place_rsqrt_and_reciprocal():
    x = tg.tensor([4.0, 0.25])
    assert x.rsqrt_() is x and x.tolist() == [0.5, 2.0]
    assert tg.reciprocal_(x) is x and x.tolist() == [2.0, 0.5]
    assert tg.rsqrt_(tg.tensor([4.0])).tolist() == [0.5]
    a = np.abs(rand(3)) + 0.5
    check_grads(lambda x: (x * 1.0).rsqrt_(), a)
    check_grads(lambda x: (x * 1.0).reciprocal_(), a)
    with pytest.raises(RuntimeError, match="cannot hold"):
        tg.tensor([2, 4]).reciprocal_()
    with pytest.raises(RuntimeError, match="leaf tensor"):
        leaf(a).rsqrt_()


# ---- cumprod ------------------------------------------------------------------------------------
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


# ---- narrow, unbind -----------------------------------------------------------------------------
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


# ---- mm, bmm ------------------------------------------------------------------------------------
def test_mm_and_bmm():
    a, b = rand(2, 3), rand(3, 4, seed=1)
    assert np.allclose(tg.tensor(a).mm(tg.tensor(b)).numpy(), a @ b)
    assert np.allclose(tg.mm(tg.tensor(a), b).numpy(), a @ b)
    check_grads(lambda x, y: x.mm(y), a, b)
    p, q = rand(5, 2, 3), rand(5, 3, 4, seed=1)
    assert np.allclose(tg.bmm(tg.tensor(p), tg.tensor(q)).numpy(), p @ q)
    check_grads(lambda x, y: x.bmm(y), p, q)
    with pytest.raises(ValueError, match="mm: self must be a matrix"):
        tg.ones(3).mm(tg.ones(3, 2))
    with pytest.raises(ValueError, match="mm: mat2 must be a matrix"):
        tg.ones(2, 3).mm(tg.ones(2, 3, 2))
    with pytest.raises(ValueError, match=r"cannot be multiplied \(2x3 and 4x5\)"):
        tg.mm(tg.ones(2, 3), tg.ones(4, 5))
    with pytest.raises(ValueError, match="batch1 must be a 3D tensor"):
        tg.bmm(tg.ones(3, 4), tg.ones(2, 4, 5))
    with pytest.raises(ValueError, match="batch2 must be a 3D tensor"):
        tg.bmm(tg.ones(2, 3, 4), tg.ones(4, 5))
    with pytest.raises(ValueError, match=r"to be: \[2, 4\] but got: \[1, 4\]"):  # no broadcasting
        tg.bmm(tg.ones(2, 3, 4), tg.ones(1, 4, 5))
    with pytest.raises(ValueError, match=r"to be: \[2, 4\] but got: \[2, 5\]"):
        tg.bmm(tg.ones(2, 3, 4), tg.ones(2, 5, 5))


# ---- nn.functional ------------------------------------------------------------------------------
def test_softplus():
    a = np.array([-30.0, -2.0, -0.1, 0.0, 0.3, 5.0, 9.99, 10.01, 25.0, 1000.0])
    for beta, threshold in [(1.0, 20.0), (2.0, 20.0), (0.5, 3.0)]:
        out = F.softplus(tg.tensor(a), beta, threshold).numpy()
        expected = np.where(
            a * beta > threshold, a, np.log1p(np.exp(np.minimum(a * beta, 50))) / beta
        )
        assert np.allclose(out, expected)
        x = leaf(a)
        F.softplus(x, beta=beta, threshold=threshold).sum().backward()
        sig = 1 / (1 + np.exp(-np.minimum(a * beta, 50)))
        assert np.allclose(x.grad.numpy(), np.where(a * beta > threshold, 1.0, sig))
        assert np.all(np.isfinite(x.grad.numpy()))  # no 0 * inf from the branch not taken
    check_grads(lambda x: F.softplus(x, 2.0, 1.0), rand(3, 4) * 0.9 + 0.05)
    m = nn.Softplus(beta=2.0, threshold=10.0)
    assert repr(m) == "Softplus(beta=2.0, threshold=10.0)"
    assert np.allclose(m(tg.tensor(a)).numpy(), F.softplus(tg.tensor(a), 2.0, 10.0).numpy())
    with pytest.raises(TypeError, match="tapegrad Tensor"):
        F.softplus(a)


def test_elu():
    a = np.array([-50.0, -1.0, -0.1, 0.0, 0.2, 3.0, 800.0])
    for alpha in (1.0, 0.5):
        out = F.elu(tg.tensor(a), alpha).numpy()
        assert np.allclose(out, np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0))))
        x = leaf(a)
        F.elu(x, alpha=alpha).sum().backward()
        # the derivative at 0 is alpha (PyTorch takes the exp side there)
        assert np.allclose(x.grad.numpy(), np.where(a > 0, 1.0, alpha * np.exp(np.minimum(a, 0))))
    check_grads(lambda x: F.elu(x, 0.7), rand(3, 4) + 0.05)
    y = tg.tensor(a)
    assert F.elu(y, inplace=True) is y and y.numpy()[1] == np.expm1(-1.0)
    check_grads(lambda x: F.elu(x * 1.0, 1.3, inplace=True), rand(4) + 0.05)
    assert (
        repr(nn.ELU()) == "ELU(alpha=1.0)"
        and repr(nn.ELU(0.5, True)) == "ELU(alpha=0.5, inplace=True)"
    )
    z = tg.tensor([-1.0, 1.0])
    assert nn.ELU(inplace=True)(z) is z


def test_normalize():
    a = rand(3, 4)
    out = F.normalize(tg.tensor(a)).numpy()
    assert np.allclose(out, a / np.linalg.norm(a, axis=1, keepdims=True))
    out = F.normalize(tg.tensor(a), p=1.0, dim=0).numpy()
    assert np.allclose(out, a / np.abs(a).sum(axis=0, keepdims=True))
    assert np.array_equal(F.normalize(tg.zeros(2, 3)).numpy(), np.zeros((2, 3)))  # eps: no 0/0
    check_grads(lambda x: F.normalize(x), a)
    check_grads(lambda x: F.normalize(x, p=3.0, dim=-1), a)
    x = leaf(np.zeros((2, 3)))
    F.normalize(x).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.full((2, 3), 1e12))  # 1 / eps, as PyTorch
    with pytest.raises(IndexError, match="out of range"):
        F.normalize(tg.ones(3))  # dim=1 of a vector, as PyTorch


# ---- optimizers ---------------------------------------------------------------------------------
def _one_step(cls, p0, g, **kwargs):
    p = nn.Parameter(tg.tensor(p0.copy()))
    opt = cls([p], **kwargs)
    opt.step([tg.tensor(g)])
    return p.numpy()


def test_sgd_and_adam_maximize_and_foreach():
    p0, g = np.array([0.5, -2.0, 1.0]), np.array([0.3, 0.1, -4.0])
    lr, wd = 0.1, 0.2
    for foreach in (None, False, True):
        out = _one_step(tg.optim.SGD, p0, g, lr=lr, weight_decay=wd, maximize=True, foreach=foreach)
        np.testing.assert_allclose(out, p0 - lr * (-g + wd * p0), rtol=1e-12)
    for cls in (tg.optim.Adam, tg.optim.AdamW):
        out = _one_step(cls, p0, g, lr=lr, maximize=True, weight_decay=0.0)
        np.testing.assert_allclose(out, p0 + lr * g / (np.abs(g) + 1e-8), rtol=1e-9)
    opt = tg.optim.SGD([nn.Parameter(tg.ones(2))], 0.1, 0.9, 0.0)  # API.md's positional order
    assert opt.param_groups[0]["momentum"] == 0.9 and opt.param_groups[0]["maximize"] is False
    with pytest.raises(TypeError):  # keyword-only, as PyTorch's
        tg.optim.SGD([nn.Parameter(tg.ones(2))], 0.1, 0.0, 0.0, False, 0.0, True)
    with pytest.raises(TypeError):
        tg.optim.Adam([nn.Parameter(tg.ones(2))], 0.1, (0.9, 0.99), 1e-8, 0.0, False, None)


def test_amsgrad_uses_the_largest_second_moment():
    # two steps with a big then a small gradient: v2 < v1 / b2-ish, so AMSGrad keeps v_max = v1
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.1
    g1, g2 = np.array([4.0]), np.array([0.1])
    for cls in (tg.optim.Adam, tg.optim.AdamW):
        p = nn.Parameter(tg.tensor([1.0], tg.float64))
        opt = cls([p], lr=lr, betas=(b1, b2), eps=eps, amsgrad=True, weight_decay=0.0)
        opt.step([tg.tensor(g1)])
        opt.step([tg.tensor(g2)])
        m1, v1 = (1 - b1) * g1, (1 - b2) * g1**2
        m2, v2 = b1 * m1 + (1 - b1) * g2, b2 * v1 + (1 - b2) * g2**2
        p1 = 1.0 - lr * (m1 / (1 - b1)) / (np.sqrt(v1) / np.sqrt(1 - b2) + eps)
        vmax = np.maximum(v1, v2)
        p2 = p1 - lr * (m2 / (1 - b1**2)) / (np.sqrt(vmax) / np.sqrt(1 - b2**2) + eps)
        np.testing.assert_allclose(p.numpy(), p2, rtol=1e-12)
        state = opt.state[p]
        assert np.array_equal(state["max_exp_avg_sq"], np.maximum(v1, v2))
        assert opt.param_groups[0]["amsgrad"] is True
    plain = tg.optim.Adam([nn.Parameter(tg.ones(2))])
    plain.step([tg.ones(2)])
    assert "max_exp_avg_sq" not in next(iter(plain.state.values()))  # (PyTorch's layout)


# ---- against PyTorch ----------------------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch: values, gradients and second
# derivatives compared (`pos`: inputs made positive; `zeros`: WITH_ZEROS-like inputs).
TORCH_PROGRAMS = {
    "rsqrt": (lambda m, x: x.rsqrt(), [(3, 4)], "pos"),
    "rsqrt-fn": (lambda m, x: m.rsqrt(x), [(3, 4)], "pos"),
    "reciprocal": (lambda m, x: x.reciprocal(), [(3, 4)], "pos"),
    "rsqrt_": (lambda m, x: (x * 1.0).rsqrt_(), [(3, 4)], "pos"),
    "reciprocal_": (lambda m, x: m.reciprocal_(x * 1.0), [(3, 4)], "pos"),
    "cumprod": (lambda m, x: x.cumprod(1), [(3, 4)], None),
    "cumprod-fn-dim0": (lambda m, x: m.cumprod(x, dim=0), [(3, 4)], None),
    "cumprod-zeros": (lambda m, x: x.cumprod(1), [(2, 6)], "zeros"),
    "cumprod-zeros-dim0": (lambda m, x: m.cumprod(x.t(), 0), [(2, 6)], "zeros"),
    "narrow": (lambda m, x: x.narrow(1, 1, 2), [(3, 4)], None),
    "narrow-neg": (lambda m, x: m.narrow(x, 0, -2, 2), [(3, 4)], None),
    "unbind": (lambda m, x: x.unbind(1)[1] * x.unbind(1)[3], [(3, 4)], None),
    "unbind-fn": (lambda m, x: m.unbind(x)[2], [(3, 4)], None),
    "mm": (lambda m, x, y: x.mm(y), [(3, 4), (4, 2)], None),
    "mm-fn": (lambda m, x, y: m.mm(x, y), [(3, 4), (4, 2)], None),
    "bmm": (lambda m, x, y: m.bmm(x, y), [(2, 3, 4), (2, 4, 2)], None),
    "softplus": (lambda m, x: m.nn.functional.softplus(x * 8.0), [(3, 4)], None),
    "softplus-beta": (
        lambda m, x: m.nn.functional.softplus(x, beta=3.0, threshold=2.0),
        [(3, 4)],
        None,
    ),
    "softplus-module": (lambda m, x: m.nn.Softplus(2.0, 1.0)(x), [(3, 4)], None),
    "elu": (lambda m, x: m.nn.functional.elu(x), [(3, 4)], None),
    "elu-alpha": (lambda m, x: m.nn.functional.elu(x, alpha=0.3), [(3, 4)], None),
    "elu-inplace": (lambda m, x: m.nn.functional.elu(x * 1.0, 2.0, inplace=True), [(3, 4)], None),
    "elu-module": (lambda m, x: m.nn.ELU(0.5)(x), [(3, 4)], None),
    "normalize": (lambda m, x: m.nn.functional.normalize(x), [(3, 4)], None),
    "normalize-p1": (lambda m, x: m.nn.functional.normalize(x, p=1.0, dim=0), [(3, 4)], None),
    "normalize-p3": (lambda m, x: m.nn.functional.normalize(x, 3, -1, 1e-6), [(2, 3, 4)], None),
}


def _inputs(shapes, kind):
    arrays = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    if kind == "pos":
        return [np.abs(a) + 0.3 for a in arrays]
    if kind == "zeros":
        return [WITH_ZEROS.copy()]
    return arrays


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch", reason="compares values and gradients with PyTorch")
    fn, shapes, kind = TORCH_PROGRAMS[name]
    arrays = _inputs(shapes, kind)
    ours = [leaf(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = fn(tg, *ours), fn(torch, *theirs)
    assert out.shape == tuple(ref.shape) and np.allclose(out.numpy(), ref.detach().numpy())
    w = rand(*ref.shape, seed=9)
    gs = tg.autograd.grad((out * tg.tensor(w)).sum(), ours, create_graph=True)
    rs = torch.autograd.grad((ref * torch.tensor(w)).sum(), theirs, create_graph=True)
    for g, r in zip(gs, rs):
        assert np.allclose(g.numpy(), r.detach().numpy()), name
    # second derivatives: the gradient of sum(v * grad) (a Hessian-vector product)
    v = [rand(*a.shape, seed=20 + i) for i, a in enumerate(arrays)]
    hv = sum((g * tg.tensor(u)).sum() for g, u in zip(gs, v))
    # (a linear op's gradient does not depend on its input: then nothing to differentiate)
    hs = tg.autograd.grad(hv, ours, allow_unused=True) if hv.requires_grad else [None] * len(v)
    rv = sum((r * torch.tensor(u)).sum() for r, u in zip(rs, v))
    hr = torch.autograd.grad(rv, theirs, allow_unused=True) if rv.requires_grad else [None] * len(v)
    for h, r in zip(hs, hr):
        if r is None:
            assert h is None or np.allclose(h.numpy(), 0.0), name
        else:
            assert h is not None and np.allclose(h.numpy(), r.numpy()), name


def test_cumprod_plain_backward_with_zeros_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for a in (WITH_ZEROS, np.zeros((2, 3)), np.array([[0.0, 0.0, 2.0, 0.0, 5.0]])):
        for dim in (0, 1):
            x, y = leaf(a), torch.tensor(a, requires_grad=True)
            w = rand(*a.shape, seed=5)
            (x.cumprod(dim) * tg.tensor(w)).sum().backward()
            (y.cumprod(dim) * torch.tensor(w)).sum().backward()
            assert np.allclose(x.grad.numpy(), y.grad.numpy())


# ---- docstrings ---------------------------------------------------------------------------------
def test_docstring_examples_run():
    import importlib

    flags = doctest.NORMALIZE_WHITESPACE
    rooms = ("elementwise", "comparison", "reduction", "shape", "indexing", "linalg", "inplace")
    rooms += ("conversion", "tensor")
    modules = [f"tapegrad.tensor.{room}" for room in rooms] + ["tapegrad.math"]
    for name in modules + ["tapegrad.nn.activation"]:
        module = importlib.import_module(name)  # (tapegrad.tensor is also tg.tensor, a function)
        result = doctest.testmod(module, extraglobs={"tg": tg}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0
    for fn in (F.softplus, F.elu, F.normalize):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner(optionflags=flags)
        for test in finder.find(fn, globs={"tg": tg, "F": F}):
            assert test.examples and runner.run(test).failed == 0


def test_unary_doc_examples_for_the_generated_methods():
    # the docstrings elementwise.py's _unary and inplace.py's _inplace_unary make (printing.py)
    from tapegrad.tensor.printing import unary_doc

    E = tg.primitives.elementwise
    prims = [E.exp, E.log, E.sin, E.cos, E.tan, E.tanh, E.sigmoid, E.relu, E.sqrt, E.abs, E.sign]
    prims += [E.log1p, E.expm1, E.neg, E.erf, E.floor, E.ceil, E.trunc]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for prim in prims:
        for inplace in (False, True):
            doc = unary_doc(prim, inplace)
            assert doc.splitlines()[0].startswith("In place" if inplace else "Elementwise")
            test = parser.get_doctest(doc, {"tg": tg}, prim.name, None, 0)
            assert len(test.examples) == 1 and runner.run(test).failed == 0, doc
    doc = unary_doc(E.log1p)
    assert "tg.autograd.formula('log1p')" in doc and ">>> tg.tensor([-0.5, 2.0]).log1p()" in doc
    assert ">>> tg.tensor([0.5, 2.0]).log()" in unary_doc(E.log)  # inside the domain
