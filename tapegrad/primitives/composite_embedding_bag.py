"""The textbook rule of F.embedding_bag: each bag's sum, mean or max of looked-up rows, run as a
lookup and an index_add (or a gather at the maxima).

Layer L1: numpy and composites.py's machinery (see there for what a rule and its symbols are).
"""

from __future__ import annotations

import numpy as np

from .composites import Rule, composite, scatter_add


def _bag_symbols(p: dict, v: dict) -> dict:
    if p["mode"] == "max":
        source = p["source"]
        return {"scatter_add": scatter_add, "source": source() if callable(source) else source}
    bag, scale = p["bag"], p["scale"]
    entries = np.flatnonzero(bag >= 0)
    bags = np.zeros((p["bags"], len(bag)))
    bags[bag[entries], entries] = scale[entries]
    psw = v.get("psw")
    psw = np.ones((len(bag), 1)) if psw is None else np.reshape(psw, (-1, 1))
    freq = p.get("freq")
    factor = psw if freq is None else psw * freq[:, None]
    return {"S": bags, "psw": psw, "c": factor, "scatter_add": scatter_add, "sum": np.sum}


@composite("embedding_bag", _bag_symbols)
def _embedding_bag(p: dict) -> Rule:
    if p.get("mode") == "max":
        return Rule(
            "embedding_bag",
            "bag_max(w[idx])",
            {"idx": None, "w": "scatter_add(g, source, w.shape)", "psw": None},
            ("source: for each entry of out, the flat position in w of its bag's first maximum",),
        )
    return Rule(
        "embedding_bag",
        "S @ (psw * w[idx])",
        {
            "idx": None,
            "w": "scatter_add(c * (T(S) @ g), idx, w.shape)",
            "psw": "sum(T(S) @ g * w[idx], axis=-1)",
        },
        (
            "S: (bags, entries), 1 (sum) or 1 / the bag's size (mean) where an entry is in a bag, "
            "0 for padding_idx; psw: per_sample_weights (1 without); c: psw, divided by each "
            "index's count with scale_grad_by_freq",
        ),
    )
