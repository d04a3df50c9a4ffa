"""Soak and memory: long training runs hold steady, graphs are freed at once, memory grows linearly.

- 10,000 training steps of a small MLP (PyTorch style and functional style, alternating): the number
of live gc-tracked objects and the traced memory stop growing after warm-up, and no step leaves a
reference cycle behind (everything is freed by reference counting alone). - 1,000 iterations of
create_graph=True work (a gradient penalty, a Hessian-vector product by double backward, and the
same by nested tg.grad): the same checks. - A long chain's peak memory (graph + backward) is linear
in its length, with a bounded cost per node. (tests/test_engine.py runs the 1,000,000-node chain;
here two smaller ones measure the slope.)
- Dropped graphs of every kind are freed the moment the last reference goes, with the cyclic gc off.

Sizes are tiny on purpose: these tests look for leaks, not speed.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

import tapegrad as tg

# Bounds. A leak of one small object per step adds hundreds of objects or blocks and KBs of memory.
MAX_OBJECT_GROWTH = 100  # gc-tracked objects, after warm-up, over the counted steps
MAX_BLOCK_GROWTH = 500  # pymalloc blocks (all small objects, ndarray headers too)
MAX_OWN_GROWTH = 4 * 1024  # traced bytes allocated by tapegrad's (and this file's) own lines
MAX_MEMORY_GROWTH = 32 * 1024  # all traced bytes, NumPy and CPython internals included
# Why two memory bounds: NumPy keeps small bounded caches (e.g. for reductions of 0-d arrays, which
# the pow rule does) whose entries get replaced for a few thousand steps; entries allocated while
# tracing replace untraced ones, so the traced total creeps up by some KB and then stops. Lines of
# tapegrad itself must show no growth at all.
_OWN_CODE = [
    tracemalloc.Filter(True, str(Path(tg.__file__).resolve().parent / "*")),
    tracemalloc.Filter(True, str(Path(__file__).resolve())),
]


@contextmanager
def gc_off() -> Iterator[None]:
    """The cyclic collector off: only reference counting frees memory inside the block."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def live_objects() -> int:
    return len(gc.get_objects())


def own_bytes(snapshot: tracemalloc.Snapshot) -> int:
    return sum(t.size for t in snapshot.filter_traces(_OWN_CODE).traces)


def check_steady(
    step: Callable[[int], object], warmup: int, counted: int, traced_warmup: int, traced: int
) -> None:
    """Run `step` warmup + counted + traced_warmup + traced times and check nothing accumulates.

    counted steps run with the gc off: the live-object and pymalloc block counts must not grow, and
    a final gc.collect() must find nothing (no step created a reference cycle). The traced steps run
    under tracemalloc: the current traced memory must not grow after its own warm-up.
    """
    i = 0
    for _ in range(warmup):
        step(i)
        i += 1
    with gc_off():
        before, blocks_before = live_objects(), sys.getallocatedblocks()
        for _ in range(counted):
            step(i)
            i += 1
        after = live_objects()
        cyclic_garbage = gc.collect()  # also empties CPython's free lists (tuples, floats, ...)
        blocks = sys.getallocatedblocks() - blocks_before
    assert after - before <= MAX_OBJECT_GROWTH, (
        f"{after - before} more live objects after {counted} steps"
    )
    assert cyclic_garbage == 0, (
        f"{cyclic_garbage} objects were only freed by the cyclic gc: a cycle"
    )
    assert blocks <= MAX_BLOCK_GROWTH, f"{blocks} more memory blocks in use after {counted} steps"
    tracemalloc.start()
    try:
        for _ in range(traced_warmup):
            step(i)
            i += 1
        # A full collection also empties CPython's free lists (tuples, floats, ...), which otherwise
        # keep up to thousands of freed objects "allocated" and look like a slow leak that stops.
        gc.collect()
        start, own_start = (
            tracemalloc.get_traced_memory()[0],
            own_bytes(tracemalloc.take_snapshot()),
        )
        for _ in range(traced):
            step(i)
            i += 1
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
        own = own_bytes(tracemalloc.take_snapshot()) - own_start
    finally:
        tracemalloc.stop()
    assert own <= MAX_OWN_GROWTH, (
        f"tapegrad's own allocations grew by {own} bytes over {traced} steps"
    )
    assert grown <= MAX_MEMORY_GROWTH, f"traced memory grew by {grown} bytes over {traced} steps"


