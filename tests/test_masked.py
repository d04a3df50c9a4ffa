"""tg.masked: values and gradients against PyTorch's torch.masked, finite-difference gradchecks
(float64), fully masked-out slices, dtypes and torch's error types."""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg
from tests.helpers import check_grads, distinct, matches_pytorch

T, F = True, False
MASK = np.array([[T, F, T, T], [F, F, F, F], [T, T, F, T]])
ROW_MASK = np.array([True, False, True, True])  # broadcast over rows
# every row and column has two elements masked in: no degenerate slice (finite everywhere)
GOOD_MASK = np.array([[T, F, T, T], [F, T, T, F], [T, T, F, T]])


def _m(lib: Any, a: np.ndarray) -> Any:
    return lib.tensor(a)


# name -> fn(lib, x, mask array): the call, as PyTorch users write it
CASES: dict[str, Callable[[Any, Any, np.ndarray], Any]] = {
    "sum": lambda m, x, k: m.masked.sum(x, 1, mask=_m(m, k)),
    "sum_all": lambda m, x, k: m.masked.sum(x, mask=_m(m, k)),
    "prod": lambda m, x, k: m.masked.prod(x, (0, 1), keepdim=True, mask=_m(m, k)),
    "amax": lambda m, x, k: m.masked.amax(x, 0, mask=_m(m, k)),
    "amin": lambda m, x, k: m.masked.amin(x, -1, keepdim=True, mask=_m(m, k)),
    "mean": lambda m, x, k: m.masked.mean(x, 0, mask=_m(m, k)),
    "median": lambda m, x, k: m.masked.median(x, 0, mask=_m(m, k)),
    "norm": lambda m, x, k: m.masked.norm(x, 2.0, 0, mask=_m(m, k)),
    "norm_1": lambda m, x, k: m.masked.norm(x, 1.0, (0, 1), mask=_m(m, k)),
    "norm_inf": lambda m, x, k: m.masked.norm(x, -math.inf, 1, mask=_m(m, k)),
    "var": lambda m, x, k: m.masked.var(x, 0, mask=_m(m, k)),
    "std": lambda m, x, k: m.masked.std(x, 1, correction=0, keepdim=True, mask=_m(m, k)),
    "logsumexp": lambda m, x, k: m.masked.logsumexp(x, 0, mask=_m(m, k)),
    "softmax": lambda m, x, k: m.masked.softmax(x, 0, mask=_m(m, k)),
    "log_softmax": lambda m, x, k: m.masked.log_softmax(x, 0, mask=_m(m, k)),
    "softmin": lambda m, x, k: m.masked.softmin(x, 0, mask=_m(m, k)),
    "normalize": lambda m, x, k: m.masked.normalize(x, 2.0, 1, mask=_m(m, k)),
    "cumsum": lambda m, x, k: m.masked.cumsum(x, 1, mask=_m(m, k)),
    "cumprod": lambda m, x, k: m.masked.cumprod(x, 1, mask=_m(m, k)),
}


NONSMOOTH = {"amax", "amin", "median", "norm_inf"}  # (no second derivative to compare)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_pytorch(name: str) -> None:
    x = distinct(3, 4, seed=1, offset=0.3)
    matches_pytorch(
        lambda m, t: CASES[name](m, t, GOOD_MASK), [x], second_order=name not in NONSMOOTH
    )


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mask", [MASK, ROW_MASK], ids=["full", "broadcast"])
def test_degenerate_slices_match_pytorch(name: str, mask: np.ndarray) -> None:
    """Fully masked-out slices (and var's single elements): values and gradients nan/inf where
    torch's are, equal elsewhere."""
    torch = pytest.importorskip("torch")
    x = distinct(3, 4, seed=1, offset=0.3)
    w = distinct(*CASES[name](tg, tg.tensor(x), mask).shape, seed=5)
    grads = []
    for m in (tg, torch):
        t = m.tensor(x, requires_grad=True)
        out = CASES[name](m, t, mask)
        (m.where(m.isfinite(out), out, m.zeros_like(out)) * m.tensor(w)).sum().backward()
        grads.append((out.detach().numpy(), t.grad.numpy()))
    for ours, theirs in zip(grads[0], grads[1]):
        np.testing.assert_allclose(ours, theirs, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name: str) -> None:
    fn = CASES[name]
    x = distinct(3, 4, seed=2, offset=0.4)

    def f(t: tg.Tensor) -> tg.Tensor:
        out = fn(tg, t, GOOD_MASK)
        return out[GOOD_MASK] if out.shape == t.shape else out  # (log_softmax: -inf masked out)

    check_grads(f, x, second=name not in NONSMOOTH)


def test_gradient_is_zero_at_masked_out_elements() -> None:
    x = tg.tensor(distinct(3, 4, seed=3), requires_grad=True)
    for name in ("sum", "mean", "amax", "softmax", "var", "norm"):
        x.grad = None
        out = CASES[name](tg, x, MASK)
        tg.where(tg.isfinite(out), out, tg.zeros_like(out)).sum().backward()
        assert x.grad is not None
        assert np.all(x.grad.numpy()[~MASK] == 0.0), name


