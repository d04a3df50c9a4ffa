"""frexp, ldexp and nextafter: values (special values and signs of zero included), dtypes, result
structure, gradients and errors, against PyTorch."""

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

SPECIAL = [0.0, -0.0, 1.5, -8.0, np.inf, -np.inf, np.nan, 3.0e-3, 1.0]
EXTREMES = {  # (dtype: its largest and its smallest subnormal value)
    "float16": [6.0e4, 6.0e-8],
    "float32": [3.0e38, 1.0e-45],
    "float64": [1.0e308, 5.0e-324],
}


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_matches_torch_bit_for_bit(dtype):
    torch = pytest.importorskip("torch")
    values = np.array(SPECIAL + EXTREMES[dtype], dtype=dtype)
    ours = tg.tensor(values).frexp()
    theirs = torch.frexp(torch.tensor(values))
    assert isinstance(ours, tg.tensor([1.0]).frexp().__class__) and ours._fields == (
        "mantissa",
        "exponent",
    )
    np.testing.assert_array_equal(ours.mantissa.numpy(), theirs.mantissa.numpy())
    np.testing.assert_array_equal(np.signbit(ours.mantissa.numpy()), np.signbit(values))
    np.testing.assert_array_equal(ours.exponent.numpy(), theirs.exponent.numpy())
    assert ours.mantissa.dtype == values.dtype and ours.exponent.dtype == tg.int32
    assert tg.frexp(tg.tensor(values)).exponent.tolist() == ours.exponent.tolist()


def test_frexp_gradient_is_g_over_two_to_the_exponent():
    x = tg.tensor([1.3, -3.0, 100.0], dtype=tg.float64, requires_grad=True)
    x.frexp().mantissa.sum().backward()
    assert x.grad.tolist() == [0.5, 0.25, 1 / 128]
    assert gradcheck(lambda a: a.frexp().mantissa, (x,))
    assert not x.frexp().exponent.requires_grad


def test_ldexp_dtypes_values_and_gradients_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        (np.array([1.0, -2.5], np.float32), np.array([3, -4])),
        (np.array([1, 2]), np.array([3, 4])),
        (np.array([1.0, 2.0], np.float16), np.array([3, 4])),
        (np.array([1.0, 2.0], np.float32), np.array([3.0, 0.5])),
    ]
    for x, e in cases:
        ours, theirs = tg.ldexp(tg.tensor(x), tg.tensor(e)), torch.ldexp(*map(torch.tensor, (x, e)))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert str(ours.dtype) == str(theirs.dtype).removeprefix("torch.")
    x = tg.tensor([1.3, 3.0], dtype=tg.float64, requires_grad=True)
    e = tg.tensor([3.0, -0.5], dtype=tg.float64, requires_grad=True)
    gx, ge = tg.autograd.grad(x.ldexp(e).sum(), (x, e))
    xt, et = (torch.tensor(t.numpy(), requires_grad=True) for t in (x, e))
    gxt, get = torch.autograd.grad(torch.ldexp(xt, et).sum(), (xt, et))
    np.testing.assert_allclose(gx.numpy(), gxt.numpy())
    np.testing.assert_allclose(ge.numpy(), get.numpy())
    assert gradcheck(lambda a, b: a.ldexp(b), (x, e))
    assert gradgradcheck(lambda a, b: a.ldexp(b), (x, e))


def test_ldexp_in_place_keeps_the_dtype_and_refuses_integers():
    x = tg.tensor([1.0, 2.0])
    assert x.ldexp_(tg.tensor([1, 2])) is x and x.tolist() == [2.0, 8.0]
    with pytest.raises(RuntimeError, match="ldexp_: the result has dtype float32"):
        tg.tensor([1, 2]).ldexp_(tg.tensor([1, 1]))


def test_nextafter_matches_torch_at_the_edges():
    torch = pytest.importorskip("torch")
    a = np.array([1.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, 5e-324, 2.0])
    b = np.array([2.0, -0.0, 0.0, 0.0, np.inf, 1.0, np.inf, 0.0, 2.0])
    ours = tg.nextafter(tg.tensor(a), tg.tensor(b)).numpy()
    theirs = torch.nextafter(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))


def test_nextafter_steps_in_the_promoted_dtype():
    torch = pytest.importorskip("torch")
    for x, y in [([1], [2.0]), ([1.0], [2]), ([1.0], np.array([2.0]))]:
        ours = tg.tensor(x).nextafter(tg.tensor(y)).numpy()
        theirs = torch.nextafter(torch.tensor(x), torch.tensor(y)).numpy()
        np.testing.assert_array_equal(ours, theirs)  # (a float32 step, not a float64 one)
        assert ours.dtype == theirs.dtype
    assert tg.tensor([1.0]).nextafter(2.0).item() == float(np.nextafter(np.float32(1), 2))


def test_nextafter_gradient_and_errors():
    x = tg.tensor([1.0, -2.0, 4.0], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([3.0, -5.0, 4.0], dtype=tg.float64, requires_grad=True)
    gx, gy = tg.autograd.grad(x.nextafter(y).sum(), (x, y), allow_unused=True)
    # (where x == y the result is y, and PyTorch gives x no gradient there)
    assert gx.tolist() == [1.0, 1.0, 0.0] and (gy is None or gy.tolist() == [0.0] * 3)
    with pytest.raises(TypeError, match="only floating-point"):
        tg.tensor([1, 2]).nextafter(tg.tensor([3, 4]))
    with pytest.raises(TypeError, match="only floating-point"):
        tg.tensor([1, 2]).frexp()
    z = tg.tensor([0.0])
    assert z.nextafter_(tg.tensor([1.0])) is z and z.item() > 0
