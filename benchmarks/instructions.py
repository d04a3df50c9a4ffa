"""Instructions per step of a workload's arm, counted by valgrind's callgrind: a measure of the
Python overhead that, unlike wall-clock time, does not move with the load of a shared machine.

    python benchmarks/instructions.py elementwise            # tapegrad and numpy arms
    python benchmarks/instructions.py mlp_small --steps 50

Each arm runs twice under callgrind, for `steps` and for `steps // 5` steps; the difference divided
by the extra steps leaves out start-up and imports. Needs valgrind (not a project dependency).
Use it to judge a hot-path change (before/after); report speed itself with run.py.
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


def _run_arm(workload: str, arm: str, steps: int) -> None:
    """(In the child process) build the arm's case and run `steps` steps."""
    sys.path[:0] = [str(HERE), str(HERE.parent)]
    import workloads as W

    wl = W.workloads()[workload]
    case = wl.build(arm, wl.data())
    case.step()  # warm-up: first-call costs are not per-step costs
    gc.collect()
    gc.freeze()
    for _ in range(steps):
        case.step()


def _instructions(workload: str, arm: str, steps: int) -> int:
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
        "--child",
    ]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    found = re.search(r"Collected : ([\d,]+)", done.stderr)
    if done.returncode != 0 or not found:
        raise SystemExit(f"callgrind run failed ({arm}, {steps} steps):\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload", help="a timed workload of run.py: elementwise, mlp_small, ...")
    ap.add_argument(
        "--arm",
        action="append",
        help="arm(s) to count, e.g. tapegrad_fn (default: tapegrad and numpy)",
    )
    ap.add_argument("--steps", type=int, default=10, help="steps in the longer run (default 10)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _run_arm(args.workload, args.arm[0], args.steps)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (e.g. `apt-get install valgrind`)")
    short = max(1, args.steps // 5)
    for arm in args.arm or ["tapegrad", "numpy"]:
        per_step = (
            _instructions(args.workload, arm, args.steps) - _instructions(args.workload, arm, short)
        ) / (args.steps - short)
        print(f"{args.workload:12s} {arm:9s} {per_step / 1e3:12,.1f} k instructions / step")


if __name__ == "__main__":
    main()
