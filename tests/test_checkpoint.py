"""tg.utils.checkpoint: the same gradients as without it (first and second order, parameters,
tg.autograd.grad), only the segment's inputs kept on the tape, random numbers replayed, and
PyTorch's keywords and errors; compared with torch.utils.checkpoint where torch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.tape.plan import execution_order
from tapegrad.utils.checkpoint import checkpoint, checkpoint_sequential

RNG = np.random.default_rng(0)


def mlp(depth: int = 6, width: int = 5):
    tg.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [tg.nn.Linear(width, width), tg.nn.Tanh()]
    return tg.nn.Sequential(*layers).double()


def x_(requires_grad=True):
    return tg.tensor(RNG.standard_normal((3, 5)), requires_grad=requires_grad)


def grads_of(net, x, forward) -> list:
    for p in net.parameters():
        p.grad = None
    x.grad = None
    (forward(x) ** 2).sum().backward()
    return [p.grad.numpy().copy() for p in net.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize(
    "forward",
    [
        lambda net, x: checkpoint(net, x, use_reentrant=False),
        lambda net, x: checkpoint_sequential(net, 3, x, use_reentrant=False),
        lambda net, x: checkpoint(lambda a: net(a) * 2.0, x, use_reentrant=True) / 2.0,
    ],
    ids=["whole", "sequential", "closure"],
)
def test_same_gradients_as_without(forward):
    net, x = mlp(), x_()
    with_ck = grads_of(net, x, lambda a: forward(net, a))
    without = grads_of(net, x, net)
    for a, b in zip(with_ck, without):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_second_order_through_the_recomputation():
    net, x = mlp(3), x_()

    def first(f):
        (gx,) = tg.autograd.grad((f(x) ** 2).sum(), x, create_graph=True)
        return tg.autograd.grad((gx**2).sum(), [x, *net.parameters()])

    for a, b in zip(first(lambda a: checkpoint(net, a)), first(net)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)
    h1 = tg.func.hessian(lambda a: (checkpoint(net, a) ** 2).sum())(x.detach())
    h2 = tg.func.hessian(lambda a: (net(a) ** 2).sum())(x.detach())
    np.testing.assert_allclose(h1.numpy(), h2.numpy(), rtol=1e-10)


def test_the_tape_keeps_one_node_for_the_segment():
    net, x = mlp(), x_()
    plain = {n.name for n in execution_order([(net(x) ** 2).sum().grad_fn])}
    kept = execution_order([(checkpoint(net, x) ** 2).sum().grad_fn])
    assert "LinearBackward" in plain
    assert [n.name for n in kept].count("_RecomputeBackward") == 1
    assert "LinearBackward" not in {n.name for n in kept}  # (the segment's nodes were dropped)


def test_random_numbers_are_replayed_in_backward():
    x = tg.tensor(np.ones((4, 6)), requires_grad=True)
    drop = tg.nn.Dropout(0.5)
    y = checkpoint(lambda a: drop(a) * a, x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * y.detach().numpy())  # (the same mask)


def test_several_outputs_kwargs_and_non_tensor_outputs():
    x, w = x_(), tg.tensor(RNG.standard_normal(5), requires_grad=True)

    def f(a, *, scale):
        return {"a": (a * w).tanh() * scale, "n": 3}, a.sum()

    (d, s) = checkpoint(f, x, scale=2.0)
    assert d["n"] == 3
    gx, gw = tg.autograd.grad((d["a"] ** 2).sum() + s, [x, w])
    (d2, s2) = f(x, scale=2.0)
    hx, hw = tg.autograd.grad((d2["a"] ** 2).sum() + s2, [x, w])
    np.testing.assert_allclose(gx.numpy(), hx.numpy())
    np.testing.assert_allclose(gw.numpy(), hw.numpy())


def test_without_grad_mode_it_just_runs():
    net = mlp(2)
    with tg.no_grad():
        y = checkpoint(net, x_())
    assert y.grad_fn is None


def test_errors_and_keywords():
    with pytest.raises(ValueError, match="determinism_check"):
        checkpoint(tg.sin, x_(), determinism_check="foo")
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint(tg.sin, x_(), use_reentrant=None)
    inner = x_() * 2.0  # (computed outside, used inside, not an argument)
    with pytest.raises(RuntimeError, match="not one of its arguments"):
        checkpoint(lambda a: a * inner, x_())
    calls = []

    def changing(a):
        calls.append(1)
        return a[: 3 - len(calls) + 1]

    y = checkpoint(changing, x_())
    with pytest.raises(RuntimeError, match="same thing each time"):
        y.sum().backward()


def test_same_gradients_as_torch_checkpoint():
    torch = pytest.importorskip("torch")
    net, x = mlp(4), x_()
    ours = grads_of(net, x, lambda a: checkpoint_sequential(net, 2, a, use_reentrant=False))
    tnet = torch.nn.Sequential(
        *[
            torch.nn.Linear(5, 5).double() if isinstance(m, tg.nn.Linear) else torch.nn.Tanh()
            for m in net
        ]
    )
    with torch.no_grad():
        for tp, p in zip(tnet.parameters(), net.parameters()):
            tp.copy_(torch.tensor(p.numpy()))
    tx = torch.tensor(x.numpy(), requires_grad=True)
    out = torch.utils.checkpoint.checkpoint_sequential(tnet, 2, tx, use_reentrant=False)
    (out**2).sum().backward()
    theirs = [p.grad.numpy() for p in tnet.parameters()] + [tx.grad.numpy()]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10)
