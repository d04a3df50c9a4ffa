"""tapegrad benchmarks (issue 6): every arm side by side, in one process, against hand-written NumPy.

    python benchmarks/run.py              # full run (~2-3 min on 2 cores), writes benchmarks/RESULTS.md
    python benchmarks/run.py --quick      # smoke run: few repeats, shorter chain, writes nothing
    python benchmarks/run.py --only chain,memory --repeats 3
    python benchmarks/run.py --profile elementwise   # cProfile of the tapegrad arm, top hotspots

Method (what makes the numbers honest):
- Arms: "numpy" (forward + hand-derived backward, the limit for a NumPy-backed engine: ratio 1.0),
  "tapegrad", and only if importable (never a dependency) "torch" (PyTorch eager, 1 thread) and
  "autograd" (HIPS autograd). All arms run in this one process, interleaved: each repeat runs every
  arm once, in an order rotated from repeat to repeat.
- BLAS, OpenMP and torch are pinned to one thread before NumPy is imported (checked, and reported).
- Before timing, every arm computes its gradients on the same inputs and they are compared with the
  NumPy arm's (float32 tolerances); any mismatch aborts the run with exit status 1.
- The garbage collector stays ON while timing (its pauses are a real cost of a Python tape). Objects
  that exist before timing (the imported modules of every arm) are moved out of its way with
  gc.freeze(), so one arm's imports do not slow another arm's full collections.
- Reported: median over repeats, spread (IQR: 25th-75th percentile, and min), ratio of medians to the
  NumPy arm. Memory (5) and growth over 1,000 training steps (7) are measured in a fresh child process
  per arm, with tracemalloc (Python heap and NumPy buffers) and RSS (everything, incl. C++ heaps).
"""

from __future__ import annotations

import os
import sys

_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def _pin_threads() -> None:
    """One thread for every BLAS/OpenMP pool: must happen before NumPy (or torch) is imported."""
    if any(os.environ.get(v) != "1" for v in _THREAD_VARS):
        for v in _THREAD_VARS:
            os.environ[v] = "1"
        if "numpy" in sys.modules and os.environ.get("_TAPEGRAD_BENCH_REEXEC") != "1":
            os.environ["_TAPEGRAD_BENCH_REEXEC"] = "1"  # numpy came first (sitecustomize?): restart
            os.execv(sys.executable, [sys.executable] + sys.argv)


if __name__ == "__main__":
    _pin_threads()

import argparse  # noqa: E402
import ctypes  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (HERE, ROOT):  # the workloads next to this file, and the tapegrad of this checkout
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy as np  # noqa: E402

import workloads as W  # noqa: E402

# Issue 6: anchors measured by the author, and tapegrad's targets (ratio to the NumPy arm).
TARGETS = [
    # (key, label, torch anchor, autograd anchor, target text, target value, kind)
    (
        "elementwise",
        "1,000 small elementwise ops, fwd+bwd, per op",
        "5.6x",
        "10.6x",
        "<= 4.0x",
        4.0,
        "ratio",
    ),
    (
        "mlp_small",
        "MLP 32-64-64-1, batch 16, MSE + SGD step",
        "5.3x",
        "8.6x",
        "<= 4.0x",
        4.0,
        "ratio",
    ),
    (
        "mlp_large",
        "MLP 784-512-512-10, batch 128, MSE + SGD step",
        "0.95x",
        "1.46x",
        "<= 1.05x",
        1.05,
        "ratio",
    ),
    (
        "chain",
        "chain of 100,000 ops x*1.0001 + 0.0001, fwd+bwd, per op",
        "11.7x",
        "35x",
        "<= 8x",
        8.0,
        "ratio",
    ),
    (
        "memory",
        "same chain, peak memory per recorded op",
        "~0.9 KB",
        "~1.1 KB",
        "<= 0.6 KB",
        0.6,
        "kb",
    ),
    (
        "hvp",
        "Hessian-vector product of a small MLP loss (double backward)",
        "8.9x",
        "29x",
        "<= 6x",
        6.0,
        "ratio",
    ),
    ("growth", "1,000 training steps: growth of live memory", "0", "0", "0", 0.0, "growth"),
    # issue 17: measured against PyTorch (median of per-round tapegrad / torch ratios)
    (
        "cnn",
        "LeNet-style CNN step, batch 64, 28x28 (nn modules, SGD)",
        "1.03x",
        "-",
        "<= 1.5x PyTorch",
        1.5,
        "torch_ratio",
    ),
]
TIMED = ("elementwise", "mlp_small", "mlp_large", "chain", "hvp", "cnn")
ALL = ("elementwise", "mlp_small", "mlp_large", "chain", "memory", "hvp", "growth", "cnn")
ALIASES = {str(i + 1): name for i, name in enumerate(ALL)}
GROWTH_STEPS, GROWTH_WARMUP, CYCLE_STEPS = 1000, 100, 100
# "no growth": the live Python heap may wobble by a few interned strings or cache entries, not more
GROWTH_BYTES_OK, GROWTH_OBJECTS_OK = 16 * 1024, 50


