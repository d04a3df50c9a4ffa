"""Threads: grad mode is thread-local, shared read-only parameters are safe, gradients are
identical.

What docs/errors.md ("Threads") promises, checked here: grad mode, anomaly mode and the functional
nesting depth are per thread; eight threads running forward+backward on their own graphs over shared
Parameters get bit-identical results to a serial run; concurrent tg.autograd.grad / tg.grad never
write .grad; and the recommended pattern for shared leaves (grad per thread, summed in one thread in
a fixed order) equals serial backward() accumulation exactly. Switching threads every 10
microseconds makes interleavings inside ops and the engine likely, not just between them."""

from __future__ import annotations

import functools
import operator
import sys
import threading
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.tape.anomaly import creation_stack
from tapegrad._state import state

N_THREADS = 8
ITERS = 20
TIMEOUT = 60.0


@pytest.fixture(autouse=True)
def frequent_switches():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def run_threads(target: Callable[[int], Any], n: int = N_THREADS) -> list:
    """target(k) in n threads started together; their results in order; the first error
    re-raised."""
    results: list = [None] * n
    errors: list = []
    start = threading.Barrier(n)

    def wrap(k: int) -> None:
        try:
            start.wait(TIMEOUT)
            results[k] = target(k)
        except BaseException as e:  # noqa: BLE001 - re-raised in the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results


def make_net() -> tg.nn.Module:
    tg.manual_seed(1234)
    return tg.nn.Sequential(
        tg.nn.Linear(6, 16), tg.nn.Tanh(), tg.nn.Linear(16, 16), tg.nn.ReLU(), tg.nn.Linear(16, 3)
    )


def batches(n: int, seed: int = 0) -> list:
    """Per-thread data, drawn before any thread starts (the RNG is shared)."""
    rng = np.random.default_rng(seed)
    return [
        (rng.standard_normal((ITERS, 5, 6)).astype(np.float32), rng.integers(0, 3, (ITERS, 5)))
        for _ in range(n)
    ]


# ---- grad mode -----------------------------------------------------------------------------------
def test_no_grad_in_one_thread_does_not_affect_another():
    x = tg.tensor([1.0, 2.0], requires_grad=True)  # shared, read-only
    inside = threading.Barrier(2)  # A is inside no_grad / B is inside set_grad_enabled(False)
    done = threading.Barrier(2)  # the other thread has checked
    seen: dict = {}

    def a(_: int) -> None:
        with tg.no_grad():
            inside.wait(TIMEOUT)
            seen["a_enabled"] = tg.is_grad_enabled()
            seen["a_records"] = (x * 2).requires_grad
            done.wait(TIMEOUT)  # B records while A is still inside no_grad
        inside.wait(TIMEOUT)  # phase 2: B switched grad off
        seen["a_enabled_2"] = tg.is_grad_enabled()
        y = x * 3
        seen["a_records_2"] = y.grad_fn is not None
        done.wait(TIMEOUT)

    def b(_: int) -> None:
        inside.wait(TIMEOUT)
        seen["b_enabled"] = tg.is_grad_enabled()
        y = x * 2
        seen["b_records"] = y.grad_fn is not None
        seen["b_grad"] = tg.autograd.grad(y.sum(), x)[0].tolist()
        done.wait(TIMEOUT)
        with tg.set_grad_enabled(False):
            inside.wait(TIMEOUT)
            seen["b_enabled_2"] = tg.is_grad_enabled()
            seen["b_records_2"] = (x * 2).requires_grad
            done.wait(TIMEOUT)

    run_threads(lambda k: (a, b)[k](k), 2)
    assert seen == {
        "a_enabled": False,
        "a_records": False,
        "b_enabled": True,
        "b_records": True,
        "b_grad": [2.0, 2.0],
        "a_enabled_2": True,
        "a_records_2": True,
        "b_enabled_2": False,
        "b_records_2": False,
    }
    assert tg.is_grad_enabled()  # the main thread never left grad mode


