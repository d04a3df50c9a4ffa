"""Property test: values exactly on kinks get PyTorch's documented subgradients.

Arrays drawn from {-1, -0.5, 0, 0.5, 1} (so zeros and ties are frequent, some made by zero_()
through a view), through relu/abs/sign/clamp/maximum/minimum/amax/amin/max(dim)/min(dim), with an
upstream gradient that is finite or, after sqrt, infinite at 0. The reference is PyTorch's choice
of subgradient written out in NumPy (and PyTorch itself when installed); exact equality.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapegrad as tg
from property.test_expressions import budget

KINK_VALUES = (-1.0, -0.5, 0.0, 0.5, 1.0)  # (ties and zeros are frequent)


def _ties(x, axis, pick):
    """g's share per element of max/min over `axis`: evenly over the ties (amax), or all to the
    first extreme (max(dim).values)."""
    ext = (
        np.max(x, axis=axis, keepdims=True) if pick[1] == "max" else np.min(x, axis, keepdims=True)
    )
    hit = x == ext
    if pick[0] == "first":
        first = np.zeros_like(hit)
        np.put_along_axis(first, np.expand_dims(np.argmax(hit, axis), axis), True, axis)
        return first.astype(np.float64)
    return hit / np.sum(hit, axis=axis, keepdims=True)


def _split(x, y, g, first):
    """maximum/minimum's rule: all of g where x wins, half at ties, none where y wins."""
    return np.where(first, g, np.where(x == y, g / 2, 0.0))


class Kink(NamedTuple):
    code: str  # tapegrad / PyTorch, of b (x after the in-place zeroing), y, lo, hi
    forward: Callable  # NumPy, of (b, y, lo, hi)
    rule: Callable  # PyTorch's subgradient: (b, y, g, lo, hi) -> (d/db, d/dy or None)
    nonnegative: bool  # (sqrt may follow)


ZEROS = "tg.zeros(b.shape, dtype=tg.float64)"
KINK_OPS = {
    "relu": Kink(
        "b.relu()",
        lambda b, y, lo, hi: np.maximum(b, 0.0),
        lambda b, y, g, lo, hi: (np.where(b > 0, g, 0.0), None),
        True,
    ),
    "abs": Kink(
        "b.abs()",
        lambda b, y, lo, hi: np.abs(b),
        lambda b, y, g, lo, hi: (np.where(b == 0, 0.0, g * np.sign(b)), None),
        False,
    ),
    "sign": Kink(
        "b.sign()",
        lambda b, y, lo, hi: np.sign(b),
        lambda b, y, g, lo, hi: (np.zeros_like(b), None),
        False,
    ),
    "clamp": Kink(
        "b.clamp(lo, hi)",
        lambda b, y, lo, hi: np.clip(b, lo, hi),
        lambda b, y, g, lo, hi: (np.where((b >= lo) & (b <= hi), g, 0.0), None),
        False,
    ),
    "clamp_min0": Kink(
        "tg.clamp(b, min=0.0)",
        lambda b, y, lo, hi: np.maximum(b, 0.0),
        lambda b, y, g, lo, hi: (np.where(b >= 0, g, 0.0), None),
        True,
    ),
    "maximum": Kink(
        "tg.maximum(b, y)",
        lambda b, y, lo, hi: np.maximum(b, y),
        lambda b, y, g, lo, hi: (_split(b, y, g, b > y), _split(b, y, g, y > b)),
        False,
    ),
    "maximum0": Kink(
        f"tg.maximum(b, {ZEROS})",
        lambda b, y, lo, hi: np.maximum(b, 0.0),
        lambda b, y, g, lo, hi: (_split(b, 0.0, g, b > 0), None),
        True,
    ),
    "minimum": Kink(
        "tg.minimum(b, y)",
        lambda b, y, lo, hi: np.minimum(b, y),
        lambda b, y, g, lo, hi: (_split(b, y, g, b < y), _split(b, y, g, y < b)),
        False,
    ),
    "zero_minus_minimum0": Kink(  # 0 - min(b, 0) >= 0
        f"{ZEROS} - tg.minimum(b, {ZEROS})",
        lambda b, y, lo, hi: 0.0 - np.minimum(b, 0.0),
        lambda b, y, g, lo, hi: (-_split(b, 0.0, g, b < 0), None),
        True,
    ),
    "amax": Kink(
        "b.amax(0)",
        lambda b, y, lo, hi: np.max(b, 0),
        lambda b, y, g, lo, hi: (g * _ties(b, 0, ("even", "max")), None),
        False,
    ),
    "amin": Kink(
        "b.amin(-1, keepdim=True)",
        lambda b, y, lo, hi: np.min(b, -1, keepdims=True),
        lambda b, y, g, lo, hi: (g * _ties(b, -1, ("even", "min")), None),
        False,
    ),
    "max_dim": Kink(
        "b.max(0).values",
        lambda b, y, lo, hi: np.max(b, 0),
        lambda b, y, g, lo, hi: (g * _ties(b, 0, ("first", "max")), None),
        False,
    ),
    "min_dim": Kink(
        "tg.min(b, -1, True)[0]",
        lambda b, y, lo, hi: np.min(b, -1, keepdims=True),
        lambda b, y, g, lo, hi: (g * _ties(b, -1, ("first", "min")), None),
        False,
    ),
}