def small_problem(seed: int = 0) -> tuple:
    tg.manual_seed(seed)
    net = tg.nn.Sequential(tg.nn.Linear(4, 8), tg.nn.Tanh(), tg.nn.Linear(8, 1))
    rng = np.random.default_rng(seed)
    X = tg.tensor(rng.standard_normal((16, 4)), dtype=tg.float32)
    Y = tg.tensor(np.sin(rng.standard_normal((16, 1))), dtype=tg.float32)
    return net, X, Y


# ---- 10,000 training steps -----------------------------------------------------------------------
def test_ten_thousand_training_steps_hold_steady():
    net, X, Y = small_problem()
    params = net.trainable_params()
    opt = tg.optim.SGD(params, lr=0.05, momentum=0.9)
    loss_fn = tg.nn.MSELoss()
    value_and_grad = tg.value_and_grad(
        lambda x, y: loss_fn(net(x), y), grad_position=None, weights=params
    )
    losses = []

    def step(i: int) -> None:
        if i % 2:  # MindSpore/JAX style: grads returned, the optimizer takes them
            loss, grads = value_and_grad(X, Y)
            opt.step(grads)
        else:  # PyTorch style: backward into .grad
            opt.zero_grad()
            loss = loss_fn(net(X), Y)
            loss.backward()
            opt.step()
        if i % 1000 == 0:
            losses.append(loss.item())

    check_steady(step, warmup=500, counted=8_500, traced_warmup=100, traced=900)  # 10,000 steps
    assert len(losses) == 10
    assert losses[-1] < 0.5 * losses[0], f"the model did not train: {losses}"
    assert all(np.isfinite(p.numpy()).all() for p in params)


# ---- create_graph=True, 1,000 times --------------------------------------------------------------
def test_create_graph_loop_frees_its_graphs():
    net, X, Y = small_problem(1)
    params = net.trainable_params()
    opt = tg.optim.SGD(params, lr=0.02)
    loss_fn = tg.nn.MSELoss()
    rng = np.random.default_rng(1)
    w = tg.tensor(rng.standard_normal(5), requires_grad=True)  # float64
    v = tg.tensor(rng.standard_normal(5))

    def f(z: tg.Tensor) -> tg.Tensor:
        return (z.sin() * z).sum()

    def exact_hvp(z: np.ndarray) -> np.ndarray:  # d2/dz2 of z sin z = 2 cos z - z sin z (diagonal)
        return (2 * np.cos(z) - z * np.sin(z)) * v.numpy()

    nested = tg.grad(lambda u: (tg.grad(f)(u) * v).sum())
    checked = []

    def step(i: int) -> None:
        # a gradient penalty: the gradient's graph is differentiated again, then dropped
        loss = loss_fn(net(X), Y)
        grads = tg.autograd.grad(loss, params, create_graph=True)
        penalty = grads[0].pow(2).sum()
        for g in grads[1:]:
            penalty = penalty + g.pow(2).sum()
        opt.zero_grad()
        (loss + 0.1 * penalty).backward()
        opt.step()
        # a Hessian-vector product, PyTorch style: w.grad carries a graph that points back at w,
        # a cycle until w.grad is reset (as PyTorch warns); set_to_none breaks it
        f(w).backward(create_graph=True)
        (hv,) = tg.autograd.grad(w.grad, w, grad_outputs=v)
        w.grad = None
        # the same by nesting the functional API
        hv2 = nested(w.detach())
        if i % 250 == 0:
            checked.append(
                np.allclose(hv.numpy(), exact_hvp(w.numpy()), rtol=1e-10)
                and np.allclose(hv2.numpy(), hv.numpy(), rtol=1e-12)
            )

    check_steady(step, warmup=100, counted=700, traced_warmup=50, traced=150)  # 1,000 iterations
    assert checked == [True] * 4


