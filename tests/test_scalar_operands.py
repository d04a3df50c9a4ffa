"""Scalar operands as PyTorch takes them: a Python int beyond an integer tensor's range is wrapped
into its dtype (uint8 tensor + 300 adds 44; uint8 tensor < -2 compares with 254), in operators,
methods, in-place ops and comparisons alike; an int beyond 64 bits is refused; a NumPy scalar is
a Python number (weak: float32 tensor == np.float64(0.1) compares in float32). Checked against
torch 2.13 where it is installed, and against the wrap arithmetic itself.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import dtypes

INTS = [-2, 300, -129, 255, -128, 2**40, 2**63, np.int64(-2), np.int32(300)]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "radd": lambda t, s: s + t,
    "sub": operator.sub,
    "rsub": lambda t, s: s - t,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "remainder": operator.mod,
    "method add": lambda t, s: t.add(s),
    "add_": lambda t, s: t.add_(s),
    "sub_": lambda t, s: t.sub_(s),
    "mul_": lambda t, s: t.mul_(s),
    "lt": operator.lt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
    "gt_": lambda t, s: t.gt_(s),
}


def _outcome(lib: Any, dtype: str, op: Callable[[Any, Any], Any], s: Any) -> Any:
    t = lib.tensor(np.array([1, 0, 100], dtype=dtype))
    try:
        out = op(t, s)
    except Exception as e:  # (both must refuse alike)
        return type(e).__name__
    return str(out.dtype).split(".")[-1], out.tolist()


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_an_int_operand_wraps_into_an_integer_tensors_dtype_as_pytorch(name, dtype) -> None:
    torch = pytest.importorskip("torch")
    for s in INTS:
        want = _outcome(torch, dtype, OPS[name], s)
        got = _outcome(tg, dtype, OPS[name], s)
        assert got == want, (s, got, want)


def test_wrapping_is_modular_arithmetic_in_the_dtypes_width() -> None:
    u8 = tg.tensor(np.array([1, 200], dtype=np.uint8))
    assert (u8 + 300).tolist() == [45, 244]  # (300 = 44 modulo 256)
    assert (u8 * -1).tolist() == [255, 56]
    assert (u8 < -2).tolist() == [True, True]  # (-2 is 254 as a uint8)
    i8 = tg.tensor(np.array([1, -1], dtype=np.int8))
    assert (i8 - 129).tolist() == [-128, 126]  # (129 is -127 as an int8)
    assert [dtypes.wrapped(v, np.dtype(np.int8)) for v in (127, 128, -129, 2**63)] == [
        127,
        -128,
        127,
        0,
    ]


def test_an_int_beyond_64_bits_is_refused() -> None:
    t = tg.tensor(np.array([1, 2], dtype=np.int32))
    for s in (2**64, -(2**63) - 1):
        with pytest.raises(OverflowError, match="64 bits"):
            t + s
        with pytest.raises(OverflowError, match="64 bits"):
            t < s


@pytest.mark.parametrize(
    "scalar", [np.float64(0.1), np.float32(0.1), np.float16(0.1), np.int8(3), np.int64(-1)]
)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "uint8"])
def test_a_numpy_scalar_compares_as_a_python_number(scalar, dtype) -> None:
    torch = pytest.importorskip("torch")
    values = np.array([0.1, 3, -1, 1], dtype=np.float64).astype(dtype)
    for op in (operator.eq, operator.lt, operator.ne, operator.ge):
        want = op(torch.tensor(values), scalar).tolist()
        assert op(tg.tensor(values), scalar).tolist() == want, (op, scalar, dtype)


def test_an_overflow_from_elsewhere_is_raised_as_it_is(monkeypatch) -> None:
    """Only an int beyond the tensor's range is wrapped and the op retried; any other overflow in
    a forward is raised once, as it came (no retry loop)."""
    calls = []

    def overflowing(x, y):
        calls.append(1)
        raise OverflowError("from the kernel")

    monkeypatch.setattr(tg.primitives.elementwise.add, "forward", overflowing)
    t = tg.tensor(np.array([1, 2], dtype=np.int8))
    with pytest.raises(OverflowError, match="from the kernel"):
        t + 3
    assert len(calls) == 1
    with pytest.raises(OverflowError, match="from the kernel"):
        t + 300  # (wrapped to 44 and retried once)
    assert len(calls) == 3


def test_ops_pytorch_refuses_an_out_of_range_int_for_are_refused_here_too() -> None:
    """pow with an int exponent beyond the tensor's range is refused in PyTorch ("cannot be
    converted without overflow"), not wrapped: here too (only arithmetic ops wrap)."""
    t = tg.tensor(np.array([1, 2], dtype=np.int8))
    with pytest.raises(OverflowError):
        t**300
    assert (t * 300).tolist() == [44, 88]  # (an arithmetic op wraps)
