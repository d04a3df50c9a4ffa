"""The engine's semantics one by one: accumulation, retain_graph, create_graph, allow_unused,
grad_outputs, inputs=, hooks, retain_grad, version counters, pruning, depth without recursion,
memory, grad mode and threads, anomaly mode, custom Functions and gradcheck itself."""

from __future__ import annotations

import gc
import math
import sys
import threading
import warnings
import weakref

import numpy as np

import pytest

import tapegrad as tg
from tapegrad.tape import engine, plan
from tapegrad.tape.node import FREED


# ---- accumulation and retain_graph ---------------------------------------------------------------
def test_grad_accumulates_across_backward_calls_on_leaves_only():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    with pytest.warns(UserWarning, match="retain_grad"):
        assert y.grad is None  # non-leaf: not kept without retain_grad()


def test_accumulated_grad_does_not_alias_the_gradient_sources():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0], requires_grad=True)
    seed = tg.tensor([1.0, 1.0, 1.0])
    out = tg.cat([a, b])
    out.backward(seed, retain_graph=True)
    out.backward(seed, retain_graph=True)
    assert seed.tolist() == [1.0, 1.0, 1.0]
    assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [2.0]
    # same with create_graph=True first (the gradient there is a constant, i.e. no grad_fn)
    c = tg.tensor([1.0, 2.0], requires_grad=True)
    out = tg.cat([c, b])
    out.backward(seed, create_graph=True)
    out.backward(seed)
    assert seed.tolist() == [1.0, 1.0, 1.0] and c.grad.tolist() == [2.0, 2.0]


def test_one_gradient_array_reaching_two_leaves_becomes_two_grads():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0], requires_grad=True)
    ((a + b) * 2.0).sum().backward()  # add's rules hand one fresh array (2 * g) to both leaves
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.numpy()[0] = 5.0  # (.grad is writable: the next backward accumulates into it)
    assert b.grad.tolist() == [2.0, 2.0]


def test_second_backward_without_retain_graph_is_an_error():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True") as info:
        y.backward()
    assert "MulBackward" in str(info.value)


def test_retain_graph_allows_a_second_backward():
    x = tg.tensor(3.0, requires_grad=True)
    y = x.sin() * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == pytest.approx(2 * (math.cos(3) * 3 + math.sin(3)), rel=1e-6)


def test_backward_frees_saved_tensors_as_it_goes():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    z = y.exp().sum()
    nodes = plan.execution_order([z.grad_fn])
    saving = [n for n in nodes if n.saved is not None or n.out_data is not None]
    assert {n.name for n in saving} == {"MulBackward", "ExpBackward"}  # (sum saves nothing)
    z.backward()
    assert all(n.saved is FREED and n.out_data is None for n in saving)


def test_grad_twice_through_freed_graph_is_an_error():
    x = tg.tensor(2.0, requires_grad=True)
    y = x**3
    tg.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        tg.autograd.grad(y, x)


# ---- create_graph -------------------------------------------------------------------------------
def test_create_graph_to_fourth_order_power():
    x = tg.tensor(1.5, dtype=tg.float64, requires_grad=True)
    y = x**4
    expected = [4 * 1.5**3, 12 * 1.5**2, 24 * 1.5, 24.0]
    for k in range(4):
        (y,) = tg.autograd.grad(y, x, create_graph=True)
        assert y.item() == pytest.approx(expected[k])
        assert y.requires_grad


def test_create_graph_to_fourth_order_sin_with_backward():
    x = tg.tensor(0.7, dtype=tg.float64, requires_grad=True)
    closed = [math.cos(0.7), -math.sin(0.7), -math.cos(0.7), math.sin(0.7)]
    y = x.sin()
    for k in range(3):
        (y,) = tg.autograd.grad(y, x, create_graph=True)
        assert y.item() == pytest.approx(closed[k])
    y.backward()
    assert x.grad.item() == pytest.approx(closed[3])


def test_create_graph_through_every_saved_output_rule():
    # rules that use `out` (exp, tanh, sigmoid, sqrt, tan, logsumexp, prod, max) at second order
    x = tg.tensor([0.3, 0.8], dtype=tg.float64, requires_grad=True)
    for fn in (
        tg.exp,
        tg.tanh,
        tg.sigmoid,
        tg.sqrt,
        tg.tan,
        lambda t: t.logsumexp(),
        lambda t: t.prod(),
        lambda t: t.max() * t.max(),
    ):
        assert tg.autograd.gradgradcheck(lambda t: fn(t).sum(), [x])


def test_backward_and_grad_work_inside_no_grad():
    x = tg.tensor(2.0, requires_grad=True)
    y = x**3
    with tg.no_grad():
        (g,) = tg.autograd.grad(y, x, create_graph=True)
        y.backward()
        assert not tg.is_grad_enabled()
    assert g.requires_grad and g.item() == 12.0 and x.grad.item() == 12.0