# ---- a long chain: peak memory linear in its length ----------------------------------------------
def chain_peak(n: int) -> tuple[int, int, int]:
    """(bytes held by the built graph, peak bytes over build + backward, bytes left after del)."""
    with gc_off():
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            x = tg.tensor([0.5], requires_grad=True)
            y = x
            for _ in range(n):
                y = y * 1.0001  # mul saves both inputs: every node holds a tensor
            built = tracemalloc.get_traced_memory()[0] - base
            y.backward()
            assert x.grad is not None
            peak = tracemalloc.get_traced_memory()[1] - base
            del y
            left = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    return built, peak, left


def test_long_chain_peak_memory_is_linear():
    n = 20_000
    built1, peak1, left1 = chain_peak(n)
    built2, peak2, left2 = chain_peak(2 * n)
    ratio = peak2 / peak1
    assert 1.85 < ratio < 2.15, f"peak memory of a chain twice as long is {ratio:.2f}x, not ~2x"
    per_node = (peak2 - peak1) / n
    assert 200 < per_node < 2048, f"{per_node:.0f} bytes per recorded op"
    # backward frees saved tensors as it goes: it adds little on top of the graph itself
    assert peak2 < 1.5 * built2, f"backward peak {peak2} vs graph {built2}"
    # and dropping the output frees the whole chain (what is left does not grow with the length)
    assert left2 < 0.05 * built2 and left2 < left1 + 64 * 1024, (left1, left2, built2)


# ---- dropped graphs are freed at once ------------------------------------------------------------
class Cube(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 3 * a * a


def test_dropped_graphs_are_freed_at_once_with_gc_disabled():
    x = tg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    net, X, Y = small_problem(2)

    # Each builder returns the objects of one graph; the test keeps only weak references to them.
    def plain() -> list:
        h = (x * 2).sin()
        y = (h * h).sum()
        return [y, h, y.grad_fn, h.grad_fn]

    def after_retained_backward() -> list:
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        return [y, y.grad_fn]

    def create_graph_grads() -> list:
        y = (x**3).sum()
        (g,) = tg.autograd.grad(y, x, create_graph=True)
        (g2,) = tg.autograd.grad(g.sum(), x, create_graph=True)
        return [y, g, g2, y.grad_fn, g.grad_fn, g2.grad_fn]

    def custom_function() -> list:
        h = Cube.apply(x * 1)
        y = h.sum()
        return [y, h, h.grad_fn, y.grad_fn]

    def retain_grad_and_hooks() -> list:
        h = x * 3
        h.retain_grad()
        h.register_hook(lambda grad: grad * 2)
        y = h.tanh().sum()
        y.backward(retain_graph=True)
        return [y, h, h.grad, h.grad_fn, y.grad_fn]

    def nn_forward() -> list:
        loss = tg.nn.MSELoss()(net(X), Y)
        return [loss, loss.grad_fn]

    def nested_functional() -> list:
        return [tg.grad(tg.grad(lambda t: (t * t * t).sum()))(x)]

    def persistent_tape() -> list:
        with tg.GradientTape(persistent=True) as tape:
            y = (x * x).sum()
        tape.gradient(y, x)
        return [tape, y, y.grad_fn]

    def explained_and_drawn() -> list:
        y = (x.sin() * x).sum()
        tg.explain(y, show=False)
        tg.viz.to_dot(y, show_values=True)
        return [y, y.grad_fn]

    builders = [
        plain,
        after_retained_backward,
        create_graph_grads,
        custom_function,
        retain_grad_and_hooks,
        nn_forward,
        nested_functional,
        persistent_tape,
        explained_and_drawn,
    ]
    with gc_off():
        for build in builders:
            refs = [weakref.ref(o) for o in build()]  # the list is dropped right here
            alive = [r() for r in refs if r() is not None]
            assert not alive, (
                f"{build.__name__}: still alive after the last reference went: {alive}"
            )
            assert len(refs) >= 1
        assert gc.collect() == 0, "a dropped graph left a reference cycle for the cyclic gc"
