"""The conformance table: per entry, how many of PyTorch's samples pass, are refused, or disagree.

    python tests/conformance/report.py               # everything (reference inputs too; minutes)
    python tests/conformance/report.py --quick       # the test's subset (what pytest runs)
    python tests/conformance/report.py --markdown    # tables in Markdown, for a note or an issue
    python tests/conformance/report.py --only add nn.Linear optim.SGD

Run from the project root with the package importable (PYTHONPATH=. or an installed tapegrad).
Then: the refusal categories ranked by count (what to add next), the unclear errors, every
mismatch (with its OPEN reason where known) and the deliberate differences that excused some.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import the package from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "conformance"

from conformance import deliberate  # noqa: E402
from conformance.databases import torch_missing_reason  # noqa: E402
from conformance.verdicts import Tally  # noqa: E402


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
        return "\n".join(lines)
    columns = list(zip(header, *rows))
    widths = [max(len(c) for c in col) for col in columns]
    numeric = [
        all(c.rstrip("%").replace(".", "").isdigit() or c in "-" for c in col[1:])
        for col in columns
    ]
    fmt = "  ".join(f"{{:{'>' if n else '<'}{w}}}" for n, w in zip(numeric, widths))
    return "\n".join(fmt.format(*r).rstrip() for r in [header, *rows])


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def totals(tallies: list[Tally]) -> dict[str, int]:
    """Sample counts over all entries."""
    return {
        "entries": len(tallies),
        "samples": sum(t.samples for t in tallies),
        "passed": sum(t.passed for t in tallies),
        "refused": sum(sum(t.refused.values()) for t in tallies),
        "unclear": sum(sum(t.unclear.values()) for t in tallies),
        "mismatched": sum(len(t.mismatches) for t in tallies),
        "excused": sum(len(t.excused) for t in tallies),
    }


def entry_table(tallies: list[Tally], markdown: bool = False) -> str:
    """One row per entry, and the totals."""
    header = [
        "entry",
        "kind",
        "samples",
        "pass",
        "refused",
        "unclear",
        "mismatch",
        "excused",
        "pass %",
    ]
    rows = []
    for t in tallies:
        if t.samples:
            rows.append(
                [
                    t.name,
                    t.kind,
                    str(t.samples),
                    str(t.passed),
                    str(sum(t.refused.values())),
                    str(sum(t.unclear.values())),
                    str(len(t.mismatches)),
                    str(len(t.excused)),
                    _percent(t.passed, t.samples),
                ]
            )
    s = totals(tallies)
    rows.append(
        [
            f"TOTAL ({s['entries']} entries)",
            "",
            str(s["samples"]),
            str(s["passed"]),
            str(s["refused"]),
            str(s["unclear"]),
            str(s["mismatched"]),
            str(s["excused"]),
            _percent(s["passed"], s["samples"]),
        ]
    )
    return _table(header, rows, markdown)


def ranked(tallies: list[Tally], which: str, markdown: bool = False) -> str:
    """Refusal (`which="refused"`) or unclear-error categories, most samples first, with the
    entries they hit."""
    counts: Counter[str] = Counter()
    where: dict[str, Counter[str]] = defaultdict(Counter)
    for t in tallies:
        for category, n in getattr(t, which).items():
            counts[category] += n
            where[category][t.name] += n
    rows = []
    for category, n in counts.most_common():
        hit = where[category].most_common()
        names = ", ".join(f"{name} ({k})" for name, k in hit[:6])
        more = f" and {len(hit) - 6} more" if len(hit) > 6 else ""
        rows.append([str(n), category, names + more])
    return _table(["samples", "category", "entries"], rows, markdown) if rows else "(none)"


def mismatch_lines(tallies: list[Tally], limit: int = 3) -> list[str]:
    """The mismatches not deliberate, `limit` per entry and kind, each with its OPEN reason."""
    lines = []
    for t in tallies:
        shown: Counter[str] = Counter()
        for variant, outcome in t.mismatches:
            shown[outcome.category] += 1
            if shown[outcome.category] > limit:
                continue
            known = deliberate.known(t.name, variant, outcome)
            note = f"  (OPEN: {known.reason})" if known else ""
            lines.append(f"{t.name} via {variant}: {outcome.category}: {outcome.detail}{note}")
        hidden = sum(n - limit for n in shown.values() if n > limit)
        if hidden:
            lines.append(f"{t.name}: ... and {hidden} more")
    return lines


def excused_table(tallies: list[Tally], markdown: bool = False) -> str:
    """How many samples each deliberate difference excused."""
    counts: Counter[str] = Counter(reason for t in tallies for _, _, reason in t.excused)
    rows = [[str(n), reason] for reason, n in counts.most_common()]
    return _table(["samples", "deliberate difference"], rows, markdown) if rows else "(none)"


def render(tallies: list[Tally], markdown: bool = False) -> str:
    """The whole report as text."""
    heading = "### " if markdown else "== "
    parts = [
        f"{heading}Per entry",
        entry_table(tallies, markdown),
        f"{heading}Refusals by category",
        ranked(tallies, "refused", markdown),
        f"{heading}Unclear errors (not a clear error: fix them)",
        ranked(tallies, "unclear", markdown),
        f"{heading}Mismatches",
        "\n".join(mismatch_lines(tallies)) or "(none)",
        f"{heading}Deliberate differences",
        excused_table(tallies, markdown),
    ]
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="Markdown tables")
    parser.add_argument("--quick", action="store_true", help="the test's subset, not everything")
    parser.add_argument("--only", nargs="+", help="entry names (add, max.binary, nn.Linear)")
    args = parser.parse_args(argv)
    reason = torch_missing_reason()
    if reason:
        print(reason)
        return 1
    from conformance import suite

    start = time.time()
    tallies = suite.run(full=not args.quick, only=set(args.only) if args.only else None)
    print(render(tallies, args.markdown))
    size = "the test's subset" if args.quick else "everything"
    print(f"\n({size}, {time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
