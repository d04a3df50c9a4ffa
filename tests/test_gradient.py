"""tg.gradient: torch.gradient's estimates (spacing as a number, numbers per dimension or
coordinate tensors; dim as an int or a list; edge_order 1 and 2), its tuple result, dtypes and
errors, its derivatives against finite differences, and all of it against torch where installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, rand

F = [[1.0, 2.0, 4.0, 8.0], [10.0, 20.0, 40.0, 80.0], [3.0, 5.0, 9.0, 1.0]]
COORDS = [0.0, 1.0, 1.5, 3.5]

# keyword sets compared with torch; "C" stands for the coordinates COORDS along dim 1
CALLS = [
    {},
    {"edge_order": 2},
    {"spacing": 2.0},
    {"spacing": 2.0, "dim": 1, "edge_order": 2},
    {"spacing": [2.0, 3.0]},
    {"spacing": [0.5], "dim": -1},
    {"spacing": [0.5, 4], "dim": (1, 0), "edge_order": 2},
    {"dim": [1, 0]},
    {"dim": 0, "edge_order": 2},
    {"spacing": "C", "dim": 1},
    {"spacing": "C", "dim": 1, "edge_order": 2},
    {"spacing": "C", "dim": [1]},
    {"spacing": None},
    {"spacing": [True, 2]},
    {"spacing": (2, 3.5), "edge_order": 2},
    {"dim": []},
]


def test_values_by_hand():
    """Central differences inside, one-sided at the edges; second order edges exact on a
    quadratic; coordinates weigh the neighbours by their distances."""
    (g,) = tg.gradient(tg.tensor([1.0, 2.0, 4.0, 8.0]))
    assert g.tolist() == [1.0, 1.5, 3.0, 4.0]
    x = np.array([0.0, 1.0, 3.0, 4.0, 7.0])
    (exact,) = tg.gradient(tg.tensor(x**2), spacing=[tg.tensor(x)], edge_order=2)
    np.testing.assert_allclose(exact.numpy(), 2 * x, atol=1e-6)  # (quadratics: no error)
    (uniform,) = tg.gradient(tg.tensor([0.0, 1.0, 4.0, 9.0]), spacing=1.0, edge_order=2)
    np.testing.assert_allclose(uniform.numpy(), [0.0, 2.0, 4.0, 6.0])
    rows, cols = tg.gradient(tg.tensor(F), spacing=[2.0, 3.0])
    assert rows.shape == cols.shape == (3, 4)
    assert rows[:, 0].tolist() == [4.5, 0.5, -3.5]  # (10-1)/2, (3-1)/(2*2), (3-10)/2


def test_result_is_a_tuple_with_pytorchs_dtypes():
    out = tg.gradient(tg.tensor(F))
    assert type(out) is tuple and len(out) == 2
    assert tg.gradient(tg.tensor(3.0)) == ()  # (a 0-d tensor has no dimension to differentiate)
    assert tg.gradient(tg.tensor([1, 2, 4]))[0].dtype == np.float32  # (integers: the default)
    assert tg.gradient(tg.ones(3, 2, dtype=tg.float16))[0].dtype == np.float16
    f, c = tg.tensor(F), tg.tensor(COORDS, dtype=tg.float64)
    assert tg.gradient(f, spacing=[c], dim=1)[0].dtype == np.float64  # (promoted, as torch's)
    assert tg.gradient(tg.tensor(3.0), dim=None) == ()


@pytest.mark.parametrize(
    "keywords, error, message",
    [
        ({"edge_order": 3}, RuntimeError, "only supports edge_order=1 and edge_order=2"),
        ({"spacing": [1.0, 2.0, 3.0]}, RuntimeError, "a list of length equal to 'self.dim"),
        ({"spacing": [2.0], "dim": (0, 1)}, RuntimeError, "spacing argument of length 1"),
        ({"dim": [0, 0]}, RuntimeError, "dim 0 appears multiple times"),
        ({"dim": 2}, IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\]"),
        ({"spacing": "a"}, TypeError, "invalid combination of arguments"),
        ({"spacing": [1.0, "C"]}, TypeError, "expected Tensor as element 0"),
        ({"spacing": ["C", 1.0]}, TypeError, "expected Tensor as element 1"),
        ({"spacing": "C", "dim": 0}, RuntimeError, "coordinates for dim 0 have 4 values"),
        ({"spacing": "M", "dim": 1}, RuntimeError, "to have one dimension, but got an element"),
        ({"spacing": "T", "dim": 1}, TypeError, "invalid combination of arguments"),
        ({"spacing": ["Z", "Z"]}, RuntimeError, "but got an element with 0 dimensions!"),
        ({"edge_order": True}, TypeError, "invalid combination of arguments"),
        ({"dim": [1.0]}, TypeError, "invalid combination of arguments"),
    ],
)
def test_errors(keywords, error, message):
    kw = dict(keywords)
    named = {
        "C": tg.tensor(COORDS),
        "M": tg.ones(2, 2),
        "T": tg.tensor(COORDS),
        "Z": tg.tensor(2.0),
    }
    if isinstance(kw.get("spacing"), list):
        kw["spacing"] = [named.get(s, s) if isinstance(s, str) else s for s in kw["spacing"]]
    elif kw.get("spacing") in ("C", "M"):
        kw["spacing"] = [named[kw["spacing"]]]
    elif kw.get("spacing") == "T":  # (a 1-D tensor not in a list: torch's TypeError)
        kw["spacing"] = named["T"]
    with pytest.raises(error, match=message):
        tg.gradient(tg.tensor(F), **kw)


def test_sizes_too_small_and_uint8():
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        tg.gradient(tg.ones(2, 1))
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        tg.gradient(tg.ones(2), edge_order=2)
    assert tg.gradient(tg.ones(2))[0].tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="does not support uint8"):
        tg.gradient(tg.tensor([1, 2, 3], dtype=tg.uint8))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradients_against_finite_differences(edge_order):
    w = rand(4, 5, seed=3)

    def uniform(f):
        a, b = tg.gradient(f, spacing=[0.5, 2.0], edge_order=edge_order)
        return (a * tg.tensor(w)).sum() + (b * b).sum()

    check_grads(uniform, rand(4, 5))

    def coordinates(f, x):
        (a,) = tg.gradient(f, spacing=[x], dim=1, edge_order=edge_order)
        return (a * tg.tensor(w)).sum()

    x = np.array([0.0, 0.7, 1.5, 2.1, 3.4])
    check_grads(coordinates, rand(4, 5), x)


@pytest.mark.parametrize("call", range(len(CALLS)))
def test_matches_torch(call):
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    keywords = CALLS[call]
    ours_kw, theirs_kw = dict(keywords), dict(keywords)
    if keywords.get("spacing") == "C":
        ours_kw["spacing"] = [tg.tensor(COORDS, dtype=tg.float64, requires_grad=True)]
        theirs_kw["spacing"] = [torch.tensor(COORDS, dtype=torch.float64, requires_grad=True)]
    f = rand(3, 4, seed=call)
    ours_f = tg.tensor(f, requires_grad=True)
    theirs_f = torch.tensor(f, requires_grad=True)
    ours = tg.gradient(ours_f, **ours_kw)
    theirs = torch.gradient(theirs_f, **theirs_kw)
    assert type(ours) is type(theirs) is tuple and len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    if not ours:  # (dim=[]: nothing to differentiate)
        return
    weights = [rand(*a.shape, seed=10 + i) for i, a in enumerate(ours)]
    sum(((a * tg.tensor(u)).sum() for a, u in zip(ours, weights)), tg.tensor(0.0)).backward()
    sum((b * torch.tensor(u)).sum() for b, u in zip(theirs, weights)).backward()
    np.testing.assert_allclose(ours_f.grad.numpy(), theirs_f.grad.numpy(), rtol=1e-10)
    if keywords.get("spacing") == "C":
        np.testing.assert_allclose(
            ours_kw["spacing"][0].grad.numpy(), theirs_kw["spacing"][0].grad.numpy(), rtol=1e-10
        )


def test_integer_and_float16_values_against_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    for data, kw in (([1, 2, 4, 8], {}), ([1, 2, 4, 8], {"spacing": 2}), ([1, 2, 4, 7], {})):
        (a,), (b,) = tg.gradient(tg.tensor(data), **kw), torch.gradient(torch.tensor(data), **kw)
        assert str(a.dtype) == str(b.dtype).removeprefix("torch.")
        np.testing.assert_allclose(a.numpy(), b.numpy())
    (a,) = tg.gradient(tg.tensor([1, 2, 4, 8]), spacing=[tg.tensor([0, 1, 3, 4])])
    (b,) = torch.gradient(torch.tensor([1, 2, 4, 8]), spacing=[torch.tensor([0, 1, 3, 4])])
    np.testing.assert_allclose(a.numpy(), b.numpy())


def test_docstring_examples_run():
    import doctest
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (lu_solve's deprecation warning)
        result = doctest.testmod(
            importlib.import_module("tapegrad.finite_differences"),
            extraglobs={"tg": tg},
            optionflags=doctest.NORMALIZE_WHITESPACE,
        )
    assert result.attempted and not result.failed
