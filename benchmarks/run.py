"""tapegrad benchmarks (issues 6 and 17): every arm side by side, in one process, against a
hand-written NumPy step and PyTorch.

    python benchmarks/run.py              # full run (~3 min on 2 cores), writes RESULTS.md
                                          # and README_TABLE.md
    python benchmarks/run.py --quick      # smoke run: few rounds, shorter chain, writes nothing
    python benchmarks/run.py --only mlp_small,memory --repeats 5
    python benchmarks/run.py --profile mlp_large     # cProfile of the tapegrad arm, top hotspots

Method (what makes the numbers honest):
- Arms (benchmarks/cases.py): "numpy" (forward, hand-derived backward, in-place updates, reused
  buffers: the reference), the tapegrad arms (the code users write through nn modules, losses and
  optimizers; the functional path; a MindSpore-style variant; raw tensors, labelled as such), and
  only if importable (never a dependency) "torch" (PyTorch eager) and "autograd" (HIPS autograd).
- BLAS, OpenMP and torch are pinned to one thread before NumPy is imported (checked, and reported).
- Before timing, every arm takes one step from the same inputs and weights; its gradients and (for a
  training step) the change its update made to the weights are compared with the NumPy arm's
  (float32 tolerances). Any mismatch aborts the run with exit status 1.
- Rounds: all arms run in this one process; each round times every arm once, in an order rotated
  from round to round. A sample is the mean of back-to-back steps lasting about 25 ms (1 s for
  the chain), so the arms of one round run close together in time.
- Ratios are the median over rounds of per-round ratios (arm / reference in the same round, so a
  slow spell of the machine cancels out), with their p25-p75 spread; never ratios of medians.
- The garbage collector stays ON while timing (its pauses are a real cost of a Python tape). Objects
  that exist before timing (the imported modules of every arm, also those an arm imports lazily
  on its first step, as torch.optim does, and the workload's data) are moved out of its way with
  gc.freeze() before each workload is timed, so one arm's imports do not slow another arm's
  full collections.
- Memory per recorded op and growth over 1,000 training steps are measured in a fresh child process
  per arm, with tracemalloc (Python heap and NumPy buffers) and RSS (everything, incl. C++ heaps).
- The 1-min load average is recorded when each workload starts; a busy machine is warned about.
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
import platform  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (HERE, ROOT):  # the workloads next to this file, and the tapegrad of this checkout
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy as np  # noqa: E402

import memory  # noqa: E402
import report as R  # noqa: E402
import workloads as W  # noqa: E402
from cases import torch_one_thread  # noqa: E402

TIMED = ("elementwise", "mlp_small", "mlp_large", "mlp_large_adam", "chain", "hvp", "cnn")
TIMED += ("hvp_raw", "conv_bn_16", "conv_bn_32", "conv_dw")
TIMED += ("gpt_nano", "gpt_char")
ALL = TIMED[:5] + ("memory",) + TIMED[5:] + ("growth",)
ALIASES = {str(i + 1): name for i, name in enumerate(ALL)}
REFERENCES = ("numpy", "torch")  # every arm's per-round ratios are taken against these


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
        "clock": "process CPU time" if clock is CLOCKS["cpu"] else "wall clock",
        "threads": ", ".join(f"{v}={os.environ.get(v)}" for v in _THREAD_VARS[:3])
        + f"; OpenBLAS reports {_blas_threads()}",
    }
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        env["numpy"] += f" (BLAS: {blas.get('name')} {blas.get('version')})"
    except Exception:
        pass
    from tapegrad import _blas

    if _blas._kernels():
        import scipy

        env["tapegrad extras"] = f"fast: SciPy {scipy.__version__}'s BLAS axpy (optimizer updates)"
    else:
        env["tapegrad extras"] = "none (no SciPy: optimizer updates in NumPy)"
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


def _mismatch(ref: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> bool:
    return not np.all(np.isfinite(got)) or not np.allclose(got, ref, rtol=rtol, atol=atol)


def compare_grads(
    name: str, ref: list, got: list, arm: str, reference: str = "numpy"
) -> str | None:
    """Raise if `got` differs from the reference arm's gradients; return a warning for
    non-float32."""
    if len(ref) != len(got):
        raise GradientMismatch(
            f"{name}: {arm} returned {len(got)} gradients, {reference} {len(ref)}"
        )
    warning = None
    for i, (r, g) in enumerate(zip(ref, got)):
        g = np.asarray(g)
        if g.shape != r.shape:
            raise GradientMismatch(
                f"{name}: {arm} gradient {i} has shape {g.shape}, {reference} {r.shape}"
            )
        scale = max(1.0, float(np.max(np.abs(r))))
        if _mismatch(r, g, 1e-3, 1e-5 * scale):
            err = float(np.max(np.abs(g.astype(np.float64) - r)))
            raise GradientMismatch(
                f"{name}: {arm} gradient {i} (shape {r.shape}) differs from the {reference} arm's: "
                f"max abs error {err:.3g} (scale {scale:.3g}); timing a wrong computation is "
                f"meaningless, fix the arm first"
            )
        if g.dtype != np.float32:
            warning = f"{name}: {arm} gradient {i} is {g.dtype}, not float32"
    return warning


def compare_updates(
    name: str, ref: list, got: list, grads: list, arm: str, reference: str = "numpy"
) -> None:
    """Raise if one step changed `arm`'s weights differently from the reference arm's (ref and got
    are the changes, after - before; grads the reference arm's gradients): a skipped, partial or
    wrongly scaled update fails. Entries whose gradient is below 1e-4 of the largest are left
    out: there float32 rounding decides the sign of the gradient, and Adam's step, about
    lr * sign(g), with it.
    """
    for i, (r, g, dw) in enumerate(zip(ref, got, grads)):
        dw = np.abs(np.asarray(dw))
        kept = dw >= 1e-4 * float(dw.max())
        scale = float(np.max(np.abs(r)))  # the update's own size: the float32 rounding of the
        if g.shape != r.shape or _mismatch(r[kept], g[kept], 1e-2, 1e-2 * scale):  # weights is
            raise GradientMismatch(  # far below it
                f"{name}: {arm}'s update of weight {i} (shape {r.shape}) differs from the "
                f"{reference} arm's: max abs difference {float(np.max(np.abs(g - r))):.3g} for an "
                f"update of size {scale:.3g}; the arms must train the same way"
            )


def _weights(case: W.Case) -> list:
    return [np.array(p, dtype=np.float64) for p in case.params()] if case.params else []


def reference_arm(arms: list) -> str | None:
    """The arm every other is checked against: the hand-written NumPy step, or PyTorch for a
    workload without one (the GPT steps); None when neither runs."""
    return next((a for a in ("numpy", "torch") if a in arms), None)


def check_workload(name: str, data: dict, arms: list) -> tuple[dict, list]:
    """Fresh case per arm, one step each from the same data; gradients and weight updates compared
    with the reference arm's (numpy, else torch). The cases are then timed (warm)."""
    cases, changes, warnings = {}, {}, []
    for arm in arms:
        case = W.BUILDERS[name][arm](data)
        before = _weights(case)
        case.step()
        changes[arm] = [after - b for after, b in zip(_weights(case), before)]
        cases[arm] = case
    reference = reference_arm(arms)
    ref = [np.asarray(g) for g in cases[reference].grads()]
    for arm in arms:
        if arm == reference:
            continue
        w = compare_grads(name, ref, cases[arm].grads(), arm, reference)
        if w:
            warnings.append(w)
        compare_updates(name, changes[reference], changes[arm], ref, arm, reference)
    return cases, warnings


# ---------------------------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------------------------


# What a sample's time is read from: wall-clock by default; --clock cpu reads the process's CPU
# time, which a loaded machine inflates far less (every arm runs on one thread).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def _once(step) -> float:
    t0 = clock()
    step()
    return clock() - t0


def time_workload(wl: W.Workload, cases: dict, repeats: int, target: float) -> dict:
    """Round-robin: each round times every arm once (rotating the order); a sample is the mean of
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
            t0 = clock()
            for _ in range(n):
                step()
            samples[arm].append((clock() - t0) / n)
    return summarize(wl, samples, inner)


def summarize(wl: W.Workload, samples: dict, inner: dict) -> dict:
    """Per arm: median, p25, p75, min of its samples (in the workload's unit), and, against each
    reference arm, (median, p25, p75) of the per-round ratios."""
    stats = {}
    for arm, raw in samples.items():
        s = np.asarray(raw) * (wl.scale / wl.per)
        vs = {}
        for ref in REFERENCES:
            if ref in samples:
                ratios = np.asarray(raw) / np.asarray(samples[ref])
                vs[ref] = tuple(float(x) for x in np.percentile(ratios, [50, 25, 75]))
        stats[arm] = {
            "median": float(np.median(s)),
            "p25": float(np.percentile(s, 25)),
            "p75": float(np.percentile(s, 75)),
            "min": float(s.min()),
            "n": len(s),
            "inner": inner[arm],
            "vs": vs,
        }
    return stats


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
    total = st.total_tt  # type: ignore[attr-defined]
    entries = []
    for (file, line, func), (_cc, nc, tt, ct, _callers) in st.stats.items():  # type: ignore
        where = os.path.relpath(file, ROOT) if file.startswith(ROOT) else os.path.basename(file)
        entries.append((f"{where}:{line}({func})", nc, tt, ct))
    print(
        f"cProfile of {W.LABELS[arm]} / {name}: {steps} steps, {total:.3f} s profiled, "
        f"{1e3 * total / steps:.3f} ms per step (profiling inflates per-call costs; compare "
        f"shares, not absolute times)\n"
    )
    for title, key in (("by cumulative time", 3), ("by own time", 2)):
        print(f"top {top} {title}:  share of total  calls/step  function")
        for short, nc, tt, ct in sorted(entries, key=lambda e: -float(e[key]))[:top]:
            share = 100 * (ct if key == 3 else tt) / total
            print(f"  {share:6.1f}%  {nc / steps:>10.1f}  {short}")
        print()


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------


def parse_args(argv: list) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 3 rounds, short samples, 20k-op chain, 200 growth steps; "
        "does not write RESULTS.md unless --output is given",
    )
    ap.add_argument("--repeats", type=int, help="rounds for every timed workload")
    ap.add_argument(
        "--only", help="comma-separated subset of: " + ", ".join(ALL) + f" (or 1-{len(ALL)})"
    )
    ap.add_argument("--arms", help="comma-separated subset of arms (numpy is always included)")
    ap.add_argument(
        "--sample-seconds",
        type=float,
        help="target duration of one sample (default 0.025 s, 1 s for the chain)",
    )
    ap.add_argument(
        "--output",
        help="where to write the results (default benchmarks/RESULTS.md, and README_TABLE.md "
        "next to it, on a full run of everything)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="time samples by wall clock (default) or by the process's CPU time (steadier on a "
        "loaded machine; every arm is single-threaded)",
    )
    ap.add_argument(
        "--no-freeze", action="store_true", help="do not gc.freeze() pre-existing objects"
    )
    ap.add_argument(
        "--profile", metavar="NAME", help="cProfile one workload's arm instead of timing"
    )
    ap.add_argument("--profile-arm", default="tapegrad", help="default: tapegrad (the user path)")
    ap.add_argument("--profile-steps", type=int, default=0)
    ap.add_argument("--top", type=int, default=20)
    return ap.parse_args(argv)


def _available_arms(wanted: str | None) -> list:
    arms = [a for a in W.ARMS if W.arm_available(a)]
    if wanted:
        keep = {"numpy"} | {a.strip() for a in wanted.split(",")}
        unknown = keep - set(W.ARMS)
        if unknown:
            raise SystemExit(f"unknown arm(s) {sorted(unknown)}; choose from {', '.join(W.ARMS)}")
        arms = [a for a in arms if a in keep]
    return arms


def run_all(selected: list, arms: list, args: argparse.Namespace, wls: dict) -> dict:
    """Check, time and measure every selected workload; returns the run's figures."""
    run: dict = {"results": {}, "mem": {}, "growth": {}, "loads": {}, "warnings": []}
    for name in selected:
        t0 = time.perf_counter()
        run["loads"][name] = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        if name in TIMED:
            wl = wls[name]
            if reference_arm(wl.arms(arms)) is None:  # (the GPT steps check against PyTorch)
                print(f"  {name}: skipped, no reference arm (it needs torch)\n")
                continue
            cases, warns = check_workload(name, wl.data(), wl.arms(arms))
            run["warnings"] += warns
            if not args.no_freeze:  # (modules the first steps imported: out of the GC's way)
                gc.collect()
                gc.freeze()
            repeats = args.repeats or (3 if args.quick else wl.repeats)
            target = args.sample_seconds or wl.sample_seconds / (5 if args.quick else 1)
            run["results"][name] = time_workload(wl, cases, repeats, target)
            del cases
            rows = R.timing_rows(wls, {name: run["results"][name]})
            print(R.table(R.TIMING_HEADER, rows, False))
        elif name == "memory":
            for arm in [a for a in arms if a in W.BUILDERS["chain"]]:
                run["mem"][arm] = memory.in_child("memory", arm, wls["chain"].params["n_ops"])
            print(R.table(R.MEMORY_HEADER, R.memory_rows(run["mem"]), False))
        elif name == "growth":
            steps = 200 if args.quick else memory.GROWTH_STEPS
            for arm in wls["mlp_small"].arms(arms):
                run["growth"][arm] = memory.in_child("growth", arm, steps)
            print(R.table(R.GROWTH_HEADER, R.growth_rows(run["growth"]), False))
        print(f"  ({name}: {time.perf_counter() - t0:.1f} s, load {run['loads'][name]:.2f})\n")
    return run


def main(argv: list | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    global clock
    clock = CLOCKS[args.clock]
    if args.profile:
        name = ALIASES.get(args.profile, args.profile)
        steps = args.profile_steps or {
            "chain": 2,
            "cnn": 20,
            "conv_bn_16": 20,
            "conv_bn_32": 20,
            "conv_dw": 20,
            "gpt_nano": 20,
            "gpt_char": 10,
        }.get(name, 0)
        steps = steps or (30 if name.startswith("mlp_large") else 200)
        profile(name, args.profile_arm, steps, args.top)
        return 0

    selected = list(ALL)
    if args.only:
        selected = [ALIASES.get(s.strip(), s.strip()) for s in args.only.split(",") if s.strip()]
        bad = [s for s in selected if s not in ALL]
        if bad:
            print(f"unknown workload(s) {bad}; choose from {', '.join(ALL)}", file=sys.stderr)
            return 2
    arms = _available_arms(args.arms)
    skipped = [a for a in W.ARMS if a not in arms]
    import tapegrad  # noqa: F401  (every arm imported now: imports neither timed nor unfrozen)

    if "torch" in arms:
        torch_one_thread()
    if "autograd" in arms:
        import autograd.numpy  # noqa: F401
    env = environment(arms)
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
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    digest = source_digest()
    t_start = time.perf_counter()
    try:
        run = run_all(selected, arms, args, wls)
    except GradientMismatch as e:
        print(f"\nGRADIENT CHECK FAILED: {e}", file=sys.stderr)
        return 1

    print(R.table(R.TARGET_HEADER, R.target_rows(run["results"], run["mem"], run["growth"]), False))
    env["load at end"] = _load()
    busy = max([os.getloadavg()[0], load_start, *run["loads"].values()])
    if busy - 1 > 0.5 * (os.cpu_count() or 1):  # this run itself keeps one core busy
        run["warnings"].append(
            f"the machine was busy (1-min load average up to {busy:.1f} on {os.cpu_count()} "
            f"cores, about 1.0 of it this run): absolute times are inflated and spreads wider; "
            f"per-round ratios are fairer (arms interleaved) but not immune. Re-run on a quiet "
            f"machine."
        )
    if source_digest() != digest:
        run["warnings"].append(
            "tapegrad's sources changed while this run was going on (child processes and "
            "later workloads may have measured different code): re-run"
        )
    for w in run["warnings"]:
        print(f"WARNING: {w}")
    torch_version = (
        env["torch"].split(" ")[0].split("+")[0] if "torch" in arms else "(not installed)"
    )
    print("\nREADME speed table:\n")
    print(R.readme_table(run["results"], run["mem"], run["growth"], torch_version))
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s; {env['load at end']}")

    full = not args.quick and not args.only and not args.arms
    path = args.output or (os.path.join(HERE, "RESULTS.md") if full else None)
    if path and not args.no_write:
        R.write_results(path, env, wls, run)
        table_path = os.path.join(os.path.dirname(path), "README_TABLE.md")
        R.write_readme_table(table_path, env, run, torch_version)
        print(f"wrote {os.path.relpath(path)} and {os.path.relpath(table_path)}")
    elif not args.no_write:
        print("(partial or quick run: RESULTS.md not written; pass --output PATH to write one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
