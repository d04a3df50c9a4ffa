"""Every primitive's batching rule, driven by the rule table's own test cases (test_ops.CASES, one
or more per primitive): vmap(f) over a batch equals f applied to each example and stacked, for the
values and the per-example gradients, with in_axes/out_axes variants, nested twice, and with the
gradient taken outside vmap. A primitive with no case, or whose case does not run its batching
rule, fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.func
from tapegrad.primitives import REGISTRY
from test_ops import CASES, NO_DERIVATIVE

B, C = 3, 2  # examples in the batch; batches of batches when nested


def example(a, b: int, c: int = 0) -> np.ndarray:
    """Example (b, c) of a case's input: scaled by a factor a little above 1 (keeps signs, order
    and distances from kinks as the case chose them)."""
    return np.asarray(a, np.float64) * (1 + 0.07 * b + 0.05 * c)


def batch(case) -> list:
    return [tg.tensor(np.stack([example(a, b) for b in range(B)])) for a in case.arrays]


def one(case, b: int, c: int = 0) -> list:
    return [tg.tensor(example(a, b, c)) for a in case.arrays]


def positions(case) -> tuple:
    return tuple(i for i in range(len(case.arrays)) if i not in case.const)


def weighted(case, w):
    return lambda *xs: (case.fn(*xs) * w).sum()


def assert_close(got, want) -> None:
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-9, atol=1e-12)


@pytest.fixture
def rules_run(monkeypatch):
    """The names of the primitives whose batching rule ran."""
    ran: set = set()
    for name, prim in REGISTRY.items():
        rule = prim.batch

        def recording(level, p, inputs, batched, params, _rule=rule, _name=name):
            ran.add(_name)
            return _rule(level, p, inputs, batched, params)

        recording.reads_batched_params = getattr(rule, "reads_batched_params", False)
        monkeypatch.setattr(prim, "batch", recording)
    return ran


def _cases():
    for name in sorted(CASES):
        for case in CASES[name]:
            yield pytest.param(name, case, id=f"{name}-{case.id}")


def test_every_primitive_has_a_batching_rule_and_a_case():
    assert not [n for n, p in REGISTRY.items() if p.batch is None]
    assert set(CASES) | NO_DERIVATIVE == set(REGISTRY)


@pytest.mark.parametrize("name,case", list(_cases()))
def test_vmap_equals_stacking_each_example(name, case, rules_run):
    out = tg.func.vmap(case.fn)(*batch(case))
    assert name in rules_run, f"{case.id} does not run {name}'s batching rule under vmap"
    assert isinstance(out, tg.Tensor) and type(out) is tg.Tensor  # (no batched tensor escapes)
    assert_close(out, np.stack([case.fn(*one(case, b)).numpy() for b in range(B)]))


@pytest.mark.parametrize("name,case", list(_cases()))
def test_per_example_gradients_equal_each_examples_gradient(name, case):
    pos = positions(case)
    w = np.random.default_rng(0).standard_normal(case.fn(*one(case, 0)).shape)
    f = weighted(case, w)
    got = tg.func.vmap(tg.grad(f, grad_position=pos))(*batch(case))
    want = [tg.grad(f, grad_position=pos)(*one(case, b)) for b in range(B)]
    for k in range(len(pos)):
        assert_close(got[k], np.stack([w_[k].numpy() for w_ in want]))


@pytest.mark.parametrize("name,case", list(_cases()))
def test_batch_along_the_last_axis_of_one_input_the_others_shared(name, case):
    n = len(case.arrays)
    first = np.stack([example(case.arrays[0], b) for b in range(B)], axis=-1)
    shared = [tg.tensor(np.asarray(a, np.float64)) for a in case.arrays[1:]]
    out = tg.vmap(case.fn, in_axes=(-1,) + (None,) * (n - 1), out_axes=-1)(
        tg.tensor(first), *shared
    )
    want = [case.fn(tg.tensor(example(case.arrays[0], b)), *shared).numpy() for b in range(B)]
    assert_close(out, np.stack(want, axis=-1))


@pytest.mark.parametrize("name,case", list(_cases()))
def test_nested_twice_with_gradients(name, case):
    pos = positions(case)
    inputs = [
        tg.tensor(np.stack([np.stack([example(a, b, c) for b in range(B)]) for c in range(C)]))
        for a in case.arrays
    ]
    out = tg.vmap(tg.vmap(case.fn))(*inputs)
    want = [[case.fn(*one(case, b, c)).numpy() for b in range(B)] for c in range(C)]
    assert_close(out, np.array(want))
    w = np.random.default_rng(1).standard_normal(out.shape[2:])
    grads = tg.vmap(tg.vmap(tg.grad(weighted(case, w), grad_position=pos)))(*inputs)
    for k in range(len(pos)):
        each = [
            [tg.grad(weighted(case, w), grad_position=pos)(*one(case, b, c))[k] for b in range(B)]
            for c in range(C)
        ]
        assert_close(grads[k], np.array([[g.numpy() for g in row] for row in each]))


@pytest.mark.parametrize("name,case", list(_cases()))
def test_gradient_taken_outside_vmap(name, case):
    pos = positions(case)
    w = np.random.default_rng(2).standard_normal(case.fn(*one(case, 0)).shape)
    outer = tg.grad(lambda *xs: (tg.vmap(case.fn)(*xs) * w).sum(), grad_position=pos)(*batch(case))
    for k in range(len(pos)):
        each = [tg.grad(weighted(case, w), grad_position=pos)(*one(case, b))[k] for b in range(B)]
        assert_close(outer[k], np.stack([g.numpy() for g in each]))
