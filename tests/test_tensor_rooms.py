"""The Tensor class as its method rooms compose it: still one slotted object per tensor, each
method in the room of its topic, and arguments a room does not know refused, never ignored."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.tensor.base import AS_IS, TensorBase

ROOMS = {
    "elementwise": ["__add__", "__rpow__", "exp", "rsqrt", "clamp", "where", "maximum"],
    "comparison": ["__lt__", "__eq__", "eq", "eq_", "allclose", "all", "any", "sort", "topk"],
    "bitwise": ["__and__", "__ror__", "__ixor__", "__invert__", "__lshift__", "logical_and"],
    "reduction": ["sum", "mean", "max", "argmax", "softmax", "norm", "cumsum"],
    "statistics": ["var", "std", "var_mean", "std_mean"],
    "shape": ["reshape", "view", "contiguous", "permute", "T", "expand", "flip", "roll"],
    "pieces": ["split", "chunk", "unbind", "narrow", "tensor_split", "hsplit"],
    "indexing": ["__getitem__", "__iter__", "gather", "masked_fill", "index_select", "diagonal"],
    "scatter": ["scatter", "scatter_add", "index_add", "index_fill", "masked_scatter_"],
    "transcendental": ["sinh", "asin", "atan2", "hypot", "logit", "nan_to_num", "sgn"],
    "linalg": ["__matmul__", "matmul", "mm", "bmm", "outer", "diag", "trace", "tril", "addmm"],
    "inplace": ["__iadd__", "__ipow__", "add_", "exp_", "clamp_", "fill_", "copy_", "__setitem__"],
    "random": ["normal_", "uniform_"],
    "conversion": ["astype", "to", "float", "numpy", "item", "__bool__", "__array__"],
}


def test_a_tensor_is_still_slotted():
    # every class a Tensor is made of declares __slots__: no per-tensor __dict__ (memory per op)
    x = tg.tensor([1.0])
    assert not hasattr(x, "__dict__")
    for cls in type(x).__mro__[:-1]:
        assert "__slots__" in cls.__dict__, cls


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_each_method_lives_in_its_room(room):
    module = importlib.import_module(f"tapegrad.tensor.{room}")
    (mixin,) = [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, TensorBase) and v.__module__ == module.__name__
    ]
    assert mixin in tg.Tensor.__mro__
    for name in ROOMS[room]:
        assert getattr(tg.Tensor, name) is vars(mixin)[name], (room, name)


def test_every_tensor_class_skips_coerce_in_operators():
    # (a Parameter operand, as every Linear layer passes, takes the operators' fast path too)
    assert {tg.Tensor, tg.nn.Parameter, float, int} <= AS_IS
    w = tg.nn.Parameter(tg.tensor([2.0]))
    assert np.array_equal((tg.tensor([3.0]) * w).numpy(), [6.0])


def test_in_place_arithmetic_refuses_unknown_arguments():
    x = tg.tensor([1.0, 2.0])
    for call in (
        lambda: x.add_(1.0, beta=2.0),
        lambda: x.sub_(1.0, 2.0, 3.0),
        lambda: x.mul_(2.0, 3.0),
        lambda: x.div_(2.0, "floor"),  # (rounding_mode is keyword-only, as in PyTorch)
    ):
        with pytest.raises(TypeError):
            call()
    assert x.tolist() == [1.0, 2.0]  # (nothing was written by the refused calls)
    assert x.add_(tg.tensor([1.0, 1.0]), 3.0).tolist() == [4.0, 5.0]  # alpha, positionally
    assert x.sub_(1.0, alpha=2.0).tolist() == [2.0, 3.0]