def test_create_graph_grads_of_different_leaves_are_separate_tensors():
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0], requires_grad=True)
    s = a + b  # add hands the same gradient tensor to both inputs
    (s * s).sum().backward(create_graph=True)
    assert a.grad is not b.grad and not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    with tg.no_grad():
        a.grad.mul_(0)
    assert b.grad.tolist() == [8.0, 12.0]


def test_backward_with_create_graph_gives_differentiable_grad():
    x = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and g.tolist() == [3.0, 12.0]
    (h,) = tg.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0]


def test_create_graph_grad_can_be_zeroed_and_updated_in_place():
    x = tg.tensor([[1.0, 2.0]], requires_grad=True)
    x.sum().backward(create_graph=True)
    with tg.no_grad():
        x.grad.zero_()
    assert x.grad.tolist() == [[0.0, 0.0]]
    (g,) = tg.autograd.grad((x * x).mean(), x)
    g += 1  # results of grad() are ordinary writable tensors
    assert g.tolist() == [[2.0, 3.0]]


# ---- allow_unused, grad_outputs, inputs= ---------------------------------------------------------
def test_allow_unused():
    x = tg.tensor(1.0, requires_grad=True)
    z = tg.tensor(2.0, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        tg.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = tg.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gx.item() == 2.0 and gz is None
    gx, gz = tg.autograd.grad(y, [x, z], materialize_grads=True)
    assert gz.item() == 0.0


def test_grad_outputs_for_non_scalar_outputs():
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    (g,) = tg.autograd.grad(y, x, grad_outputs=tg.tensor([1.0, 0.0, 2.0]), retain_graph=True)
    assert g.tolist() == [2.0, 0.0, 12.0]
    y.backward(gradient=tg.tensor([1.0, 1.0, 1.0]))
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    x.grad = None
    y2 = x * 2
    tg.autograd.backward([y2, x.sum()], grad_tensors=[tg.ones(3), None])
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_grad_of_several_outputs_and_non_leaf_inputs():
    x = tg.tensor(2.0, requires_grad=True)
    h = x * x
    a, b = h * 3, h.sin()
    (gh, gx) = tg.autograd.grad([a, b], [h, x])
    assert gh.item() == pytest.approx(3 + math.cos(4), rel=1e-6)
    assert gx.item() == pytest.approx((3 + math.cos(4)) * 4, rel=1e-6)
    assert x.grad is None
    with pytest.warns(UserWarning, match="retain_grad"):
        assert h.grad is None


def test_grad_touches_no_dot_grad():
    x = tg.tensor([1.0], requires_grad=True)
    tg.autograd.grad((x * 2).sum(), x)
    assert x.grad is None


def test_backward_inputs_only_touches_those():
    x = tg.tensor(1.0, requires_grad=True)
    y = tg.tensor(2.0, requires_grad=True)
    z = x * y
    z.backward(inputs=[x])
    assert x.grad.item() == 2.0 and y.grad is None
    w = x * y
    mid = w * 1
    (mid * 3).backward(inputs=[mid])
    with warnings.catch_warnings():  # a non-leaf given as an input has its .grad: no warning
        warnings.simplefilter("error")
        assert mid.grad.item() == 3.0 and x.grad.item() == 2.0 and y.grad is None


def test_pruning_seed_000_grad_x_then_grad_y_without_retain_graph():
    x = tg.tensor(3.0, requires_grad=True)
    y = tg.tensor(5.0, requires_grad=True)
    z = x**2 + y
    (gx,) = tg.autograd.grad(z, x)
    (gy,) = tg.autograd.grad(z, y)
    assert gx.item() == 6.0 and gy.item() == 1.0
    with pytest.raises(RuntimeError, match="retain_graph"):
        tg.autograd.grad(z, x)


def test_engine_runs_only_nodes_on_a_path_to_the_targets():
    x = tg.tensor(1.0, requires_grad=True)
    y = tg.tensor(2.0, requires_grad=True)
    a, b = x.exp(), y.sin()
    z = a + b
    seen = []
    engine.run_backward(
        [z.grad_fn], [tg.tensor(1.0)], {y}, observer=lambda n, g, gs: seen.append(n)
    )
    assert [n.name for n in seen] == ["AddBackward", "SinBackward"]


def test_edges_per_input_whatever_the_arity():
    """Two-input nodes keep their edges in two fields (no tuple per op); Node.edges reads the
    same per-input tuple for every arity."""
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    w = tg.tensor([[1.0, 0.0], [0.0, 1.0]], requires_grad=True)
    b = tg.tensor([0.5, 0.5], requires_grad=True)
    s = x.sin()
    assert s.grad_fn.edges == (x,) and s.grad_fn.all_edges == (x,)
    assert (s * x).grad_fn.edges == (s.grad_fn, x)
    assert (s * 2.0).grad_fn.edges == (s.grad_fn, None)
    assert (2.0 - s).grad_fn.edges == (None, s.grad_fn)
    assert (s * 2.0).grad_fn.all_edges is None
    out = tg.nn.functional.linear(s, w, b)
    assert out.grad_fn.edges == (s.grad_fn, w, b)
    assert [e for e, _ in (s * x).grad_fn.next_functions] == [s.grad_fn, x]


def test_pruned_edges_run_only_the_rules_that_lead_to_a_target():
    """grad w.r.t. x alone of x @ w: the node's edges are cut to x's (a plan.Cut), so w's rule
    does not run, and the gradient is x's all the same."""
    x = tg.tensor([[1.0, 2.0]], requires_grad=True)
    w = tg.tensor([[3.0], [4.0]], requires_grad=True)
    product = x @ w
    out = product.sum()
    pruned, _ = plan._needed([out.grad_fn], {x})
    cut = pruned[product.grad_fn]
    assert isinstance(cut, plan.Cut) and cut == (x, None)
    rules_gave = {}
    found = engine.run_backward(
        [out.grad_fn], [tg.tensor(1.0)], {x}, observer=lambda n, g, gs: rules_gave.update({n: gs})
    )
    assert rules_gave[product.grad_fn][1] is None  # (w's rule never ran)
    np.testing.assert_allclose(found[x].numpy(), [[3.0, 4.0]])
    assert w.grad is None


@pytest.mark.parametrize("targets", ["all leaves", "some leaves", "a node and a leaf"])
def test_grad_with_or_without_pruning_agrees_with_closed_forms(targets):
    """grad w.r.t. every leaf reached skips the pruning walk; a subset or a non-leaf target needs
    it.
    Both must give the same gradients, the same None for a target reached only through a zero
    rule, and the same 'absent' for a target that cannot be reached."""
    x = tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([2.0, -1.0], dtype=tg.float64, requires_grad=True)
    s = tg.tensor([3.0, 4.0], dtype=tg.float64, requires_grad=True)  # reached through sign only
    u = tg.tensor([1.0, 1.0], dtype=tg.float64, requires_grad=True)  # not used at all
    mid = x * y
    z = (mid.sin() + s.sign()).sum()
    if targets == "all leaves":
        gx, gy, gs, gu = tg.autograd.grad(z, [x, y, s, u], allow_unused=True)
        assert gu is None
    elif targets == "some leaves":
        gx, gs = tg.autograd.grad(z, [x, s])
        gy = None
    else:
        gmid, gx, gs = tg.autograd.grad(z, [mid, x, s])
        np.testing.assert_allclose(gmid.numpy(), np.cos([1.0, -1.5]))
        gy = None
    np.testing.assert_allclose(gx.numpy(), np.cos([1.0, -1.5]) * [2.0, -1.0])
    if gy is not None:
        np.testing.assert_allclose(gy.numpy(), np.cos([1.0, -1.5]) * [0.5, 1.5])
    assert gs is not None and gs.tolist() == [0.0, 0.0]  # reached: a zero, not "unused"
    with pytest.raises(RuntimeError, match="allow_unused"):
        tg.autograd.grad((x * 2).sum(), [x, u])


def test_each_node_runs_once_after_all_its_consumers_diamond():
    x = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
    a = x * 3
    b, c = a.sin(), a.exp()
    d = b * c + a
    order = []
    engine.run_backward(
        [d.grad_fn],
        [tg.tensor(1.0, dtype=tg.float64)],
        None,
        retain_graph=True,
        observer=lambda n, g, gs: order.append(n),
    )
    assert len(order) == len(set(order)) == len(plan.execution_order([d.grad_fn]))
    assert order == plan.execution_order([d.grad_fn])
    assert order.index(a.grad_fn) > max(order.index(b.grad_fn), order.index(c.grad_fn))
    assert x.grad.item() == pytest.approx(
        3 * (math.cos(6) * math.exp(6) + math.sin(6) * math.exp(6) + 1)
    )


# ---- hooks and retain_grad -----------------------------------------------------------------------
def test_hook_on_leaf_sees_and_replaces_the_gradient():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    h = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]] and x.grad.tolist() == [30.0, 30.0]
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and len(seen) == 2


