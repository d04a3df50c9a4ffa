"""How one sample is judged: a result against PyTorch's, an error by what kind of error it is.

An outcome is `passed`, `refused` (a clear error: tapegrad raised it on purpose, or a signature
turned a keyword or an argument away, or a name is missing), `unclear` (an exception that is not a
clear error: a NumPy traceback, an AttributeError, arithmetic on None inside tapegrad) or
`mismatch` (a value, dtype, shape, structure or gradient that differs from PyTorch's).
"""

from __future__ import annotations

import math
import os
import re
import traceback
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch

import tapegrad as tg

from .translate import MissingName

# (rtol, atol) by dtype unless the mapping says otherwise: torch.testing.assert_close's defaults
TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}
TOLERANCES |= {"complex64": TOLERANCES["float32"], "complex128": TOLERANCES["float64"]}

_TAPEGRAD_DIR = os.path.dirname(tg.__file__) + os.sep
_NUMPY_DIR = os.path.dirname(np.__file__) + os.sep
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_CLEAR_TYPES = (TypeError, ValueError, NotImplementedError, RuntimeError, IndexError, KeyError)


@dataclass
class Outcome:
    """What happened to one sample of one variant."""

    verdict: str  # "passed" | "refused" | "unclear" | "mismatch"
    category: str = ""  # refusals and unclear errors: the message's kind; mismatches: what differs
    detail: str = ""  # the sample and the numbers, for the reader of a failure
    torch_nan: bool = False  # every differing value is NaN on PyTorch's side only
    ties_only: bool = False  # indices that differ only in the order of equal values


PASSED = Outcome("passed")


@dataclass
class Tally:
    """The counts of one entry (an OpInfo with its variant, a module, an optimizer)."""

    name: str
    kind: str  # "op" | "module" | "optimizer"
    samples: int = 0
    passed: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    unclear: dict[str, int] = field(default_factory=dict)
    unclear_samples: list[tuple[str, Outcome]] = field(default_factory=list)  # (variant, outcome)
    mismatches: list[tuple[str, Outcome]] = field(default_factory=list)  # (variant, outcome)
    excused: list[tuple[str, Outcome, str]] = field(default_factory=list)  # (+ the reason)

    def add(self, variant: str, outcome: Outcome) -> None:
        self.samples += 1
        if outcome.verdict == "passed":
            self.passed += 1
        elif outcome.verdict == "refused":
            self.refused[outcome.category] = self.refused.get(outcome.category, 0) + 1
        elif outcome.verdict == "unclear":
            self.unclear[outcome.category] = self.unclear.get(outcome.category, 0) + 1
            self.unclear_samples.append((variant, outcome))
        else:
            self.mismatches.append((variant, outcome))


class Refused(Exception):
    """tapegrad's side ended in an exception; `outcome` is its verdict."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.category)
        self.outcome = outcome


def tapegrad_side(call: Callable[[], Any]) -> Any:
    """Run tapegrad's side of a comparison; an exception becomes its verdict (raised as Refused)."""
    try:
        return call()
    except Exception as error:  # (every exception is judged: clear, missing name, or unclear)
        raise Refused(classify(error)) from error


# ---- errors ------------------------------------------------------------------------------------
def _normalized(message: str) -> str:
    first = message.strip().splitlines()[0] if message.strip() else ""
    first = re.sub(r"\(\s*[\d,\s]*\)", "(...)", first)  # shapes
    first = re.sub(r"\d+", "N", first)
    return first[:110]


def _is_tapegrad(obj: Any) -> bool:
    if isinstance(obj, types.ModuleType):
        return obj.__name__.split(".")[0] == "tapegrad"
    if isinstance(obj, type):
        return obj.__module__.split(".")[0] == "tapegrad"
    return type(obj).__module__.split(".")[0] == "tapegrad"


