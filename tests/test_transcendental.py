"""The transcendental ops beyond exp/log/sin/cos/tan/tanh (primitives/transcendental.py, the
Tensor room tensor/transcendental.py): sinh, cosh, the inverse trigonometric and hyperbolic
functions (with NumPy's arc* spellings), atan2, hypot, exp2, logaddexp(2), xlogy, sinc, logit,
fmod, copysign, fmax/fmin, nan_to_num, deg2rad/rad2deg, sgn/signbit and the complex-number
questions of real tensors.

tests/test_ops.py gradchecks each primitive to second order; here: values, gradients and dtypes
against torch (float64, float32, integer inputs), the edges where PyTorch selects a value (sinc at
0, xlogy at x = 0, logit outside eps, fmax ties and NaN, copysign at 0), the in-place forms, the
function forms and vmap.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

RNG = np.random.default_rng(11)
NAN, INF = float("nan"), float("inf")

# name -> values inside its domain
UNARY = {
    "sinh": RNG.standard_normal(7),
    "cosh": RNG.standard_normal(7),
    "asinh": RNG.standard_normal(7),
    "acosh": RNG.uniform(1.1, 4.0, 7),
    "atanh": RNG.uniform(-0.9, 0.9, 7),
    "asin": RNG.uniform(-0.9, 0.9, 7),
    "acos": RNG.uniform(-0.9, 0.9, 7),
    "atan": RNG.standard_normal(7),
    "exp2": RNG.standard_normal(7),
    "sinc": np.array([-1.5, -0.3, 0.0, 0.2, 1.0, 2.5, 1e-9]),
    "logit": RNG.uniform(0.05, 0.95, 7),
    "deg2rad": RNG.uniform(-360, 360, 7),
    "rad2deg": RNG.standard_normal(7),
    "sgn": np.array([-2.0, 0.0, 3.0, -0.5]),
}
ALIASES = {"arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "arcsin": "asin"}
ALIASES |= {"arccos": "acos", "arctan": "atan", "arctan2": "atan2"}
BINARY = ["atan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "fmod", "copysign", "fmax", "fmin"]


def _torch():
    return pytest.importorskip("torch")


def _same(mine, theirs, rtol: float = 1e-12) -> None:
    theirs = theirs.detach().numpy(force=True)  # (force: torch's zero gradients are ZeroTensors)
    assert mine.numpy().dtype == theirs.dtype and mine.shape == theirs.shape
    np.testing.assert_allclose(mine.numpy(), theirs, rtol=rtol, atol=1e-300, equal_nan=True)


def _both(name: str, *arrays: np.ndarray, **kwargs):
    """tg.<name> and torch.<name> on the same float64 inputs (all requiring grad), their sums'
    gradients taken: (tapegrad's output, grads), (torch's)."""
    torch = _torch()
    results = []
    for lib in (tg, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = getattr(lib, name)(*xs, **kwargs)
        out.sum().backward()
        results.append((out, [x.grad for x in xs]))
    return results


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_and_gradients_against_torch(name: str) -> None:
    (mine, my_grads), (theirs, their_grads) = _both(name, UNARY[name])
    _same(mine, theirs)
    _same(my_grads[0], their_grads[0], rtol=1e-10)


@pytest.mark.parametrize("name", BINARY)
def test_binary_values_and_gradients_against_torch_with_broadcasting(name: str) -> None:
    x = RNG.standard_normal((3, 4))
    y = RNG.uniform(0.3, 2.0, (4,)) * RNG.choice([-1.0, 1.0], 4)
    if name == "xlogy":
        y = np.abs(y)
    (mine, my_grads), (theirs, their_grads) = _both(name, x, y)
    _same(mine, theirs)
    if name == "copysign":  # (PyTorch gives other a zero gradient; tapegrad none, i.e. zeros)
        _same(my_grads[0], their_grads[0])
        assert np.all(my_grads[1].numpy() == 0)
        return
    for a, b in zip(my_grads, their_grads):
        _same(a, b, rtol=1e-10)


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_numpy_spellings_are_the_same_functions(alias: str, name: str) -> None:
    assert getattr(tg, alias) is getattr(tg, name)
    assert getattr(tg.Tensor, alias) is getattr(tg.Tensor, name)
    assert getattr(tg.Tensor, alias + "_") is getattr(tg.Tensor, name + "_")


def test_integer_inputs_give_pytorchs_float_dtypes() -> None:
    torch = _torch()
    ints = [1, 2, 3]
    for name in ["sinh", "atan", "exp2", "asinh", "deg2rad", "rad2deg", "sinc"]:
        mine = getattr(tg, name)(tg.tensor(ints))
        theirs = getattr(torch, name)(torch.tensor(ints)).numpy()
        assert mine.dtype == theirs.dtype == np.float32
        np.testing.assert_allclose(mine.numpy(), theirs, rtol=1e-6, atol=1e-7)  # (sinc: ~0)
    for name in ["atan2", "fmod", "fmax"]:  # (torch refuses integer hypot, logaddexp)
        mine = getattr(tg, name)(tg.tensor(ints), tg.tensor([2, 2, 2]))
        theirs = getattr(torch, name)(torch.tensor(ints), torch.tensor([2, 2, 2]))
        _same(mine, theirs, rtol=1e-6)
    mixed = tg.atan2(tg.tensor([1.0], dtype=tg.float32), tg.tensor([2.0], dtype=tg.float64))
    assert mixed.dtype == np.float64  # (the wider float wins, as PyTorch)
    assert tg.tensor([1.0, 2.0]).sinh().dtype == np.float32


# ---- edges where PyTorch selects a value -------------------------------------------------------
def test_sinc_is_one_with_gradient_zero_at_zero() -> None:
    x = tg.tensor([0.0, 1.0], requires_grad=True)
    y = x.sinc()
    y.sum().backward()
    assert y.tolist()[0] == 1.0 and abs(y.tolist()[1]) < 1e-7
    assert x.grad.tolist()[0] == 0.0 and x.grad.tolist()[1] == pytest.approx(-1.0)


def test_xlogy_at_zero_and_nan_as_torch() -> None:
    torch = _torch()
    xs, ys = [0.0, 0.0, 0.0, 2.0, 0.0], [0.0, -1.0, NAN, 3.0, 2.0]
    (mine, my_grads), (theirs, their_grads) = _both("xlogy", np.array(xs), np.array(ys))
    _same(mine, theirs)
    assert mine.tolist()[:2] == [0.0, 0.0] and np.isnan(mine.tolist()[2])
    for a, b in zip(my_grads, their_grads):
        _same(a, b)
    number = tg.xlogy(0.0, tg.tensor([0.0, 5.0]))  # (a number as x, as torch.xlogy allows)
    assert number.tolist() == torch.xlogy(0.0, torch.tensor([0.0, 5.0])).tolist()


def test_logit_with_and_without_eps_as_torch() -> None:
    values = np.array([-0.2, 0.0, 0.05, 0.5, 0.97, 1.0, 1.3])
    for eps in (None, 0.1):
        (mine, my_grads), (theirs, their_grads) = _both("logit", values, eps=eps)
        _same(mine, theirs)
        _same(my_grads[0], their_grads[0])
    assert np.isnan(tg.tensor([1.5]).logit().tolist()[0])


def test_fmax_fmin_nan_loses_and_ties_go_to_the_first_input() -> None:
    x, y = np.array([NAN, 1.0, 2.0, NAN, 3.0]), np.array([5.0, NAN, 2.0, NAN, 1.0])
    for name in ("fmax", "fmin"):
        (mine, my_grads), (theirs, their_grads) = _both(name, x, y)
        _same(mine, theirs)
        for a, b in zip(my_grads, their_grads):
            _same(a, b)
    assert tg.fmax(tg.tensor([NAN, 1.0]), tg.tensor([2.0, 0.0])).tolist() == [2.0, 1.0]
    assert tg.maximum(tg.tensor([NAN]), tg.tensor([2.0])).isnan().all()  # (maximum: NaN wins)


def test_copysign_hypot_atan2_at_zero_as_torch() -> None:
    (mine, my_grads), (theirs, their_grads) = _both(
        "copysign", np.array([0.0, -0.0, 2.0]), np.array([-1.0, 1.0, -0.0])
    )
    _same(mine, theirs)
    _same(my_grads[0], their_grads[0])
    assert str(mine.tolist()) == str(theirs.tolist())  # (-0.0 where torch has it)
    for name in ("hypot", "atan2"):
        (mine, my_grads), (theirs, their_grads) = _both(name, np.zeros(2), np.array([0.0, 1.0]))
        _same(mine, theirs)
        for a, b in zip(my_grads, their_grads):
            _same(a, b)  # (at (0, 0): NaN for hypot, 0 for atan2, in both)


def test_nan_to_num_values_defaults_and_gradient_only_where_finite() -> None:
    torch = _torch()
    values = np.array([NAN, INF, -INF, 1.5])
    for kwargs in ({}, {"nan": 2.0, "posinf": 9.0, "neginf": -9.0}, {"posinf": 1e300}):
        (mine, my_grads), (theirs, their_grads) = _both("nan_to_num", values, **kwargs)
        _same(mine, theirs)
        _same(my_grads[0], their_grads[0])
    big = tg.tensor([INF, -INF], dtype=tg.float32).nan_to_num()
    assert big.tolist() == torch.tensor([INF, -INF]).nan_to_num().tolist()  # (float32's largest)


def test_fmod_has_the_dividends_sign_and_integer_zero_is_an_error() -> None:
    torch = _torch()
    x, y = np.array([-5.0, 5.0, -5.5, 7.25]), np.array([3.0, -3.0, 2.0, 2.0])
    (mine, my_grads), (theirs, their_grads) = _both("fmod", x, y)
    _same(mine, theirs)
    for a, b in zip(my_grads, their_grads):
        _same(a, b)
    ints = tg.fmod(tg.tensor([-7, 7]), 3)
    assert ints.tolist() == torch.fmod(torch.tensor([-7, 7]), 3).tolist() and ints.dtype == np.int64
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tg.fmod(tg.tensor([1, 2]), tg.tensor([1, 0]))


def test_acosh_atanh_asin_at_the_edges_of_their_domains_as_torch() -> None:
    for name, edge in [("acosh", [1.0]), ("atanh", [1.0, -1.0]), ("asin", [1.0]), ("acos", [-1.0])]:
        (mine, my_grads), (theirs, their_grads) = _both(name, np.array(edge))
        _same(mine, theirs)
        _same(my_grads[0], their_grads[0])  # (inf: the textbook rule, PyTorch's too)


# ---- in place, function forms, signs, complex questions ----------------------------------------
@pytest.mark.parametrize("name", ["sinh", "cosh", "asinh", "atan", "exp2", "sinc", "deg2rad"])
def test_in_place_forms_change_the_tensor_and_record(name: str) -> None:
    values = RNG.uniform(0.1, 0.9, 5)
    base = tg.tensor(values, requires_grad=True)
    y = base * 1.0
    same = getattr(y, name + "_")()
    assert same is y
    np.testing.assert_allclose(y.numpy(), getattr(tg, name)(tg.tensor(values)).numpy())
    y.sum().backward()
    expected = tg.tensor(values, requires_grad=True)
    getattr(expected, name)().sum().backward()
    np.testing.assert_allclose(base.grad.numpy(), expected.grad.numpy())


def test_two_input_in_place_forms_and_integer_refusal() -> None:
    x = tg.tensor([3.0, -5.0])
    assert x.hypot_(tg.tensor([4.0, 12.0])) is x and x.tolist() == [5.0, 13.0]
    y = tg.tensor([-5.0, 5.0])
    assert y.fmod_(3.0).tolist() == [-2.0, 2.0]
    assert tg.tensor([1.0, -1.0]).atan2_(tg.tensor([0.0, 0.0])).tolist() == pytest.approx(
        [np.pi / 2, -np.pi / 2]
    )
    z = tg.tensor([1.0, 2.0])
    assert z.copysign_(-1.0).tolist() == [-1.0, -2.0]
    assert tg.tensor([0.0, 2.0]).xlogy_(tg.tensor([0.0, 1.0])).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="sinh_.*cannot hold"):
        tg.tensor([1, 2]).sinh_()


def test_logit_and_nan_to_num_in_place() -> None:
    p = tg.tensor([0.5, 0.0])
    assert p.logit_(eps=0.25) is p and p.tolist() == pytest.approx([0.0, np.log(1 / 3)])
    q = tg.tensor([NAN, INF, 1.0])
    assert q.nan_to_num_(posinf=7.0) is q and q.tolist() == [0.0, 7.0, 1.0]


def test_signs_and_the_complex_questions_of_real_tensors() -> None:
    torch = _torch()
    values = [-0.0, 0.0, -2.0, INF, -INF, NAN]
    mine, theirs = tg.tensor(values), torch.tensor(values, dtype=torch.float64)
    for name in ("signbit", "isposinf", "isneginf", "isreal"):
        got = getattr(tg, name)(mine)
        assert got.dtype == np.bool_ and got.tolist() == getattr(torch, name)(theirs).tolist()
    assert tg.isposinf(tg.tensor([1, 2])).tolist() == [False, False]  # (integers: never)
    x = tg.tensor([1.0, -2.0], requires_grad=True)
    assert x.conj() is x and tg.conj(x) is x and x.real is x and tg.real(x) is x
    assert x.resolve_conj() is x and not x.is_conj()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        _ = x.imag
    with pytest.raises(RuntimeError, match="non-complex"):
        tg.imag(x)
    sgn = x.sgn()
    assert sgn.tolist() == [1.0, -1.0] and tg.sgn(x).tolist() == [1.0, -1.0]


def test_deg2rad_keeps_float_dtype_and_makes_integers_float() -> None:
    assert tg.tensor([180.0], dtype=tg.float64).deg2rad().dtype == np.float64
    assert tg.tensor([180], dtype=tg.int64).deg2rad().tolist() == pytest.approx([np.pi])
    assert tg.tensor([180]).deg2rad().dtype == np.float32  # (the default float, as PyTorch)


def test_vmap_of_the_new_ops_is_the_op_per_example() -> None:
    xs = tg.tensor(RNG.uniform(0.1, 0.9, (4, 3)))
    ys = tg.tensor(RNG.uniform(0.5, 2.0, (4, 3)))

    def f(x, y):
        return (x.asin() + x.atan2(y) + x.hypot(y) + x.logit() + tg.logaddexp(x, y)).sum()

    batched = tg.vmap(f)(xs, ys)
    each = [f(xs[i], ys[i]).item() for i in range(4)]
    np.testing.assert_allclose(batched.numpy(), each, rtol=1e-6)
    grads = tg.vmap(tg.grad(f))(xs, ys)
    for i in range(4):
        np.testing.assert_allclose(grads[i].numpy(), tg.grad(f)(xs[i], ys[i]).numpy(), rtol=1e-6)