def test_anomaly_mode_is_thread_local():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    inside, done = threading.Barrier(2), threading.Barrier(2)
    stacks: dict = {}

    def a(_: int) -> None:
        with tg.autograd.detect_anomaly():
            inside.wait(TIMEOUT)
            stacks["a"] = creation_stack((x * 2).grad_fn)  # captured: anomaly mode is on here
            done.wait(TIMEOUT)

    def b(_: int) -> None:
        inside.wait(TIMEOUT)
        stacks["b"] = creation_stack((x * 2).grad_fn)  # not captured: A's anomaly mode is A's
        done.wait(TIMEOUT)

    run_threads(lambda k: (a, b)[k](k), 2)
    assert stacks["a"] and stacks["b"] is None


def test_module_scope_is_thread_local_and_balanced_after_errors():
    """A module running in thread A gives A's nodes their scope, never B's raw ops; the count of
    threads running a module (which spares raw ops the scope lookup) is back to 0 afterwards, also
    after a forward that raised."""
    from tapegrad._state import modules_running

    x = tg.tensor([1.0, 2.0], requires_grad=True)
    inside, done = threading.Barrier(2), threading.Barrier(2)
    scopes: dict = {}

    class Waits(tg.nn.Module):
        def forward(self, t: tg.Tensor) -> tg.Tensor:
            inside.wait(TIMEOUT)  # A is now inside a module
            out = t * 2
            done.wait(TIMEOUT)  # B recorded its op meanwhile
            return out

    class Fails(tg.nn.Module):
        def forward(self, t: tg.Tensor) -> tg.Tensor:
            raise ValueError("boom")

    module = Waits()

    def a(_: int) -> None:
        scopes["a"] = module(x).grad_fn.scope

    def b(_: int) -> None:
        inside.wait(TIMEOUT)
        scopes["b"] = (x * 3).grad_fn.scope
        done.wait(TIMEOUT)

    run_threads(lambda k: (a, b)[k](k), 2)
    assert scopes["a"] == (module,) and scopes["b"] is None
    with pytest.raises(ValueError, match="boom"):
        Fails()(x)
    assert modules_running == [] and state.scope == ()
    assert (x * 2).grad_fn.scope is None


def test_functional_nesting_depth_is_thread_local():
    """A tg.grad running in thread A must not make B's outermost tg.grad keep its result on the
    tape."""
    inside, done = threading.Barrier(2), threading.Barrier(2)
    seen: dict = {}

    def f_a(t: tg.Tensor) -> tg.Tensor:
        inside.wait(TIMEOUT)  # A is now inside a differentiation (depth 1)
        seen["a_depth"] = state.diff_depth
        done.wait(TIMEOUT)  # B ran its own tg.grad meanwhile
        inner = tg.grad(lambda u: u**3)(t)  # nested in A: stays on the tape
        seen["a_inner_on_tape"] = inner.requires_grad
        return inner

    def a(_: int) -> None:
        seen["a_result"] = tg.grad(f_a)(tg.tensor(2.0)).item()  # d/dt 3t^2 = 6t = 12

    def b(_: int) -> None:
        inside.wait(TIMEOUT)
        seen["b_depth"] = state.diff_depth
        g = tg.grad(lambda u: u**3)(tg.tensor(2.0))
        seen["b_detached"] = g.grad_fn is None and not g.requires_grad
        seen["b_result"] = g.item()
        done.wait(TIMEOUT)

    run_threads(lambda k: (a, b)[k](k), 2)
    assert seen == {
        "a_depth": 1,
        "b_depth": 0,
        "b_detached": True,
        "b_result": 12.0,
        "a_inner_on_tape": True,
        "a_result": 12.0,
    }


