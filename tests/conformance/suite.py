"""The whole run: every op, module and optimizer entry, judged, with deliberate differences set
apart.

Two sizes. The default (what `pytest` runs): PyTorch's `sample_inputs`, at most SAMPLE_CAP per
entry and dtype, evenly spread over PyTorch's list (the same ones every run); modules and
optimizers in full. `full=True` (`pytest --conformance-full`, TAPEGRAD_CONFORMANCE=full, and
report.py): every sample and PyTorch's `reference_inputs` (extremal values, NaN, infinities,
broadcasting, non-contiguous and large inputs).
"""

from __future__ import annotations

from . import databases, deliberate, mapping, run_modules, run_ops, run_optimizers
from .verdicts import Tally

SAMPLE_CAP = 24


def run(full: bool = False, only: set[str] | None = None) -> list[Tally]:
    """Judge every entry (`only`: those whose name is in it); deliberate differences are moved
    from each tally's mismatches to its `excused`."""
    op_db, module_db, optim_db = databases.load()
    tallies: list[Tally] = []
    cap = None if full else SAMPLE_CAP
    for entry in mapping.op_entries(op_db):
        if only is None or entry.name in only or entry.info.name in only:
            tallies.append(run_ops.run_op(entry, full=full, cap=cap))
    for info in module_db:
        if mapping.module_class(info) is not None:
            if only is None or f"nn.{info.module_cls.__name__}" in only:
                tallies.append(run_modules.run_module(info))
    for info in optim_db:
        if mapping.optimizer_class(info) is not None:
            if only is None or f"optim.{info.optim_cls.__name__}" in only:
                tallies.append(run_optimizers.run_optimizer(info))
    for tally in tallies:
        kept = []
        for variant, outcome in tally.mismatches:
            reason = deliberate.excuse(tally.name, variant, outcome)
            if reason is None:
                kept.append((variant, outcome))
            else:
                tally.excused.append((variant, outcome, reason))
        tally.mismatches = kept
    return tallies
