"""NumPy on Tensors (ufuncs, NumPy functions, out=), NumPy's meaning of the functions tapegrad
names as PyTorch does (np.cumsum, np.flip, np.sort, ...), and SciPy. DLPack: test_dlpack.py."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import tapegrad as tg
from helpers import finite_differences
from tapegrad import interop
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def leaf(*shape: int, low: float = 0.2, high: float = 1.2) -> tg.Tensor:
    """A float64 leaf that requires grad, away from 0 (log, sqrt, abs, sign) and from ties."""
    return tg.tensor(RNG.uniform(low, high, shape), dtype=tg.float64, requires_grad=True)


# ---- ufuncs --------------------------------------------------------------------------------------
BINARY = {
    np.add: operator.add,
    np.subtract: operator.sub,
    np.multiply: operator.mul,
    np.divide: operator.truediv,
    np.power: operator.pow,
    np.maximum: tg.maximum,
    np.minimum: tg.minimum,
    np.remainder: tg.remainder,
    np.arctan2: tg.atan2,
    np.hypot: tg.hypot,
    np.logaddexp: tg.logaddexp,
    np.logaddexp2: tg.logaddexp2,
    np.copysign: tg.copysign,
    np.fmax: tg.fmax,
    np.fmin: tg.fmin,
    np.float_power: tg.float_power,
}
UNARY = {
    np.log10: tg.log10,
    np.log2: tg.log2,
    np.negative: operator.neg,
    np.positive: operator.pos,
    np.exp: tg.exp,
    np.log: tg.log,
    np.sin: tg.sin,
    np.cos: tg.cos,
    np.tan: tg.tan,
    np.tanh: tg.tanh,
    np.sqrt: tg.sqrt,
    np.log1p: tg.log1p,
    np.expm1: tg.expm1,
    np.absolute: tg.abs,
    np.fabs: tg.abs,
    np.sign: tg.sign,
    np.square: tg.square,
    np.reciprocal: tg.reciprocal,
}
# (with the interval their leaves are drawn from: inside each function's domain)
UNARY_IN_DOMAIN = {
    np.arcsin: (tg.asin, 0.1, 0.9),
    np.arccos: (tg.acos, 0.1, 0.9),
    np.arctanh: (tg.atanh, 0.1, 0.9),
    np.arccosh: (tg.acosh, 1.2, 2.0),
    np.arcsinh: (tg.asinh, 0.2, 1.2),
    np.arctan: (tg.atan, 0.2, 1.2),
    np.sinh: (tg.sinh, 0.2, 1.2),
    np.cosh: (tg.cosh, 0.2, 1.2),
    np.exp2: (tg.exp2, 0.2, 1.2),
    np.deg2rad: (tg.deg2rad, 0.2, 1.2),
    np.rad2deg: (tg.rad2deg, 0.2, 1.2),
    np.conjugate: (tg.conj, 0.2, 1.2),
}
NO_GRADIENT_OPS = {np.gcd, np.lcm, np.fmod}  # (gcd/lcm: integers; fmod piecewise: its own tests)
ON_TAPE = {*BINARY, *UNARY, *UNARY_IN_DOMAIN, *NO_GRADIENT_OPS, np.matmul}
ON_TAPE |= {np.frexp, np.ldexp, np.nextafter}  # (tensor/floating.py: Tensor methods now)
FLOAT_VALUE = {
    np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal, np.isnan,
    np.isinf, np.isfinite, np.signbit, np.floor, np.ceil, np.rint, np.trunc, np.floor_divide,
    np.logical_and, np.logical_or, np.logical_xor, np.logical_not,
}  # fmt: skip
INT_VALUE = {
    np.invert,
    np.bitwise_and,
    np.bitwise_or,
    np.bitwise_xor,
    np.left_shift,
    np.right_shift,
}
ALL_UFUNCS = sorted(
    {u for u in vars(np).values() if isinstance(u, np.ufunc)}, key=lambda u: u.__name__
)


@pytest.mark.parametrize("ufunc", ALL_UFUNCS, ids=lambda u: u.__name__)
def test_every_ufunc_runs_an_op_gives_a_value_or_is_refused(ufunc: np.ufunc) -> None:
    kind = interop.numpy_support().get(f"np.{ufunc.__name__}")
    if ufunc in ON_TAPE:
        assert kind == "op"
    elif ufunc in FLOAT_VALUE | INT_VALUE:
        assert kind == "value"
        data = [np.array([1.5, -2.0, 0.0]), np.array([1.5, 3.0, -1.0])]
        if ufunc in INT_VALUE:
            data = [np.array([5, -2, 0]), np.array([3, 3, -1])]
        xs = [tg.tensor(d, requires_grad=d.dtype.kind == "f") for d in data[: ufunc.nin]]
        got = ufunc(*xs)
        assert isinstance(got, tg.Tensor) and not got.requires_grad
        np.testing.assert_array_equal(got.numpy(), ufunc(*[x.numpy() for x in xs]))
    else:  # no rule: NumPy's values where no gradient is lost (as PyTorch), else refused
        assert kind is None
        with pytest.raises(
            TypeError, match=rf"np\.{ufunc.__name__} has no tapegrad rule.*numpy\(\)"
        ):
            ufunc(*[tg.tensor([1.0, 2.0], requires_grad=True)] * ufunc.nin)
        values = np.array([1.0, 2.0]) if ufunc.types[0][0] in "efdg" else np.array([6, 3])
        try:
            expected = ufunc(*[values] * ufunc.nin)
        except (TypeError, ValueError) as error:  # (NumPy refuses these values: so on tensors)
            with pytest.raises(type(error)):
                ufunc(*[tg.tensor(values)] * ufunc.nin)
            return
        got = ufunc(*[tg.tensor(values)] * ufunc.nin)
        for g, e in zip(
            got if ufunc.nout > 1 else [got], expected if ufunc.nout > 1 else [expected]
        ):
            assert isinstance(g, tg.Tensor) and not g.requires_grad
            np.testing.assert_array_equal(g.numpy(), e)


@pytest.mark.parametrize("ufunc", list(BINARY), ids=lambda u: u.__name__)
def test_binary_ufunc_runs_the_operator_with_its_gradient(ufunc: np.ufunc) -> None:
    x, y = leaf(3), leaf(3)
    got, expected = ufunc(x, y), BINARY[ufunc](x, y)
    assert isinstance(got, tg.Tensor) and got.grad_fn.name == expected.grad_fn.name
    np.testing.assert_allclose(got.numpy(), ufunc(x.numpy(), y.numpy()))
    assert gradcheck(lambda a, b: ufunc(a, b), (x, y))
    assert gradgradcheck(lambda a, b: ufunc(a, b), (x, y))
    arr = RNG.uniform(0.2, 1.2, 3)  # a NumPy array on either side, and a NumPy scalar
    for f in (
        lambda b: ufunc(arr, b),
        lambda b: ufunc(b, arr),
        lambda b: ufunc(np.float64(0.7), b),
    ):
        assert isinstance(f(y), tg.Tensor) and f(y).requires_grad
        np.testing.assert_allclose(f(y).numpy(), f(y.numpy()))
        assert gradcheck(f, (y,))


@pytest.mark.parametrize("ufunc", list(UNARY), ids=lambda u: u.__name__)
def test_unary_ufunc_runs_the_op_with_its_gradient(ufunc: np.ufunc) -> None:
    x = leaf(2, 3)
    got, expected = ufunc(x), UNARY[ufunc](x)
    assert isinstance(got, tg.Tensor)
    assert got.grad_fn is expected.grad_fn or got.grad_fn.name == expected.grad_fn.name
    np.testing.assert_allclose(got.numpy(), ufunc(x.numpy()))
    assert gradcheck(ufunc, (x,)) and gradgradcheck(ufunc, (x,))


@pytest.mark.parametrize("ufunc", list(UNARY_IN_DOMAIN), ids=lambda u: u.__name__)
def test_unary_ufunc_inside_its_domain_runs_the_op_with_its_gradient(ufunc: np.ufunc) -> None:
    op, low, high = UNARY_IN_DOMAIN[ufunc]
    x = leaf(2, 3, low=low, high=high)
    got, expected = ufunc(x), op(x)
    assert isinstance(got, tg.Tensor)
    assert got.grad_fn is expected.grad_fn or got.grad_fn.name == expected.grad_fn.name
    np.testing.assert_allclose(got.numpy(), ufunc(x.numpy()))
    assert gradcheck(ufunc, (x,)) and gradgradcheck(ufunc, (x,))


def test_matmul_ufunc_and_the_at_operator_from_an_array() -> None:
    a, b, arr = leaf(2, 3), leaf(3, 2), RNG.standard_normal((4, 2))
    assert np.matmul(a, b).grad_fn.name == (a @ b).grad_fn.name
    np.testing.assert_allclose((arr @ a).numpy(), arr @ a.numpy())
    assert gradcheck(lambda x, y: np.matmul(x, y), (a, b))
    assert gradcheck(lambda x: arr @ x, (a,)) and gradgradcheck(lambda x, y: x @ y, (a, b))


@pytest.mark.parametrize(
    "make, dtype",
    [
        (lambda t32, t64, ti: np.add(t32, np.ones(2)), np.float64),  # arrays are strong operands
        (lambda t32, t64, ti: np.ones(2) - t32, np.float64),
        (lambda t32, t64, ti: np.ones(2, np.float32) * t64, np.float64),
        (lambda t32, t64, ti: np.multiply(t32, np.float64(2.0)), np.float32),  # scalars are weak
        (lambda t32, t64, ti: np.float64(2.0) * t32, np.float32),
        (lambda t32, t64, ti: np.divide(2, t32), np.float32),
        (lambda t32, t64, ti: np.power(t32, 2), np.float32),
        (lambda t32, t64, ti: np.add(ti, 0.5), np.float32),  # int and float: the default float
        (lambda t32, t64, ti: np.maximum(np.float64(0.5), t32), np.float32),
        (lambda t32, t64, ti: np.add(t32, 1.0, dtype=np.float64), np.float64),  # dtype= honoured
    ],
)
def test_mixed_operands_follow_the_operators_dtype_rules(make, dtype) -> None:
    t32, t64, ti = tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.0], dtype=tg.float64), tg.tensor([1, 2])
    got = make(t32, t64, ti)
    assert isinstance(got, tg.Tensor) and got.dtype == dtype
    plain = make(*(t.numpy().astype(np.float64) for t in (t32, t64, ti)))
    np.testing.assert_allclose(got.numpy(), plain, rtol=1e-6)


def test_mixed_dtypes_match_the_operator_spelled_on_the_tensor() -> None:
    t32, arr = tg.tensor([1.0, 2.0]), np.array([3.0, 4.0])
    assert np.add(t32, arr).dtype == (t32 + arr).dtype == np.float64
    assert (arr - t32).dtype == t32.__rsub__(arr).dtype
    assert (np.float64(3.0) / t32).dtype == (3.0 / t32).dtype == np.float32


def test_value_ufuncs_and_comparisons_do_not_require_grad() -> None:
    x = leaf(4)
    for got in (np.less(x, 0.5), np.floor(x * 3), np.isfinite(x), np.logical_not(x > 0.5)):
        assert isinstance(got, tg.Tensor) and not got.requires_grad and got.grad_fn is None
    np.testing.assert_array_equal(np.greater(0.5, x).numpy(), 0.5 > x.numpy())


# ---- out= ----------------------------------------------------------------------------------------
def test_out_tensor_is_an_in_place_op_on_the_tape() -> None:
    x = leaf(3)
    y = x * 2.0
    r = np.multiply(y, 3.0, out=(y,))
    assert r is y and y.grad_fn is not None
    np.testing.assert_allclose(y.numpy(), 6 * x.numpy())
    np.exp(y, out=y)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.exp(6 * x.numpy()))


def test_out_tensor_bumps_the_version_so_a_stale_saved_value_raises_at_backward() -> None:
    x = leaf(3)
    y = x * 2.0
    z = y * y  # saves y
    np.add(y, 1.0, out=y)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


def test_out_on_a_leaf_that_requires_grad_is_refused_as_plus_equals() -> None:
    w = leaf(3)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        w += 1.0
    with pytest.raises(RuntimeError, match=r"np\.add\(\.\.\., out=t\): t is a leaf.*no_grad"):
        np.add(w, 1.0, out=w)
    old = w.numpy().copy()
    with tg.no_grad():
        np.add(w, 1.0, out=w)  # as optimizers do
    np.testing.assert_allclose(w.numpy(), old + 1.0)


def test_out_ndarray_is_refused_and_out_shapes_must_fit() -> None:
    t = tg.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"np\.add\(\.\.\., out=\.\.\.\) names a NumPy array"):
        np.add(t, 1.0, out=np.zeros(2))
    arr = np.zeros(2)
    with pytest.raises(TypeError, match=r"arr \+= t\.numpy\(\)"):
        arr += t
    with pytest.raises(ValueError, match="does not fit"):
        np.add(tg.ones(2, 3), 1.0, out=tg.zeros(3))
    wide = tg.zeros(2, 2)
    np.add(t, 1.0, out=wide)  # NumPy broadcasts into a larger out
    np.testing.assert_array_equal(wide.numpy(), [[2.0, 3.0], [2.0, 3.0]])
    flags = tg.zeros(2, dtype=tg.bool_)
    np.less(t, 1.5, out=flags)
    np.testing.assert_array_equal(flags.numpy(), [True, False])


# ---- ufunc methods and keywords ------------------------------------------------------------------
def test_reduce_maps_to_the_reductions() -> None:
    x = leaf(3, 4)
    cases = [
        (np.add.reduce, {}),
        (np.multiply.reduce, {"axis": 1, "keepdims": True}),
        (np.maximum.reduce, {"axis": None}),
        (np.minimum.reduce, {"axis": -1}),
    ]
    for reduce, kw in cases:
        got = reduce(x, **kw)
        assert isinstance(got, tg.Tensor) and got.requires_grad
        np.testing.assert_allclose(got.numpy(), reduce(x.numpy(), **kw))
        assert gradcheck(lambda a: reduce(a, **kw), (x,))
    assert np.logical_or.reduce(tg.tensor([False, True])).item() is True


def test_outer_and_refused_methods() -> None:
    a, b = leaf(3), leaf(2)
    got = np.multiply.outer(a, b)
    np.testing.assert_allclose(got.numpy(), np.multiply.outer(a.numpy(), b.numpy()))
    assert gradcheck(lambda u, v: np.subtract.outer(u, v), (a, b))
    for call, name in [
        (lambda: np.add.accumulate(a), "np.add.accumulate"),
        (lambda: np.add.at(a, [0], 1.0), "np.add.at"),
        (lambda: np.add.reduceat(a, [0, 1]), "np.add.reduceat"),
        (lambda: np.subtract.reduce(a), "np.subtract.reduce"),
    ]:
        with pytest.raises(TypeError, match=rf"{name} has no tapegrad rule"):
            call()


def test_ufunc_keywords() -> None:
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = np.multiply(x, x, dtype=np.float64)
    assert y.dtype == np.float64
    y.sum().backward()
    assert x.grad.dtype == np.float32 and np.allclose(x.grad.numpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match=r"where=array"):
        np.add(x, 1.0, where=np.array([True, False]))
    with pytest.raises(TypeError, match="casting='unsafe'"):
        np.add(x, 1.0, casting="unsafe")
    with pytest.raises(TypeError, match="axes"):
        np.matmul(tg.ones(2, 2), tg.ones(2, 2), axes=[(0, 1), (0, 1), (0, 1)])


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda t: np.cbrt(t), "np.cbrt"),
        (lambda t: np.linalg.svd(t), "np.linalg.svd"),
        (lambda t: np.fft.fft(t), "np.fft.fft"),
        (lambda t: np.median(t), "np.median"),
        (lambda t: np.linalg.norm(t), "np.linalg.norm"),
    ],
)
def test_numpy_without_a_rule_names_itself_and_points_to_numpy(call, name) -> None:
    with pytest.raises(TypeError) as info:
        call(tg.ones(2, 2, requires_grad=True))
    assert name in str(info.value) and ".numpy()" in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: np.median(t),
        lambda t: np.linalg.norm(t),
        lambda t: np.percentile(t, 50, axis=0),
        lambda t: np.linalg.svd(t)[1],
    ],
)
def test_numpy_without_a_rule_on_a_constant_gives_numpys_result(call) -> None:
    """No gradient to lose: NumPy's own result, as PyTorch's __array__ gives it (issue 25)."""
    values = np.array([[1.0, 4.0], [2.0, 9.0]], dtype=np.float32)
    got, expected = call(tg.tensor(values)), call(values)
    assert type(got) is type(expected) and np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)
    y = tg.tensor(values, requires_grad=True) * 2  # .data: the values, off the tape
    np.testing.assert_array_equal(call(y.data), call(values * 2))


def test_ufunc_without_a_rule_on_a_constant_gives_a_tensor_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    values = np.array([0.5, 2.0, -1.0])
    got, theirs = np.arctan(tg.tensor(values)), np.arctan(torch.tensor(values))
    assert isinstance(got, tg.Tensor) and not got.requires_grad and got.dtype == np.float64
    np.testing.assert_array_equal(got.numpy(), theirs.numpy())


# ---- NumPy functions -----------------------------------------------------------------------------
A, B = leaf(2, 3), leaf(2, 3)
CASES = {  # name: (call, differentiable); each call runs on tensors and on their arrays
    "np.sum": (lambda a, b: np.sum(a, axis=0, keepdims=True), True),
    "np.mean": (lambda a, b: np.mean(a, 1), True),
    "np.var": (lambda a, b: np.var(a, axis=0, ddof=1), True),
    "np.std": (lambda a, b: np.std(a, axis=1, keepdims=True), True),
    "np.roll": (
        lambda a, b: np.roll(a, 1) + np.roll(b, -1, axis=1) + np.roll(a, (1, 2), (0, 1)),
        True,
    ),
    "np.fix": (lambda a, b: np.fix(a * 3) * b, True),
    "np.swapaxes": (lambda a, b: np.swapaxes(a, 0, 1) * 2, True),
    "np.prod": (lambda a, b: np.prod(a, axis=1), True),
    "np.max": (lambda a, b: np.max(a, 0), True),
    "np.amax": (lambda a, b: np.amax(a, axis=1, keepdims=True), True),
    "np.min": (lambda a, b: np.min(a), True),
    "np.amin": (lambda a, b: np.amin(a, axis=0), True),
    "np.argmax": (lambda a, b: np.argmax(a, axis=1), False),
    "np.argmin": (lambda a, b: np.argmin(a), False),
    "np.allclose": (lambda a, b: np.allclose(a, b, atol=1e-3), False),
    "np.dot": (lambda a, b: np.dot(a, np.transpose(b)) + np.dot(a[0], b[1]), True),
    "np.reshape": (lambda a, b: np.reshape(a, (3, 2)), True),
    "np.transpose": (lambda a, b: np.transpose(np.stack([a, b]), (1, 0, 2)), True),
    "np.concatenate": (lambda a, b: np.concatenate([a, b], axis=1) * 2, True),
    "np.stack": (lambda a, b: np.stack([a, b], axis=-1), True),
    "np.where": (lambda a, b: np.where(a > b, a, b * 2), True),
    "np.clip": (lambda a, b: np.clip(a, 0.4, 1.0), True),
    "np.squeeze": (lambda a, b: np.squeeze(np.reshape(a, (2, 1, 3)), axis=1), True),
    "np.expand_dims": (lambda a, b: np.expand_dims(a, (0, 2)), True),
    "np.broadcast_to": (lambda a, b: np.broadcast_to(a[0], (4, 3)), True),
    "np.split": (lambda a, b: np.split(a, [1, 2], axis=1)[1] + np.split(b, 2)[1], True),
    "np.zeros_like": (lambda a, b: np.zeros_like(a), False),
    "np.ones_like": (lambda a, b: np.ones_like(a, dtype=np.float32), False),
    "np.full_like": (lambda a, b: np.full_like(a, 3.0), False),
    "np.empty_like": (  # (its values are whatever memory held: compare shape and dtype)
        lambda a, b: (np.empty_like(a).shape, str(np.empty_like(a, dtype=np.float64).dtype)),
        False,
    ),
    # tapegrad names these as PyTorch does; NumPy's meaning (interop/numpy_meanings.py):
    "np.cumsum": (lambda a, b: np.cumsum(a) + np.cumsum(b, axis=1).sum(), True),
    "np.cumprod": (lambda a, b: np.cumprod(a) + np.cumprod(b, axis=1).sum(), True),
    "np.flip": (lambda a, b: np.flip(a) * np.flip(b, axis=1) + np.flip(a, (0,)), True),
    "np.sort": (lambda a, b: np.sort(a * b) + np.sort(a, axis=0) + np.sort(b, axis=None)[:3], True),
    "np.trace": (lambda a, b: np.trace(np.dot(a, np.transpose(b))), True),
    "np.outer": (lambda a, b: np.outer(a, b[0]), True),
    "np.tile": (lambda a, b: np.tile(a, (2, 1))[1:3] + np.tile(b, 2)[:, 2:5], True),
    "np.tril": (lambda a, b: np.tril(a) + np.tril(b, k=1) + np.tril(a, -1), True),
    "np.triu": (lambda a, b: np.triu(a, 1) + np.triu(b, k=-1), True),
    "np.diag": (lambda a, b: np.diag(a) + np.diag(a, k=1)[0] + np.diag(np.diag(b))[1], True),
    "np.einsum": (lambda a, b: np.einsum("ij,kj->ik", a, b, optimize=True), True),
    "np.i0": (lambda a, b: np.i0(a) * b, True),  # (tg.i0: the same Bessel function)
}


def test_every_numpy_function_that_runs_an_op_has_a_case() -> None:
    ops = {n for n, k in interop.numpy_support().items() if k == "op"}
    functions = {n for n in ops if not isinstance(eval(n, {"np": np}), np.ufunc)}
    assert functions - {n for n in functions if n.endswith(".reduce")} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_function_matches_numpy_and_differentiates(name: str) -> None:
    call, differentiable = CASES[name]
    got, expected = call(A, B), call(A.numpy(), B.numpy())
    if isinstance(expected, np.ndarray):
        assert isinstance(got, tg.Tensor) and got.dtype == expected.dtype
        np.testing.assert_allclose(got.numpy(), expected)
    else:
        assert got == expected
    if differentiable:
        assert got.requires_grad and gradcheck(call, (A, B))


def test_numpy_function_keywords_and_refusals() -> None:
    t = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    s = np.sum(t, dtype=np.float64)
    assert s.dtype == np.float64 and s.requires_grad
    assert np.mean(tg.tensor([1, 2]), dtype=np.float32).item() == 1.5
    assert np.stack([t, t], dtype=np.float64).dtype == np.float64
    assert np.var(t, 0, None, None, 1).numpy().tolist() == [2.0, 2.0]  # ddof given positionally
    np.testing.assert_allclose(np.concatenate([t, t], axis=None).numpy(), [1, 2, 3, 4] * 2)
    for call, word in [
        (lambda: np.sum(t, out=np.zeros(())), "out="),
        (lambda: np.sum(t, initial=1.0), "initial="),
        (lambda: np.max(t, where=np.ones((2, 2), bool)), "where="),
        (lambda: np.reshape(t, 4, order="F"), "order='F'"),
        (lambda: np.allclose(t, t, equal_nan=True), "equal_nan=True"),
    ]:
        with pytest.raises(TypeError, match=word):
            call()
    scaled = np.dot(np.float64(2.0), t)  # a 0-d operand: a product, with the operators' rules
    assert scaled.dtype == np.float32 and scaled.numpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]
    with pytest.raises(TypeError, match="more than 2 axes"):
        np.dot(tg.ones(2, 2, 2), tg.ones(2, 2, 2))
    with pytest.raises(ValueError, match="not 1"):
        np.squeeze(t, axis=0)
    with pytest.raises(ValueError, match="equally"):
        np.split(tg.ones(5), 2)


def test_value_functions_run_on_the_values() -> None:
    t = tg.tensor([[0.5, 2.0], [0.0, 4.25]], requires_grad=True)
    arr = t.numpy()
    assert np.shape(t) == (2, 2) and np.ndim(t) == 2 and np.size(t) == 4
    assert np.all(t >= 0).item() and np.count_nonzero(t) == 3
    assert np.array_equal(t, arr) and np.shares_memory(t, arr)
    for got, expected in [
        (np.isclose(t, 2.0), np.isclose(arr, 2.0)),
        (np.round(t), np.round(arr)),
        (np.argsort(t, axis=1), np.argsort(arr, axis=1)),
        (np.nonzero(t)[1], np.nonzero(arr)[1]),
        (np.where(t > 1)[0], np.where(arr > 1)[0]),
    ]:
        assert isinstance(got, tg.Tensor) and not got.requires_grad
        np.testing.assert_array_equal(got.numpy(), expected)


def test_conversions_and_printing_go_through_the_values() -> None:
    t = tg.tensor([1.0, 2.0])
    assert np.asarray(t) is t.numpy() and np.array(t).tolist() == [1.0, 2.0]
    np.testing.assert_array_equal(np.array([t, t * 2]), [[1.0, 2.0], [2.0, 4.0]])
    one = np.atleast_1d(tg.tensor(3.0))
    assert type(one) is np.ndarray and one.shape == (1,)
    assert type(np.copy(t)) is np.ndarray and not np.shares_memory(np.copy(t), t.numpy())
    with pytest.raises(RuntimeError, match=r"np\.atleast_1d\(\).*detach"):
        np.atleast_1d(tg.tensor([1.0], requires_grad=True))
    assert "1." in str(t) and "2." in f"{t}" and np.array2string(t) == "[1. 2.]"


def test_numpy_code_differentiates_with_tg_grad() -> None:
    W, x = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 3))

    def nll(w):  # NumPy only: a tanh layer and a Gaussian log-likelihood
        h = np.tanh(np.dot(x, w))
        return 0.5 * np.sum(np.square(h - 0.1)) + np.log(np.sqrt(2 * np.pi)) * h.size

    g = tg.grad(nll)(W)
    assert isinstance(g, tg.Tensor) and g.shape == W.shape and g.dtype == np.float64
    assert gradcheck(nll, (tg.tensor(W, requires_grad=True),))
    h = np.tanh(x @ W)  # closed form: d/dW = x^T ((h - 0.1) (1 - h^2))
    np.testing.assert_allclose(g.numpy(), x.T @ ((h - 0.1) * (1 - h**2)), rtol=1e-10)


# ---- NumPy's meaning where tapegrad follows PyTorch's; true division of a number -----------------
@pytest.mark.parametrize(
    "number, make",
    [(2, lambda t: 2 / t), (2.0, lambda t: 2.0 / t), (2.0, lambda t: np.divide(2.0, t))],
)
def test_a_number_over_an_integer_tensor_is_a_true_division(number, make) -> None:
    out = make(tg.tensor([2, 4]))
    assert out.dtype == tg.float32  # (as PyTorch: an integer tensor divides into floats)
    np.testing.assert_allclose(out.numpy(), [number / 2, number / 4])
    assert (1.0 / tg.tensor([True])).tolist() == [1.0]


def test_np_reciprocal_runs_the_primitive_with_its_gradient() -> None:
    x = tg.tensor([0.5, 2.0, -4.0], dtype=tg.float64, requires_grad=True)
    y = np.reciprocal(x)
    assert y.grad_fn.name == "ReciprocalBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -1 / x.numpy() ** 2)
    np.testing.assert_allclose(np.reciprocal(tg.tensor([2, 4])).numpy(), [0.5, 0.25])


def test_numpy_meaning_where_tapegrad_follows_pytorch() -> None:
    a = np.arange(1.0, 7.0).reshape(2, 3)
    t = tg.tensor(a, dtype=tg.float64, requires_grad=True)
    assert np.cumsum(t).shape == (6,)  # every axis (tg.cumsum needs a dim)
    np.testing.assert_array_equal(np.flip(t).numpy(), np.flip(a))  # every axis
    assert isinstance(np.sort(t), tg.Tensor)  # the values (tg.sort: (values, indices))
    np.testing.assert_array_equal(np.outer(t, t).numpy(), np.outer(a, a))  # flattened
    for f in (np.cumsum, np.flip, np.sort, np.outer):

        def with_t(x, f=f):
            return f(x, x) if f is np.outer else f(x)

        weights = np.random.default_rng(0).normal(size=with_t(a).shape)
        t.grad = None
        (with_t(t) * weights).sum().backward()
        np.testing.assert_allclose(
            t.grad.numpy(),
            finite_differences(lambda v: float((with_t(v[0]) * weights).sum()), [a])[0],
            rtol=1e-6,
        )


def test_numpy_meaning_refusals_are_clear() -> None:
    t = tg.ones(2, 3)
    with pytest.raises(TypeError, match="np.cumsum.*out="):
        np.cumsum(t, out=np.zeros(6))
    with pytest.raises(TypeError, match="order="):
        np.sort(t, order="x")
    with pytest.raises(TypeError, match="np.trace.*main diagonal"):
        np.trace(t, offset=1)
    with pytest.raises(TypeError, match="subscripts"):
        np.einsum(t, [0, 1])
    assert tg.interop.numpy_support()["np.cumsum"] == "op"


# ---- SciPy ---------------------------------------------------------------------------------------
def rosenbrock(x):  # written with NumPy: x arrives as a Tensor and the calls are recorded
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@pytest.mark.parametrize("n", [2, 10])
def test_scipy_minimize_with_value_and_grad(n: int) -> None:
    optimize = pytest.importorskip("scipy.optimize", reason="SciPy is in the test extra")
    res = optimize.minimize(
        tg.value_and_grad(rosenbrock),
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 1000},
    )
    assert res.success and np.abs(res.x - 1.0).max() < 1e-4
    assert type(res.jac) is np.ndarray and res.jac.dtype == np.float64
    assert isinstance(res.fun, float)


def test_what_scipy_receives() -> None:
    value, grad = tg.value_and_grad(rosenbrock)(np.array([0.5, -0.5, 2.0]))
    assert value.dtype == grad.dtype == np.float64 and not grad.requires_grad
    g = np.atleast_1d(grad)  # what SciPy does with a gradient: a float64 array
    assert type(g) is np.ndarray and g.dtype == np.float64
    assert isinstance(np.asarray(value).item(), float)
    x = np.array([0.5, -0.5, 2.0])  # the closed form
    expected = np.zeros(3)
    expected[:-1] = -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    expected[1:] += 200 * (x[1:] - x[:-1] ** 2)
    np.testing.assert_allclose(g, expected)


def test_out_into_an_input_that_another_operand_differentiates_through() -> None:
    w, t = leaf(3), tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64)
    np.multiply(t, w, out=t)  # as `t *= w`: the product's saved t is the value before the write
    t.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 2.0, 3.0])


def test_docstring_examples_run() -> None:
    import doctest

    flags = doctest.NORMALIZE_WHITESPACE
    for module in (interop.numpy_protocols, interop.dlpack):
        result = doctest.testmod(module, extraglobs={"tg": tg, "np": np}, optionflags=flags)
        assert result.attempted > 0 and result.failed == 0