# ---- shared read-only parameters -----------------------------------------------------------------
def _train_like_work(net: tg.nn.Module, data: tuple, log: list | None = None, k: int = 0) -> list:
    """Forward + backward on this thread's own graphs: losses, parameter grads, input grads."""
    params = net.trainable_params()
    loss_fn = tg.nn.CrossEntropyLoss()
    xs, ys = data
    out = []
    for it in range(ITERS):
        if log is not None:
            log.append(k)  # list.append is atomic: the order the threads really ran in
        x = tg.tensor(xs[it], requires_grad=True)  # owned by this thread
        loss = loss_fn(net(x), ys[it])
        grads = tg.autograd.grad(loss, params, retain_graph=True)
        loss.backward(inputs=[x])  # .grad of this thread's own leaf only
        out.append((loss.numpy().copy(), [g.numpy().copy() for g in grads], x.grad.numpy().copy()))
    return out


def _assert_identical(a: list, b: list) -> None:
    for (la, ga, xa), (lb, gb, xb) in zip(a, b, strict=True):
        assert np.array_equal(la, lb)
        assert all(np.array_equal(p, q) for p, q in zip(ga, gb, strict=True))
        assert np.array_equal(xa, xb)


def test_eight_threads_sharing_parameters_match_a_serial_run_bit_for_bit():
    net = make_net()
    data = batches(N_THREADS)
    before = [p.numpy().copy() for p in net.parameters()]
    serial = [_train_like_work(net, data[k]) for k in range(N_THREADS)]
    log: list = []
    threaded = run_threads(lambda k: _train_like_work(net, data[k], log, k))
    switches = sum(a != b for a, b in zip(log, log[1:]))
    assert switches > 2 * N_THREADS, (
        f"the threads hardly overlapped ({switches} switches): nothing tested"
    )
    for k in range(N_THREADS):
        _assert_identical(threaded[k], serial[k])
    # the threads differ from each other (so identical results are not a trivial coincidence)
    assert not np.array_equal(threaded[0][0][1][0], threaded[1][0][1][0])
    # and nobody wrote the shared parameters or their .grad
    assert all(p.grad is None for p in net.parameters())
    assert all(np.array_equal(p.numpy(), q) for p, q in zip(net.parameters(), before))


def test_concurrent_autograd_grad_never_touches_grad():
    net = make_net()
    params = net.trainable_params()
    sentinels = []
    for p in params:
        p.grad = tg.full(p.shape, 7.0)
        sentinels.append(p.grad)
    data = batches(N_THREADS, seed=1)

    def work(k: int) -> float:
        xs, ys = data[k]
        total = 0.0
        for it in range(ITERS):
            loss = tg.nn.CrossEntropyLoss()(net(tg.tensor(xs[it])), ys[it])
            grads = tg.autograd.grad(loss, params, create_graph=(it % 3 == 0))
            # a second-order quantity on half the iterations: the grads stay on this thread's tape
            if it % 3 == 0:
                (gg,) = tg.autograd.grad(sum((g * g).sum() for g in grads), params[0])
                total += float(gg.abs().sum())
            total += sum(float(g.abs().sum()) for g in grads)
        return total

    totals = run_threads(work)
    assert all(t > 0 for t in totals)
    for p, s in zip(params, sentinels):
        assert p.grad is s and bool((p.grad == 7.0).all())


