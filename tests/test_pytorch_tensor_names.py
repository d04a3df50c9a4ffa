"""PyTorch's Tensor-side names as programs write them (issues 25 and 26): the methods tapegrad
lacked (nelement, element_size, log10, contiguous, normal_, fill_diagonal_, ...), the method forms
of the operators (add, div, eq, bitwise_and, ...), the reflected and in-place operators (`1 | t`,
`t **= 2`, `t &= m`: in place, on the same tensor), the in-place shape ops (unsqueeze_, t_, ...)
and the function aliases (tg.divide, tg.eq, tg.concat, tg.special.expit, tg.linalg.matmul, ...).

Values and gradients are checked against torch in float64 where it is installed, and against
closed forms otherwise.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def _torch():
    return pytest.importorskip("torch")


def _pair(values, requires_grad=False):
    """The same float64 values as a tapegrad and a torch tensor."""
    torch = _torch()
    a = np.asarray(values, dtype=np.float64)
    return (
        tg.tensor(a, requires_grad=requires_grad),
        torch.tensor(a, requires_grad=requires_grad),
    )


def _same(mine, theirs) -> None:
    theirs = theirs.detach().numpy()
    assert mine.numpy().dtype == theirs.dtype and mine.shape == theirs.shape
    rtol = 1e-13 if theirs.dtype != np.float32 else 1e-6  # (float32: a last bit may differ)
    np.testing.assert_allclose(mine.numpy(), theirs, rtol=rtol, atol=0)


# ---- sizes ---------------------------------------------------------------------------------------
def test_nelement_numel_and_element_size() -> None:
    x = tg.zeros(3, 4)
    assert x.nelement() == x.numel() == 12 and isinstance(x.nelement(), int)
    assert x.element_size() == 4 and x.double().element_size() == 8
    assert tg.zeros(2, dtype=tg.int64).element_size() == 8 and tg.tensor([True]).element_size() == 1
    params = [tg.zeros(27, 10), tg.zeros(30, 200), tg.zeros(200)]  # makemore's parameter count
    assert sum(p.nelement() for p in params) == 270 + 6000 + 200


# ---- logarithms to base 10 and 2 -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["log10", "log2"])
def test_log10_and_log2_values_and_gradients(name: str) -> None:
    x = tg.tensor(RNG.uniform(0.1, 5.0, (3, 4)), requires_grad=True)
    assert gradcheck(getattr(tg, name), (x,)) and gradgradcheck(lambda t: getattr(t, name)(), (x,))
    exact = tg.tensor([1000.0, 0.01, 1.0]).log10().tolist() == [3.0, -2.0, 0.0]
    assert exact and tg.tensor([8.0, 0.5]).log2().tolist() == [3.0, -1.0]
    torch = _torch()
    mine, theirs = _pair(RNG.uniform(0.1, 5.0, 6), requires_grad=True)
    a, b = getattr(mine, name)(), getattr(torch, name)(theirs)
    _same(a, b)
    a.sum().backward(), b.sum().backward()
    _same(mine.grad, theirs.grad)
    ints = tg.tensor([1, 100]).log10()  # (integers: the default float dtype, as PyTorch)
    assert ints.dtype == np.float32 and ints.tolist() == [0.0, 2.0]
    y = tg.tensor([100.0, 8.0])
    assert y.log10_() is y and y.tolist() == [2.0, np.log10(8.0).astype(np.float32)]


# ---- memory layout -------------------------------------------------------------------------------
def test_contiguous_returns_self_or_a_copy_on_the_tape_so_view_can_follow() -> None:
    x = tg.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    assert x.is_contiguous() and x.contiguous() is x
    y = x.transpose(1, 2)
    assert not y.is_contiguous()
    with pytest.raises(RuntimeError, match=r"contiguous\(\)"):  # (the clear error stays)
        y.view(2, 12)
    z = y.contiguous()
    assert z is not y and z.is_contiguous() and z.grad_fn is not None
    assert not np.may_share_memory(z.numpy(), x.numpy())
    flat = z.view(2, 12)  # the attention block's `y.transpose(1, 2).contiguous().view(B, T, C)`
    np.testing.assert_array_equal(flat.numpy(), np.swapaxes(x.numpy(), 1, 2).reshape(2, 12))
    assert gradcheck(lambda t: t.transpose(1, 2).contiguous().view(2, 12) ** 2, (x,))
    assert gradgradcheck(lambda t: t.transpose(1, 2).contiguous().view(2, 12) ** 2, (x,))
    assert tg.zeros(4)[::2].is_contiguous() is False


# ---- random fills --------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["normal_", "uniform_"])
def test_random_fills_are_in_place_with_their_statistics(method: str) -> None:
    x = tg.zeros(20000, dtype=tg.float64)
    args = (1.0, 2.0)
    assert getattr(x, method)(*args) is x and x.dtype == np.float64
    v = x.numpy()
    if method == "normal_":
        assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 2.0) < 0.05
    else:
        assert v.min() >= 1.0 and v.max() < 2.0 and abs(v.mean() - 1.5) < 0.02
    tg.manual_seed(3)
    a = getattr(tg.zeros(5), method)().tolist()
    tg.manual_seed(3)
    assert getattr(tg.zeros(5), method)().tolist() == a  # (the default stream, seeded)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        getattr(tg.zeros(2, requires_grad=True), method)()
    with pytest.raises(TypeError, match="floating-point"):
        getattr(tg.zeros(2, dtype=tg.int64), method)()
    with pytest.raises(ValueError):
        tg.zeros(2).normal_(0.0, -1.0) if method == "normal_" else tg.zeros(2).uniform_(1.0, 0.0)


def test_sampler_and_histogram_methods_are_the_functions() -> None:
    probs = tg.tensor([[0.1, 0.0, 0.9], [0.5, 0.5, 0.0]])
    g = tg.Generator().manual_seed(1)
    a = probs.multinomial(4, replacement=True, generator=g)
    g.manual_seed(1)
    b = tg.multinomial(probs, 4, replacement=True, generator=g)
    assert a.tolist() == b.tolist() and a.dtype == np.int64 and a.shape == (2, 4)
    g.manual_seed(2)
    c = tg.full((3,), 0.5).bernoulli(generator=g)
    g.manual_seed(2)
    assert c.tolist() == tg.bernoulli(tg.full((3,), 0.5), generator=g).tolist()
    assert tg.zeros(4).bernoulli(1.0).tolist() == [1.0] * 4
    values = tg.tensor([1.0, 2.0, 1.0, 5.0])
    hist, edges = values.histogram(4, range=(0.0, 8.0))
    expected = tg.histogram(values, 4, range=(0.0, 8.0))
    assert hist.tolist() == expected.hist.tolist() == [2.0, 1.0, 1.0, 0.0]
    assert edges.tolist() == expected.bin_edges.tolist()


@pytest.mark.parametrize("shape, wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False)])
def test_fill_diagonal_matches_pytorch(shape, wrap) -> None:
    torch = _torch()
    mine, theirs = tg.zeros(*shape), torch.zeros(*shape)
    assert mine.fill_diagonal_(5.0, wrap=wrap) is mine
    theirs.fill_diagonal_(5.0, wrap=wrap)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    cube, tcube = tg.zeros(2, 2, 2), torch.zeros(2, 2, 2)
    np.testing.assert_array_equal(cube.fill_diagonal_(1).numpy(), tcube.fill_diagonal_(1).numpy())
    with pytest.raises(ValueError, match="equal length"):
        tg.zeros(2, 3, 4).fill_diagonal_(1.0)


# ---- the operators' method names and the function aliases --------------------------------------
METHODS = [
    ("add", (), {}),
    ("sub", (), {}),
    ("subtract", (), {}),
    ("mul", (), {}),
    ("multiply", (), {}),
    ("div", (), {}),
    ("divide", (), {}),
    ("true_divide", (), {}),
    ("remainder", (), {}),
    ("add", (), {"alpha": 2.5}),
    ("sub", (), {"alpha": -0.5}),
]


@pytest.mark.parametrize("name, args, kwargs", METHODS)
def test_operator_method_names_equal_pytorch(name, args, kwargs) -> None:
    torch = _torch()
    a, ta = _pair(RNG.uniform(0.5, 2.0, (3, 4)), requires_grad=True)
    b, tb = _pair(RNG.uniform(0.5, 2.0, 4), requires_grad=True)
    mine, theirs = getattr(a, name)(b, *args, **kwargs), getattr(ta, name)(tb, *args, **kwargs)
    _same(mine, theirs)
    _same(getattr(tg, name)(a, b, **kwargs), getattr(torch, name)(ta, tb, **kwargs))
    mine.sum().backward(), theirs.sum().backward()
    _same(a.grad, ta.grad), _same(b.grad, tb.grad)
    c, tc = a.detach().clone(), ta.detach().clone()
    in_place = getattr(c, name + "_")(b.detach(), **kwargs)
    getattr(tc, name + "_")(tb.detach(), **kwargs)
    assert in_place is c
    _same(c, tc)


COMPARISONS = "eq ne lt le gt ge not_equal less less_equal greater greater_equal".split()


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_names_function_method_and_in_place(name: str) -> None:
    torch = _torch()
    values = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    a, ta = _pair(values)
    b, tb = _pair([2.0, 2.0, 2.0])
    _same(getattr(a, name)(b), getattr(ta, name)(tb))
    _same(getattr(tg, name)(a, 2.0), getattr(torch, name)(ta, 2.0))
    assert getattr(a, name)(b).dtype == np.bool_
    c, tc = a.clone(), ta.clone()
    assert getattr(c, name + "_")(b) is c  # (1 or 0, in the tensor's own dtype)
    getattr(tc, name + "_")(tb)
    _same(c, tc)
    x = tg.tensor(values, requires_grad=True) * 1  # on the tape: the old values get no gradient
    getattr(x, name + "_")(2.0)
    x.sum().backward()


def test_aliases_are_the_same_functions() -> None:
    x = tg.tensor([[-1.5, 2.5], [0.5, -3.0]], requires_grad=True)
    pairs = [
        (tg.absolute(x), x.abs()),
        (tg.negative(x), -x),
        (x.fix(), x.trunc()),
        (tg.fix(x), tg.trunc(x)),
        (tg.concat([x, x]), tg.cat([x, x])),
        (tg.swapdims(x, 0, 1), x.t()),
        (x.swapdims(0, 1), x.transpose(0, 1)),
        (tg.special.expit(x), x.sigmoid()),
        (tg.special.logsumexp(x, 1), x.logsumexp(1)),
        (tg.special.softmax(x, 0), x.softmax(0)),
        (tg.linalg.matmul(x, x), x @ x),
        (tg.ger(x[0], x[1]), tg.outer(x[0], x[1])),
        (tg.clone(x), x.clone()),
        (tg.chunk(x, 2)[1], x.chunk(2)[1]),
    ]
    for mine, expected in pairs:
        np.testing.assert_array_equal(mine.numpy(), expected.numpy())
        assert mine.requires_grad
    assert tg.fill(x, 2.0).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    y = x.detach().clone()
    assert tg.zero_(y) is y and y.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(TypeError, match="floating-point"):
        tg.special.round(tg.tensor([1, 2]))  # (as torch.special.round; tg.round takes them)
    assert tg.round(tg.tensor([1, 2])).tolist() == [1, 2]


def test_dot_and_allclose_as_methods() -> None:
    a, b = tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0])
    assert a.dot(b).item() == 11.0 and tg.dot(a, b).item() == 11.0
    with pytest.raises(ValueError, match="1D tensors expected"):
        tg.ones(2, 2).dot(tg.ones(2, 2))
    assert a.allclose(a + 1e-7) and not a.allclose(b)
    nan = tg.tensor([1.0, float("nan")])
    assert not nan.allclose(nan) and nan.allclose(nan, equal_nan=True)
    assert tg.allclose(nan, nan, equal_nan=True)


def test_roll_as_pytorch() -> None:
    torch = _torch()
    values = RNG.standard_normal((3, 4))
    for args in [(1,), (-2,), (1, 0), ((1, -1), (0, 1)), (5, 1), (0, 0)]:
        mine, theirs = _pair(values, requires_grad=True)
        a, b = tg.roll(mine, *args), torch.roll(theirs, *args)
        _same(a, b)
        _same(mine.roll(*args), b)
        weights = RNG.standard_normal((3, 4))
        (a * tg.tensor(weights)).sum().backward()
        (b * torch.tensor(weights)).sum().backward()
        _same(mine.grad, theirs.grad)
        assert a is not mine
    with pytest.raises(ValueError, match="same length"):
        tg.roll(tg.zeros(3), (1, 2), 0)


def test_var_mean_and_std_mean() -> None:
    torch = _torch()
    values = RNG.standard_normal((3, 5))
    mine, theirs = _pair(values)
    for kwargs in [{}, {"dim": 1}, {"dim": 0, "keepdim": True, "correction": 0}]:
        for name in ("var_mean", "std_mean"):
            got, expected = (
                getattr(tg, name)(mine, **kwargs),
                getattr(torch, name)(theirs, **kwargs),
            )
            assert type(got) is tuple and len(got) == 2
            _same(got[0], expected[0]), _same(got[1], expected[1])


# ---- bitwise on integers, logical on bools, as PyTorch; floats refused -----------------------
BITWISE = [
    (operator.and_, "bitwise_and"),
    (operator.or_, "bitwise_or"),
    (operator.xor, "bitwise_xor"),
    (operator.lshift, "bitwise_left_shift"),
    (operator.rshift, "bitwise_right_shift"),
]


@pytest.mark.parametrize("op, name", BITWISE)
def test_bitwise_operators_on_integers_are_bitwise(op, name) -> None:
    torch = _torch()
    a, b = np.array([6, 5, -8, 0, 1, -1]), np.array([3, 1, 6, 7, 64, 70])
    pairs = [(a, b), (a.astype(np.int32), b.astype(np.int32)), (a > 0, b > 2), (a > 0, b)]
    for x, y in pairs:
        if "shift" in name and x.dtype == y.dtype == bool:
            with pytest.raises(TypeError, match="bools"):  # (as PyTorch)
                op(tg.tensor(x), tg.tensor(y))
            continue
        got, expected = op(tg.tensor(x), tg.tensor(y)), op(torch.tensor(x), torch.tensor(y))
        assert got.numpy().dtype == expected.numpy().dtype
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
        np.testing.assert_array_equal(getattr(tg, name)(tg.tensor(x), tg.tensor(y)).numpy(), got)
        np.testing.assert_array_equal(op(3, tg.tensor(x)).numpy(), op(3, torch.tensor(x)).numpy())
    with pytest.raises(TypeError, match="integer and bool tensors only"):
        op(tg.ones(2), tg.ones(2))
    with pytest.raises(TypeError, match="integer and bool tensors only"):
        op(tg.tensor([1, 2]), 1.5)


@pytest.mark.parametrize(
    "op", [operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift]
)
def test_in_place_bitwise_operators_change_the_tensor_itself(op) -> None:
    torch = _torch()
    x, tx = tg.tensor([6, 5, 12]), torch.tensor([6, 5, 12])
    same = x
    x = op(x, tg.tensor([3, 3, 3]))
    op(tx, torch.tensor([3, 3, 3]))
    assert x is same and x.tolist() == tx.tolist()
    with pytest.raises(RuntimeError, match="does not match the tensor's shape"):
        op(tg.tensor([[1], [2]]), tg.tensor([1, 2, 3]))  # (the left side never grows)
    with pytest.raises(RuntimeError, match="cannot hold"):
        op(tg.tensor([True, False]), tg.tensor([3, 3]))


def test_invert_and_bitwise_not() -> None:
    assert (~tg.tensor([0, 5])).tolist() == [-1, -6] and (~tg.tensor([True])).tolist() == [False]
    assert tg.bitwise_not(tg.tensor([0, 5])).tolist() == [-1, -6]
    with pytest.raises(TypeError, match="integer and bool"):
        ~tg.tensor([1.0])
    x = tg.tensor([0, 5])
    assert x.bitwise_not_() is x and x.tolist() == [-1, -6]


def test_logical_ops_take_any_dtype() -> None:
    torch = _torch()
    a, b = np.array([0.0, 2.0, -1.0, 0.0]), np.array([1, 0, 3, 0])
    for name in ("logical_and", "logical_or", "logical_xor"):
        got = getattr(tg, name)(tg.tensor(a), tg.tensor(b))
        np.testing.assert_array_equal(
            got.numpy(), getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
        )
        c, tc = tg.tensor(a), torch.tensor(a)
        assert getattr(c, name + "_")(tg.tensor(b)) is c
        getattr(tc, name + "_")(torch.tensor(b))
        np.testing.assert_array_equal(c.numpy(), tc.numpy())
    assert tg.logical_not(tg.tensor(a)).tolist() == torch.logical_not(torch.tensor(a)).tolist()


# ---- the other reflected and in-place operators ------------------------------------------------
def test_ipow_is_in_place_and_refuses_to_grow() -> None:
    x = tg.tensor([2.0, 3.0])
    same = x
    x **= 2
    assert x is same and x.tolist() == [4.0, 9.0]
    with pytest.raises(RuntimeError, match="does not match the tensor's shape"):
        y = tg.ones(2, 1)
        y **= tg.ones(3)
    z = tg.tensor([1.0, 2.0], requires_grad=True) * 1
    z **= 3
    z.sum().backward()


def test_floor_division_and_remainder_as_python_and_pytorch() -> None:
    torch = _torch()
    a, b = np.array([7.0, -7.0, 5.0, -5.0, 0.5]), np.array([2.0, 2.0, -3.0, 0.1, 0.1])
    for x, y in [(a, b), (a.astype(np.int64), np.array([2, 2, -3, 4, 1]))]:
        for op in (operator.floordiv, operator.mod):
            got, expected = op(tg.tensor(x), tg.tensor(y)), op(torch.tensor(x), torch.tensor(y))
            assert got.numpy().dtype == expected.numpy().dtype
            np.testing.assert_array_equal(got.numpy(), expected.numpy())
            np.testing.assert_array_equal(op(7, tg.tensor(y)).numpy(), op(7, torch.tensor(y)))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tg.tensor([1, 2]) // tg.tensor([1, 0])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tg.tensor([1, 2]) % 0
    x, y = _pair(RNG.uniform(-3, 3, 6), requires_grad=True)
    d, td = _pair(RNG.uniform(0.5, 2, 6), requires_grad=True)
    (x % d * 1.5).sum().backward(), (torch.remainder(y, td) * 1.5).sum().backward()
    _same(x.grad, y.grad), _same(d.grad, td.grad)
    z = tg.tensor([7.0, -7.0])
    same = z
    z //= 2
    z %= 3
    assert z is same and z.tolist() == [0.0, 2.0]


# ---- shape, in place -----------------------------------------------------------------------------
def test_in_place_shape_ops_change_the_tensor_and_stay_on_the_tape() -> None:
    x = tg.zeros(1, 3)
    assert x.squeeze_() is x and x.shape == (3,)
    assert x.unsqueeze_(1) is x and x.shape == (3, 1)
    assert x.t_() is x and x.shape == (1, 3)
    assert x.transpose_(0, 1) is x and x.shape == (3, 1)
    assert x.swapdims_(0, 1).shape == (1, 3) and x.swapaxes_(0, 1).shape == (3, 1)
    w = tg.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    y = w * 2
    y.t_()
    assert y.shape == (3, 2)
    (y * tg.tensor(np.arange(6.0).reshape(3, 2))).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), 2 * np.arange(6.0).reshape(3, 2).T)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        w.unsqueeze_(0)
    v = tg.ones(3)
    saved = tg.ones(3, requires_grad=True) * v  # (v is saved: its new shape makes it stale)
    v.unsqueeze_(0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        saved.sum().backward()


def test_tril_triu_cumsum_cumprod_in_place() -> None:
    values = RNG.standard_normal((3, 3))
    for name, args in [("tril_", ()), ("triu_", (1,)), ("cumsum_", (0,)), ("cumprod_", (1,))]:
        x, tx = _pair(values)
        assert getattr(x, name)(*args) is x
        getattr(tx, name)(*args)
        _same(x, tx)


@pytest.mark.parametrize(
    "values, dim",
    [([2, 0, 2, 1, 0, 0], None), ([[1, 2], [1, 2], [0, 5]], 0), ([[1, 2], [1, 2], [0, 5]], None)]
    + [([[3, 1, 3], [0, 1, 0]], 1), ([True, False, True], None), (4.0, None)],
)
def test_unique_with_inverse_and_counts_as_pytorch(values, dim) -> None:
    torch = _torch()
    ours = tg.tensor(values).unique(return_inverse=True, return_counts=True, dim=dim)
    theirs = torch.tensor(values).unique(return_inverse=True, return_counts=True, dim=dim)
    assert isinstance(ours, tuple) and len(ours) == 3
    for a, b in zip(ours, theirs):
        assert a.dtype == np.dtype(str(b.dtype).replace("torch.", ""))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    plain = tg.unique(tg.tensor(values), dim=dim)  # (no extras asked: a tensor, not a tuple)
    np.testing.assert_array_equal(plain.numpy(), torch.unique(torch.tensor(values), dim=dim))


def test_unique_counts_distinct_nans_and_refuses_a_gradient() -> None:
    values, counts = tg.tensor([np.nan, 1.0, np.nan]).unique(return_counts=True)
    assert values.shape == (3,) and counts.tolist() == [1, 1, 1]  # (NaN != NaN, as PyTorch)
    inp = tg.tensor([0, 2, 1, 0])
    assert inp.unique().nelement() == 3  # (minGPT's sort demo asks this of each sample)
    x = tg.tensor([1.0, 1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="unique has no derivative.*x.detach"):
        x.unique()
    assert x.detach().unique().tolist() == [1.0]
    with tg.no_grad():
        assert x.unique().tolist() == [1.0]


def test_np_unique_keeps_numpys_meaning_on_a_tensor() -> None:
    values, first = np.unique(tg.tensor([3, 1, 3]), True)  # (NumPy's 2nd argument: return_index)
    assert values.tolist() == [1, 3] and first.tolist() == [1, 0]


def test_like_another_tensor_methods_take_its_shape_or_dtype_and_keep_the_gradient() -> None:
    x = tg.tensor(np.arange(6.0), requires_grad=True)
    for method, other, shape in (
        ("view_as", tg.zeros(2, 3), (2, 3)),
        ("reshape_as", tg.zeros(3, 2), (3, 2)),
    ):
        y = getattr(x * 2.0, method)(other)
        assert y.shape == shape
        (g,) = tg.autograd.grad((y * y).sum(), x)
        np.testing.assert_allclose(g.numpy(), 8.0 * np.arange(6.0))  # d/dx (2x)^2 = 8x
    row = tg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    wide = row.expand_as(tg.zeros(4, 3))
    assert wide.shape == (4, 3)
    (g,) = tg.autograd.grad(wide.sum(), row)
    np.testing.assert_array_equal(g.numpy(), [[4.0, 4.0, 4.0]])  # summed over the 4 copies
    ints = tg.tensor([1, 2])
    as_float = ints.type_as(x)
    assert as_float.dtype == x.dtype and as_float.tolist() == [1.0, 2.0]
    assert x.type_as(x) is x  # nothing to change: the tensor itself, as PyTorch
    with pytest.raises((RuntimeError, ValueError)):
        x.view_as(tg.zeros(4))  # 6 elements do not fit (4,)


def test_integer_and_bool_casts_and_dtype_predicates() -> None:
    x = tg.tensor([1.5, -2.0, 0.0], requires_grad=True)
    expected = {"bool": np.bool_, "byte": np.uint8, "short": np.int16, "char": np.int8}
    for method, dtype in expected.items():
        y = getattr(x, method)()
        assert y.dtype == np.dtype(dtype) and not y.requires_grad
    assert x.bool().tolist() == [True, True, False]
    assert x.short().tolist() == [1, -2, 0]  # toward zero, as a C cast
    assert x.is_floating_point() and not tg.tensor([1]).is_floating_point()
    assert not x.is_complex()


def test_like_methods_and_casts_equal_pytorch() -> None:
    torch = _torch()
    mine, theirs = _pair([[1.5, -2.0, 0.25]], requires_grad=True)
    for method in ("bool", "byte", "short", "char", "long", "int"):
        a, b = getattr(mine, method)(), getattr(theirs, method)()
        assert a.tolist() == b.tolist() and str(b.dtype) == f"torch.{a.dtype}"
    assert mine.is_floating_point() == theirs.is_floating_point()
    assert mine.is_complex() == theirs.is_complex()
    _same(mine.expand_as(tg.zeros(2, 3)), theirs.expand_as(torch.zeros(2, 3)))
    _same(mine.view_as(tg.zeros(3, 1)), theirs.view_as(torch.zeros(3, 1)))
    _same(mine.reshape_as(tg.zeros(3)), theirs.reshape_as(torch.zeros(3)))
    _same(tg.tensor([1, 2]).type_as(mine), torch.tensor([1, 2]).type_as(theirs))


def test_new_factories_take_this_tensors_dtype_unless_told() -> None:
    x = tg.tensor([1.5], dtype=tg.float64)
    for made, shape in (
        (x.new_zeros(2, 3), (2, 3)),
        (x.new_zeros((2,)), (2,)),
        (x.new_ones(2), (2,)),
        (x.new_empty((1, 2)), (1, 2)),
        (x.new_full((2, 1), 7), (2, 1)),
    ):
        assert made.shape == shape and made.dtype == tg.float64 and not made.requires_grad
    assert x.new_zeros(2).tolist() == [0.0, 0.0] and x.new_ones(1).tolist() == [1.0]
    assert x.new_full((2,), 7).tolist() == [7.0, 7.0]
    copied = x.new_tensor([1, 2])
    assert copied.dtype == tg.float64 and copied.tolist() == [1.0, 2.0]
    source = np.array([3.0])
    from_array = x.new_tensor(source)
    source[0] = 9.0  # a copy: the source's later changes do not show
    assert from_array.tolist() == [3.0]
    assert x.new_zeros(2, dtype=tg.float32).dtype == tg.float32
    assert tg.tensor([1, 2]).new_ones(2).dtype == tg.int64
    leaf = x.new_zeros(2, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf
    with pytest.raises(TypeError, match="floating"):
        tg.tensor([1, 2]).new_zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cuda"):
        x.new_ones(2, device="cuda")


def test_new_factories_equal_pytorch() -> None:
    torch = _torch()
    for values in ([1.5, 2.0], [1, 2]):
        mine, theirs = tg.tensor(values), torch.tensor(values)
        pairs = (
            (mine.new_zeros(2, 3), theirs.new_zeros(2, 3)),
            (mine.new_ones((2,)), theirs.new_ones((2,))),
            (mine.new_full((2,), 2.5), theirs.new_full((2,), 2.5)),
            (mine.new_tensor([3, 4]), theirs.new_tensor([3, 4])),
            (mine.new_zeros(1, dtype=tg.float64), theirs.new_zeros(1, dtype=torch.float64)),
        )
        for a, b in pairs:
            assert a.tolist() == b.tolist() and str(b.dtype) == f"torch.{a.dtype}"


def test_movedim_unflatten_ravel_and_flips_move_values_and_gradients() -> None:
    values = np.arange(24.0).reshape(2, 3, 4)
    x = tg.tensor(values)
    np.testing.assert_array_equal(x.movedim(0, -1).numpy(), np.moveaxis(values, 0, -1))
    np.testing.assert_array_equal(
        x.moveaxis((0, 1), (2, 0)).numpy(), np.moveaxis(values, (0, 1), (2, 0))
    )
    assert x.unflatten(2, (2, -1)).shape == (2, 3, 2, 2)
    np.testing.assert_array_equal(x.ravel().numpy(), values.ravel())
    np.testing.assert_array_equal(x[0].fliplr().numpy(), values[0][:, ::-1])
    np.testing.assert_array_equal(x.flipud().numpy(), values[::-1])
    w = tg.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    for make in (
        lambda t: t.movedim(1, 0),
        lambda t: t.moveaxis((0, 2), (1, 0)),
        lambda t: t.unflatten(-1, (2, 2)),
        lambda t: t.ravel(),
        lambda t: t.fliplr(),
        lambda t: t.flipud(),
    ):
        assert gradcheck(lambda t, make=make: make(t) * make(t), (w,))
    with pytest.raises(ValueError, match="distinct"):
        x.movedim((0, 0), (1, 2))
    with pytest.raises(ValueError, match="at least 2 axes"):
        tg.zeros(3).fliplr()


def test_clamp_min_max_and_device_predicates() -> None:
    x = tg.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    assert x.clamp_min(0.0).tolist() == [0.0, 0.5, 2.0]
    assert x.clamp_max(1.0).tolist() == [-1.0, 0.5, 1.0]
    (g,) = tg.autograd.grad(x.clamp_min(0.0).sum(), x)
    assert g.tolist() == [0.0, 1.0, 1.0]  # the clamped element gets none
    lower = tg.tensor([0.0, 1.0, 0.0], requires_grad=True)
    (gl,) = tg.autograd.grad(x.clamp_min(lower).sum(), lower)
    assert gl.tolist() == [1.0, 1.0, 0.0]  # a bound on the tape gets it where it wins
    y = tg.zeros(2, 3, dtype=tg.float64)
    assert y.ndimension() == 2 and y.nbytes == 48 and y.itemsize == 8
    assert y.is_cpu and not y.is_cuda and y.get_device() == -1


def test_movedim_unflatten_clamp_min_and_predicates_equal_pytorch() -> None:
    torch = _torch()
    mine, theirs = _pair(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    for call in (
        lambda t: t.movedim(0, -1),
        lambda t: t.movedim([0, 2], [1, 0]),
        lambda t: t.moveaxis(1, 0),
        lambda t: t.unflatten(2, (2, -1)),
        lambda t: t.ravel(),
        lambda t: t.fliplr(),
        lambda t: t.flipud(),
        lambda t: t.clamp_min(0.1),
        lambda t: t.clamp_max(-0.1),
    ):
        _same(call(mine), call(theirs))
        (g_mine,) = tg.autograd.grad((call(mine) ** 2).sum(), mine)
        (g_theirs,) = torch.autograd.grad((call(theirs) ** 2).sum(), theirs)
        _same(g_mine, g_theirs)
    for name in ("nbytes", "itemsize", "is_cuda", "is_cpu"):
        assert getattr(mine, name) == getattr(theirs, name)
    assert mine.ndimension() == theirs.ndimension() and mine.get_device() == theirs.get_device()


# ---- memory layout questions and more predicates -------------------------------------------------
def test_stride_storage_offset_and_data_ptr_as_torch() -> None:
    torch = _torch()
    makers = [
        lambda lib: lib.zeros(2, 3),
        lambda lib: lib.zeros(2, 3).t(),
        lambda lib: lib.arange(12.0).reshape(3, 4)[1:, ::2],
        lambda lib: lib.zeros(4)[2:],
        lambda lib: lib.zeros(3, 1).expand(3, 4),
        lambda lib: lib.zeros(2, 3, 4).permute(2, 0, 1),
        lambda lib: lib.tensor(5.0),
    ]
    for make in makers:
        mine, theirs = make(tg), make(torch)
        assert mine.stride() == theirs.stride() and mine.storage_offset() == theirs.storage_offset()
        for d in range(mine.ndim):
            assert mine.stride(d) == theirs.stride(d) and mine.stride(-1) == theirs.stride(-1)
    x = tg.zeros(4)
    assert x.data_ptr() == x.view(2, 2).data_ptr() != x[1:].data_ptr()
    assert tg.zeros(2, 3).is_same_size(tg.ones(2, 3)) and not tg.zeros(2).is_same_size(tg.ones(3))


def test_is_signed_is_nonzero_and_the_bits_tapegrad_never_sets() -> None:
    torch = _torch()
    for dtype in ("float32", "int64", "uint8", "bool", "int8"):
        mine = tg.zeros(1, dtype=getattr(tg, dtype if dtype != "bool" else "bool_"))
        assert mine.is_signed() == torch.zeros(1, dtype=getattr(torch, dtype)).is_signed(), dtype
    assert tg.tensor([2.0]).is_nonzero() and not tg.tensor(0).is_nonzero()
    for bad in (tg.zeros(2), tg.zeros(0)):
        with pytest.raises(RuntimeError, match="ambiguous"):
            bad.is_nonzero()
    x = tg.ones(2, 3)
    assert not x.is_inference() and not x.is_neg() and not x.is_conj()
    assert x.mH.shape == (3, 2) and x.adjoint().shape == (3, 2)