# ---------------------------------------------------------------------------------------------
# environment
# ---------------------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _blas_threads() -> str:
    """Ask the loaded OpenBLAS how many threads it will use (the env vars are only a request)."""
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({ln.split()[-1] for ln in f if "openblas" in ln.lower() and "/" in ln})
    except OSError:
        return "unknown (no /proc/self/maps)"
    found = []
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for sym in (
            "openblas_get_num_threads",
            "openblas_get_num_threads64_",
            "scipy_openblas_get_num_threads64_",
            "scipy_openblas_get_num_threads",
        ):
            if hasattr(lib, sym):
                found.append(f"{getattr(lib, sym)()} ({os.path.basename(path)})")
                break
    return ", ".join(found) or "unknown (OpenBLAS not found)"


def _load() -> str:
    """Other processes on the machine skew every arm's timings (interleaving only evens it out)."""
    try:
        return "load average %.2f %.2f %.2f (1, 5, 15 min)" % os.getloadavg()
    except OSError:
        return "unknown"


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except Exception:
        return ""


def source_digest() -> str:
    """A digest of tapegrad's sources, to notice code that changed while the benchmark ran."""
    import hashlib

    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(os.path.join(ROOT, "tapegrad"))):
        dirnames.sort()
        for fn in sorted(filenames):
            if fn.endswith(".py"):
                with open(os.path.join(dirpath, fn), "rb") as f:
                    h.update(fn.encode() + f.read())
    return h.hexdigest()[:12]


def environment(arms: list) -> dict:
    import tapegrad

    env = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cores": f"{os.cpu_count()} logical, {len(os.sched_getaffinity(0))} usable"
        if hasattr(os, "sched_getaffinity")
        else f"{os.cpu_count()} logical",
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "numpy": np.__version__,
        "tapegrad": f"{tapegrad.__version__} (git {_git('rev-parse', '--short', 'HEAD') or '?'}"
        f"{', uncommitted changes' if _git('status', '--porcelain', '--', 'tapegrad') else ''})",
        "load": _load(),
        "threads": ", ".join(f"{v}={os.environ.get(v)}" for v in _THREAD_VARS[:3])
        + f"; OpenBLAS reports {_blas_threads()}",
    }
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        env["numpy"] += f" (BLAS: {blas.get('name')} {blas.get('version')})"
    except Exception:
        pass
    if "torch" in arms:
        import torch

        env["torch"] = f"{torch.__version__} (threads: {torch.get_num_threads()})"
    else:
        env["torch"] = "not installed: arm skipped"
    if "autograd" in arms:
        from importlib.metadata import version

        env["autograd"] = version("autograd")
    else:
        env["autograd"] = "not installed: arm skipped"
    return env


# ---------------------------------------------------------------------------------------------
# correctness before timing
# ---------------------------------------------------------------------------------------------


class GradientMismatch(AssertionError):
    pass


