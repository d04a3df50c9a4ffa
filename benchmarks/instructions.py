"""Instructions per step of a workload's arm, counted by valgrind's callgrind: a measure of the
Python overhead that, unlike wall-clock time, does not move with the load of a shared machine.

    python benchmarks/instructions.py elementwise            # tapegrad and numpy arms
    python benchmarks/instructions.py mlp_small --steps 50
    python benchmarks/instructions.py chain --steps 3 --short 1 --baseline /tmp/old-checkout

Each arm runs twice under callgrind, for `steps` and for `short` steps (default steps // 5); the
difference divided by the extra steps leaves out start-up and imports. `--baseline DIR` counts the
same arms on another checkout (its tapegrad and its workloads) in the same run, and prints the
change: a hot-path change judged before/after. Needs valgrind (not a project dependency).
Use it to judge a hot-path change; report speed itself with run.py.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run_arm(root: str, workload: str, arm: str, steps: int) -> None:
    """(In the child process) build the arm's case from checkout `root` and run `steps` steps."""
    sys.path[:0] = [str(Path(root) / "benchmarks"), root]
    import workloads as W

    wl = W.workloads()[workload]
    case = wl.build(arm, wl.data())
    case.step()  # warm-up: first-call costs are not per-step costs
    gc.collect()
    gc.freeze()
    for _ in range(steps):
        case.step()


def _instructions(root: str, workload: str, arm: str, steps: int) -> int:
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        os.path.realpath(sys.executable),
        __file__,
        workload,
        "--arm",
        arm,
        "--steps",
        str(steps),
        "--root",
        root,
        "--child",
    ]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    found = re.search(r"Collected : ([\d,]+)", done.stderr)
    if done.returncode != 0 or not found:
        raise SystemExit(f"callgrind run failed ({arm}, {steps} steps):\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_step(root: str, workload: str, arm: str, steps: int, short: int) -> float:
    """Instructions per step: the difference of a long and a short run, over the extra steps."""
    long_run = _instructions(root, workload, arm, steps)
    return (long_run - _instructions(root, workload, arm, short)) / (steps - short)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload", help="a timed workload of run.py: elementwise, mlp_small, ...")
    ap.add_argument(
        "--arm",
        action="append",
        help="arm(s) to count, e.g. tapegrad_fn (default: tapegrad and numpy)",
    )
    ap.add_argument("--steps", type=int, default=10, help="steps in the longer run (default 10)")
    ap.add_argument("--short", type=int, help="steps in the shorter run (default steps // 5)")
    ap.add_argument("--baseline", help="another checkout to count the same arms on, for a change")
    ap.add_argument("--root", default=str(HERE.parent), help=argparse.SUPPRESS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _run_arm(args.root, args.workload, args.arm[0], args.steps)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (e.g. `apt-get install valgrind`)")
    short = max(1, args.steps // 5) if args.short is None else args.short
    if not 0 < short < args.steps:
        raise SystemExit(f"--short must be between 1 and --steps - 1, got {short}")
    for arm in args.arm or ["tapegrad", "numpy"]:
        now = per_step(args.root, args.workload, arm, args.steps, short)
        line = f"{args.workload:12s} {arm:14s} {now / 1e3:12,.1f} k instructions / step"
        if args.baseline:
            before = per_step(
                str(Path(args.baseline).resolve()), args.workload, arm, args.steps, short
            )
            line += f"   baseline {before / 1e3:12,.1f} k   change {now / before - 1:+.2%}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