def test_logaddexp_matches_pytorch() -> None:
    a, b = distinct(3, 4, seed=4), distinct(3, 4, seed=5)

    def run(m: Any, x: Any, y: Any) -> Any:
        return m.masked.logaddexp(x, y, input_mask=_m(m, MASK), other_mask=_m(m, ROW_MASK))

    out = run(tg, tg.tensor(a), tg.tensor(b)).numpy()
    assert np.isneginf(out[1, 1])  # both masked out
    b2 = b.copy()
    b2[:, 1] = 0.0  # the masked-out column of `other`: never read

    def finite(m: Any, x: Any, y: Any) -> Any:
        r = run(m, x, y)
        return m.where(m.isfinite(r), r, m.zeros_like(r))

    matches_pytorch(finite, [a, b2])
    # second order: nan where an element is -inf on one side only (torch's too), equal elsewhere
    torch = pytest.importorskip("torch")
    found = []
    for m in (tg, torch):
        x, y = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        gs = m.autograd.grad(finite(m, x, y).sum(), [x, y], create_graph=True)
        hs = m.autograd.grad(gs[0].sum() + gs[1].sum(), [x, y])
        found.append([h.detach().numpy() for h in (*gs, *hs)])
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-12, equal_nan=True)
    # (second order: nan where one side is -inf, torch's too, compared above)
    check_grads(lambda x, y: run(tg, x, y)[MASK | ROW_MASK], a, b, second=False)


def test_fully_masked_out_slices_give_torchs_values() -> None:
    torch = pytest.importorskip("torch")
    x = distinct(3, 4, seed=6)
    for name, fn in CASES.items():
        ours = fn(tg, tg.tensor(x), MASK).numpy()
        theirs = fn(torch, torch.tensor(x), MASK).numpy()
        np.testing.assert_allclose(ours, theirs, err_msg=name, equal_nan=True)


def test_argmax_argmin_and_dtypes() -> None:
    torch = pytest.importorskip("torch")
    x = distinct(3, 4, seed=7)
    for lib_name in ("argmax", "argmin"):
        for dim in (0, 1, None):
            ours = getattr(tg.masked, lib_name)(tg.tensor(x), dim, mask=tg.tensor(ROW_MASK))
            ref = getattr(torch.masked, lib_name)
            theirs = ref(torch.tensor(x), dim, mask=torch.tensor(ROW_MASK))
            assert ours.dtype == np.float64  # the input's dtype, as torch's
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ints = np.arange(12).reshape(3, 4) - 5
    for name in ("sum", "prod", "amax", "amin", "logsumexp", "cumsum"):
        fn = getattr(tg.masked, name)
        ref = getattr(torch.masked, name)
        ours = fn(tg.tensor(ints), 1, mask=tg.tensor(ROW_MASK))
        theirs = ref(torch.tensor(ints), 1, mask=torch.tensor(ROW_MASK))
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", ""), name
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    out = tg.masked.sum(tg.tensor(x), 0, dtype=tg.float32, mask=tg.tensor(MASK))
    assert out.dtype == np.float32
    with pytest.raises(ValueError, match="mean\\(\\): Could not infer output dtype"):
        tg.masked.mean(tg.tensor(ints), 0)
    with pytest.raises(ValueError, match="fully masked out rows"):
        tg.masked.median(tg.tensor(ints), 1, mask=tg.tensor(MASK))


def test_without_mask_it_is_the_plain_reduction() -> None:
    x = tg.tensor(distinct(3, 4, seed=8))
    np.testing.assert_allclose(tg.masked.sum(x, 1).numpy(), x.sum(1).numpy())
    np.testing.assert_allclose(tg.masked.var(x).numpy(), x.var().numpy())
    np.testing.assert_allclose(tg.masked.softmax(x, 0).numpy(), x.softmax(0).numpy())


def test_errors_have_torchs_types() -> None:
    torch = pytest.importorskip("torch")
    x = distinct(3, 4, seed=9)
    bad: list[tuple[str, Callable[[Any, Any], Any]]] = [
        ("mask with more dims", lambda m, t: m.masked.sum(t, 0, mask=m.ones(2, 3, 4) > 0)),
        ("mask not broadcastable", lambda m, t: m.masked.sum(t, 0, mask=m.ones(3) > 0)),
        ("dim out of range", lambda m, t: m.masked.amax(t, 2, mask=m.ones(4) > 0)),
        ("repeated dim", lambda m, t: m.masked.sum(t, (1, -1), mask=m.ones(4) > 0)),
        ("softmax dim", lambda m, t: m.masked.softmax(t, -3, mask=m.ones(4) > 0)),
    ]
    for what, fn in bad:
        with pytest.raises(Exception) as theirs:
            fn(torch, torch.tensor(x))
        with pytest.raises(type(theirs.value)):
            fn(tg, tg.tensor(x))
        assert type(theirs.value) in (IndexError, RuntimeError), what


def test_signatures_are_torchs() -> None:
    torch = pytest.importorskip("torch")
    for name in tg.masked.__all__:
        ours = inspect.signature(getattr(tg.masked, name))
        theirs = inspect.signature(getattr(torch.masked, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
            (p.name, p.kind, p.default) for p in theirs.parameters.values()
        ], name


@pytest.mark.parametrize("module", ["reductions", "normalizations"])
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    found = importlib.import_module(f"tapegrad.masked.{module}")
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(found, extraglobs={"tg": tg}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