def compare_grads(name: str, ref: list, got: list, arm: str) -> str | None:
    """Raise if `got` differs from the NumPy arm's gradients; return a warning for non-float32."""
    if len(ref) != len(got):
        raise GradientMismatch(f"{name}: {arm} returned {len(got)} gradients, numpy {len(ref)}")
    warning = None
    for i, (r, g) in enumerate(zip(ref, got)):
        g = np.asarray(g)
        if g.shape != r.shape:
            raise GradientMismatch(
                f"{name}: {arm} gradient {i} has shape {g.shape}, numpy {r.shape}"
            )
        scale = max(1.0, float(np.max(np.abs(r))))
        if not np.all(np.isfinite(g)) or not np.allclose(g, r, rtol=1e-3, atol=1e-5 * scale):
            err = float(np.max(np.abs(g.astype(np.float64) - r)))
            raise GradientMismatch(
                f"{name}: {arm} gradient {i} (shape {r.shape}) differs from the hand-written NumPy "
                f"one: max abs error {err:.3g} (scale {scale:.3g}); timing a wrong computation is "
                f"meaningless, fix the arm first"
            )
        if g.dtype != np.float32:
            warning = f"{name}: {arm} gradient {i} is {g.dtype}, not float32"
    return warning


def check_workload(wl: W.Workload, data: dict, arms: list) -> tuple[dict, list]:
    """Fresh case per arm, one step each, gradients compared; the cases are then timed (warm)."""
    cases, warnings = {}, []
    for arm in arms:
        case = wl.build(arm, data)
        case.step()
        cases[arm] = case
    ref = [np.asarray(g) for g in cases["numpy"].grads()]
    for arm in arms[1:]:
        w = compare_grads(wl.name, ref, cases[arm].grads(), arm)
        if w:
            warnings.append(w)
    return cases, warnings


# ---------------------------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------------------------


def _once(step) -> float:
    t0 = time.perf_counter()
    step()
    return time.perf_counter() - t0


def time_workload(wl: W.Workload, cases: dict, repeats: int, target: float) -> dict:
    """Round-robin: each repeat times every arm once (rotating the order); a sample is the mean of
    `inner` back-to-back steps, `inner` chosen per arm so a sample lasts about `target` seconds."""
    inner = {}
    for arm, case in cases.items():
        t = _once(case.step)
        if t < target / 2:
            t = min(t, _once(case.step))
        inner[arm] = max(1, min(100_000, int(round(target / max(t, 1e-9)))))
    arms = list(cases)
    samples: dict = {arm: [] for arm in arms}
    gc.collect()
    for r in range(repeats):
        k = r % len(arms)
        for arm in arms[k:] + arms[:k]:
            step, n = cases[arm].step, inner[arm]
            t0 = time.perf_counter()
            for _ in range(n):
                step()
            samples[arm].append((time.perf_counter() - t0) / n)
    stats = {}
    for arm in arms:
        s = np.asarray(samples[arm]) * (wl.scale / wl.per)
        stats[arm] = {
            "median": float(np.median(s)),
            "p25": float(np.percentile(s, 25)),
            "p75": float(np.percentile(s, 75)),
            "min": float(s.min()),
            "n": len(s),
            "inner": inner[arm],
        }
    base, base_min = stats["numpy"]["median"], stats["numpy"]["min"]
    for arm in arms:
        stats[arm]["ratio"] = stats[arm]["median"] / base
        stats[arm]["ratio_min"] = stats[arm]["min"] / base_min
        # the same round's samples side by side: a slow spell of the machine cancels out
        rounds = np.asarray(samples[arm]) / np.asarray(samples["numpy"])
        stats[arm]["round_ratio"] = float(np.median(rounds))
        if "torch" in samples:
            vs_torch = np.asarray(samples[arm]) / np.asarray(samples["torch"])
            stats[arm]["round_ratio_torch"] = float(np.median(vs_torch))
            stats[arm]["round_ratio_torch_iqr"] = tuple(np.percentile(vs_torch, [25, 75]))
    return stats


