"""sort, argsort and topk: (values, indices) structures, ties, NaN and 0-d inputs, gradients to
the selected elements; with torch installed: PyTorch's values, indices and gradients
(helpers.matches_pytorch)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from helpers import check_grads, distinct, leaf, matches_pytorch, rand


def test_sort_structure_values_and_gradient():
    a = distinct(3, 5)
    out = tg.tensor(a).sort()
    assert type(out).__name__ == "sort" and out._fields == ("values", "indices")
    values, indices = out
    assert np.array_equal(values.numpy(), np.sort(a, -1))
    assert indices.dtype == np.int64 and np.array_equal(indices.numpy(), np.argsort(a, -1))
    down = tg.sort(tg.tensor(a), dim=0, descending=True)
    assert np.array_equal(down.values.numpy(), -np.sort(-a, 0))
    x = leaf(a)
    w = rand(3, 5, seed=3)
    (x.sort(1).values * tg.tensor(w)).sum().backward()  # each weight goes back to its source
    expected = np.zeros((3, 5))
    np.put_along_axis(expected, np.argsort(a, 1), w, 1)
    assert np.allclose(x.grad.numpy(), expected)
    check_grads(lambda x: x.sort(0, descending=True).values, a)


def test_sort_ties_nan_and_0d():
    t = tg.tensor([[3.0, 1.0, 2.0, 3.0], [0.0, 5.0, 5.0, -1.0]])
    asc, desc = t.sort(), t.sort(descending=True, stable=True)
    assert asc.indices.tolist() == [[1, 2, 0, 3], [3, 0, 1, 2]]  # stable: ties keep their order
    assert desc.indices.tolist() == [[0, 3, 2, 1], [1, 2, 0, 3]]
    assert t.argsort(dim=1, descending=True).tolist() == desc.indices.tolist()
    n = tg.tensor([2.0, math.nan, 1.0, math.nan, 3.0])
    assert n.sort().indices.tolist() == [2, 0, 4, 1, 3]  # NaN last ascending (as PyTorch)
    assert n.sort(descending=True).indices.tolist()[:2] == [1, 3]  # and first descending
    s = tg.tensor(3.0).sort()
    assert s.values.item() == 3.0 and s.indices.item() == 0 and s.indices.shape == ()
    assert tg.tensor(3.0).argsort().item() == 0


def test_topk():
    a = distinct(3, 5)
    out = tg.tensor(a).topk(2)
    assert type(out).__name__ == "topk" and out._fields == ("values", "indices")
    assert np.array_equal(out.values.numpy(), -np.sort(-a, 1)[:, :2])
    assert np.array_equal(out.indices.numpy(), np.argsort(-a, 1)[:, :2])
    low = tg.topk(tg.tensor(a), 3, dim=0, largest=False)
    assert np.array_equal(low.values.numpy(), np.sort(a, 0)[:3])
    assert tg.tensor(a).topk(0).values.shape == (3, 0)
    x = leaf(a)
    x.topk(1).values.sum().backward()
    assert np.array_equal(x.grad.numpy(), (a == a.max(1, keepdims=True)).astype(float))
    check_grads(lambda x: x.topk(2, dim=0).values, a)
    for k in (6, -1):
        with pytest.raises(ValueError, match=f"k={k} is out of range"):
            tg.tensor(a).topk(k)
    with pytest.raises(TypeError, match="k must be an int"):
        tg.tensor(a).topk(1.5)


# ---- against PyTorch (when installed) ------------------------------------------------------------
# Each program runs as written with `m` = tapegrad and `m` = torch (helpers.matches_pytorch):
# values and gradients compared (indices: integers, no gradient).
TORCH_PROGRAMS = {
    "topk": (lambda m, x: x.topk(2, dim=0).values, [(3, 4)]),
    "topk-smallest": (lambda m, x: m.topk(x, 3, largest=False).values, [(3, 4)]),
    "sort": (lambda m, x: x.sort(descending=True).values, [(3, 4)]),
    "sort-indices": (lambda m, x: x.sort(0)[1], [(3, 4)]),
    "argsort": (lambda m, x: m.argsort(x, dim=1, descending=True), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(TORCH_PROGRAMS))
def test_against_pytorch(name):
    fn, shapes = TORCH_PROGRAMS[name]
    matches_pytorch(fn, [distinct(*s, seed=i) * 0.37 for i, s in enumerate(shapes)])
