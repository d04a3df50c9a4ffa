"""Programs written as PyTorch users write them, run on tapegrad and on PyTorch.

Each program is a function of the library it runs on (`torch`), registered with the closed-form
results it must give on tapegrad (or the error it must raise). `Programs.tests()` makes the three
tests of a test module: closed forms on tapegrad (always), the error on tapegrad, and the same
results (or an error) on PyTorch when it is installed. Imported as `from pytorch_programs import
Programs` (tests/ is on sys.path, see conftest.py).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple

import numpy as np
import pytest

import tapegrad as tg


class Program(NamedTuple):
    fn: Callable[[Any], dict]
    expected: dict  # name -> value (closed form), for tapegrad
    raises: tuple | None  # (exception type, regex) tapegrad must raise (PyTorch must raise too)


def as_numpy(v: Any) -> Any:
    """Tensors of either library (and nests of them) as NumPy arrays; other values as they are."""
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return [as_numpy(x) for x in v]
    if hasattr(v, "detach"):
        return np.asarray(v.detach().numpy())
    if isinstance(v, tg.Tensor):
        return np.asarray(v.numpy())
    return v


def assert_same(name: str, got: Any, want: Any) -> None:
    got, want = as_numpy(got), as_numpy(want)
    if isinstance(got, list):  # several results (one gradient per input, a shape, ...)
        assert isinstance(want, list) and len(got) == len(want), f"{name}: {got!r} != {want!r}"
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same(f"{name}[{i}]", a, b)
        return
    if got is None or want is None:
        assert got is want, f"{name}: {got!r}, expected {want!r}"
        return
    if isinstance(want, (bool, str)):
        assert got == want, f"{name}: {got!r}, expected {want!r}"
        return
    got_a, want_a = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got_a.shape == want_a.shape, f"{name}: shape {got_a.shape}, expected {want_a.shape}"
    assert np.allclose(got_a, want_a, rtol=1e-6, atol=1e-7, equal_nan=True), (
        f"{name}: {got_a.tolist()}, expected {want_a.tolist()}"
    )


def quiet(fn: Callable, lib: Any) -> dict:
    """Run a program with warnings silenced (the programs about warnings record their own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(lib)


class Programs(dict):
    """A test module's programs, by name."""

    def program(self, expected: dict | None = None, raises: tuple | None = None) -> Callable:
        """Register `fn(torch) -> {name: value}` with its closed-form results (or its error)."""

        def register(fn: Callable) -> Callable:
            self[fn.__name__] = Program(fn, expected or {}, raises)
            return fn

        return register

    def tests(self) -> tuple:
        """The module's three tests (assign them to test_... names)."""
        computing = [n for n, p in self.items() if p.raises is None]
        raising = [n for n, p in self.items() if p.raises is not None]

        @pytest.mark.parametrize("name", computing)
        def closed_form(name: str) -> None:
            p = self[name]
            got = quiet(p.fn, tg)
            assert set(got) == set(p.expected), f"{name} returns {sorted(got)}"
            for key, want in p.expected.items():
                assert_same(f"{name}: {key}", got[key], want)

        @pytest.mark.parametrize("name", raising)
        def raises(name: str) -> None:
            exc, pattern = self[name].raises
            with pytest.raises(exc, match=pattern):
                quiet(self[name].fn, tg)

        @pytest.mark.parametrize("name", list(self))
        def matches_pytorch(name: str) -> None:
            torch = pytest.importorskip("torch", reason="compares with PyTorch when installed")
            p = self[name]
            if p.raises is not None:
                with pytest.raises(Exception):
                    quiet(p.fn, torch)
                return
            want, got = quiet(p.fn, torch), quiet(p.fn, tg)
            assert set(got) == set(want)
            for key in want:
                assert_same(f"{name}: {key} (tapegrad vs PyTorch)", got[key], want[key])

        return closed_form, raises, matches_pytorch
