"""Raw backwards (no create_graph) run each plan's rules with every primitive they call bound to
its NumPy forward: the same gradients as the rules run on Tensors (for every primitive, driven by
test_ops.CASES), no Primitive.__call__ on the way, the formula still the running text, and
create_graph still recording (second order)."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.primitives import REGISTRY
from tapegrad.primitives.registry import Primitive
from test_ops import CASES


def _cases():
    for name in sorted(CASES):
        for case in CASES[name]:
            yield pytest.param(case, id=f"{name}-{case.id}")


@pytest.mark.parametrize("case", list(_cases()))
def test_raw_rules_give_the_gradients_the_recorded_rules_give(case):
    """The same rule texts run twice, on arrays (raw) and on Tensors (create_graph=True)."""
    inputs = case.tensors()
    wanted = [t for t in inputs if t.requires_grad]
    out = case.fn(*inputs)
    weights = tg.tensor(np.random.default_rng(3).uniform(0.5, 1.5, out.shape))
    raw = tg.autograd.grad(out, wanted, weights, retain_graph=True, allow_unused=True)
    recorded = tg.autograd.grad(out, wanted, weights, create_graph=True, allow_unused=True)
    assert len(raw) == len(recorded) == len(wanted)
    for r, t, x in zip(raw, recorded, wanted):
        assert (r is None) == (t is None)
        if r is None:
            continue
        assert not r.requires_grad and r.shape == t.shape == x.shape and r.dtype == t.dtype
        np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-12, atol=1e-15)


@pytest.fixture
def primitive_calls(monkeypatch):
    """How many times Primitive.__call__ ran (a list, counted while it is on)."""
    calls: list = []
    original = Primitive.__call__

    def counting(self, *args, **params):
        calls.append(self.name)
        return original(self, *args, **params)

    monkeypatch.setattr(Primitive, "__call__", counting)
    return calls


def _program(x, b):
    """sin (its rule calls cos), tanh (its kernel calls tanh_backward), a broadcast add summed
    back with keepdims and reshaped (fit). (No reduction: their rules call helpers, expand_to,
    which call primitives as any function does.)"""
    return x.sin().tanh() * 2.0 + b


SEED = np.linspace(0.5, 1.5, 24).reshape(2, 3, 4)


def test_a_raw_backward_calls_no_primitive_through_its_call(primitive_calls):
    x = tg.tensor(np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4), requires_grad=True)
    b = tg.tensor(np.array([[0.5], [1.5], [-1.0]]), requires_grad=True)  # (3, 1): summed, reshaped
    y = _program(x, b)
    del primitive_calls[:]
    y.backward(tg.tensor(SEED))
    assert primitive_calls == []
    t = np.tanh(np.sin(x.numpy()))
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (1 - t**2) * np.cos(x.numpy()) * SEED)
    np.testing.assert_allclose(b.grad.numpy(), SEED.sum(axis=(0, 2)).reshape(3, 1))


def test_create_graph_still_records_through_the_rules(primitive_calls):
    x = tg.tensor(np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4), requires_grad=True)
    b = tg.tensor(np.array([[0.5], [1.5], [-1.0]]), requires_grad=True)
    y = _program(x, b)
    del primitive_calls[:]
    gx, gb = tg.autograd.grad(y, (x, b), tg.tensor(SEED), create_graph=True)
    assert {"cos", "tanh_backward", "sum", "reshape"} <= set(primitive_calls)
    assert gx.requires_grad and not gb.requires_grad  # (b's gradient is the constant seed's)
    assert tg.autograd.gradgradcheck(_program, (x, b))


@pytest.mark.parametrize("name", ["sin", "tanh", "sigmoid", "pow", "div", "matmul", "linear"])
def test_rules_calling_primitives_are_second_order_correct(name):
    rng = np.random.default_rng(7)
    x = tg.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True)
    y = tg.tensor(rng.uniform(0.5, 1.5, (4, 4)), requires_grad=True)
    b = tg.tensor(rng.uniform(0.5, 1.5, 4), requires_grad=True)
    fns = {
        "sin": lambda x, y, b: x.sin() * b,
        "tanh": lambda x, y, b: x.tanh() + b,
        "sigmoid": lambda x, y, b: x.sigmoid() * b,
        "pow": lambda x, y, b: x**b,
        "div": lambda x, y, b: x / b,
        "matmul": lambda x, y, b: x @ y + b,
        "linear": lambda x, y, b: tg.nn.functional.linear(x, y, b),
    }
    assert tg.autograd.gradcheck(fns[name], (x, y, b))
    assert tg.autograd.gradgradcheck(fns[name], (x, y, b))


def test_the_raw_rules_are_the_same_code_with_forwards_bound():
    """sin's rule names cos: the recorded function calls the primitive, the raw one its forward
    (closure variables of the same code); the formula still shows the text."""
    plan = REGISTRY["sin"].plan(1, 1)
    assert plan.backward.__code__ is plan.raw_backward.__code__
    cells = {c.cell_contents for c in plan.raw_backward.__closure__}
    assert REGISTRY["cos"].forward in cells and REGISTRY["cos"] not in cells
    assert REGISTRY["cos"] in {c.cell_contents for c in plan.backward.__closure__}
    assert "dL/dx = g * cos(x)" in tg.autograd.formula("sin")
    x = np.linspace(-2.0, 2.0, 5)
    g = np.ones(5)
    (got,) = plan.raw_backward(g, np.sin(x), (x,), {})
    np.testing.assert_array_equal(got, np.cos(x))
