"""What run.py prints and writes: the timing, memory and growth tables, the targets of issue 17
marked met / NOT met, benchmarks/RESULTS.md, and the speed table for the top-level README
(benchmarks/README_TABLE.md). Imports cases.py only; the numbers come from run.py.

Ratios are medians over rounds of per-round ratios (an arm's sample / the reference arm's sample in
the same round), with their p25-p75 spread: never ratios of medians.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from cases import LABELS

# "no growth": the live Python heap may wobble by a few interned strings or cache entries, not more
GROWTH_BYTES_OK, GROWTH_OBJECTS_OK = 16 * 1024, 50
GROWTH_WARMUP, CYCLE_STEPS = 100, 100


@dataclass(frozen=True)
class Target:
    key: str  # a timed workload, or "memory" / "growth"
    arm: str
    label: str
    limits: tuple  # ((against, limit), ...): against "numpy" or "torch" (ratios), "kb", "growth"

    def text(self) -> str:
        names = {"numpy": "NumPy", "torch": "PyTorch"}
        parts = []
        for against, limit in self.limits:
            if against == "kb":
                parts.append(f"<= {limit} KB")
            elif against == "growth":
                parts.append("0")
            else:
                parts.append(f"<= {limit}x {names[against]}")
        return " and ".join(parts)


_NN = "nn modules, MSELoss"
_FN = "functional: value_and_grad, opt.step(grads)"
TARGETS = [
    Target("elementwise", "tapegrad", "1,000 small elementwise ops, fwd+bwd", (("numpy", 3.0),)),
    Target("mlp_small", "tapegrad", f"MLP 32-64-64-1 step ({_NN}, SGD)", (("torch", 0.8),)),
    Target("mlp_small", "tapegrad_fn", f"MLP 32-64-64-1 step ({_FN})", (("torch", 0.8),)),
    Target(
        "mlp_large",
        "tapegrad",
        f"MLP 784-512-512-10 step ({_NN}, SGD)",
        (("torch", 1.0), ("numpy", 1.05)),
    ),
    Target(
        "mlp_large",
        "tapegrad_fn",
        f"MLP 784-512-512-10 step ({_FN})",
        (("torch", 1.0), ("numpy", 1.05)),
    ),
    Target("mlp_large_adam", "tapegrad", f"same with Adam ({_NN})", (("torch", 1.0),)),
    Target("mlp_large_adam", "tapegrad_fn", f"same with Adam ({_FN})", (("torch", 1.0),)),
    Target("chain", "tapegrad", "chain of 100,000 ops, fwd+bwd", (("numpy", 4.0),)),
    Target(
        "hvp",
        "tapegrad",
        "Hessian-vector product (autograd.grad, create_graph=True)",
        (("torch", 0.85),),
    ),
    Target("cnn", "tapegrad", "CNN step (LeNet-style, batch 64, 28x28)", (("torch", 1.5),)),
    Target(
        "hvp_raw",
        "tapegrad",
        "Hessian-vector product on raw ops (X @ W.T + b, tanh, MSE)",
        (("torch", 0.85),),
    ),
    Target(
        "conv_bn_16", "tapegrad", "Conv2d 16->16 + BatchNorm2d + ReLU, fwd+bwd", (("torch", 1.5),)
    ),
    Target(
        "conv_bn_32", "tapegrad", "Conv2d 32->32 + BatchNorm2d + ReLU, fwd+bwd", (("torch", 1.5),)
    ),
    Target(
        "conv_dw", "tapegrad", "depthwise Conv2d + BatchNorm2d + ReLU, fwd+bwd", (("torch", 2.0),)
    ),
    Target("gpt_nano", "tapegrad", "minGPT adder GPT training step (AdamW)", (("torch", 1.5),)),
    Target("gpt_char", "tapegrad", "nanoGPT char GPT training step (AdamW)", (("torch", 1.5),)),
    Target("memory", "tapegrad", "memory per recorded op (chain)", (("kb", 0.3),)),
    Target("growth", "tapegrad", "memory growth over 1,000 steps", (("growth", 0),)),
]


def _fmt(x: float) -> str:
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def ratio_text(r: tuple | None, spread: bool = True) -> str:
    """(median, p25, p75) of per-round ratios -> '1.18x (1.15-1.21)'."""
    if r is None:
        return "-"
    return f"{r[0]:.2f}x" + (f" ({r[1]:.2f}-{r[2]:.2f})" if spread else "")


def table(header: list, rows: list, markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    return "\n".join(
        [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
        + [fmt.format(*map(str, r)) for r in rows]
    )


TIMING_HEADER = [
    "workload",
    "arm",
    "median",
    "p25 - p75",
    "min",
    "x NumPy (p25-p75)",
    "x PyTorch (p25-p75)",
    "rounds x steps",
]


def timing_rows(wls: dict, results: dict) -> list:
    rows = []
    for name, stats in results.items():
        wl = wls[name]
        for arm, s in stats.items():
            rows.append(
                [
                    name,
                    LABELS[arm],
                    f"{_fmt(s['median'])} {wl.unit}",
                    f"{_fmt(s['p25'])} - {_fmt(s['p75'])}",
                    _fmt(s["min"]),
                    ratio_text(s["vs"].get("numpy")),
                    ratio_text(s["vs"].get("torch")),
                    f"{s['n']} x {s['inner']}",
                ]
            )
    return rows


MEMORY_HEADER = ["arm", "tracemalloc peak / op", "RSS growth / op", "recorded ops"]


def memory_rows(mem: dict) -> list:
    rows = []
    for arm, m in mem.items():
        tm = "n/a (C++ heap)" if arm == "torch" else f"{m['tracemalloc_peak_per_op'] / 1024:.3f} KB"
        rows.append([LABELS[arm], tm, f"{m['rss_per_op'] / 1024:.3f} KB", f"{m['ops']:,}"])
    return rows


GROWTH_HEADER = [
    "arm",
    "steps",
    "live Python heap growth",
    "gc objects growth",
    "RSS growth",
    "cyclic garbage objects / step",
]


def growth_rows(growth: dict) -> list:
    rows = []
    for arm, g in growth.items():
        py = "n/a (C++ heap)" if arm == "torch" else f"{g['bytes']:+,d} B"
        rows.append(
            [
                LABELS[arm],
                f"{g['steps']:,}",
                py,
                f"{g['objects']:+,d}",
                f"{g['rss'] / 1024:+,.0f} KB",
                f"{g['cyclic_per_step']:.1f}",
            ]
        )
    return rows


def growth_ok(g: dict) -> bool:
    return abs(g["bytes"]) <= GROWTH_BYTES_OK and abs(g["objects"]) <= GROWTH_OBJECTS_OK


def _memory_text(arm: str, m: dict) -> str:
    if arm == "torch":
        return f"{m['rss_per_op'] / 1024:.3f} KB (RSS)"
    return f"{m['tracemalloc_peak_per_op'] / 1024:.3f} KB"


def _growth_text(arm: str, g: dict) -> str:
    if arm == "torch":
        return f"{g['rss'] / 1024:+.0f} KB RSS"
    return f"{g['bytes']:+d} B, {g['objects']:+d} obj"


def evaluate(target: Target, results: dict, mem: dict, growth: dict) -> dict | None:
    """The measured figures behind one target and whether it holds; None when not measured."""
    if target.key == "memory":
        if target.arm not in mem:
            return None
        kb = mem[target.arm]["tracemalloc_peak_per_op"] / 1024
        return {
            "torch": _memory_text("torch", mem["torch"]) if "torch" in mem else "-",
            "arm": _memory_text(target.arm, mem[target.arm]),
            "vs_torch": None,
            "met": kb <= target.limits[0][1],
        }
    if target.key == "growth":
        if target.arm not in growth:
            return None
        return {
            "torch": _growth_text("torch", growth["torch"]) if "torch" in growth else "-",
            "arm": _growth_text(target.arm, growth[target.arm]),
            "vs_torch": None,
            "met": growth_ok(growth[target.arm]),
        }
    stats = results.get(target.key, {})
    if target.arm not in stats:
        return None
    vs = stats[target.arm]["vs"]
    if any(against not in vs for against, _ in target.limits):
        met = None  # a reference arm (PyTorch) did not run
    else:
        met = all(vs[against][0] <= limit for against, limit in target.limits)
        # the median decides; say so when the run's spread of per-round ratios straddles a limit
        spans = any(vs[a][1] <= limit < vs[a][2] for a, limit in target.limits)
    return {
        "torch": stats["torch"]["vs"].get("numpy") if "torch" in stats else None,
        "arm": vs.get("numpy"),  # (None for a workload without a NumPy arm: the GPT steps)
        "vs_torch": vs.get("torch"),
        "met": met,
        "spans": met is not None and spans,
    }


def _status(met: bool | None, spans: bool = False) -> str:
    text = {True: "met", False: "NOT met", None: "not measured"}[met]
    return text + " (p25-p75 spans the target)" if spans else text


TARGET_HEADER = [
    "workload",
    "arm",
    "PyTorch x NumPy",
    "tapegrad x NumPy",
    "tapegrad x PyTorch",
    "target",
    "status",
]


def target_rows(results: dict, mem: dict, growth: dict) -> list:
    rows = []
    for t in TARGETS:
        e = evaluate(t, results, mem, growth)
        if e is None:
            rows.append([t.label, LABELS[t.arm], "-", "-", "-", t.text(), _status(None)])
            continue

        def cell(v):
            return v if isinstance(v, str) else ratio_text(v)

        row = [t.label, LABELS[t.arm], cell(e["torch"]), cell(e["arm"]), cell(e["vs_torch"])]
        rows.append(row + [t.text(), _status(e["met"], e.get("spans", False))])
    return rows


def readme_table(results: dict, mem: dict, growth: dict, torch_version: str) -> str:
    """The README's speed table: medians of per-round ratios (spreads are in RESULTS.md)."""
    rows = []
    for t in TARGETS:
        e = evaluate(t, results, mem, growth)
        if e is None:
            continue
        torch_cell = e["torch"] if isinstance(e["torch"], str) else ratio_text(e["torch"], False)
        arm_cell = e["arm"] if isinstance(e["arm"], str) else ratio_text(e["arm"], False)
        if e["vs_torch"] is not None and any(a == "torch" for a, _ in t.limits):
            arm_cell += f" ({ratio_text(e['vs_torch'], False)} PyTorch)"
        status = _status(e["met"], e.get("spans", False))
        rows.append([t.label, torch_cell, arm_cell, f"{t.text()}: {status}"])
    header = ["workload", f"PyTorch {torch_version}", "tapegrad", "target"]
    return table(header, rows, True)