def test_hook_on_non_leaf_replaces_what_flows_on():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    handle = y.register_hook(lambda g: g * 0 + 1)
    (y * y).sum().backward(retain_graph=True)
    assert seen == [[4.0, 8.0]]
    assert x.grad.tolist() == [2.0, 2.0]
    handle.remove()
    x.grad = None
    (y * y).sum().backward()
    assert x.grad.tolist() == [8.0, 16.0]


def test_hooks_apply_in_autograd_grad_too():
    x = tg.tensor(1.0, requires_grad=True)
    x.register_hook(lambda g: g * 2)
    assert tg.autograd.grad(x * 5, x)[0].item() == 10.0


def test_register_hook_needs_requires_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.tensor([1.0]).register_hook(lambda g: g)


def test_retain_grad():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = y * y
    z.sum().backward(retain_graph=True)
    assert y.grad.tolist() == [4.0, 8.0]
    with pytest.warns(UserWarning, match="retain_grad"):
        assert z.grad is None
    z.sum().backward()
    assert y.grad.tolist() == [8.0, 16.0]  # accumulates like a leaf
    assert y.retains_grad


def test_retain_grad_sees_the_gradient_after_every_hook():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)  # registered after retain_grad, still runs before it
    y.sum().backward()
    assert y.grad.tolist() == [10.0, 10.0] and x.grad.tolist() == [20.0, 20.0]


