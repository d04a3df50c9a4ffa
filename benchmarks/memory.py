"""Memory per recorded op (the chain's forward, graph alive) and growth of live memory over training
steps (MLP 32-64-64-1), each measured for one arm in a fresh child process, so that neither
imports nor other arms' allocations count. Imports workloads.py, workload_ops.py, report.py.

    python benchmarks/memory.py memory tapegrad 100000   # prints one JSON line
    python benchmarks/memory.py growth tapegrad 1000
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
for _p in (HERE, os.path.dirname(HERE)):  # the workloads, and the tapegrad of this checkout
    if _p not in sys.path:
        sys.path.insert(0, _p)

import report as R  # noqa: E402
import workload_ops  # noqa: E402
import workloads as W  # noqa: E402

GROWTH_STEPS = 1000


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child_memory(arm: str, n_ops: int) -> dict:
    small = workload_ops.chain_data(200)
    workload_ops.chain_forward(arm, small)  # imports and one-time setup happen outside
    data = workload_ops.chain_data(n_ops)
    n_recorded = 2 * data["n"]
    gc.collect()
    rss0 = _rss()
    alive = workload_ops.chain_forward(arm, data)  # the whole forward graph, alive
    rss1 = _rss()
    del alive
    gc.collect()
    tracemalloc.start()
    alive = workload_ops.chain_forward(arm, data)
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
    for _ in range(R.GROWTH_WARMUP):
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
    for _ in range(R.CYCLE_STEPS):
        case.step()
    cyclic = gc.collect()
    gc.enable()
    return {
        "bytes": m1 - m0,
        "objects": o1 - o0,
        "rss": r1 - r0,
        "steps": steps,
        "cyclic_per_step": cyclic / R.CYCLE_STEPS,
    }


def in_child(kind: str, arm: str, arg: int) -> dict:
    """Run child_memory (kind "memory", arg = ops) or child_growth ("growth", arg = steps) for
    one arm in a fresh Python process, which inherits this one's environment (one thread)."""
    cmd = [sys.executable, os.path.abspath(__file__), kind, arm, str(arg)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"child {kind}:{arm} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    kind, arm, arg = sys.argv[1:4]
    print(json.dumps((child_memory if kind == "memory" else child_growth)(arm, int(arg))))
