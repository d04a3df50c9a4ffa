"""What a node keeps for one pattern of inputs needing gradients, and the rules it runs: read off
the rules' texts once per primitive and pattern (Primitive.plan), then shared by every node."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["SavePlan"]


@dataclass(frozen=True)
class SavePlan:
    """What to keep for one pattern of inputs needing gradients (read off the rules' texts)."""

    saved: tuple[int, ...]  # inputs whose values some needed rule reads
    shaped: tuple[int, ...]  # inputs whose shape and dtype the engine or a rule needs
    shape_only: tuple[int, ...]  # inputs of which some needed rule reads only shape or dtype
    out: bool  # some needed rule reads `out`
    # a node keeps something a backward without retain_graph releases: saved inputs, `out`, or
    # (a custom Function) its ctx
    keeps: bool
    # the needed rules as one function `(g, out, inputs, params) -> one gradient per input`
    # (None where none is needed); None for variadic ops and custom Functions (rule_for_all)
    backward: Callable | None = None
    # the same rules for a backward without create_graph (on arrays only): each primitive they
    # call is its NumPy forward, which spares Primitive.__call__'s frame and Tensor check per call
    raw_backward: Callable | None = None
    # (backward, raw_backward): the engine picks one by indexing with its `raw` flag (no branch)
    by_raw: tuple = (None, None)
