"""Time erf and exact GELU: tapegrad's pure-NumPy erf beside scipy.special.erf and torch.erf, and
`F.gelu` forward (+ backward) on the GELU input of a nanoGPT block (12 x 64 x 512) beside PyTorch's.

Arms, interleaved in rounds, one thread each; times are medians per call of the CPU time of this
thread (on a shared machine the time spent waiting for a core is not ours; page faults are), or of
the wall clock with --clock wall:
- erf: `tapegrad` (tapegrad._erf.erf), `before` (an older _erf.py given by --before, e.g.
  `git show main:tapegrad/_erf.py > /tmp/erf_before.py`), `scipy`, `torch` (when importable).
- gelu: `tapegrad` (F.gelu, the composite 0.5 x (1 + erf(x / sqrt 2)) with its recorded rules),
  `before` (the same with the older erf as the primitive's forward), `fused numpy` (forward and
  backward written by hand in NumPy with tapegrad's erf: what a fused GELU primitive could reach),
  `torch`. Every arm's values are checked against tapegrad's before timing.
Not part of `make test`.

    python benchmarks/erf_gelu.py [--rounds 7] [--calls 15] [--before /tmp/erf_before.py]
                                  [--clock cpu|wall] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import numpy as np  # noqa: E402

import tapegrad as tg  # noqa: E402
from tapegrad._erf import erf  # noqa: E402
from tapegrad.nn import functional as F  # noqa: E402

SIZES = (12 * 64 * 512, 4096)  # the GELU input of nanoGPT's MLP (batch 12, T 64, 4 x 128 wide)
GELU_SHAPE = (12, 64, 512)


def load_before(path: str | None) -> Callable[[np.ndarray], np.ndarray] | None:
    """The `erf` of another _erf.py (an older version), or None."""
    if path is None:
        return None
    spec = importlib.util.spec_from_file_location("erf_before", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"--before: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.erf


def torch_or_none() -> Any:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def scipy_erf_or_none() -> Callable[[np.ndarray], np.ndarray] | None:
    try:
        from scipy.special import erf as scipy_erf
    except ImportError:
        return None
    return scipy_erf


@contextlib.contextmanager
def erf_forward(forward: Callable[[np.ndarray], np.ndarray]) -> Iterator[None]:
    """tg.erf's primitive computing with `forward` for a while (the `before` GELU arm)."""
    prim = tg.primitives.elementwise.erf
    saved = prim.forward
    prim.forward = forward
    try:
        yield
    finally:
        prim.forward = saved


def gelu_tapegrad(x: np.ndarray, g: np.ndarray, backward: bool) -> Callable[[], Any]:
    def step() -> Any:
        t = tg.tensor(x, requires_grad=backward)
        y = F.gelu(t)
        if not backward:
            return y.numpy()
        y.backward(tg.tensor(g))
        return t.grad.numpy()  # type: ignore[union-attr]

    return step


def gelu_fused_numpy(x: np.ndarray, g: np.ndarray, backward: bool) -> Callable[[], Any]:
    """GELU as one node would compute it: Phi once in the forward (saved), the backward from it."""
    inv_sqrt2, inv_sqrt2pi = math.sqrt(0.5), 1.0 / math.sqrt(2.0 * math.pi)

    def step() -> Any:
        phi = erf(x * inv_sqrt2)  # Phi = (1 + erf(x / sqrt 2)) / 2, in place
        phi += 1.0
        phi *= 0.5
        out = x * phi
        if not backward:
            return out
        density = x * x  # phi'(x) = exp(-x^2 / 2) / sqrt(2 pi), in place
        density *= -0.5
        np.exp(density, out=density)
        density *= x
        density *= inv_sqrt2pi
        density += phi  # d gelu / dx = Phi + x * phi'
        density *= g
        return density

    return step


def gelu_torch(torch: Any, x: np.ndarray, g: np.ndarray, backward: bool) -> Callable[[], Any]:
    xt, gt = torch.from_numpy(x), torch.from_numpy(g)

    def step() -> Any:
        t = xt.clone().requires_grad_(backward)
        y = torch.nn.functional.gelu(t)
        if not backward:
            return y.detach().numpy()
        y.backward(gt)
        return t.grad.numpy()

    return step


CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}


