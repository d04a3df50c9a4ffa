"""Tensors print as PyTorch prints them (4 digits, `1.` for whole numbers, scientific notation for
wide ranges, summaries with `...`, suffixes), and tg.set_printoptions changes it.

Expected texts are PyTorch's own output for the same values; with torch installed, random tensors
are printed by both and compared.
"""

from __future__ import annotations

import doctest
import math
import re

import numpy as np
import pytest

import tapegrad as tg

F64 = tg.float64


# ---- printing ------------------------------------------------------------------------------------
@pytest.fixture
def default_printing():
    yield
    tg.set_printoptions(profile="default", sci_mode=None)


# what PyTorch prints for the same values (its defaults: 4 digits, 80 columns, 1000 elements)
PRINTED = [
    ([1 / 3], "tensor([0.3333])"),
    ([1.0, 2.0], "tensor([1., 2.])"),
    ([1 / 3, 1.0], "tensor([0.3333, 1.0000])"),
    ([1e-5, 1.0], "tensor([1.0000e-05, 1.0000e+00])"),
    ([123456789.0, 1.0], "tensor([1.2346e+08, 1.0000e+00])"),
    (
        [[1.5, -2.25], [100.125, 3.0]],
        "tensor([[  1.5000,  -2.2500],\n        [100.1250,   3.0000]])",
    ),
    ([0.0, math.nan, -math.inf], "tensor([0., nan, -inf])"),
    (2.5, "tensor(2.5000)"),
    (1.0, "tensor(1.)"),
]


@pytest.mark.parametrize("values, text", PRINTED)
def test_prints_as_pytorch(values, text):
    assert repr(tg.tensor(values)) == text
    assert str(tg.tensor(values)) == text


def test_printing_suffixes_and_dtypes():
    assert repr(tg.tensor([1, 2, 300])) == "tensor([  1,   2, 300])"
    assert repr(tg.tensor([True, False])) == "tensor([ True, False])"
    assert repr(tg.tensor([1.0], dtype=F64)) == "tensor([1.], dtype=float64)"
    assert repr(tg.tensor([1], dtype=tg.int32)) == "tensor([1], dtype=int32)"
    x = tg.tensor([1 / 3], requires_grad=True)
    assert repr(x) == "tensor([0.3333], requires_grad=True)"
    assert repr(x * 2) == "tensor([0.6667], grad_fn=<MulBackward>)"
    assert repr(tg.zeros(0)) == "tensor([])"
    assert repr(tg.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(tg.zeros(0, dtype=tg.int64)) == "tensor([], dtype=int64)"
    wide = tg.full((2, 6), 2 / 3, dtype=F64) * tg.ones(2, 6, dtype=F64, requires_grad=True)
    assert repr(wide).endswith("[0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667]], dtype=float64,\n"
                               "       grad_fn=<MulBackward>)")  # fmt: skip


def test_long_tensors_are_summarised_and_wrapped():
    assert repr(tg.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    text = repr(tg.arange(30.0))
    assert text.splitlines()[0] == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,"
    )
    assert all(len(line) <= 80 for line in text.splitlines())
    big = repr(tg.zeros(100, 100))
    assert "..." in big and len(big.splitlines()) == 7


def test_set_printoptions(default_printing):
    tg.set_printoptions(precision=2)
    assert repr(tg.tensor([1 / 3])) == "tensor([0.33])"
    tg.set_printoptions(threshold=5)
    assert repr(tg.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    tg.set_printoptions(profile="default")
    assert repr(tg.tensor([1 / 3])) == "tensor([0.3333])"
    tg.set_printoptions(sci_mode=True)
    assert repr(tg.tensor([1.5])) == "tensor([1.5000e+00])"
    tg.set_printoptions(sci_mode=None, profile="short")
    assert repr(tg.tensor([1 / 3])) == "tensor([0.33])" and tg.get_printoptions()["edgeitems"] == 2
    tg.set_printoptions(profile="full")
    assert "..." not in repr(tg.arange(2000))
    with pytest.raises(ValueError, match="unknown profile"):
        tg.set_printoptions(profile="long")
    with pytest.raises(ValueError, match="precision must be an int"):
        tg.set_printoptions(precision=-1)


def same_but_suffix_line(ours: str, theirs: str) -> bool:
    return re.sub(r",\s+dtype=", ", dtype=", ours) == re.sub(r",\s+dtype=", ", dtype=", theirs)


def test_printing_matches_pytorch_on_random_tensors(default_printing):
    torch = pytest.importorskip("torch", reason="compares printed text with PyTorch")
    rng = np.random.default_rng(0)
    samples = [
        rng.standard_normal((3, 4)),
        rng.standard_normal(50) * 1e3,
        rng.standard_normal((2, 3, 4)) * 1e-6,
        rng.integers(-100, 100, (4, 5)).astype(np.float64),
        rng.standard_normal((40, 40)),
        np.array([1e9, -3.0, 0.0]),
    ]
    for precision, linewidth in [(4, 80), (2, 60), (6, 120)]:
        tg.set_printoptions(precision=precision, linewidth=linewidth)
        torch.set_printoptions(precision=precision, linewidth=linewidth)
        try:
            for a in samples:
                for dtype in (np.float32, np.float64):
                    ours = repr(tg.tensor(a.astype(dtype)))
                    theirs = repr(torch.tensor(a.astype(dtype))).replace("torch.", "")
                    # ("dtype=float64" is shorter than torch's "dtype=torch.float64": it may fit
                    # where PyTorch's moves to a line of its own)
                    assert ours == theirs or same_but_suffix_line(ours, theirs)
        finally:
            torch.set_printoptions(profile="default")


# ---- the docstrings of the generated unary methods -----------------------------------------------
def test_unary_doc_examples_for_the_generated_methods():
    # the docstrings elementwise.py's unary_method and inplace.py's inplace_unary_method make
    from tapegrad.tensor.printing import unary_doc

    E = tg.primitives.elementwise
    prims = [E.exp, E.log, E.sin, E.cos, E.tan, E.tanh, E.sigmoid, E.relu, E.sqrt, E.abs, E.sign]
    prims += [E.log1p, E.expm1, E.neg, E.erf, E.floor, E.ceil, E.trunc]
    T = tg.primitives.transcendental  # (asin, atanh: [-0.5, 0.5]; acosh: [1.5, 2.0])
    prims += [T.sinh, T.cosh, T.asinh, T.acosh, T.atanh, T.asin, T.acos, T.atan, T.exp2, T.sinc]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for prim in prims:
        for inplace in (False, True):
            doc = unary_doc(prim, inplace)
            assert doc.splitlines()[0].startswith("In place" if inplace else "Elementwise")
            test = parser.get_doctest(doc, {"tg": tg}, prim.name, None, 0)
            assert len(test.examples) == 1 and runner.run(test).failed == 0, doc
    doc = unary_doc(E.log1p)
    assert "tg.autograd.formula('log1p')" in doc and ">>> tg.tensor([-0.5, 2.0]).log1p()" in doc
    assert ">>> tg.tensor([0.5, 2.0]).log()" in unary_doc(E.log)  # inside the domain
    assert ">>> tg.tensor([-0.5, 0.5]).asin()" in unary_doc(T.asin)
    assert ">>> tg.tensor([1.5, 2.0]).acosh()" in unary_doc(T.acosh)
