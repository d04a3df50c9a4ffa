"""The convolutions keep their columns and col2im's buffer as scratch arrays (per thread, while the
shapes stay the same): what they return must never be one of them, nor share memory with one,
and threads must not see each other's."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tapegrad.primitives import nn as P

PARAMS = {"stride": (1, 1), "padding": (1, 1, 1, 1), "dilation": (1, 1), "groups": 1}
LAYOUTS = {  # (x's shape, w's shape): wide output rows -> per sample; narrow, many -> batch-last
    "per sample": ((2, 3, 18, 18), (4, 3, 3, 3)),
    "batch last": ((16, 3, 6, 6), (4, 3, 3, 3)),
}


def _all_three(x, w):
    y = P.conv2d.forward(x, w, None, **PARAMS)
    dx = P.conv2d_input_grad.forward(y, w, input_shape=x.shape, **PARAMS)
    dw = P.conv2d_weight_grad.forward(y, x, weight_shape=w.shape, **PARAMS)
    return y, dx, dw


@pytest.mark.parametrize("layout", LAYOUTS)
def test_results_are_arrays_of_their_own(layout):
    rng = np.random.default_rng(0)
    xs, ws = LAYOUTS[layout]
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    first = _all_three(x, w)
    kept = [a.copy() for a in first]
    second = _all_three(2 * x, -w)  # (the same shapes: the same scratch arrays, rewritten)
    for a, b, k in zip(first, second, kept):
        np.testing.assert_array_equal(a, k)  # the first results did not change
        assert not np.shares_memory(a, b)
    for a in first:
        for b in P._scratch.__dict__.values():
            assert b is None or not np.shares_memory(a, b)


def test_threads_get_their_own_scratch_arrays():
    rng = np.random.default_rng(1)
    xs, ws = LAYOUTS["batch last"]
    cases = [(rng.standard_normal(xs), rng.standard_normal(ws)) for _ in range(4)]
    want = [_all_three(x, w) for x, w in cases]
    got: list = [None] * len(cases)
    start = threading.Barrier(len(cases))

    def run(k):
        start.wait()
        for _ in range(20):
            got[k] = _all_three(*cases[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, want_k in zip(got, want):
        for a, b in zip(g, want_k):
            np.testing.assert_array_equal(a, b)


def test_a_scratch_array_too_big_to_keep_is_not_held(monkeypatch):
    monkeypatch.setattr(P, "_SCRATCH_MAX", 0)
    monkeypatch.setattr(P._scratch, "columns", None, raising=False)
    xs, ws = LAYOUTS["batch last"]
    _all_three(np.ones(xs), np.ones(ws))
    assert P._scratch.__dict__.get("columns") is None


@pytest.mark.parametrize("groups", [1, 4])  # (dense: flat columns; depthwise: shifted adds)
def test_a_reused_flat_plane_is_zero_wherever_this_call_pads(groups):
    """x's padded planes laid flat are a scratch array: a call padding other sides than the last
    one (the same flat shape) must still read zeros there, never the last call's values."""
    from test_conv import direct_conv2d

    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 4 // groups, 3, 3))
    calls = [((2, 0, 2, 0), rng.standard_normal((2, 4, 16, 16)) + 50), ((1, 1, 1, 1), None)]
    for padding, x in calls:
        x = rng.standard_normal((2, 4, 16, 16)) if x is None else x
        p = {**PARAMS, "padding": padding, "groups": groups}
        y = P.conv2d.forward(x, w, None, **p)
        np.testing.assert_allclose(y, direct_conv2d(x, w, **p), atol=1e-9)
        g = rng.standard_normal(y.shape)
        dw = P.conv2d_weight_grad.forward(g, x, weight_shape=w.shape, **p)
        # <g, conv(x, w)> is linear in w: its gradient dw satisfies <dw, w> = <g, y>
        np.testing.assert_allclose(np.sum(dw * w), np.sum(g * y), rtol=1e-9)
