"""Time one optimizer step alone: the parameters of an MLP 784-512-512-10 with their grads given.

Arms: tapegrad's optimizers (`opt.step()` from .grad), a careful hand-written NumPy update
(numpy_optim.py: in place, one reused scratch buffer) and torch.optim (foreach=False, one
thread) when importable.
Prints the median time per step of each arm, interleaved in rounds. Not part of `make test`.

    python benchmarks/optim_step.py [--rounds 30] [--steps 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import numpy as np  # noqa: E402

import numpy_optim  # noqa: E402
import tapegrad as tg  # noqa: E402

SHAPES = [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)]
CONFIGS = {
    "sgd": ("SGD", dict(lr=0.01)),
    "sgd_momentum": ("SGD", dict(lr=0.01, momentum=0.9)),
    "adam": ("Adam", dict(lr=1e-3)),
}


def arrays(seed: int) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(np.float32) * 0.01 for s in SHAPES]
    grads = [rng.standard_normal(s).astype(np.float32) * 0.01 for s in SHAPES]
    return params, grads


def tapegrad_arm(name: str):
    cls, kwargs = CONFIGS[name]
    params, grads = arrays(0)
    ps = [tg.nn.Parameter(tg.tensor(p)) for p in params]
    for p, g in zip(ps, grads):
        p.grad = tg.tensor(g)
    opt = getattr(tg.optim, cls)(ps, **kwargs)
    return opt.step


def numpy_arm(name: str):
    _, kwargs = CONFIGS[name]
    params, grads = arrays(0)
    if name == "adam":
        update = numpy_optim.adam(params, lr=kwargs["lr"])
    else:
        update = numpy_optim.sgd(params, kwargs["lr"], kwargs.get("momentum", 0.0))
    return lambda: update(grads)


def torch_arm(name: str):
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    cls, kwargs = CONFIGS[name]
    params, grads = arrays(0)
    ps = [torch.nn.Parameter(torch.from_numpy(p)) for p in params]
    for p, g in zip(ps, grads):
        p.grad = torch.from_numpy(g)
    opt = getattr(torch.optim, cls)(ps, foreach=False, **kwargs)
    return opt.step


def median_ms(step, steps: int) -> float:
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    arms = {"numpy": numpy_arm, "tapegrad": tapegrad_arm, "torch": torch_arm}
    print(f"{'config':14}" + "".join(f"{a:>12}" for a in arms) + "  (ms per step, median)")
    for name in CONFIGS:
        steps = {a: make(name) for a, make in arms.items()}
        steps = {a: s for a, s in steps.items() if s is not None}
        for s in steps.values():  # warm up (Adam's state, caches)
            s()
        samples: dict = {a: [] for a in steps}
        for _ in range(args.rounds):
            for a, s in steps.items():
                samples[a].append(median_ms(s, args.steps))
        row = "".join(
            f"{np.median(samples[a]):12.3f}" if a in samples else f"{'-':>12}" for a in arms
        )
        print(f"{name:14}{row}")


if __name__ == "__main__":
    main()