def test_concurrent_functional_grad_gives_correct_results():
    net = make_net()
    params = net.trainable_params()
    data = batches(N_THREADS, seed=2)
    loss_fn = tg.nn.CrossEntropyLoss()

    def forward(x: tg.Tensor, y: Any) -> tuple:
        logits = net(x)
        return loss_fn(logits, y), logits

    step = tg.value_and_grad(forward, grad_position=0, weights=params, has_aux=True)
    d2sin = tg.grad(tg.grad(lambda t: (t * 1.5).sin()))  # second derivative: -2.25 sin(1.5 t)

    def work(k: int) -> list:
        xs, ys = data[k]
        out = []
        for it in range(ITERS):
            (loss, logits), (gx, gw) = step(tg.tensor(xs[it]), ys[it])
            t = tg.tensor(0.1 * (k + 1) + 0.01 * it, dtype=tg.float64)
            out.append(
                (
                    loss.numpy().copy(),
                    gx.numpy().copy(),
                    [g.numpy().copy() for g in gw],
                    d2sin(t).item(),
                    logits.requires_grad,
                    gx.requires_grad,
                )
            )
        return out

    serial = [work(k) for k in range(N_THREADS)]
    threaded = run_threads(work)
    for k in range(N_THREADS):
        for it, (a, b) in enumerate(zip(threaded[k], serial[k], strict=True)):
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
            assert all(np.array_equal(p, q) for p, q in zip(a[2], b[2], strict=True))
            t = 0.1 * (k + 1) + 0.01 * it
            assert a[3] == b[3] and a[3] == pytest.approx(-2.25 * np.sin(1.5 * t), rel=1e-12)
            assert a[4] is False and a[5] is False  # outermost calls return detached values
    assert all(p.grad is None for p in params)


# ---- shared leaves: the documented pattern -------------------------------------------------------
def test_per_thread_grads_summed_in_order_equal_serial_backward_exactly():
    """docs/errors.md: for results independent of thread timing, use tg.autograd.grad per thread
    and sum in one thread, in a fixed order. That sum equals serial accumulation exactly."""
    data = batches(N_THREADS, seed=3)
    loss_fn = tg.nn.CrossEntropyLoss()

    def loss_of(net: tg.nn.Module, k: int, it: int) -> tg.Tensor:
        xs, ys = data[k]
        return loss_fn(net(tg.tensor(xs[it])), ys[it])

    serial_net, threaded_net = make_net(), make_net()
    serial_opt = tg.optim.SGD(serial_net.parameters(), lr=0.1, momentum=0.9)
    threaded_opt = tg.optim.SGD(threaded_net.parameters(), lr=0.1, momentum=0.9)
    params = threaded_net.trainable_params()
    for it in range(4):
        serial_opt.zero_grad()
        for k in range(N_THREADS):  # PyTorch style, one loss after another
            loss_of(serial_net, k, it).backward()
        serial_opt.step()

        results = run_threads(lambda k: tg.autograd.grad(loss_of(threaded_net, k, it), params))
        summed = [
            functools.reduce(operator.add, (r[i] for r in results)) for i in range(len(params))
        ]
        threaded_opt.step(summed)
        assert all(p.grad is None for p in params)

    for p, q in zip(serial_net.parameters(), threaded_net.parameters(), strict=True):
        assert np.array_equal(p.numpy(), q.numpy())
    assert not np.array_equal(
        serial_net[0].weight.numpy(), make_net()[0].weight.numpy()
    )  # it trained


def test_threads_section_documents_the_accumulation_rules():
    text = (Path(__file__).resolve().parent.parent / "docs" / "errors.md").read_text(
        encoding="utf-8"
    )
    section = text.split("## Threads", 1)[1]
    for claim in (
        "Thread-local",
        "Concurrent `backward()` into the same leaf",
        "_accumulate_grad",
        "holds a lock",
        "tg.autograd.grad",
        "fixed order",
    ):
        assert claim in section


def test_concurrent_backward_into_one_leaf_loses_nothing():
    """The lock in _accumulate_grad: 8 threads x 20 backward() calls all land in .grad."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, to provoke lost updates
    try:
        for _ in range(5):
            w = tg.tensor(np.ones(1000, np.float32), requires_grad=True)
            barrier = threading.Barrier(8)

            def work() -> None:
                barrier.wait()
                for _ in range(20):
                    (w * 1.0).sum().backward()

            threads = [threading.Thread(target=work) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert np.all(w.grad.numpy() == 160.0)
    finally:
        sys.setswitchinterval(old)
