"""Typical small models, one training step each, tapegrad beside PyTorch: the layers users reach
for (ReLU, BatchNorm, LayerNorm, GELU, Dropout, LeakyReLU, Embedding, Softmax, convolutions with
padding, stride and groups, a batch of one) with a loss module and Adam, as `opt.zero_grad();
loss_fn(net(x), y).backward(); opt.step()`. A survey for spotting slow paths, not a target:
prints each model's median step time and the ratio tapegrad / PyTorch, arms interleaved in rounds,
one thread each. Not part of `make test` (tests/test_benchmarks_smoke.py runs each model once).

    python benchmarks/models.py [--rounds 15] [--only conv_bn,bn]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import numpy as np  # noqa: E402

from cases import arm_available, torch_one_thread  # noqa: E402


def _mlp(nn: Any, *middle: Any) -> Any:
    return nn.Sequential(nn.Linear(64, 128), *middle, nn.Linear(128, 10))


# name: (the network from a library's nn namespace, input shape, loss: "ce", "bce", "mse" or "ids")
MODELS: dict[str, tuple[Callable[[Any], Any], tuple, str]] = {
    "relu": (lambda nn: _mlp(nn, nn.ReLU()), (128, 64), "ce"),
    "batch_of_one": (lambda nn: _mlp(nn, nn.ReLU()), (1, 64), "ce"),
    "bn": (lambda nn: _mlp(nn, nn.BatchNorm1d(128), nn.ReLU()), (64, 64), "ce"),
    "ln_gelu_dropout": (
        lambda nn: _mlp(nn, nn.LayerNorm(128), nn.GELU(), nn.Dropout(0.1)),
        (64, 64),
        "ce",
    ),
    "leaky_bce": (
        lambda nn: nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.1), nn.Linear(64, 1)),
        (256, 64),
        "bce",
    ),
    "softmax_mse": (lambda nn: _mlp(nn, nn.Tanh()).append(nn.Softmax(dim=1)), (64, 64), "mse"),
    "embedding": (
        lambda nn: nn.Sequential(nn.Embedding(1000, 32), nn.Flatten(), nn.Linear(32 * 8, 10)),
        (32, 8),
        "ids",
    ),
    "conv_bn": (
        lambda nn: nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 16 * 16, 10),
        ),
        (32, 3, 32, 32),
        "ce",
    ),
    "conv_stride_depthwise": (
        lambda nn: nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1, groups=16),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(16, 10),
        ),
        (16, 3, 32, 32),
        "ce",
    ),
}


def build(lib: Any, name: str, seed: int = 0) -> Callable[[], Any]:
    """One training step of model `name` in `lib` (tapegrad or torch), same data and weights."""
    make, shape, loss = MODELS[name]
    rng = np.random.default_rng(seed)
    net = make(lib.nn)
    for p in net.parameters():  # the same weights in both libraries
        values = rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)
        if hasattr(p, "set_data"):
            p.set_data(values)
        else:
            with lib.no_grad():
                p.copy_(lib.tensor(values))
    n = shape[0]
    if loss == "ids":
        x = lib.tensor(rng.integers(0, 1000, shape))
    else:
        x = lib.tensor(rng.standard_normal(shape).astype(np.float32))
    if loss in ("ce", "ids"):
        y, loss_fn = lib.tensor(rng.integers(0, 10, n)), lib.nn.CrossEntropyLoss()
    elif loss == "bce":
        y = lib.tensor(rng.integers(0, 2, (n, 1)).astype(np.float32))
        loss_fn = lib.nn.BCEWithLogitsLoss()
    else:
        y, loss_fn = lib.tensor(rng.random((n, 10)).astype(np.float32)), lib.nn.MSELoss()
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)

    def step() -> Any:
        opt.zero_grad()
        value = loss_fn(net(x), y)
        value.backward()
        opt.step()
        return value

    return step


def _sample(step: Callable[[], Any], seconds: float) -> float:
    """Mean time of back-to-back steps filling about `seconds`."""
    start, count = time.perf_counter(), 0
    while True:
        step()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / count


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.03, help="length of one sample")
    parser.add_argument("--only", default=None, help="comma-separated model names")
    args = parser.parse_args(argv)
    import tapegrad as tg

    libs = {"tapegrad": tg}
    if arm_available("torch"):
        libs["torch"] = torch_one_thread()
    names = args.only.split(",") if args.only else list(MODELS)
    print(f"{'model':24s} {'tapegrad':>12s} {'PyTorch':>12s} {'ratio':>7s}")
    for name in names:
        steps = {k: build(lib, name) for k, lib in libs.items()}
        for step in steps.values():
            step()  # (warm: lazy imports, first allocations)
        times: dict = {k: [] for k in steps}
        ratios = []
        for r in range(args.rounds):
            order = list(steps) if r % 2 == 0 else list(reversed(steps))
            sample = {k: _sample(steps[k], args.seconds) for k in order}
            for k, t in sample.items():
                times[k].append(t)
            if "torch" in sample:
                ratios.append(sample["tapegrad"] / sample["torch"])
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        torch_ms = f"{med['torch']:9.3f} ms" if "torch" in med else f"{'-':>12s}"
        ratio = f"{statistics.median(ratios):6.2f}x" if ratios else f"{'-':>7s}"
        print(f"{name:24s} {med['tapegrad']:9.3f} ms {torch_ms} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
