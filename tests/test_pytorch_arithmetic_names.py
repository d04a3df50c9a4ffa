"""PyTorch's arithmetic names beyond the operators (tensor/elementwise.py): lerp (from the nearer
end, exact at weight 0 and 1), addcmul and addcdiv (Adam's update spells them), float_power (in
float64), heaviside, positive, gcd and lcm, with their in-place forms; rsub (sub swapped).

Values, dtypes and gradients against torch (float64), gradcheck to second order, PyTorch's errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)
A, B, C = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.uniform(0.5, 2, (4,))


def _torch():
    return pytest.importorskip("torch")


PROGRAMS = {
    "lerp number": (lambda lib, a, b: a.lerp(b, 0.3), [A, B]),
    "lerp number near end": (lambda lib, a, b: lib.lerp(a, b, 0.8), [A, B]),
    "lerp tensor weight": (lambda lib, a, b, w: lib.lerp(a, b, w), [A, B, C / 2.5]),
    "addcmul": (lambda lib, a, b, c: a.addcmul(b, c, value=-0.5), [A, B, C]),
    "addcdiv": (lambda lib, a, b, c: lib.addcdiv(a, b, c, value=2.0), [A, B, C]),
    "float_power": (lambda lib, c, b: lib.float_power(c, b), [C, B]),
    "rsub": (lambda lib, a, b: lib.rsub(a, b, alpha=2.5), [A, B]),
    "rsub broadcast": (lambda lib, a, c: lib.rsub(a, c), [A, C]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_gradients_against_torch(name: str) -> None:
    torch = _torch()
    fn, arrays = PROGRAMS[name]
    found = []
    for lib in (tg, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *xs)
        (out * out).sum().backward()
        found.append((out.detach().numpy(), [x.grad.numpy() for x in xs]))
    (mine, my_grads), (theirs, their_grads) = found
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
    np.testing.assert_allclose(mine, theirs, rtol=1e-14, atol=1e-15)
    for a, b in zip(my_grads, their_grads):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-14)
    inputs = tuple(tg.tensor(a, requires_grad=True) for a in arrays)
    assert gradcheck(lambda *xs: fn(tg, *xs), inputs)
    assert gradgradcheck(lambda *xs: fn(tg, *xs), inputs)


def test_lerp_is_exact_at_both_ends() -> None:
    start, end = tg.tensor([0.1, 1e8]), tg.tensor([0.3, -7.0])
    assert start.lerp(end, 1.0).tolist() == end.tolist()
    assert start.lerp(end, 0.0).tolist() == start.tolist()
    assert start.lerp(end, tg.tensor([1.0, 1.0])).tolist() == end.tolist()


def test_in_place_forms_as_adam_writes_them() -> None:
    torch = _torch()
    results = []
    for lib in (tg, torch):
        g = lib.tensor(B)
        m, v, p = (
            lib.zeros(3, 4, dtype=lib.float64),
            lib.zeros(3, 4, dtype=lib.float64),
            lib.tensor(A),
        )
        m.lerp_(g, 0.1)
        v.mul_(0.999).addcmul_(g, g, value=0.001)
        p.addcdiv_(m, v.sqrt() + 1e-8, value=-0.01)
        results.append([t.numpy() for t in (m, v, p)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_integer_and_step_functions_as_torch() -> None:
    torch = _torch()
    x, y = [12, 18, -4, 0], [8, 27, 6, 5]
    for name in ("gcd", "lcm"):
        mine = getattr(tg, name)(tg.tensor(x), tg.tensor(y))
        assert mine.dtype == np.int64
        assert mine.tolist() == getattr(torch, name)(torch.tensor(x), torch.tensor(y)).tolist()
    z = tg.tensor([12, 18])
    assert z.gcd_(tg.tensor([8, 27])) is z and z.tolist() == [4, 9]
    values = [-1.0, 0.0, 2.0, float("nan"), -0.0]
    mine = tg.heaviside(tg.tensor(values), tg.tensor([0.5]))
    theirs = torch.heaviside(
        torch.tensor(values, dtype=torch.float64), torch.tensor([0.5], dtype=torch.float64)
    )
    assert mine.tolist() == theirs.tolist()
    assert tg.float_power(tg.tensor([2, 3]), 2).dtype == np.float64
    assert tg.positive(tg.tensor([-1.5])).tolist() == [-1.5]


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda: tg.addcdiv(tg.ones(2), tg.tensor([1, 2]), tg.tensor([1, 2])),
            RuntimeError,
            "Integer division",
        ),
        (lambda: tg.gcd(tg.ones(2), tg.ones(2)), TypeError, "not implemented"),
        (lambda: tg.heaviside(tg.ones(2), tg.tensor([1], dtype=tg.int64)), TypeError, "same dtype"),
        (lambda: tg.positive(tg.tensor([True])), TypeError, "bool"),
        (lambda: tg.ones(2).float_power_(2), RuntimeError, "float64"),
    ],
)
def test_errors_as_pytorch(call, error, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_rsub_with_a_number_keeps_the_tensors_dtype() -> None:
    x = tg.tensor([1.0, 2.0], dtype=tg.float16)
    out = tg.rsub(x, 3.0, alpha=2)
    assert out.dtype == np.float16 and out.tolist() == [1.0, -1.0]