def _kink_run(lib, op, x, y, lo, hi, sqrt, filled, w):
    """The program on `lib`: b = x * 1.0 with its first `filled` rows zeroed in place, out =
    op(b), loss = sum(w * out) or sum(w * sqrt(out)); the gradients of x and y."""
    xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    yt = lib.tensor(y, dtype=lib.float64, requires_grad=True)
    b = xt * 1.0
    b[:filled].zero_()
    out = eval(op.code, {"tg": lib, "b": b, "y": yt, "lo": lo, "hi": hi})
    loss = ((out.sqrt() if sqrt else out) * lib.tensor(w, dtype=lib.float64)).sum()
    grads = lib.autograd.grad(loss, (xt, yt), allow_unused=True)
    return [np.zeros(x.shape) if g is None else np.array(g.detach().numpy()) for g in grads]


@settings(max_examples=budget(150))
@given(data=st.data())
def test_values_on_kinks_get_pytorchs_subgradients(data):
    """relu/abs/sign/clamp/maximum/minimum/amax/amin/max(dim)/min(dim) at zeros and ties (some
    made by zero_() through a view), against PyTorch's documented choices: relu' = 0 at 0, clamp
    passes at its bounds, maximum/minimum split ties evenly, amax/amin share ties evenly, max(dim)
    gives all to the index it returns. After sqrt (whose derivative at 0 is inf) an infinite
    gradient is selected away where the op does not pass it, never turned into NaN."""
    shape = data.draw(st.sampled_from([(3,), (2, 3), (3, 2), (4,)]), label="shape")
    values = hnp.arrays(np.float64, shape, elements=st.sampled_from(KINK_VALUES))
    x, y = np.asarray(data.draw(values, label="x")), np.asarray(data.draw(values, label="y"))
    name = data.draw(st.sampled_from(list(KINK_OPS)), label="op")
    op = KINK_OPS[name]
    lo = data.draw(st.sampled_from(KINK_VALUES[:3]), label="lo")
    hi = data.draw(st.sampled_from(KINK_VALUES[2:]), label="hi")
    sqrt = op.nonnegative and data.draw(st.booleans(), label="then sqrt")
    filled = data.draw(st.integers(0, shape[0]), label="rows zeroed in place first")
    b = x.copy()
    b[:filled] = 0.0
    out = np.asarray(op.forward(b, y, lo, hi))
    w = np.asarray(
        data.draw(
            hnp.arrays(np.float64, out.shape, elements=st.sampled_from([-2.0, -0.5, 1.0, 3.0]))
        )
    )
    with np.errstate(divide="ignore"):  # (d sqrt(0) = inf is the right answer, as in PyTorch)
        g = np.broadcast_to(w / (2 * np.sqrt(out)) if sqrt else w, out.shape)
        gb, gy = op.rule(b, y, g, lo, hi)
        got = _kink_run(tg, op, x, y, lo, hi, sqrt, filled, w)
    rows = np.arange(shape[0]).reshape((-1,) + (1,) * (len(shape) - 1))
    expected = [np.where(rows < filled, 0.0, gb), np.zeros(shape) if gy is None else gy]
    for what, a, e in zip("xy", got, expected):
        assert not np.isnan(a).any(), f"{name}: NaN in d loss / d {what}: {a.tolist()}"
        assert np.array_equal(a, e), f"{name}: d loss / d {what} = {a.tolist()}, not {e.tolist()}"
    torch = pytest.importorskip("torch", reason="compares with PyTorch when it is installed")
    with np.errstate(divide="ignore"):
        theirs = _kink_run(torch, op, x, y, lo, hi, sqrt, filled, w)
    for what, a, e in zip("xy", got, theirs):
        assert np.array_equal(a, e), f"{name}: d loss / d {what} = {a.tolist()}, torch {e.tolist()}"
