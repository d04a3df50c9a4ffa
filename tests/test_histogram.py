"""tg.histogram: torch.histogram's counts, edges, weights, density and named result, and its
errors, checked by hand and against torch where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

X = [1.0, 2.0, 1.0, 4.0, 2.5]

# (input, bins, keywords): the calls compared with torch
CALLS = [
    (X, 4, {}),
    (X, 4, {"range": (0.0, 5.0)}),
    (X, 4, {"density": True}),
    (X, 4, {"weight": [2.0, 1.0, 0.5, 3.0, 1.0]}),
    (X, [0.0, 1.0, 3.0, 5.0], {}),
    (X, [0.0, 1.0, 3.0, 5.0], {"density": True}),
    (X, 4, {"range": (1.0, 1.0)}),
    (X, 4, {"range": (2.0, 3.0)}),
    ([], 3, {}),
    ([2.0, 2.0], 3, {}),
    ([[1.0, 2.0], [3.0, 9.0]], 2, {}),
    ([0.1, 0.2, 0.30000000000000004], 3, {"range": (0.0, 0.3)}),
    (list(np.random.default_rng(0).normal(size=500)), 17, {}),
]


def test_counts_edges_and_result_structure():
    h = tg.histogram(tg.tensor(X), 4)
    assert type(h).__name__ == "histogram" and h._fields == ("hist", "bin_edges")
    hist, edges = h  # unpacks as a pair
    assert hist is h.hist and edges is h.bin_edges and h[0] is h.hist
    assert hist.tolist() == [2.0, 1.0, 1.0, 1.0]  # bins [1, 1.75) [1.75, 2.5) [2.5, 3.25) [3.25, 4]
    assert edges.tolist() == [1.0, 1.75, 2.5, 3.25, 4.0] and hist.dtype == np.float32
    assert repr(h).startswith("histogram(hist=tensor(")
    dense = tg.histogram(tg.tensor(X, dtype=tg.float64), bins=4, density=True).hist.numpy()
    assert dense.dtype == np.float64 and np.isclose((dense * 0.75).sum(), 1.0)  # integrates to 1


def test_errors():
    x = tg.tensor(X)
    with pytest.raises(RuntimeError, match="bins must be > 0, but got 0"):
        tg.histogram(x, 0)
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        tg.histogram(x, 4, range=(3.0, 1.0))
    with pytest.raises(RuntimeError, match="is not finite"):
        tg.histogram(tg.tensor([1.0, float("nan")]), 2)
    with pytest.raises(RuntimeError, match="same dtype"):
        tg.histogram(x, 4, weight=tg.ones(5, dtype=tg.float64))
    with pytest.raises(RuntimeError, match="weight should have the input's shape"):
        tg.histogram(x, 4, weight=tg.ones(4))
    with pytest.raises(TypeError, match="range= goes with a number of bins"):
        tg.histogram(x, tg.tensor([0.0, 1.0]), range=(0.0, 1.0))
    with pytest.raises(TypeError, match="bins must be an int"):
        tg.histogram(x, 2.5)
    with pytest.raises(NotImplementedError, match="floating-point"):
        tg.histogram(tg.tensor([1, 2]), 4)


@pytest.mark.parametrize("call", range(len(CALLS)))
def test_matches_torch(call):
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    data, bins, keywords = CALLS[call]
    for dtype, tdtype in ((tg.float32, torch.float32), (tg.float64, torch.float64)):
        ours_kw, theirs_kw = dict(keywords), dict(keywords)
        if "weight" in keywords:
            ours_kw["weight"] = tg.tensor(keywords["weight"], dtype=dtype)
            theirs_kw["weight"] = torch.tensor(keywords["weight"], dtype=tdtype)
        ours_bins = tg.tensor(bins, dtype=dtype) if isinstance(bins, list) else bins
        theirs_bins = torch.tensor(bins, dtype=tdtype) if isinstance(bins, list) else bins
        ours = tg.histogram(tg.tensor(data, dtype=dtype), ours_bins, **ours_kw)
        theirs = torch.histogram(torch.tensor(data, dtype=tdtype), theirs_bins, **theirs_kw)
        np.testing.assert_allclose(ours.bin_edges.numpy(), theirs.bin_edges.numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-6)
        assert ours.hist.dtype == ours.bin_edges.dtype == np.dtype(dtype)