# ---------------------------------------------------------------------------------------------
# memory (5) and growth (7): one fresh child process per arm
# ---------------------------------------------------------------------------------------------


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child_memory(arm: str, n_ops: int) -> dict:
    small = W.chain_data(200)
    W.chain_forward(arm, small)  # imports and one-time setup happen outside
    data = W.chain_data(n_ops)
    n_recorded = 2 * data["n"]
    gc.collect()
    rss0 = _rss()
    alive = W.chain_forward(arm, data)  # the whole forward graph, alive
    rss1 = _rss()
    del alive
    gc.collect()
    tracemalloc.start()
    alive = W.chain_forward(arm, data)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del alive
    return {
        "tracemalloc_peak_per_op": peak / n_recorded,
        "tracemalloc_alive_per_op": current / n_recorded,
        "rss_per_op": (rss1 - rss0) / n_recorded,
        "ops": n_recorded,
    }


def child_growth(arm: str, steps: int) -> dict:
    wl = W.workloads()["mlp_small"]
    case = wl.build(arm, wl.data())
    tracemalloc.start()
    for _ in range(GROWTH_WARMUP):
        case.step()
    gc.collect()
    m0, o0, r0 = tracemalloc.get_traced_memory()[0], len(gc.get_objects()), _rss()
    for _ in range(steps):
        case.step()
    gc.collect()
    m1, o1, r1 = tracemalloc.get_traced_memory()[0], len(gc.get_objects()), _rss()
    tracemalloc.stop()
    gc.disable()  # how much cyclic garbage does one step leave?
    gc.collect()
    for _ in range(CYCLE_STEPS):
        case.step()
    cyclic = gc.collect()
    gc.enable()
    return {
        "bytes": m1 - m0,
        "objects": o1 - o0,
        "rss": r1 - r0,
        "steps": steps,
        "cyclic_per_step": cyclic / CYCLE_STEPS,
    }


def run_child(kind: str, arm: str, arg: int) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", f"{kind}:{arm}:{arg}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"child {kind}:{arm} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def timing_rows(wls: dict, results: dict) -> list:
    rows = []
    for name in TIMED:
        if name not in results:
            continue
        wl = wls[name]
        for arm, s in results[name].items():
            rows.append(
                [
                    wl.name,
                    arm,
                    f"{_fmt(s['median'])} {wl.unit}",
                    f"{_fmt(s['p25'])} - {_fmt(s['p75'])}",
                    _fmt(s["min"]),
                    f"{s['ratio']:.2f}x",
                    f"{s['ratio_min']:.2f}x",
                    f"{s['n']} x {s['inner']}",
                ]
            )
    return rows


def memory_rows(mem: dict) -> list:
    rows = []
    for arm, m in mem.items():
        tm = "n/a (C++ heap)" if arm == "torch" else f"{m['tracemalloc_peak_per_op'] / 1024:.3f} KB"
        rows.append([arm, tm, f"{m['rss_per_op'] / 1024:.3f} KB", f"{m['ops']:,}"])
    return rows


def growth_rows(growth: dict) -> list:
    rows = []
    for arm, g in growth.items():
        py = "n/a (C++ heap)" if arm == "torch" else f"{g['bytes']:+,d} B"
        rows.append(
            [
                arm,
                f"{g['steps']:,}",
                py,
                f"{g['objects']:+,d}",
                f"{g['rss'] / 1024:+,.0f} KB",
                f"{g['cyclic_per_step']:.1f}",
            ]
        )
    return rows


def _table(header: list, rows: list, markdown: bool) -> str:
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
    "IQR (p25 - p75)",
    "min",
    "ratio to numpy",
    "ratio of mins",
    "samples x steps",
]
MEMORY_HEADER = ["arm", "tracemalloc peak / op", "RSS growth / op", "recorded ops"]
GROWTH_HEADER = [
    "arm",
    "steps",
    "live Python heap growth",
    "gc objects growth",
    "RSS growth",
    "cyclic garbage objects / step",
]