def write_results(path: str, env: dict, wls: dict, run: dict) -> None:
    """benchmarks/RESULTS.md from one run: run has results, mem, growth, loads, warnings."""
    results, mem, growth = run["results"], run["mem"], run["growth"]
    lines = [
        "# tapegrad benchmark results",
        "",
        f"Written by `{' '.join(['python benchmarks/run.py'] + sys.argv[1:])}` on {env['date']}. "
        "Regenerate with `make bench` (or the command above); the method is in the docstring of "
        "`benchmarks/run.py` and in `benchmarks/README.md`.",
        "",
        "## Machine and versions",
        "",
    ]
    lines += [f"- **{k}**: {v}" for k, v in env.items() if k != "date"]
    lines += [
        "",
        "## Targets (issue 17)",
        "",
        "Each ratio is the median over rounds of (this arm's time / the reference arm's time in "
        "the same round), with the p25-p75 spread of those per-round ratios in parentheses. NumPy "
        "is the hand-written step (forward, hand-derived backward, in-place updates, reused "
        'buffers); PyTorch is eager mode on one thread. "tapegrad" is the code users write (nn '
        'modules, the loss module, the optimizer); "tapegrad functional" is the same model trained '
        "with "
        "`tg.value_and_grad(fn, None, weights=net.trainable_params())` and `opt.step(grads)`.",
        "",
        table(TARGET_HEADER, target_rows(results, mem, growth), True),
        "",
    ]
    if results:
        lines += [
            "## Timings",
            "",
            "One sample = the mean of `steps` back-to-back calls; each round times every arm once "
            "(order rotated from round to round), GC on, one thread everywhere. Median, p25-p75 "
            "and min are over the rounds' samples; the ratio columns are medians (and p25-p75) of "
            "per-round ratios.",
            "",
            table(TIMING_HEADER, timing_rows(wls, results), True),
            "",
            "Workloads (1-min load average when each started, about 1.0 of it this run):",
            "",
        ]
        lines += [
            f"- `{n}`: {wls[n].title}"
            + (" (2 recorded ops per statement; per-op figures count both)" if n == "chain" else "")
            + f"; load {run['loads'].get(n, float('nan')):.2f}"
            for n in results
        ]
        lines += [
            "",
            'Arms: "tapegrad MindSpore style" is a Cell of `nn.Dense(..., activation="tanh")` '
            'trained with `value_and_grad` and `optimizer(grads)`; "tapegrad raw tensors" is the '
            "same computation from operators on tensors with `requires_grad=True` and a "
            "hand-written SGD update under `no_grad` (no modules, no optimizer).",
            "",
        ]
    if mem:
        lines += [
            "## Memory per recorded op (chain forward, graph alive)",
            "",
            "Child process per arm. tracemalloc sees the Python heap and NumPy buffers (peak "
            "while the forward runs, divided by the number of recorded ops); it cannot see "
            "PyTorch's C++ heap, so for torch only the RSS growth means something. The NumPy "
            "arm needs nothing saved for this chain (its backward only multiplies by constants).",
            "",
            table(MEMORY_HEADER, memory_rows(mem), True),
            "",
        ]
    if growth:
        steps = next(iter(growth.values()))["steps"]
        lines += [
            f"## Growth of live memory over {steps:,} training steps",
            "",
            f"MLP 32-64-64-1 steps, child process per arm: after {GROWTH_WARMUP} warm-up steps "
            "and after the timed ones, `gc.collect()` then tracemalloc's current size and "
            "`len(gc.get_objects())`. Met when the heap grows by at most "
            f"{GROWTH_BYTES_OK // 1024} KB and {GROWTH_OBJECTS_OK} objects (interpreter caches). "
            "The last column is what one step leaves for the cycle collector (gc disabled for "
            f"{CYCLE_STEPS} steps, then `gc.collect()`): 0 means reference counting frees "
            "everything.",
            "",
            table(GROWTH_HEADER, growth_rows(growth), True),
            "",
        ]
    if run["warnings"]:
        lines += ["## Warnings", ""] + [f"- {w}" for w in run["warnings"]] + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


def write_readme_table(path: str, env: dict, run: dict, torch_version: str) -> None:
    """benchmarks/README_TABLE.md: the README's speed table, ready to paste."""
    text = readme_table(run["results"], run["mem"], run["growth"], torch_version)
    intro = (
        f"<!-- written by benchmarks/run.py on {env['date']} from the run in RESULTS.md: paste "
        "into README.md's Speed section -->\n\n"
        "Ratios to hand-written NumPy (lower is better), medians over rounds of per-round "
        f"ratios, one thread each; {env['cpu']}, {env['cores']}. Spreads, load and every arm: "
        "[benchmarks/RESULTS.md](benchmarks/RESULTS.md).\n\n"
    )
    with open(path, "w") as f:
        f.write(intro + text + "\n")
