"""The textbook rules of adaptive pooling in 1 and 3 dimensions, of adaptive and fractional max
pooling, of 3-D max and average pooling, of max unpooling and of power-average (lp) pooling, run
as several primitives (matmuls with averaging matrices; a gather at the windows' maxima; window
sums per depth tap; a scatter into zeros; a power, an average pool and a root).

Layer L1: numpy and composites.py's machinery (see there for what a rule and its symbols are);
adaptive_avg_pool2d's rule, the matrices of the rows and the columns, is in composite_layers.py.
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite, scatter_add


def _matrix(v: dict, label: str, n: int) -> np.ndarray:
    """An averaging matrix of the call, or the identity for an axis it did not pool."""
    return v[label] if v.get(label) is not None else np.eye(n)


def _average(t: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Each of the last three axes of t multiplied by its matrix (rows: output positions)."""
    return np.einsum("id,jh,kw,...dhw->...ijk", d, a, b, t)


@composite("adaptive_avg_pool1d", lambda p, v: {"B": _matrix(v, "B", v["x"].shape[-1])})
def _adaptive_avg_pool1d(p: dict) -> Rule:
    return Rule(
        "adaptive_avg_pool1d",
        "x @ T(B)",
        {"x": "g @ B", "B": None},
        ("B: the averaging matrix of the last axis (each row averages one window)",),
    )


def _three_symbols(p: dict, v: dict) -> dict:
    depth, rows, cols = v["x"].shape[-3:]
    d, a, b = (_matrix(v, k, n) for k, n in zip("DAB", (depth, rows, cols)))
    return {"D": d, "A": a, "B": b, "average": _average}


@composite("adaptive_avg_pool3d", _three_symbols)
def _adaptive_avg_pool3d(p: dict) -> Rule:
    return Rule(
        "adaptive_avg_pool3d",
        "average(x, D, A, B)",
        {"x": "average(g, T(D), T(A), T(B))", "D": None, "A": None, "B": None},
        (
            "D, A, B: the averaging matrices of depth, rows and columns; average multiplies each "
            "of the last three axes by its matrix",
        ),
    )


def _max_symbols(p: dict, v: dict) -> dict:
    source = p["source"]
    return {"scatter_add": scatter_add, "source": source() if callable(source) else source}


def _max_rule(dims: int, name: str = "") -> Rule:
    return Rule(
        name or f"adaptive_max_pool{dims}d",
        "x[source]",
        {"x": "scatter_add(g, source, x.shape)"},
        ("source: for each entry of out, the flat position in x of its window's maximum",),
    )


@composite("adaptive_max_pool1d", _max_symbols)
def _adaptive_max_pool1d(p: dict) -> Rule:
    return _max_rule(1)


@composite("adaptive_max_pool2d", _max_symbols)
def _adaptive_max_pool2d(p: dict) -> Rule:
    return _max_rule(2)


@composite("adaptive_max_pool3d", _max_symbols)
def _adaptive_max_pool3d(p: dict) -> Rule:
    return _max_rule(3)


@composite("max_pool3d", _max_symbols)
def _max_pool3d(p: dict) -> Rule:
    return _max_rule(3, "max_pool3d")


@composite("fractional_max_pool2d", _max_symbols)
def _fractional_max_pool2d(p: dict) -> Rule:
    return _max_rule(2, "fractional_max_pool2d")


@composite("fractional_max_pool3d", _max_symbols)
def _fractional_max_pool3d(p: dict) -> Rule:
    return _max_rule(3, "fractional_max_pool3d")


def _unpool_symbols(p: dict, v: dict) -> dict:
    dims = p["dims"]

    def gather(g: np.ndarray, index: np.ndarray) -> np.ndarray:
        """g's values at each index of the flattened last `dims` axes."""
        lead = index.shape[:-dims]
        rows = np.reshape(g, (*lead, -1))
        return np.take_along_axis(rows, np.reshape(index, (*lead, -1)), -1).reshape(index.shape)

    return {"indices": p["indices"], "gather": gather}


def _unpool_rule(dims: int) -> Rule:
    return Rule(
        f"max_unpool{dims}d",
        "scatter(x, indices)",
        {"x": "gather(g, indices)"},
        ("each x written into zeros at its index over the output plane; g read back there",),
    )


@composite("max_unpool1d", _unpool_symbols)
def _max_unpool1d(p: dict) -> Rule:
    return _unpool_rule(1)


@composite("max_unpool2d", _unpool_symbols)
def _max_unpool2d(p: dict) -> Rule:
    return _unpool_rule(2)


@composite("max_unpool3d", _unpool_symbols)
def _max_unpool3d(p: dict) -> Rule:
    return _unpool_rule(3)


@composite("avg_pool3d", lambda p, v: {k: p[k] for k in ("divisor", "window_sum", "spread")})
def _avg_pool3d(p: dict) -> Rule:
    return Rule(
        "avg_pool3d",
        "window_sum(x) / divisor",
        {"x": "spread(g / divisor)"},
        (
            "window_sum: the sum over each window (zeros for padding); spread: its transpose, "
            "each entry added back over its window; divisor: each window's (PyTorch's rules)",
        ),
    )


def _lp_symbols(p: dict, v: dict) -> dict:
    return {"p": p["p"], "window_sum": p["window_sum"], "spread": p["spread"]}


def _lp_rule(dims: int) -> Rule:
    return Rule(
        f"lp_pool{dims}d",
        "window_sum(x ** p) ** (1 / p)",
        {"x": "x ** (p - 1) * spread(where(out == 0, 0, g * out ** (1 - p)))"},
        (
            "window_sum: the sum over each window (a window ceil_mode cuts short scaled up to the "
            "kernel's size, as PyTorch); spread: its transpose, each entry added back over its "
            "window; a window whose sum is 0 passes no gradient",
        ),
    )


@composite("lp_pool1d", _lp_symbols)
def _lp_pool1d(p: dict) -> Rule:
    return _lp_rule(1)


@composite("lp_pool2d", _lp_symbols)
def _lp_pool2d(p: dict) -> Rule:
    return _lp_rule(2)


@composite("lp_pool3d", _lp_symbols)
def _lp_pool3d(p: dict) -> Rule:
    return _lp_rule(3)