def target_rows(results: dict, mem: dict, growth: dict) -> list:
    rows = []
    for key, label, t_anchor, a_anchor, text, value, kind in TARGETS:
        measured = {}
        met = "not measured"
        if kind == "torch_ratio" and key in results:
            measured = {a: f"{s['round_ratio']:.2f}x" for a, s in results[key].items()}
            tg_stats = results[key].get("tapegrad", {})
            if "round_ratio_torch" in tg_stats:
                lo, hi = tg_stats["round_ratio_torch_iqr"]
                measured["tapegrad"] += (
                    f" ({tg_stats['round_ratio_torch']:.2f}x PyTorch, IQR {lo:.2f}-{hi:.2f})"
                )
                met = "met" if tg_stats["round_ratio_torch"] <= value else "NOT met"
        elif kind == "ratio" and key in results:
            measured = {a: f"{s['ratio']:.2f}x" for a, s in results[key].items()}
            if "tapegrad" in results[key]:
                met = "met" if results[key]["tapegrad"]["ratio"] <= value else "NOT met"
        elif kind == "kb" and mem:
            measured = {
                a: (
                    f"{m['rss_per_op'] / 1024:.2f} KB (RSS)"
                    if a == "torch"
                    else f"{m['tracemalloc_peak_per_op'] / 1024:.2f} KB"
                )
                for a, m in mem.items()
            }
            if "tapegrad" in mem:
                met = (
                    "met"
                    if mem["tapegrad"]["tracemalloc_peak_per_op"] / 1024 <= value
                    else "NOT met"
                )
        elif kind == "growth" and growth:
            measured = {
                a: (
                    f"{g['rss'] / 1024:+.0f} KB RSS"
                    if a == "torch"
                    else f"{g['bytes']:+d} B, {g['objects']:+d} obj"
                )
                for a, g in growth.items()
            }
            if "tapegrad" in growth:
                g = growth["tapegrad"]
                ok = abs(g["bytes"]) <= GROWTH_BYTES_OK and abs(g["objects"]) <= GROWTH_OBJECTS_OK
                met = "met" if ok else "NOT met"
        rows.append(
            [
                label,
                t_anchor,
                a_anchor,
                measured.get("torch", "-"),
                measured.get("autograd", "-"),
                measured.get("tapegrad", "-"),
                text,
                met,
            ]
        )
    return rows


TARGET_HEADER = [
    "workload",
    "PyTorch (issue)",
    "autograd (issue)",
    "PyTorch (here)",
    "autograd (here)",
    "tapegrad (here)",
    "target",
    "tapegrad",
]


def write_results(
    path: str,
    env: dict,
    args: argparse.Namespace,
    wls: dict,
    results: dict,
    mem: dict,
    growth: dict,
    warnings: list,
) -> None:
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
        "## Targets (issue 6)",
        "",
        "Ratios are medians relative to the hand-written NumPy arm (forward + hand-derived backward) "
        'measured in the same run; the "(issue)" columns are the anchors the issue was written '
        'against, the "(here)" columns what this run measured.',
        "",
        _table(TARGET_HEADER, target_rows(results, mem, growth), True),
        "",
    ]
    if results:
        lines += [
            "## Timings",
            "",
            "One sample = the mean of `steps` back-to-back calls; medians and spreads are over the "
            'samples, arms interleaved round-robin, GC on, one thread everywhere. "ratio to '
            'numpy" (of medians) is the figure the targets use; "ratio of mins" is shown '
            "because it is less sensitive to other load on the machine.",
            "",
            _table(TIMING_HEADER, timing_rows(wls, results), True),
            "",
        ]
        lines += ["Workloads:", ""]
        lines += [
            f"- `{n}`: {wls[n].title}"
            + (
                " (2 recorded ops per statement, mul and add; per-op figures count both)"
                if n == "chain"
                else ""
            )
            for n in TIMED
            if n in results
        ]
        lines += [""]
    if mem:
        lines += [
            "## Memory per recorded op (chain forward, graph alive)",
            "",
            "Child process per arm. tracemalloc sees the Python heap and NumPy buffers (peak "
            "while the forward runs, divided by the number of recorded ops); it cannot see "
            "PyTorch's C++ heap, so for torch only the RSS growth means something. The NumPy "
            "arm needs nothing saved for this chain (its backward only multiplies by constants).",
            "",
            _table(MEMORY_HEADER, memory_rows(mem), True),
            "",
        ]
    if growth:
        lines += [
            f"## Growth of live memory over {next(iter(growth.values()))['steps']:,} training steps",
            "",
            f"MLP 32-64-64-1 steps, child process per arm: after {GROWTH_WARMUP} warm-up steps "
            "and after the timed ones, `gc.collect()` then tracemalloc's current size and "
            "`len(gc.get_objects())`. Met when the tapegrad heap grows by at most "
            f"{GROWTH_BYTES_OK // 1024} KB and {GROWTH_OBJECTS_OK} objects (interpreter caches). "
            "The last column is what one step leaves for the cycle collector (gc disabled for "
            f"{CYCLE_STEPS} steps, then `gc.collect()`): 0 means reference counting frees "
            "everything.",
            "",
            _table(GROWTH_HEADER, growth_rows(growth), True),
            "",
        ]
    if warnings:
        lines += ["## Warnings", ""] + [f"- {w}" for w in warnings] + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


