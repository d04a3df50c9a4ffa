"""The textbook rule of F.bilinear, out_o = x1 · W_o · x2 + b_o, run as one einsum and an add.

Layer L1: numpy and composites.py's machinery (see there for what a rule and its symbols are).
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite


def _rows(a: np.ndarray) -> np.ndarray:
    """a as (batch, features): NumPy's einsum cannot sum the '...' axes away."""
    return np.reshape(a, (-1, np.shape(a)[-1]))


def _bilinear_symbols(p: dict, v: dict) -> dict:
    return {
        # (contract(g, m, v)[i] = sum_oj g_o m_oij v_j: x1's gradient, and x2's with T(w))
        "contract": lambda g, m, x: np.einsum("...o,oij,...j->...i", g, m, x),
        "outer": lambda g, a, b: np.einsum("no,ni,nj->oij", _rows(g), _rows(a), _rows(b)),
        "batch_sum": lambda g: _rows(g).sum(0),
    }


@composite("bilinear", _bilinear_symbols)
def _bilinear(p: dict) -> Rule:
    return Rule(
        "bilinear",
        "contract(x1, w, x2) + b",
        {
            "x1": "contract(g, w, x2)",
            "x2": "contract(g, T(w), x1)",
            "w": "outer(g, x1, x2)",
            "b": "batch_sum(g)",
        },
        (
            "w: (out, in1, in2); contract(g, m, v)[i] = sum over o, j of g_o m_oij v_j; "
            "outer(g, a, b)[o, i, j] = sum over the batch of g_o a_i b_j",
        ),
    )