def median_ms(
    arms: dict[str, Callable[[], Any]], rounds: int, calls: int, clock: Callable[[], float]
) -> dict[str, float]:
    """Median time per call, arms interleaved in rounds."""
    samples: dict[str, list[float]] = {name: [] for name in arms}
    for _ in range(rounds):
        for name, step in arms.items():
            for _ in range(calls):
                t0 = clock()
                step()
                samples[name].append(clock() - t0)
    return {name: 1e3 * float(np.median(s)) for name, s in samples.items()}


def check(arms: dict[str, Callable[[], Any]], rtol: float) -> None:
    """Every arm computes what the first computes (or the timing compares different work)."""
    results = {name: np.asarray(step(), np.float64) for name, step in arms.items()}
    ref_name, ref = next(iter(results.items()))
    for name, got in results.items():
        if not np.allclose(got, ref, rtol=rtol, atol=rtol):
            worst = float(np.max(np.abs(got - ref)))
            raise SystemExit(f"{name} differs from {ref_name} by up to {worst:.3g}")


def erf_arms(
    x: np.ndarray, before: Callable | None, scipy_erf: Callable | None, torch: Any
) -> dict[str, Callable[[], Any]]:
    arms: dict[str, Callable[[], Any]] = {"tapegrad": lambda: erf(x)}
    if before is not None:
        arms["before"] = lambda: before(x)
    if scipy_erf is not None:
        arms["scipy"] = lambda: scipy_erf(x)
    if torch is not None:
        xt = torch.from_numpy(x)
        arms["torch"] = lambda: torch.erf(xt)
    return arms


def gelu_arms(
    x: np.ndarray, g: np.ndarray, backward: bool, before: Callable | None, torch: Any
) -> dict[str, Callable[[], Any]]:
    arms = {"tapegrad": gelu_tapegrad(x, g, backward)}
    if before is not None:
        step = gelu_tapegrad(x, g, backward)

        def with_before() -> Any:
            with erf_forward(before):
                return step()

        arms["before"] = with_before
    arms["fused numpy"] = gelu_fused_numpy(x, g, backward)
    if torch is not None:
        arms["torch"] = gelu_torch(torch, x, g, backward)
    return arms


def table(title: str, rows: dict[str, dict[str, float]]) -> None:
    names = list(dict.fromkeys(n for r in rows.values() for n in r))
    print(f"\n{title} (ms per call, median)")
    print(f"{'':28}" + "".join(f"{n:>13}" for n in names) + "   tapegrad/torch")
    for label, r in rows.items():
        cells = "".join(f"{r[n]:13.3f}" if n in r else f"{'-':>13}" for n in names)
        ratio = f"{r['tapegrad'] / r['torch']:15.1f}x" if "torch" in r else ""
        print(f"{label:28}{cells}{ratio}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=15, help="calls per arm and round")
    parser.add_argument("--before", help="an older tapegrad/_erf.py to time beside this one")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one call: a smoke run")
    args = parser.parse_args(argv)
    before, scipy_erf, torch = load_before(args.before), scipy_erf_or_none(), torch_or_none()
    sizes, shape = ((64, 8), (2, 4, 8)) if args.quick else (SIZES, GELU_SHAPE)
    rounds, calls = (1, 1) if args.quick else (args.rounds, args.calls)
    clock = CLOCKS[args.clock]
    rng = np.random.default_rng(0)

    erf_rows = {}
    for size in sizes:
        for dtype in (np.float32, np.float64):
            x = (rng.standard_normal(size) * math.sqrt(0.5)).astype(dtype)  # as GELU's x / sqrt 2
            arms = erf_arms(x, before, scipy_erf, torch)
            check(arms, rtol=1e-6 if dtype == np.float32 else 1e-14)
            erf_rows[f"erf {size:,} {np.dtype(dtype).name}"] = median_ms(arms, rounds, calls, clock)
    table(f"erf ({args.clock} time)", erf_rows)

    x = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    gelu_rows = {}
    for backward in (False, True):
        arms = gelu_arms(x, g, backward, before, torch)
        check(arms, rtol=1e-5)
        label = f"gelu {'x'.join(map(str, shape))} {'fwd+bwd' if backward else 'fwd'}"
        gelu_rows[label] = median_ms(arms, rounds, calls, clock)
    table(f"exact GELU, float32 ({args.clock} time)", gelu_rows)


if __name__ == "__main__":
    main()