# ---------------------------------------------------------------------------------------------
# profiling
# ---------------------------------------------------------------------------------------------


def profile(name: str, arm: str, steps: int, top: int) -> None:
    import cProfile
    import pstats

    wl = W.workloads()[name]
    case = wl.build(arm, wl.data())
    case.step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        case.step()
    prof.disable()
    st = pstats.Stats(prof)
    total = st.total_tt
    entries = []
    for (file, line, func), (cc, nc, tt, ct, _callers) in st.stats.items():
        short = f"{os.path.relpath(file, ROOT) if file.startswith(ROOT) else os.path.basename(file)}:{line}({func})"
        entries.append((short, nc, tt, ct))
    print(
        f"cProfile of {arm} / {name}: {steps} steps, {total:.3f} s profiled "
        f"(profiling inflates per-call costs; compare shares, not absolute times)\n"
    )
    for title, key in (("by cumulative time", 3), ("by own time", 2)):
        print(f"top {top} {title}:  share of total  calls  function")
        for short, nc, tt, ct in sorted(entries, key=lambda e: -e[key])[:top]:
            print(f"  {100 * (ct if key == 3 else tt) / total:6.1f}%  {nc:>9}  {short}")
        print()


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------


def parse_args(argv: list) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 3 repeats, short samples, 20k-op chain, 200 growth steps; "
        "does not write RESULTS.md unless --output is given",
    )
    ap.add_argument("--repeats", type=int, help="samples per arm for every timed workload")
    ap.add_argument("--only", help="comma-separated subset of: " + ", ".join(ALL) + " (or 1-8)")
    ap.add_argument("--arms", help="comma-separated subset of arms (numpy is always included)")
    ap.add_argument(
        "--sample-seconds",
        type=float,
        help="target duration of one sample (default 0.1 s, 1 s for the chain)",
    )
    ap.add_argument(
        "--output",
        help="where to write the results (default benchmarks/RESULTS.md on a "
        "full run of everything)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument(
        "--no-freeze", action="store_true", help="do not gc.freeze() pre-existing objects"
    )
    ap.add_argument(
        "--profile", metavar="NAME", help="cProfile one workload's arm instead of timing"
    )
    ap.add_argument("--profile-arm", default="tapegrad")
    ap.add_argument("--profile-steps", type=int, default=0)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: list | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.child:
        kind, arm, arg = args.child.split(":")
        fn = child_memory if kind == "memory" else child_growth
        print(json.dumps(fn(arm, int(arg))))
        return 0
    if args.profile:
        steps = args.profile_steps or {"chain": 2, "mlp_large": 20}.get(args.profile, 200)
        profile(ALIASES.get(args.profile, args.profile), args.profile_arm, steps, args.top)
        return 0

    selected = list(ALL)
    if args.only:
        selected = [ALIASES.get(s.strip(), s.strip()) for s in args.only.split(",") if s.strip()]
        bad = [s for s in selected if s not in ALL]
        if bad:
            print(f"unknown workload(s) {bad}; choose from {', '.join(ALL)}", file=sys.stderr)
            return 2
    arms = [a for a in W.ARMS if W.arm_available(a)]
    if args.arms:
        wanted = {"numpy"} | {a.strip() for a in args.arms.split(",")}
        arms = [a for a in arms if a in wanted]
    skipped = [a for a in W.ARMS if a not in arms]
    for a in arms:  # import every arm now, so imports are neither timed nor inside gc.freeze()
        if a == "tapegrad":
            import tapegrad  # noqa: F401
        elif a == "torch":
            W._torch()
        elif a == "autograd":
            import autograd.numpy  # noqa: F401
    env = environment(arms)
    repeats_default = 3 if args.quick else None
    wls = W.workloads(quick=args.quick)

    print("tapegrad benchmarks" + (" (quick smoke run)" if args.quick else ""))
    for k, v in env.items():
        print(f"  {k:9s} {v}")
    if skipped:
        print(f"  skipped arms (not importable or not asked for): {', '.join(skipped)}")
    print()

    if not args.no_freeze:
        gc.collect()
        gc.freeze()
    results, warnings, mem, growth = {}, [], {}, {}
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    digest = source_digest()
    t_start = time.perf_counter()
    try:
        for name in selected:
            t0 = time.perf_counter()
            if name in TIMED:
                wl = wls[name]
                data = wl.data()
                cases, warns = check_workload(wl, data, [a for a in arms if a in W.BUILDERS[name]])
                warnings += warns
                repeats = args.repeats or repeats_default or wl.repeats
                if name == "chain" and not args.repeats:
                    repeats = min(repeats, 5)
                target = args.sample_seconds or wl.sample_seconds / (5 if args.quick else 1)
                results[name] = time_workload(wl, cases, repeats, target)
                del cases
                print(_table(TIMING_HEADER, timing_rows(wls, {name: results[name]}), False))
            elif name == "memory":
                n_ops = wls["chain"].params["n_ops"]
                for arm in arms:
                    mem[arm] = run_child("memory", arm, n_ops)
                print(_table(MEMORY_HEADER, memory_rows(mem), False))
            elif name == "growth":
                steps = 200 if args.quick else GROWTH_STEPS
                for arm in arms:
                    growth[arm] = run_child("growth", arm, steps)
                print(_table(GROWTH_HEADER, growth_rows(growth), False))
            print(f"  ({name}: {time.perf_counter() - t0:.1f} s)\n")
    except GradientMismatch as e:
        print(f"\nGRADIENT CHECK FAILED: {e}", file=sys.stderr)
        return 1

    print(_table(TARGET_HEADER, target_rows(results, mem, growth), False))
    env["load at end"] = _load()
    busy = max(os.getloadavg()[0], load_start) if hasattr(os, "getloadavg") else 0.0
    if busy > 1.5:
        warnings.append(
            f"the machine was busy (1-min load average up to {busy:.1f} on {os.cpu_count()} "
            f"cores, this run included): absolute times are inflated and spreads wide; "
            f"ratios are fairer (arms interleaved) but not immune. Re-run on a quiet machine."
        )
    if source_digest() != digest:
        warnings.append(
            "tapegrad's sources changed while this run was going on (child processes and "
            "later workloads may have measured different code): re-run"
        )
    for w in warnings:
        print(f"WARNING: {w}")
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s; {env['load at end']}")

    full = not args.quick and not args.only and not args.arms
    path = args.output or (os.path.join(HERE, "RESULTS.md") if full else None)
    if path and not args.no_write:
        write_results(path, env, args, wls, results, mem, growth, warnings)
        print(f"wrote {os.path.relpath(path)}")
    elif not args.no_write:
        print("(partial or quick run: RESULTS.md not written; pass --output PATH to write one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
