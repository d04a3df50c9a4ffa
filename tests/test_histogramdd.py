"""tg.histogramdd: torch.histogramdd's counts of points in an N-dimensional grid of bins (bins as a
number, a number per dimension or edge tensors; range, weight, density), its named result with a
tuple of edges, and its errors, by hand and against torch where it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg

P = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]
CLOUD = np.random.default_rng(0).normal(size=(200, 3)).tolist()

# (points, bins, keywords): the calls compared with torch; "E" in bins stands for edge tensors
CALLS = [
    (P, [3, 3], {}),
    (P, 2, {}),
    (P, (2, 3), {}),
    (P, [3, 3], {"weight": [1.0, 2.0, 4.0, 8.0]}),
    (P, [2, 2], {"range": [0.0, 1.0, 0.0, 1.0]}),
    (P, [2, 2], {"range": (0.0, 1.0, 0.0, 1.0), "density": True}),
    (P, 2, {"density": True, "weight": [1.0, 2.0, 3.0, 0.5]}),
    (P, "E", {}),
    (P, "E", {"density": True}),
    ([[1.0], [1.0]], 2, {}),
    ([[0.0, 5.0], [1.0, 1.0]], 2, {"range": [0.0, 1.0, 0.0, 1.0]}),
    ([[0.0, float("nan")], [1.0, 1.0]], 2, {"range": [0.0, 1.0, 0.0, 1.0]}),
    (np.zeros((0, 2)).tolist(), 2, {}),
    (CLOUD, [4, 5, 6], {}),
    (CLOUD, 7, {"density": True}),
    (np.asarray(CLOUD).reshape(10, 20, 3).tolist(), [3, 2, 4], {}),
    ([[0.1, 0.2], [0.2, 0.30000000000000004]], [3, 3], {"range": [0.0, 0.3, 0.0, 0.3]}),
]
EDGES = [[0.0, 1.0, 2.0], [0.0, 1.0, 4.0]]


def test_counts_edges_and_result_structure():
    h = tg.histogramdd(tg.tensor(P), bins=[3, 3], weight=tg.tensor([1.0, 2.0, 4.0, 8.0]))
    assert type(h).__name__ == "histogramdd" and h._fields == ("hist", "bin_edges")
    hist, edges = h
    assert hist.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]
    assert type(edges) is tuple and len(edges) == 2
    np.testing.assert_allclose(edges[1].numpy(), [0.0, 2 / 3, 4 / 3, 2.0], rtol=1e-6)
    assert repr(h).startswith("histogramdd(hist=tensor(")
    # (rows of a 3-D input are its points; a single value widens its range by 0.5 each side)
    assert tg.histogramdd(tg.rand(3, 2, 3), bins=2).hist.shape == (2, 2, 2)
    one = tg.histogramdd(tg.tensor([[1.0], [1.0]]), 2)
    assert one.hist.tolist() == [0.0, 2.0] and one.bin_edges[0].tolist() == [0.5, 1.0, 1.5]
    dense = tg.histogramdd(tg.tensor(CLOUD, dtype=tg.float64), bins=[4, 5, 6], density=True)
    widths = [np.diff(e.numpy()) for e in dense.bin_edges]
    volume = np.einsum("i,j,k->ijk", *widths)
    assert dense.hist.dtype == np.float64 and np.isclose((dense.hist.numpy() * volume).sum(), 1)


def test_range_weight_density_positionally():
    a = tg.histogramdd(tg.ones(3, 2), 2, [0.0, 1.0, 0.0, 1.0])
    assert a.hist.tolist() == [[0.0, 0.0], [0.0, 3.0]]
    b = tg.histogramdd(tg.ones(3, 2), 2, None, tg.tensor([1.0, 2.0, 3.0]), True)
    assert b.hist.numpy().sum() * 0.25 == pytest.approx(1.0)


@pytest.mark.parametrize(
    "args, keywords, error, message",
    [
        ((P, [2]), {}, RuntimeError, "size of bins must be equal to the innermost dimension"),
        ((P, [2, 2]), {"range": [0.0, 1.0]}, RuntimeError, "range should have 4 elements"),
        ((P, [0, 2]), {}, RuntimeError, "bins must be > 0, but got 0 for dimension 0"),
        ((P, 2), {"range": [1.0, 0.0, 0.0, 1.0]}, RuntimeError, "min should not exceed max"),
        ((P, 2), {"range": [0.0, float("inf"), 0.0, 1.0]}, RuntimeError, "is not finite"),
        ((P, 2.5), {}, TypeError, "invalid combination of arguments"),
        ((P, 2), {"weight": "3"}, RuntimeError, "same shape as the input tensor excluding"),
        ((P, 2), {"weight": "f64"}, RuntimeError, "should have the same dtype"),
        ((P, "E1"), {}, RuntimeError, "expected 2 sequences of bin edges"),
        ((P, "Eint"), {}, RuntimeError, "input tensor and bins tensors should have the same"),
        (([1.0, 2.0], 2), {}, RuntimeError, "at least 2 dimensions"),
        (([[float("nan"), 1.0]], 2), {}, RuntimeError, "range \\[nan, nan\\] is not finite"),
        ((P, 2), {"weight": [1.0, 2.0, 3.0, 4.0]}, TypeError, "invalid combination of arguments"),
        ((P, "E1edge"), {}, RuntimeError, "bins must be > 0, but got 0 for dimension 1"),
    ],
)
def test_errors(args, keywords, error, message):
    data, bins = args
    kw = dict(keywords)
    if kw.get("weight") == "3":
        kw["weight"] = tg.ones(3)
    elif kw.get("weight") == "f64":
        kw["weight"] = tg.ones(4, dtype=tg.float64)
    if bins == "E1":
        bins = [tg.tensor(EDGES[0])]
    elif bins == "E1edge":
        bins = [tg.tensor(EDGES[0]), tg.tensor([2.0])]
    elif bins == "Eint":
        bins = [tg.tensor([0, 1, 2]), tg.tensor([0, 1, 4])]
    with pytest.raises(error, match=message):
        tg.histogramdd(tg.tensor(data), bins, **kw)
    with pytest.raises(NotImplementedError, match="floating-point"):
        tg.histogramdd(tg.ones(3, 2, dtype=tg.int64), 2)


@pytest.mark.parametrize("call", range(len(CALLS)))
def test_matches_torch(call):
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    data, bins, keywords = CALLS[call]
    for dtype, tdtype in ((tg.float32, torch.float32), (tg.float64, torch.float64)):
        ours_kw, theirs_kw = dict(keywords), dict(keywords)
        if "weight" in keywords:
            ours_kw["weight"] = tg.tensor(keywords["weight"], dtype=dtype)
            theirs_kw["weight"] = torch.tensor(keywords["weight"], dtype=tdtype)
        ours_bins, theirs_bins = bins, bins
        if bins == "E":
            ours_bins = [tg.tensor(e, dtype=dtype) for e in EDGES]
            theirs_bins = [torch.tensor(e, dtype=tdtype) for e in EDGES]
        shape = np.asarray(data).shape if np.asarray(data).size else (0, 2)
        ours = tg.histogramdd(tg.tensor(data, dtype=dtype).reshape(shape), ours_bins, **ours_kw)
        theirs = torch.histogramdd(
            torch.tensor(data, dtype=tdtype).reshape(shape), theirs_bins, **theirs_kw
        )
        assert len(ours.bin_edges) == len(theirs.bin_edges)
        for a, b in zip(ours.bin_edges, theirs.bin_edges):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
            assert a.dtype == np.dtype(dtype)
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-5)
        assert ours.hist.dtype == np.dtype(dtype) and ours.hist.shape == tuple(theirs.hist.shape)


def test_docstring_examples_run():
    import doctest
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (lu_solve's deprecation warning)
        result = doctest.testmod(
            importlib.import_module("tapegrad.histograms"),
            extraglobs={"tg": tg},
            optionflags=doctest.NORMALIZE_WHITESPACE,
        )
    assert result.attempted and not result.failed