def test_hook_can_remove_itself_while_running():
    x = tg.tensor([1.0], requires_grad=True)
    handles = []
    handles.append(x.register_hook(lambda g: handles[0].remove()))
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0]


def test_retain_grad_does_not_keep_the_tensor_alive():
    x = tg.tensor([1.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    ref = weakref.ref(y)
    del y
    assert ref() is None


# ---- version counters ----------------------------------------------------------------------------
def _saved_and_modified(modify):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1  # non-leaf
    b = a * a  # saves a
    modify(a)
    return b


@pytest.mark.parametrize(
    "modify,op",
    [
        (lambda a: a.__iadd__(1), "+="),
        (lambda a: a.__setitem__(..., tg.tensor([5.0, 6.0])), "__setitem__"),
        (lambda a: a.zero_(), "fill_"),
        (lambda a: a.mul_(2), "mul_"),
    ],
)
def test_version_counter_error_names_the_backward_node(modify, op):
    b = _saved_and_modified(modify)
    with pytest.raises(RuntimeError, match="modified by an in-place operation") as info:
        b.sum().backward()
    msg = str(info.value)
    assert "MulBackward" in msg and "version" in msg and op in msg


def test_version_counter_on_saved_leaf_modified_under_no_grad():
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    with tg.no_grad():
        w -= 0.1
    with pytest.raises(RuntimeError, match="MulBackward.*version"):
        loss.backward()
    w2 = tg.tensor([1.0, 2.0], requires_grad=True)
    loss = w2.sin().sum()
    with tg.no_grad():
        w2.zero_()
    with pytest.raises(RuntimeError, match="SinBackward"):
        loss.backward()


def test_version_checks_whether_the_counter_existed_when_saved_or_not():
    """A saved tensor with no version counter yet is at version 0; one made later by an in-place op
    must still be noticed, and an old counter is compared with the version it had when saved."""
    fresh = tg.tensor([1.0, 2.0], requires_grad=True) * 1  # no counter yet
    loss = (fresh * fresh).sum()
    with tg.no_grad():
        fresh += 1  # makes the counter, at version 1
    with pytest.raises(RuntimeError, match="MulBackward.*version 1; expected version 0"):
        loss.backward()
    old = tg.tensor([1.0, 2.0], requires_grad=True)
    with tg.no_grad():
        old += 1  # a counter at version 1 before the op saves it: not a change
    (old * 2.0).sum().backward()  # (and a constant saved alongside it)
    loss = (old * old).sum()
    loss.backward(retain_graph=True)
    with tg.no_grad():
        old += 1
    with pytest.raises(RuntimeError, match="version 2; expected version 1"):
        loss.backward()


def test_version_counter_checks_saved_outputs():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # ExpBackward uses its output
    with tg.no_grad():
        y += 1
    with pytest.raises(RuntimeError, match="ExpBackward"):
        y.sum().backward()


def test_views_share_the_version_counter():
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    base = x * 1
    for make_view in (lambda t: t.reshape(4), lambda t: t.T, lambda t: t[0], lambda t: t[:, 1:]):
        v = make_view(base)
        out = (v * v).sum()
        with tg.no_grad():
            base[...] = 0.0  # changes v's values too
        with pytest.raises(RuntimeError, match="in-place"):
            out.backward()
    d = x.detach()
    out = (x * x).sum()
    d += 1  # detach() shares the data, so it shares the version counter too
    with pytest.raises(RuntimeError, match="in-place"):
        out.backward()


def test_unsaved_inputs_can_change_in_place():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    b = a + 1  # add saves nothing
    a += 5
    b.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


# ---- depth: no recursion -------------------------------------------------------------------------
def test_ten_thousand_deep_chain_under_tiny_recursion_limit():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        x = tg.tensor([1.0], dtype=tg.float64, requires_grad=True)
        y = x
        for _ in range(10_000):
            y = y * 1.0001
        order = plan.execution_order([y.grad_fn])
        y.backward()
        del y, order
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad.item() == pytest.approx(1.0001**10_000)


def test_million_node_chain_forward_and_backward():
    # The tape has no cycles, so the cyclic gc has nothing to find here; switching it off only
    # spares it re-scanning a million live objects (about a third of this test's time).
    gc.disable()
    try:
        x = tg.tensor([0.5], requires_grad=True)
        y = x
        for _ in range(1_000_000):
            y = y + 1.0
        first = y.grad_fn
        y.backward()
        assert x.grad.tolist() == [1.0]
        ref = weakref.ref(first)
        del y, first  # dropping a million-deep graph must not overflow the C stack either
        assert ref() is None
    finally:
        gc.enable()


# ---- memory --------------------------------------------------------------------------------------
def test_graph_freed_by_reference_counting_at_once():
    gc.collect()
    gc.disable()
    try:
        x = tg.tensor([1.0, 2.0], requires_grad=True)
        h = (x * 2).sin()
        node_ref = weakref.ref(h.grad_fn)
        h_ref = weakref.ref(h)
        out = (h + 1).exp().sum()  # add saves nothing: only h's node stays on the tape
        out_node = weakref.ref(out.grad_fn)
        del h
        assert h_ref() is None and node_ref() is not None  # a node never holds its output
        saved = (x * 2).tanh()
        saved_ref = weakref.ref(saved)
        out = out + (saved * saved).sum()  # mul saves its inputs: kept while the graph lives
        del saved
        assert saved_ref() is not None
        del out
        assert saved_ref() is None
        assert node_ref() is None and out_node() is None
        # also after a backward with retain_graph, and with create_graph
        y = (x**3).sum()
        y_node = weakref.ref(y.grad_fn)
        (g,) = tg.autograd.grad(y, x, create_graph=True)
        g_node = weakref.ref(g.grad_fn)
        del y, g
        assert y_node() is None and g_node() is None
    finally:
        gc.enable()


def test_no_reference_cycles():
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            x = tg.tensor(np.ones((3, 3)), requires_grad=True)
            y = x @ x
            y.retain_grad()
            y.register_hook(lambda g: g)
            z = (y.tanh() * y.sigmoid()).logsumexp(1).sum()
            z.backward(retain_graph=True)
            (g,) = tg.autograd.grad(z, x, create_graph=True)
            g.sum().backward()
            w = x * 1
            w += 1
            w[0] = 2.0
            del x, y, z, g, w
        assert gc.collect() == 0
    finally:
        gc.enable()


# ---- grad mode -----------------------------------------------------------------------------------
def test_no_grad_enable_grad_set_grad_enabled_as_context_managers():
    x = tg.tensor(1.0, requires_grad=True)
    with tg.no_grad():
        assert not tg.is_grad_enabled()
        assert not (x * 2).requires_grad
        with tg.enable_grad():
            assert (x * 2).requires_grad
        with tg.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    with tg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert tg.is_grad_enabled() and (x * 2).requires_grad


def test_grad_mode_switches_as_decorators():
    x = tg.tensor(1.0, requires_grad=True)

    @tg.no_grad()
    def f():
        return x * 2

    @tg.enable_grad()
    def g():
        return x * 2

    @tg.set_grad_enabled(False)
    def h():
        return x * 2

    @tg.no_grad
    def bare():
        return x * 2

    assert tg.is_grad_enabled()  # building the decorator switched nothing
    assert not f().requires_grad and g().requires_grad and not h().requires_grad
    assert not bare().requires_grad and bare.__name__ == "bare"
    with tg.no_grad():
        assert g().requires_grad
    assert tg.is_grad_enabled()


def test_set_grad_enabled_as_a_function_call():
    try:
        tg.set_grad_enabled(False)
        assert not tg.is_grad_enabled()
    finally:
        tg.set_grad_enabled(True)
    assert tg.is_grad_enabled()


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with tg.no_grad():
            raise ValueError
    assert tg.is_grad_enabled()


def test_grad_mode_is_thread_local():
    x = tg.tensor(1.0, requires_grad=True)
    inside_no_grad, other_checked = threading.Event(), threading.Event()
    result = {}

    def worker():
        with tg.no_grad():
            inside_no_grad.set()
            other_checked.wait(5)
            result["worker"] = (x * 2).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    assert inside_no_grad.wait(5)
    result["main"] = ((x * 2).requires_grad, tg.is_grad_enabled())
    other_checked.set()
    t.join()
    assert result == {"main": (True, True), "worker": False}


def test_eight_threads_calling_grad_at_once_on_shared_parameters():
    rng = np.random.default_rng(0)
    w = tg.tensor(rng.standard_normal((8, 8)), dtype=tg.float64, requires_grad=True)
    b = tg.tensor(rng.standard_normal(8), dtype=tg.float64, requires_grad=True)
    batches = [tg.tensor(rng.standard_normal((4, 8)), dtype=tg.float64) for _ in range(8)]

    def loss_grads(xb):
        h = (xb @ w + b).tanh()
        for _ in range(20):
            h = (h @ w).sigmoid() * h
        return [g.numpy().copy() for g in tg.autograd.grad((h * h).sum(), [w, b])]

    serial = [loss_grads(xb) for xb in batches]
    results = [None] * 8
    barrier = threading.Barrier(8)

    def run(i):
        barrier.wait()
        for _ in range(3):
            results[i] = loss_grads(batches[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, serial):
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert w.grad is None


# ---- anomaly mode --------------------------------------------------------------------------------
def test_detect_anomaly_names_the_forward_op_and_user_line():
    x = tg.tensor([0.0, 1.0], requires_grad=True)
    with tg.autograd.detect_anomaly(), np.errstate(all="ignore"):
        y = x.sqrt()  # the line the error must point at
        line = sys._getframe().f_lineno - 1
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    msg = str(info.value)
    assert "SqrtBackward" in msg and "'sqrt'" in msg
    assert f'test_engine.py", line {line}' in msg and "x.sqrt()" in msg
    assert not tg.autograd.is_anomaly_enabled()


def test_detect_anomaly_nan_from_log_zero_times_zero():
    x = tg.tensor([0.0, 1.0], requires_grad=True)
    with tg.autograd.detect_anomaly(), np.errstate(all="ignore"):
        y = tg.log(x) * 0.0
        with pytest.raises(RuntimeError, match="LogBackward.*nan"):
            y.sum().backward()


def test_without_detect_anomaly_nan_passes_silently():
    x = tg.tensor([0.0, 1.0], requires_grad=True)
    with np.errstate(all="ignore"):
        (tg.log(x) * 0.0).sum().backward()
    assert np.isnan(x.grad.numpy()[0])


# ---- custom Functions ----------------------------------------------------------------------------
class Cube(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x  # tapegrad ops: differentiable again


class ScaleBy(tg.autograd.Function):
    """Two inputs, the second a plain number: its gradient is None."""

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.needs = ctx.needs_input_grad
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_function_forward_backward_and_node_name():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    assert y.grad_fn.name == "CubeBackward" and y.tolist() == [1.0, 8.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_function_needs_input_grad_and_none_gradient():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    c = tg.tensor([1.0, 1.0])
    y = ScaleBy.apply(x, 3.0)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    class Mul2(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            Mul2.needs = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return (
                g * b if ctx.needs_input_grad[0] else None,
                g * a if ctx.needs_input_grad[1] else None,
            )

    out = Mul2.apply(c, x)
    assert Mul2.needs == (False, True)
    (g,) = tg.autograd.grad(out.sum(), x)
    assert g.tolist() == [1.0, 1.0]


def test_function_second_order():
    x = tg.tensor([1.5, -0.5], dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = tg.autograd.grad(g.sum(), x)
    assert h.tolist() == [9.0, -3.0]
    assert tg.autograd.gradcheck(Cube.apply, [x])
    assert tg.autograd.gradgradcheck(Cube.apply, [x])


def test_function_without_grad_mode_records_nothing():
    x = tg.tensor([1.0], requires_grad=True)
    with tg.no_grad():
        y = Cube.apply(x)
    assert y.grad_fn is None and not y.requires_grad


def test_function_saved_tensors_freed_after_backward():
    x = tg.tensor([1.0], requires_grad=True)
    y = Cube.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_function_wrong_number_of_gradients_is_a_clear_error():
    class Bad(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    a = tg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Bad.backward returned 1 gradient.*2 input"):
        Bad.apply(a, a).sum().backward()


def test_function_wrong_gradient_shape_is_a_clear_error():
    class BadShape(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    a = tg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"BadShape.backward.*shape \[\].*shape \[2\]"):
        BadShape.apply(a).sum().backward()


def test_function_in_place_change_of_saved_tensor_detected():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = Cube.apply(a)
    with tg.no_grad():
        a += 1
    with pytest.raises(RuntimeError, match="CubeBackward"):
        y.sum().backward()


# ---- gradcheck detects wrong rules ---------------------------------------------------------------
class WrongSquare(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # should be 2 * g * x


def test_gradcheck_detects_a_wrong_custom_backward():
    x = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(WrongSquare.apply, [x], raise_exception=False) is False
    with pytest.raises(tg.autograd.GradcheckError, match="Jacobian mismatch"):
        tg.autograd.gradcheck(WrongSquare.apply, [x])


def test_gradcheck_on_non_contiguous_and_read_only_inputs():
    t = tg.tensor(
        np.arange(6.0).reshape(2, 3).T.copy(order="F"), dtype=tg.float64, requires_grad=True
    )
    assert tg.autograd.gradcheck(lambda a: (a * a).sum(0), [t])
    r = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    r.numpy().flags.writeable = False
    assert tg.autograd.gradcheck(lambda a: a.sin(), [r])


def test_gradgradcheck_detects_a_backward_that_is_only_right_at_first_order():
    class ConstSecond(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # right values, but cut from the tape

    x = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(ConstSecond.apply, [x])
    assert tg.autograd.gradgradcheck(ConstSecond.apply, [x], raise_exception=False) is False


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (70, 70)])
def test_a_leaf_used_many_times_gets_the_sum_of_its_uses(dtype, shape):
    """Small leaves gather their gradients and sum them in one call at the end, big ones add as they
    go: either way the result is the sum of every use's gradient, in the leaf's shape and dtype."""
    rng = np.random.default_rng(0)
    w = tg.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    scales = rng.uniform(0.5, 1.5, 9).astype(dtype)
    loss = sum(((w * float(c)) * (w * 1.0 + 0.5)).sum() for c in scales)
    loss.backward()
    wn = w.numpy()
    uses = []  # the engine's order: the last use first, a product's second factor before its first
    for c in scales[::-1]:
        c = dtype(c)
        uses += [(wn * c) * dtype(1.0), (wn * dtype(1.0) + dtype(0.5)) * c]
    expected = uses[0]
    for u in uses[1:]:
        expected = expected + u
    assert w.grad.shape == shape and w.grad.dtype == dtype
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol={np.float16: 1e-2}.get(dtype, 1e-6))
    (g,) = tg.autograd.grad(sum((w * float(c)).sum() for c in scales), w)
    assert isinstance(g.numpy(), np.ndarray) and g.shape == shape
    np.testing.assert_allclose(
        g.numpy(),
        np.full(shape, scales.astype(np.float64).sum()),
        rtol={np.float16: 1e-2}.get(dtype, 1e-5),
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_ops_with_python_numbers_keep_dtype_and_gradients(dtype):
    """A Tensor with a Python number on either side records a node without shape bookkeeping;
    gradients must still match the closed forms, in the leaf's dtype."""
    x0 = np.array([0.5, 1.5, 2.0], dtype)
    cases = [
        (lambda x: x * 3.0, lambda x: np.full_like(x, 3.0)),
        (lambda x: 3.0 * x, lambda x: np.full_like(x, 3.0)),
        (lambda x: 2 - x, lambda x: np.full_like(x, -1.0)),
        (lambda x: x / 4.0, lambda x: np.full_like(x, 0.25)),
        (lambda x: 1.0 / x, lambda x: -1.0 / (x * x)),
        (lambda x: x**2.0, lambda x: 2.0 * x),
        (lambda x: 2.0**x, lambda x: np.log(2.0) * 2.0**x),
        (lambda x: x + 7.0, lambda x: np.ones_like(x)),
    ]
    for f, df in cases:
        x = tg.tensor(x0, requires_grad=True)
        y = f(x)
        assert y.dtype == dtype
        y.sum().backward()
        assert x.grad.dtype == dtype
        np.testing.assert_allclose(
            x.grad.numpy(), df(x0.astype(np.float64)), rtol={np.float16: 2e-3}.get(dtype, 1e-6)
        )
    x = tg.tensor(x0, requires_grad=True) * 1.0
    y = x**3.0  # saves x and the number
    with tg.no_grad():
        x += 1.0
    with pytest.raises(RuntimeError, match="PowBackward.*version"):
        y.sum().backward()


# ---- custom Functions with several outputs -------------------------------------------------------
class SinCos(tg.autograd.Function):
    """(sin(x*w), 2*cos(x*w), a number, an integer argmax): PyTorch's several-output Function."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return (x * w).sin(), (x * w).cos() * 2.0, 7, (x * w).argmax()

    @staticmethod
    def backward(ctx, gs, gc, gnum, gidx):
        x, w = ctx.saved_tensors
        d = gs * (x * w).cos() - gc * 2.0 * (x * w).sin()
        return d * w, d * x  # (w's gradient at x's shape: summed back, as in PyTorch)


def test_function_with_several_outputs_values_gradients_and_structure():
    x0, w0 = np.array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]]), np.array([1.5, -0.5, 0.8])
    x = tg.tensor(x0, requires_grad=True)
    w = tg.tensor(w0, requires_grad=True)
    s, c, number, idx = SinCos.apply(x, w)
    assert number == 7 and idx.grad_fn is None and not idx.requires_grad  # integer: no gradient
    assert s.grad_fn.name == c.grad_fn.name == "SinCosOutputBackward"
    assert s.grad_fn.next_functions[0][0] is c.grad_fn.next_functions[0][0]  # one SinCosBackward
    assert s.grad_fn.next_functions[0][0].name == "SinCosBackward"
    np.testing.assert_allclose(s.numpy(), np.sin(x0 * w0))
    (s.sum() + (c * c).sum()).backward()
    u = x0 * w0
    gs, gc = 1.0, 2 * (2 * np.cos(u))  # d/ds of sum(s), d/dc of sum(c*c)
    d = gs * np.cos(u) - gc * 2 * np.sin(u)
    np.testing.assert_allclose(x.grad.numpy(), d * w0)
    np.testing.assert_allclose(w.grad.numpy(), (d * x0).sum(0))
    # only one output used: the other's gradient is zeros (PyTorch's default)
    (gx,) = tg.autograd.grad(SinCos.apply(x, w)[1].sum(), x)
    np.testing.assert_allclose(gx.numpy(), -2 * np.sin(u) * w0)


def test_function_with_several_outputs_second_order_and_gradcheck():
    x = tg.tensor([[0.3, -1.2], [0.7, 0.1]], dtype=tg.float64, requires_grad=True)
    w = tg.tensor([1.5, -0.5], dtype=tg.float64, requires_grad=True)

    def f(x, w):
        s, c, _, _ = SinCos.apply(x, w)
        return (s * c).sum() + (s * s).sum()

    assert tg.autograd.gradcheck(f, (x, w))
    assert tg.autograd.gradgradcheck(f, (x, w))


def test_function_outputs_non_differentiable_and_unmaterialized_grads():
    seen = []

    class Split(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            a, b = x * 2.0, x * 3.0
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append(gb)
            return ga * 2.0

    x = tg.tensor([1.0, 2.0], requires_grad=True)
    a, b = Split.apply(x)
    assert b.grad_fn is None and not b.requires_grad and a.requires_grad
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and seen == [None]
    with tg.no_grad():
        a2, b2 = Split.apply(x)
    assert a2.grad_fn is None and b2.grad_fn is None


@pytest.mark.parametrize("count", [2, 3, 8, 9, 40])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_gathered_leaf_gradients_sum_in_order_to_a_fresh_array(count, shape):
    """A leaf's gathered gradients (few: one by one; many: one NumPy call) equal the in-order
    running sum (many scalars: to rounding), come back as an array (also 0-d) and never
    overwrite a part."""
    rng = np.random.default_rng(count)
    parts = [np.asarray(rng.standard_normal(shape).astype(np.float32)) for _ in range(count)]
    kept = [p.copy() for p in parts]
    expected = kept[0]
    for p in kept[1:]:
        expected = expected + p
    total = plan.gathered_sum(parts)
    assert isinstance(total, np.ndarray) and total.shape == shape and total.dtype == np.float32
    if count > 8 and shape == ():  # (NumPy sums many scalars pairwise: rounding may differ)
        np.testing.assert_allclose(total, expected, rtol=1e-6)
    else:
        np.testing.assert_array_equal(total, expected)
    for p, k in zip(parts, kept):
        np.testing.assert_array_equal(p, k)
    x = tg.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    sum(x * float(i + 1) for i in range(count)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(shape, count * (count + 1) / 2), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_arithmetic_gradients_keep_each_inputs_dtype_with_numbers_and_narrow_arrays(dtype):
    """add/sub/mul/div skip the engine's shape/dtype fitting when the inputs look like the output
    (they are flagged elementwise): their gradients must still have each leaf's dtype and value."""
    x = tg.tensor(np.array([[0.5, 2.0], [1.5, 4.0]], dtype), requires_grad=True)
    y = tg.tensor(np.array([[2.0, 0.5], [4.0, 1.0]], dtype), requires_grad=True)
    small = np.array([[1, 2], [3, 4]], np.int8)
    ops = [
        (lambda: x * y, y._data, x._data),
        (lambda: x / y, 1 / y._data, -x._data / y._data**2),
        (lambda: x - y, 1.0, -1.0),
        (lambda: x + 3.0 * x, 4.0, None),
        (lambda: x * small, small, None),
        (lambda: 2.0 / x, -2.0 / x._data**2, None),
    ]
    for make, want_x, want_y in ops:
        x.grad = y.grad = None
        make().sum().backward()
        assert x.grad.dtype == dtype and x.grad.shape == (2, 2)
        np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(want_x, (2, 2)), rtol=1e-3)
        if want_y is not None:
            assert y.grad.dtype == dtype
            np.testing.assert_allclose(y.grad.numpy(), np.broadcast_to(want_y, (2, 2)), rtol=1e-3)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_number_too_large_for_the_dtype_keeps_the_gradient_in_the_leafs_dtype(dtype):
    """x * 1e5 with float16 x: NumPy 2 keeps float16 (an inf), NumPy 1 promotes to float32; either
    way x.grad has x's dtype (the engine casts when the output's dtype differs)."""
    x = tg.tensor(np.array([0.5, 2.0], dtype), requires_grad=True)
    with np.errstate(over="ignore"):
        (x * 1e5).sum().backward()
    assert x.grad.dtype == dtype and x.grad.shape == (2,)


def _hooked_program(lib, fired):
    """A branching program with a hook on each intermediate result (shared with PyTorch)."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x.sin()
    c = a + b
    d = c * a
    e = (d + b).exp()
    for name, t in zip("abcde", (a, b, c, d, e)):
        t.register_hook(lambda g, name=name: fired.append(name))
    e.sum().backward()
    return x.grad


def test_nodes_run_latest_recorded_first():
    """The engine runs the nodes gradients reach in reverse recording order: hooks on intermediate
    results fire in that order, and a gradient waits for every consumer (b feeds c and e)."""
    fired: list = []
    grad = _hooked_program(tg, fired)
    assert fired == ["e", "d", "c", "b", "a"]
    x = np.array([1.0, 2.0])
    a, b = 2 * x, np.sin(x)
    e = np.exp((a + b) * a + b)
    want = e * ((2 + np.cos(x)) * a + (a + b) * 2 + np.cos(x))
    np.testing.assert_allclose(grad.numpy(), want, rtol=1e-5)  # (float32)


def test_nodes_run_in_pytorchs_order():
    """PyTorch orders its ready queue by sequence number too: the same hooks fire in its order."""
    torch = pytest.importorskip("torch", reason="PyTorch's order (optional)")
    ours: list = []
    theirs: list = []
    grad = _hooked_program(tg, ours)
    expected = _hooked_program(torch, theirs)
    assert ours == theirs
    np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=1e-6)
