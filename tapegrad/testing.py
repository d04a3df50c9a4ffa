"""tg.testing, as `torch.testing`: `assert_close(actual, expected)`, the comparison programs'
tests call: tensors (or NumPy arrays, or Python numbers) close within tolerances by dtype, nested
in sequences and mappings, with PyTorch's errors (AssertionError naming what differs, TypeError
for inputs it cannot compare, ValueError for one tolerance without the other).

Layer L4: numpy and the Tensor class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from .tensor import Tensor

__all__ = ["assert_close"]

# PyTorch's default (rtol, atol) by dtype; integers and bools compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def _tolerances(dtype: np.dtype, rtol: float | None, atol: float | None) -> tuple[float, float]:
    if rtol is not None and atol is not None:
        return rtol, atol
    return _TOLERANCES.get(dtype.name, (0.0, 0.0))


def _fail(msg: str | Callable[[str], str] | None, default: str) -> AssertionError:
    if msg is None:
        return AssertionError(default)
    return AssertionError(msg(default) if callable(msg) else msg)


def _close_arrays(
    actual: np.ndarray,
    expected: np.ndarray,
    rtol: float,
    atol: float,
    equal_nan: bool,
    msg: Any,
) -> None:
    """Raise unless every element is within atol + rtol * |expected| (infinities equal, NaNs
    equal only with equal_nan), with PyTorch's report of the greatest differences."""
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = (a == e) | (np.abs(a - e) <= atol + rtol * np.abs(e))
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
    if close.all():
        return
    exact = rtol == 0 and atol == 0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.abs(a - e)
        rel = diff / np.abs(e)
    wrong = int((~close).sum())

    def where(values: np.ndarray) -> tuple[float, tuple[int, ...]]:
        masked = np.where(~close, values, -np.inf)
        flat = int(np.nanargmax(masked)) if not np.all(np.isnan(masked)) else 0
        if np.isnan(values.reshape(-1)[~close.reshape(-1)]).any():
            flat = int(np.flatnonzero(~close.reshape(-1) & np.isnan(values.reshape(-1)))[0])
        return float(values.reshape(-1)[flat]), tuple(
            int(i) for i in np.unravel_index(flat, a.shape)
        )

    (d, di), (r, ri) = where(diff), where(rel)
    integral = actual.dtype.kind in "biu"
    shown = f"{int(d)}" if integral and np.isfinite(d) else f"{d}"
    lines = [
        f"Tensor-likes are not {'equal' if exact else 'close'}!",
        "",
        f"Mismatched elements: {wrong} / {a.size} ({100 * wrong / a.size:.1f}%)",
        f"Greatest absolute difference: {shown} at index {di}"
        + ("" if exact else f" (up to {atol} allowed)"),
        f"Greatest relative difference: {r} at index {ri}"
        + ("" if exact else f" (up to {rtol} allowed)"),
    ]
    raise _fail(msg, "\n".join(lines))


def _compare(actual: Any, expected: Any, options: dict, msg: Any) -> None:
    check_dtype = options["check_dtype"]
    rtol, atol, equal_nan = options["rtol"], options["atol"], options["equal_nan"]
    if actual is None and expected is None:
        return
    arrays = (Tensor, np.ndarray)
    if isinstance(actual, arrays) or isinstance(expected, arrays):
        if not (
            (isinstance(actual, Tensor) and isinstance(expected, Tensor))
            or (isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray))
        ):
            raise TypeError(
                f"No comparison pair was able to handle inputs of type {type(actual)} and "
                f"{type(expected)}."
            )
        a = actual.detach().numpy() if isinstance(actual, Tensor) else actual
        e = expected.detach().numpy() if isinstance(expected, Tensor) else expected
        if a.shape != e.shape:
            raise _fail(
                msg, f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}."
            )
        if check_dtype and a.dtype != e.dtype:
            raise _fail(
                msg, f"The values for attribute 'dtype' do not match: {a.dtype} != {e.dtype}."
            )
        dtype = np.promote_types(a.dtype, e.dtype) if a.dtype != e.dtype else a.dtype
        _close_arrays(a, e, *_tolerances(dtype, rtol, atol), equal_nan, msg)
        return
    numbers = (bool, int, float)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if check_dtype and type(actual) is not type(expected):
            raise _fail(msg, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        kind = np.dtype(np.float64) if isinstance(actual, float) else np.dtype(np.int64)
        r, t = _tolerances(kind, rtol, atol)
        x, y = float(actual), float(expected)
        ok = x == y or abs(x - y) <= t + r * abs(y) or (equal_nan and x != x and y != y)
        if not ok:
            exact = r == 0 and t == 0
            diff = abs(x - y)
            shown = diff if isinstance(actual, float) else int(diff)
            raise _fail(
                msg,
                f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {expected} but got "
                f"{actual}.\nAbsolute difference: {shown}"
                + ("" if exact else f" (up to {t} allowed)")
                + f"\nRelative difference: {diff / abs(y) if y else float('inf')}"
                + ("" if exact else f" (up to {r} allowed)"),
            )
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=repr)
            extra = sorted(set(actual) - set(expected), key=repr)
            raise _fail(
                msg,
                f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                f"{missing}\nAdditional keys in the actual mapping: {extra}",
            )
        for key in expected:
            _compare(actual[key], expected[key], options, msg)
        return
    sequences = (str, bytes)
    if (
        isinstance(actual, Sequence)
        and isinstance(expected, Sequence)
        and not isinstance(actual, sequences)
        and not isinstance(expected, sequences)
    ):
        if len(actual) != len(expected):
            raise _fail(
                msg, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
            )
        for a_item, e_item in zip(actual, expected):
            _compare(a_item, e_item, options, msg)
        return
    raise TypeError(
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Raise an AssertionError unless `actual` and `expected` (tensors, NumPy arrays, Python
    numbers, or sequences and mappings of them) have the same shapes and dtypes and values within
    rtol and atol (by default PyTorch's for their dtype; exact for integers).

    >>> tg.testing.assert_close(tg.tensor([1.0, 2.0]), tg.tensor([1.0, 2.0 + 1e-7]))
    """
    if (rtol is None) != (atol is None):
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}."
        )
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_dtype": check_dtype}
    _compare(actual, expected, options, msg)
