"""tapegrad against PyTorch on PyTorch's own test inputs: every OpInfo, ModuleInfo and
OptimizerInfo entry tapegrad has a counterpart for (see suite.py for what runs by default and what
`pytest --conformance-full` or TAPEGRAD_CONFORMANCE=full adds).

It fails on a mismatch (value, dtype, shape, structure, gradient, second-order gradient, module
state, optimizer trajectory) that is neither a deliberate difference nor OPEN, on a new unclear
error (an exception that is not a clear error), and on an OPEN entry that no longer occurs.
Refusals (clear errors, missing names and keywords) are counted, not failed: report.py ranks them.
"""

from __future__ import annotations

import os

import pytest

from .databases import torch_missing_reason

_missing = torch_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

from . import deliberate, report, suite  # noqa: E402
from .verdicts import Tally  # noqa: E402

_REPORT = "python tests/conformance/report.py"


@pytest.fixture(scope="module")
def full(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--conformance-full", default=False)) or (
        os.environ.get("TAPEGRAD_CONFORMANCE") == "full"
    )


@pytest.fixture(scope="module")
def tallies(full: bool) -> list[Tally]:
    return suite.run(full=full)


def _listing(found: list[tuple[str, str, object]], limit: int = 25) -> str:
    lines = [f"  {entry} via {variant}: {o.category}: {o.detail}" for entry, variant, o in found]
    names = sorted({entry for entry, _, _ in found})
    more = f"\n  ... and {len(lines) - limit} more" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + more + f"\nDetails: {_REPORT} --only {' '.join(names[:8])}"


def test_no_mismatch_beyond_the_deliberate_and_open_differences(tallies: list[Tally]) -> None:
    found = [
        (t.name, variant, outcome)
        for t in tallies
        for variant, outcome in t.mismatches
        if deliberate.known(t.name, variant, outcome) is None
    ]
    assert not found, (
        f"{len(found)} samples disagree with PyTorch (neither deliberate nor OPEN in "
        f"tests/conformance/deliberate.py):\n" + _listing(found)
    )


def test_no_new_unclear_error(tallies: list[Tally]) -> None:
    found = [
        (t.name, variant, outcome)
        for t in tallies
        for variant, outcome in t.unclear_samples
        if deliberate.known(t.name, variant, outcome) is None
    ]
    assert not found, (
        f"{len(found)} samples end in an exception that is not a clear error (a NumPy traceback,"
        f" an AttributeError...): raise a TypeError/ValueError/RuntimeError saying what to do:\n"
        + _listing(found)
    )


def test_every_open_difference_still_occurs(tallies: list[Tally], full: bool) -> None:
    seen = {
        id(known)
        for t in tallies
        for variant, outcome in [*t.mismatches, *t.unclear_samples]
        if (known := deliberate.known(t.name, variant, outcome)) is not None
    }
    stale = [d.reason for d in deliberate.OPEN if id(d) not in seen and (full or not d.full_only)]
    assert not stale, "fixed, so delete them from OPEN in tests/conformance/deliberate.py:\n" + (
        "\n".join(f"  {reason}" for reason in stale)
    )


def test_the_run_covers_the_counterparts(tallies: list[Tally]) -> None:
    kinds = {kind: [t for t in tallies if t.kind == kind] for kind in ("op", "module", "optimizer")}
    assert len(kinds["op"]) >= 100 and len(kinds["module"]) >= 20 and len(kinds["optimizer"]) >= 4
    passing = [t.name for t in tallies if t.passed]
    assert len(passing) >= 0.8 * len(tallies), "most entries pass something: the harness works"
    totals = report.totals(tallies)
    print(f"\nconformance: {totals} ({_REPORT} for the table)")
