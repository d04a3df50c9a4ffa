"""Tensor.apply_ and Tensor.map_ (tapegrad/tensor/python_callables.py): PyTorch's values, dtype
conversion of the results, refusals (requires grad, a result that is not a number)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg


def test_apply_and_map_match_torch():
    torch = pytest.importorskip("torch")
    x, t = tg.tensor([[1.0, -2.0], [3.5, 0.0]]), torch.tensor([[1.0, -2.0], [3.5, 0.0]])
    assert x.apply_(lambda v: v * v + 1) is x
    t.apply_(lambda v: v * v + 1)
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    ints, t_ints = tg.tensor([1, 2, 3]), torch.tensor([1, 2, 3])
    ints.apply_(lambda v: v * 2.7)  # (a float result in an int tensor: truncated, as PyTorch)
    t_ints.apply_(lambda v: v * 2.7)
    assert ints.dtype == tg.int64 and ints.tolist() == t_ints.tolist()
    other = [10.0, 20.0]
    got = tg.tensor([[1.0, 2.0], [3.0, 4.0]]).map_(tg.tensor(other), lambda a, b: a - b)
    want = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).map_(torch.tensor(other), lambda a, b: a - b)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_view_writes_through():
    base = tg.zeros(4)
    base[1:3].apply_(lambda v: v + 5)
    assert base.tolist() == [0.0, 5.0, 5.0, 0.0]


def test_refusals_are_pytorchs():
    leaf = tg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        leaf.apply_(lambda v: v)
    with pytest.raises(RuntimeError, match=r"Can't call map_\(\)"):
        leaf.map_(tg.ones(2), lambda a, b: a)
    with pytest.raises(TypeError, match="must be real number, not str"):
        tg.ones(2).apply_(lambda v: "x")