def _owner(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return "tg" + obj.__name__.removeprefix("tapegrad")
    if isinstance(obj, tg.Tensor) or obj is tg.Tensor:
        return "Tensor"
    return type(obj).__name__ if not isinstance(obj, type) else obj.__name__


def classify(error: BaseException) -> Outcome:
    """A refusal (clear error), a missing name, or an unclear error, with its category."""
    if isinstance(error, MissingName):
        return Outcome("refused", f"missing name: {error.name}")
    frames = traceback.extract_tb(error.__traceback__)
    last = frames[-1] if frames else None
    where = last.filename if last else ""
    message = str(error)
    if isinstance(error, AttributeError):
        obj, name = getattr(error, "obj", None), getattr(error, "name", None)
        if name and _is_tapegrad(obj) and not hasattr(obj, name):
            if not where.startswith(_TAPEGRAD_DIR):  # looked up by the caller: tapegrad lacks it
                return Outcome("refused", f"missing name: {_owner(obj)}.{name}")
    if isinstance(error, TypeError):
        keyword = re.search(r"unexpected keyword argument '(\w+)'", message)
        if keyword:
            return Outcome("refused", f"keyword refused: {keyword.group(1)}=")
        if re.search(r"positional argument|required keyword-only argument", message):
            return Outcome("refused", f"signature: {_normalized(message)}")
        operand = re.search(r"unsupported operand type\(s\) for (\S+): .*'Tensor'", message)
        if operand and not where.startswith(_TAPEGRAD_DIR):  # Python found no Tensor.__op__
            return Outcome("refused", f"operator refused: {operand.group(1)}")
    if where.startswith(_TORCH_DIR):
        return Outcome("unclear", f"harness: a PyTorch helper got a tapegrad value: {message[:80]}")
    by_raise = last is not None and (last.line or "").lstrip().startswith("raise")
    if where.startswith(_TAPEGRAD_DIR) and by_raise and isinstance(error, _CLEAR_TYPES):
        return Outcome("refused", f"{type(error).__name__}: {_normalized(message)}")
    if where.startswith(_NUMPY_DIR):
        place = "NumPy"
        for frame in reversed(frames):  # the tapegrad line that called NumPy
            if frame.filename.startswith(_TAPEGRAD_DIR):
                place = f"NumPy from {_short(frame.filename)}:{frame.name}"
                break
    else:
        place = f"{_short(where)}:{last.name}" if last else "?"
    return Outcome("unclear", f"{type(error).__name__} in {place}: {_normalized(message)}")


def _short(path: str) -> str:
    if path.startswith(_TAPEGRAD_DIR):
        return "tapegrad/" + path[len(_TAPEGRAD_DIR) :]
    return os.path.basename(path)


# ---- results -----------------------------------------------------------------------------------
def field_names(value: Any) -> tuple[str, ...] | None:
    """A named tuple's (or torch.return_types') field names; None for a plain tuple."""
    names = getattr(value, "_fields", None) or getattr(type(value), "__match_args__", None)
    return tuple(names) if names else None


def compare(
    expected: Any, got: Any, *, values: bool = True, tolerance: tuple[float, float] | None = None
) -> Outcome:
    """PyTorch's result against tapegrad's: structure, then shape, dtype and values of each tensor
    (`values=False`: uninitialised memory, whose values cannot agree)."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, tg.Tensor):
            return Outcome("mismatch", "structure", f"a Tensor expected, got {type(got).__name__}")
        return compare_arrays(
            expected.numpy(force=True), got.numpy(), values=values, tolerance=tolerance
        )
    if isinstance(expected, (tuple, list)):
        if type(got) is not type(expected) and not (
            isinstance(expected, tuple) and isinstance(got, tuple)
        ):
            return Outcome(
                "mismatch",
                "structure",
                f"a {type(expected).__name__} expected, got {type(got).__name__}",
            )
        fields = field_names(expected)
        if fields is not None and field_names(got) != fields:
            return Outcome(
                "mismatch", "structure", f"named fields {fields} expected, got {field_names(got)}"
            )
        if len(got) != len(expected):
            return Outcome(
                "mismatch", "structure", f"{len(expected)} results expected, got {len(got)}"
            )
        for i, (e, g) in enumerate(zip(expected, got)):
            found = compare(e, g, values=values, tolerance=tolerance)
            if found.verdict != "passed":
                found.detail = f"result [{i}]: {found.detail}"
                return found
        return PASSED
    if isinstance(expected, (bool, int, float)):
        if type(got) is not type(expected):
            return Outcome(
                "mismatch",
                "structure",
                f"a Python {type(expected).__name__} expected, got {type(got).__name__}",
            )
        same = (
            (math.isnan(expected) and math.isnan(got))
            if isinstance(expected, float) and math.isnan(expected)
            else math.isclose(expected, got, rel_tol=1e-7, abs_tol=1e-7)
        )
        return (
            PASSED
            if (same or not values)
            else Outcome("mismatch", "value", f"{expected!r} expected, got {got!r}")
        )
    if expected is None:
        return PASSED if got is None else Outcome("mismatch", "structure", "None expected")
    return PASSED if expected == got else Outcome("mismatch", "value", f"{expected!r} vs {got!r}")


def compare_arrays(
    expected: np.ndarray,
    got: np.ndarray,
    *,
    values: bool = True,
    tolerance: tuple[float, float] | None = None,
    what: str = "",
) -> Outcome:
    """Two arrays: shape, dtype, then values (floats within tolerance, NaN where NaN is)."""
    kind = f"{what} " if what else ""
    if expected.shape != got.shape:
        return Outcome(
            "mismatch", f"{kind}shape", f"shape {expected.shape} expected, got {got.shape}"
        )
    if expected.dtype != got.dtype:
        return Outcome("mismatch", f"{kind}dtype", f"{expected.dtype} expected, got {got.dtype}")
    if not values:
        return PASSED
    if expected.dtype.kind in "fc":
        nan_e, nan_g = np.isnan(expected), np.isnan(got)
        if not np.array_equal(nan_e, nan_g):
            wrong = nan_e != nan_g
            return Outcome(
                "mismatch",
                f"{kind}NaN",
                _first_difference(expected, got, wrong),
                torch_nan=bool(np.all(nan_e[wrong])),
            )
        finite = ~nan_e
        rtol, atol = tolerance or TOLERANCES[expected.dtype.name]
        close = np.isclose(expected[finite], got[finite], rtol=rtol, atol=atol)
        if not close.all():
            wrong = np.zeros(expected.shape, dtype=bool)
            wrong[finite] = ~close
            return Outcome("mismatch", f"{kind}value", _first_difference(expected, got, wrong))
        return PASSED
    if not np.array_equal(expected, got):
        return Outcome(
            "mismatch", f"{kind}value", _first_difference(expected, got, expected != got)
        )
    return PASSED


def _first_difference(expected: np.ndarray, got: np.ndarray, wrong: np.ndarray) -> str:
    where = tuple(int(i) for i in np.argwhere(np.atleast_1d(wrong))[0]) if expected.ndim else ()
    e = expected[where] if expected.ndim else expected[()]
    g = got[where] if got.ndim else got[()]
    count = int(np.count_nonzero(wrong))
    return f"at {where}: {e!r} expected, got {g!r} ({count} of {expected.size} differ)"
