"""PyTorch's conventions on the Tensor side (issues 25 and 26): type promotion (bool and integer
inputs to floating ops give the default float dtype, computed in it; tg.set_default_dtype), and
the silent wrong answers the conformance run found: clamp_/clip_ with bounds on the tape, clamp
with a NaN bound, the sign of -0.0 through clone and in-place ops, transpose and gather of 0-d
tensors, cat with an empty 1-D tensor, and cross_entropy's class weights; subtraction and
negation of bools refused as there.

Checked against torch in float64 where it is installed, and against closed forms otherwise.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(5)


def _torch():
    return pytest.importorskip("torch")


@pytest.fixture
def default_dtype():
    """Restore the default float dtype after a test that changes it."""
    before = tg.get_default_dtype()
    yield
    tg.set_default_dtype(before)


# ---- promotion -----------------------------------------------------------------------------------
UNARY = ["sin", "cos", "exp", "log1p", "sqrt", "tanh", "sigmoid", "rsqrt", "log10", "reciprocal"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64"])
def test_floating_ops_on_bools_and_integers_give_the_default_float_dtype(name, dtype) -> None:
    torch = _torch()
    values = np.array([1, 0, 1, 1]) if dtype == "bool" else np.array([1, 2, 3, 100])
    mine = getattr(tg.tensor(values.astype(dtype)), name)()
    theirs = getattr(torch.tensor(values.astype(dtype)), name)()
    assert mine.dtype == np.float32 and theirs.dtype == torch.float32
    # computed in float32 (not float16 and then widened): equal to PyTorch's to a float32 ulp
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=2e-7, atol=0)


def test_binary_promotion_follows_the_floating_operand() -> None:
    torch = _torch()
    cases = [
        (np.array([1.5], np.float16), np.array([2], np.int64)),
        (np.array([1.5], np.float32), np.array([True])),
        (np.array([3], np.int64), np.array([2], np.int32)),
        (np.array([1.5], np.float64), np.array([2], np.int8)),
    ]
    for a, b in cases:
        for op in (operator.add, operator.mul, operator.truediv):
            mine = op(tg.tensor(a), tg.tensor(b))
            theirs = op(torch.tensor(a), torch.tensor(b))
            assert mine.numpy().dtype == theirs.numpy().dtype, (a.dtype, b.dtype, op)
    assert (tg.tensor([1, 2]) * 2.5).dtype == np.float32
    assert (tg.tensor([True]) + 1.5).dtype == np.float32


# Mixed dtypes in a binary op: PyTorch computes in tg.result_type's dtype (a tensor with dimensions
# decides over a 0-d one unless the 0-d one is of a higher category; float16 stays float16 beside
# integers), the inputs cast to it first. NumPy decides otherwise in all of these.
MIXED = [
    # (a dtype, a 0-d?, b dtype, b 0-d?, the dtype PyTorch gives)
    ("float32", False, "float64", True, "float32"),
    ("float16", False, "float32", True, "float16"),
    ("float16", False, "int16", False, "float16"),
    ("int16", True, "float16", False, "float16"),
    ("int8", False, "int64", True, "int8"),
    ("uint8", False, "int8", True, "uint8"),
    ("int32", True, "float64", True, "float64"),
]
BINARY = ["add", "sub", "mul", "maximum", "minimum", "fmod", "remainder", "atan2", "xlogy", "pow"]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
# every pair of dtypes, each side a vector or 0-d: (a, b, a 0-d?, b 0-d?)
MIXED_CASES = list(itertools.product(DTYPES, DTYPES, (False, True), (False, True)))


def _arrays(values: tuple, a: str, a0: bool, b: str, b0: bool) -> list:
    """The two operands as NumPy arrays (a value out of a dtype's range wraps, as torch's)."""
    return [
        np.full(() if zero_d else (2,), v).astype(d)
        for v, d, zero_d in ((values[0], a, a0), (values[1], b, b0))
    ]


def _operand(lib, dtype: str, zero_d: bool, value: float = 3.0):
    return lib.full(() if zero_d else (2,), value, dtype=getattr(lib, dtype))


@pytest.mark.parametrize("a, a0, b, b0, want", MIXED)
def test_mixed_dtypes_compute_in_pytorchs_dtype(a, a0, b, b0, want) -> None:
    x, y = _operand(tg, a, a0, 3.0), _operand(tg, b, b0, 2.0)
    assert str(tg.result_type(x, y)) == want
    for op in (tg.add, tg.mul, tg.sub, tg.maximum):
        assert str(op(x, y).dtype) == want, op
        assert str(op(y, x).dtype) == want, op
    # the inputs are cast first: 0.1 (float64, 0-d) times a float32 vector is float32(0.1) * x
    v = tg.tensor([3.0, 7.0]) * tg.tensor(0.1, dtype=tg.float64)
    np.testing.assert_array_equal(v.numpy(), np.float32(0.1) * np.array([3.0, 7.0], np.float32))


def test_an_op_of_mixed_integers_with_a_floating_result_is_computed_in_float32() -> None:
    # xlogy of int16 and int8: NumPy takes the log of the int8 in float16 (3.2959 -> 3.2958984)
    got = tg.xlogy(tg.tensor([3], dtype=tg.int16), tg.tensor([3], dtype=tg.int8))
    assert got.dtype == tg.float32
    np.testing.assert_allclose(got.numpy(), 3 * np.log(np.float32(3)), rtol=1e-7)
    got = tg.xlogy(tg.tensor([3.0]), tg.tensor([3], dtype=tg.uint8))  # (float32 and uint8)
    np.testing.assert_allclose(got.numpy(), 3 * np.log(np.float32(3)), rtol=1e-7)


def test_mixed_dtype_gradients_keep_each_inputs_dtype() -> None:
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    s = tg.tensor(0.5, dtype=tg.float64, requires_grad=True)
    y = (x * s).sum()
    assert y.dtype == tg.float32  # (the vector decides)
    y.backward()
    assert x.grad.dtype == tg.float32 and s.grad.dtype == tg.float64
    assert x.grad.tolist() == [0.5, 0.5] and s.grad.item() == 3.0


def test_every_mixed_binary_op_matches_pytorch() -> None:
    torch = _torch()
    for name in BINARY:
        for a, b, a0, b0 in MIXED_CASES:
            mine_in = _operand(tg, a, a0, 3.0), _operand(tg, b, b0, 2.0)
            theirs_in = _operand(torch, a, a0, 3.0), _operand(torch, b, b0, 2.0)
            try:
                theirs = getattr(torch, name)(*theirs_in)
            except RuntimeError:
                continue  # (torch refuses some, e.g. bool - bool)
            mine = getattr(tg, name)(*mine_in)
            case = (name, a, a0, b, b0)
            assert str(mine.dtype) == str(theirs.dtype).replace("torch.", ""), case
            np.testing.assert_allclose(
                mine.numpy().astype(np.float64),
                theirs.double().numpy(),
                rtol=1e-3 if theirs.dtype == torch.float16 else 1e-6,
                err_msg=str(case),
            )


# Comparisons of mixed dtypes: PyTorch casts both sides to their common dtype first (the 0-d
# float64 0.1 becomes float32's 0.1 beside a float32 vector; an int64 259 wraps to int8's 3)
def test_mixed_dtype_comparisons_compare_in_pytorchs_dtype() -> None:
    x = tg.tensor([0.1, 0.2])
    tenth = tg.tensor(0.1, dtype=tg.float64)
    assert (x == tenth).tolist() == [True, False] and (x != tenth).tolist() == [False, True]
    assert (x <= tenth).tolist() == [True, False] and (x > tenth).tolist() == [False, True]
    assert (tenth == x).tolist() == [True, False]  # (either side)
    assert (tg.tensor([3], dtype=tg.int8) == tg.tensor(259)).tolist() == [True]
    half = tg.tensor([0.1], dtype=tg.float16)  # (float16 decides over a 0-d float32 tensor)
    assert (half == tg.tensor(0.1)).tolist() == [True] and (half < tg.tensor(0.1)).tolist() == [
        False
    ]
    assert x.clone().eq_(tenth).tolist() == [1.0, 0.0]  # (the in-place form too)
    # a Python number is a weak scalar, as before: compared in the tensor's dtype
    assert (x == 0.1).tolist() == [True, False]


COMPARISONS = ["eq", "ne", "lt", "le", "gt", "ge"]


@pytest.mark.parametrize("values", [(0.1, 0.1), (3, 259), (-1, 255), (0.5, 1e-9)])
def test_every_mixed_comparison_matches_pytorch(values) -> None:
    torch = _torch()
    for name in COMPARISONS:
        for a, b, a0, b0 in MIXED_CASES:
            arrays = _arrays(values, a, a0, b, b0)
            theirs = getattr(torch, name)(*map(torch.from_numpy, arrays))
            mine = getattr(tg, name)(*map(tg.tensor, arrays))
            case = (name, a, a0, b, b0, values)
            assert mine.dtype == tg.bool_ and mine.shape == tuple(theirs.shape), case
            assert mine.tolist() == theirs.tolist(), case


# In-place ops of mixed dtypes: computed in PyTorch's common dtype, then written into the tensor's
# own dtype where PyTorch's casting rule allows it (integers wrap; floating into integers refused)
def test_mixed_dtype_in_place_ops_compute_in_pytorchs_dtype() -> None:
    half = tg.tensor([0.1, 0.2], dtype=tg.float16)
    half.sub_(tg.tensor(0.1))  # (float16's 0.1 subtracted: NumPy's float32 left -2.4e-05)
    assert half.dtype == tg.float16 and half.tolist()[0] == 0.0
    small = tg.tensor([3, 200], dtype=tg.uint8)
    small.add_(tg.tensor([-5, 100], dtype=tg.int8))  # (int16 sums, wrapped into uint8)
    assert small.dtype == tg.uint8 and small.tolist() == [254, 44]
    with pytest.raises(RuntimeError, match="add_: the result has dtype float64, which this int64"):
        tg.tensor([1, 2]).add_(tg.tensor(0.5, dtype=tg.float64))
    with pytest.raises(RuntimeError, match="mul_: the result has dtype float32"):
        tg.tensor([True]).mul_(tg.tensor([2.0]))
    # an in-place comparison writes 1 or 0, which every dtype holds
    assert tg.tensor([1, 2]).lt_(tg.tensor([1.5, 1.5])).tolist() == [1, 0]


def test_mixed_dtype_in_place_op_on_the_tape_keeps_each_dtype() -> None:
    s = tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    y.mul_(s)  # (float64 values into a float32 tensor on the tape)
    assert y.dtype == tg.float32 and y.grad_fn is not None
    y.sum().backward()
    assert x.grad.dtype == tg.float32 and s.grad.dtype == tg.float64
    assert x.grad.tolist() == [0.5, 1.5] and s.grad.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("values", [(3, 2), (0.1, 0.1), (100, 259)])
def test_every_mixed_in_place_op_matches_pytorch(values) -> None:
    torch = _torch()
    for name in ["add_", "sub_", "mul_", "div_", "copy_", "lt_", "eq_"]:
        for a, b, a0, b0 in MIXED_CASES:
            if name == "sub_" and "bool" in (a, b):
                continue  # (PyTorch refuses any subtraction with bools; NumPy's rule here)
            arrays = _arrays(values, a, a0, b, b0)
            case = (name, a, a0, b, b0, values)
            ours, theirs = tg.tensor(arrays[0]), torch.from_numpy(arrays[0].copy())
            try:
                getattr(theirs, name)(torch.from_numpy(arrays[1]))
            except RuntimeError:  # (a shape that does not broadcast: ValueError)
                with pytest.raises((RuntimeError, ValueError)):
                    getattr(ours, name)(tg.tensor(arrays[1]))
                continue
            with np.errstate(all="ignore"):
                getattr(ours, name)(tg.tensor(arrays[1]))
            assert str(ours.dtype) == str(theirs.dtype).replace("torch.", ""), case
            np.testing.assert_allclose(
                ours.numpy().astype(np.float64),
                theirs.double().numpy(),
                rtol=1e-3 if a == "float16" else 1e-6,
                err_msg=str(case),
            )


GRAD_OPS = {
    "mul": lambda lib, x, o: x * o,
    "rmul": lambda lib, x, o: o * x,
    "div": lambda lib, x, o: x / o,
    "rdiv": lambda lib, x, o: o / x,
    "add": lambda lib, x, o: x + o,
    "where": lambda lib, x, o: lib.where(o > 1, x, o),
    "addcmul": lambda lib, x, o: lib.addcmul(x, o, o),
    "rsub": lambda lib, x, o: (o + 0) - x,
    "maximum": lambda lib, x, o: lib.maximum(x, o),
}


@pytest.mark.parametrize("op", list(GRAD_OPS))
@pytest.mark.parametrize("other", ["bool", "uint8", "int8", "int32", "int64"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_gradient_keeps_its_input_dtype_beside_an_integer_tensor(op, other, dtype) -> None:
    # (NumPy's g * int32 array is float64: the rule's result is cast back, as PyTorch's is)
    torch = _torch()
    values = np.array([1, 2, 3]).astype(other)
    grads = []
    for lib in (tg, torch):
        x = lib.tensor(np.array([0.5, 1.5, 2.5], dtype), requires_grad=True)
        GRAD_OPS[op](lib, x, lib.tensor(values)).sum().backward()
        grads.append(x.grad)
    assert str(grads[0].dtype) == str(grads[1].dtype).removeprefix("torch.") == dtype
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-6)


def test_square_of_bools_is_int64_and_square_in_place_refuses() -> None:
    torch = _torch()
    x = tg.tensor([True, False])
    assert x.square().dtype == np.int64 == torch.tensor([True]).square().numpy().dtype
    assert tg.square(x).tolist() == [1, 0]
    with pytest.raises(RuntimeError, match="cannot hold"):
        x.square_()


def test_default_dtype_governs_python_floats_and_integer_promotion(default_dtype) -> None:
    assert tg.get_default_dtype() == np.float32
    tg.set_default_dtype(tg.float64)
    assert tg.get_default_dtype() == np.float64
    assert tg.tensor([1.5]).dtype == np.float64 and tg.tensor([1]).sin().dtype == np.float64
    assert (tg.tensor([1, 2]) / 2).dtype == np.float64
    assert repr(tg.tensor([1.5])) == "tensor([1.5000])"  # (the default dtype goes unsaid)
    assert repr(tg.tensor([1.5], dtype=tg.float32)) == "tensor([1.5000], dtype=float32)"
    assert (tg.tensor([1.0], dtype=tg.float32) * 2.5).dtype == np.float32
    tg.set_default_dtype(tg.float16)
    assert tg.tensor([True]).exp().dtype == np.float16
    for wrong in (tg.int64, "int32", None):
        with pytest.raises(TypeError, match="floating-point"):
            tg.set_default_dtype(wrong)
    tg.set_default_dtype(tg.float32)
    assert tg.tensor([1.5]).dtype == np.float32


def test_layers_and_factories_follow_the_default_dtype(default_dtype) -> None:
    torch = _torch()
    layers = [
        ("Linear", (2, 3)),
        ("Conv2d", (1, 2, 3)),
        ("BatchNorm1d", (3,)),
        ("LayerNorm", (3,)),
        ("Embedding", (4, 2)),
    ]
    before = torch.get_default_dtype()
    try:
        for dtype in ("float64", "float32"):
            tg.set_default_dtype(getattr(tg, dtype))
            torch.set_default_dtype(getattr(torch, dtype))
            for name, args in layers:
                mine, theirs = getattr(tg.nn, name)(*args), getattr(torch.nn, name)(*args)
                for (n, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
                    assert p.dtype == q.detach().numpy().dtype == np.dtype(dtype), (name, n)
            assert tg.randn(2).dtype == tg.zeros(2).dtype == tg.arange(0.0, 1.0).dtype == dtype
    finally:
        torch.set_default_dtype(before)


# ---- clamp: bounds on the tape, NaN bounds -------------------------------------------------------
def _clamp_case(lib, x, low, high, in_place):
    kw = {"dtype": lib.float64, "requires_grad": True}
    xt = lib.tensor(x, **kw)
    lo = None if low is None else lib.tensor(low, **kw)
    hi = None if high is None else lib.tensor(high, **kw)
    weights = lib.tensor(np.arange(1.0, len(x) + 1), dtype=lib.float64)
    y = (xt * 1).clamp_(lo, hi) if in_place else lib.clamp(xt, lo, hi)
    (y * weights).sum().backward()
    grads = [t.grad.numpy() if t is not None and t.grad is not None else None for t in (xt, lo, hi)]
    return y.detach().numpy(), grads


CLAMPS = [
    ([1.0, 2.0, 3.0, 0.5], [0.5, 2.0, 5.0, 1.0], [4.0, 4.0, 4.0, 4.0]),  # ties, low > high
    ([1.0, 2.0, 3.0, np.nan], [np.nan, 0.0, 5.0, 0.0], [4.0, np.nan, 4.0, 1.0]),  # NaN anywhere
    ([1.0, -2.0, 3.0], [0.0, 0.0, 0.0], None),
    ([1.0, -2.0, 3.0], None, [2.0, 2.0, 2.0]),
    ([1.0, 2.0], [2.0, 2.0], [2.0, 2.0]),  # (low == high)
]


@pytest.mark.parametrize("x, low, high", CLAMPS)
@pytest.mark.parametrize("in_place", [False, True])
def test_clamp_with_bounds_on_the_tape_equals_pytorch(x, low, high, in_place) -> None:
    torch = _torch()
    (mine, my_grads), (theirs, their_grads) = (
        _clamp_case(lib, x, low, high, in_place) for lib in (tg, torch)
    )
    np.testing.assert_array_equal(mine, theirs)
    for g, e in zip(my_grads, their_grads):
        if e is None:
            assert g is None or not g.any()
        else:
            np.testing.assert_array_equal(g, e)


def test_clamp_in_place_of_a_constant_with_learned_bounds_puts_it_on_the_tape() -> None:
    low = tg.tensor([0.5, 0.5], requires_grad=True)
    x = tg.tensor([0.0, 1.0])
    assert x.clamp_(low) is x and x.grad_fn is not None
    x.sum().backward()
    assert x.tolist() == [0.5, 1.0] and low.grad.tolist() == [1.0, 0.0]
    y = tg.tensor([0.0, 3.0])
    y.clip_(min=tg.tensor(1.0), max=tg.tensor(2.0))  # (constant tensors: as numbers)
    assert y.tolist() == [1.0, 2.0] and y.grad_fn is None


# ---- the sign of zero ----------------------------------------------------------------------------
def test_clone_and_in_place_ops_keep_the_sign_of_negative_zero() -> None:
    x = tg.tensor([-0.0, 0.0], dtype=tg.float64)
    assert np.signbit(x.clone().numpy()).tolist() == [True, False]
    with np.errstate(divide="ignore"):
        assert x.clone().reciprocal_().tolist() == [-np.inf, np.inf]
        assert x.clone().pow_(-1).tolist() == [-np.inf, np.inf]
        z = x.clone()
        z **= -1
        assert z.tolist() == [-np.inf, np.inf]
    leaf = tg.tensor([-0.0, 1.0], requires_grad=True)
    assert np.signbit(leaf.clone().numpy()[0])


# ---- 0-d tensors ---------------------------------------------------------------------------------
def test_transpose_and_gather_of_0d_tensors_as_pytorch() -> None:
    torch = _torch()
    x = tg.tensor(3.0, requires_grad=True)
    for dims in [(0, 0), (0, -1), (-1, -1)]:
        assert x.transpose(*dims) is x and torch.tensor(3.0).transpose(*dims).shape == ()
    with pytest.raises(IndexError):
        x.transpose(0, 1)
    for index in (tg.tensor(0), tg.tensor([0, 0, 0])):
        got = x.gather(0, index)
        expected = torch.tensor(3.0).gather(0, torch.tensor(index.numpy()))
        assert got.shape == tuple(expected.shape) and got.tolist() == expected.tolist()
    x.gather(0, tg.tensor([0, 0])).sum().backward()
    assert x.grad.item() == 2.0
    v = tg.tensor([1.0, 2.0])
    assert v.gather(0, tg.tensor(1)).item() == 2.0  # (a 0-d index of a 1-D tensor, too)
    with pytest.raises(IndexError):
        tg.tensor(3.0).gather(0, tg.tensor([1]))
    leaf = tg.ones(5, requires_grad=True)  # an empty index of any rank: an empty result
    empty = leaf.gather(0, tg.zeros(2, 0, dtype=tg.int64))
    assert empty.shape == (2, 0) and empty.grad_fn is not None
    empty.sum().backward()
    assert leaf.grad.tolist() == [0.0] * 5
    with pytest.raises(ValueError, match="same number"):
        tg.ones(5).gather(0, tg.zeros(2, 1, dtype=tg.int64))


# ---- cat skips empty 1-D tensors -----------------------------------------------------------------
def test_cat_skips_an_empty_1d_tensor_among_others_as_pytorch() -> None:
    torch = _torch()
    a = tg.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    empty = tg.tensor([], dtype=tg.float64, requires_grad=True)
    for parts, dim in [([a, empty, a], 0), ([empty, a], 1), ([empty, empty], 0)]:
        got = tg.cat(parts, dim)
        expected = torch.cat([torch.tensor(p.detach().numpy()) for p in parts], dim)
        assert got.shape == tuple(expected.shape)
        np.testing.assert_array_equal(got.detach().numpy(), expected.numpy())
    tg.cat([a, empty], 0).sum().backward()
    assert a.grad.tolist() == np.ones((2, 3)).tolist() and empty.grad is None


# ---- cross_entropy's class weights ---------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_with_probability_targets_differentiates_the_weight(
    reduction, label_smoothing
) -> None:
    torch = _torch()
    x, p = RNG.standard_normal((4, 3)), RNG.dirichlet(np.ones(3), 4)
    w = RNG.uniform(0.5, 2.0, 3)
    results = []
    for lib in (tg, torch):
        xs, ws = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(
            xs, lib.tensor(p), weight=ws, reduction=reduction, label_smoothing=label_smoothing
        )
        loss.sum().backward()
        results.append((loss.detach().numpy(), xs.grad.numpy(), ws.grad.numpy()))
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15)


def test_cross_entropy_with_class_indices_refuses_a_weight_that_requires_grad() -> None:
    weight = tg.ones(3, requires_grad=True)
    for fn in (tg.nn.functional.cross_entropy, tg.nn.functional.nll_loss):
        with pytest.raises(RuntimeError, match="not differentiable with respect to the class"):
            fn(tg.zeros(2, 3), tg.tensor([0, 2]), weight=weight)
    loss = tg.nn.functional.cross_entropy(tg.zeros(2, 3), tg.tensor([0, 2]), weight=weight.detach())
    assert abs(loss.item() - np.log(3)) < 1e-6


# ---- subtraction and negation of bools -----------------------------------------------------------
BOOL_SUBTRACTIONS = {
    "bool - bool": lambda L: L.tensor([True]) - L.tensor([True]),
    "bool - int": lambda L: L.tensor([True]) - 1,
    "int - bool": lambda L: 1 - L.tensor([True]),
    "float - bool tensor": lambda L: L.ones(2) - L.tensor([True, False]),
    "int tensor - bool tensor": lambda L: L.tensor([1, 2]) - L.tensor([True, False]),
    "float - True": lambda L: L.ones(2) - True,
    "True - float": lambda L: True - L.ones(2),
    "sub": lambda L: L.sub(L.ones(2), L.tensor([True, False])),
    "rsub": lambda L: L.rsub(L.tensor([True]), 1),
    "sub_ of a bool": lambda L: L.ones(2).sub_(L.tensor([True, False])),
    "sub_ True": lambda L: L.ones(2).sub_(True),
    "bool.sub_": lambda L: L.tensor([True]).sub_(L.tensor([True])),
    "neg": lambda L: -L.tensor([True]),
    "neg_": lambda L: L.tensor([True]).neg_(),
    "negative": lambda L: L.negative(L.tensor([True])),
}


@pytest.mark.parametrize("name", list(BOOL_SUBTRACTIONS))
def test_subtracting_or_negating_bools_is_refused_as_pytorch(name) -> None:
    torch = _torch()
    call = BOOL_SUBTRACTIONS[name]
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match="not supported.*logical_not"):
        call(tg)


def test_masks_still_invert_and_subtract_as_numbers() -> None:
    mask = tg.tensor([True, False])
    assert (~mask).tolist() == [False, True]
    assert (1 - mask.float()).tolist() == [0.0, 1.0]
    assert (mask ^ tg.tensor([True, True])).tolist() == [False, True]
    x = tg.ones(2, requires_grad=True)
    (x - mask.float()).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
