"""Property tests: in-place updates, views, custom Functions and empty tensors in random programs.

The programs come from property/inplace_programs.py (see there for what they contain). Checked in
float64: every value (in its final state, after all in-place updates) against NumPy; the loss's
gradients against central differences of the NumPy program, and backward() against grad(); second
order (a random function of the first-order gradients, differentiated with create_graph=True)
against differences of tapegrad's first-order gradients; and, when PyTorch is installed, the same
program on PyTorch: the same outcome, values, requires_grad flags and gradients. A program that
writes into memory a recorded op saved may raise the in-place error (then it must raise it or be
right); any other program must run.
"""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapegrad as tg
from helpers import finite_differences
from property.inplace_programs import KINDS, programs
from property.test_expressions import assert_close, budget


def _grads(ns, prog, create_graph=False):
    leaves = [ns[n] for n, _ in prog.leaves]
    return leaves, ns["tg"].autograd.grad(
        ns["loss"], leaves, allow_unused=True, create_graph=create_graph
    )


def _arrays(grads, prog):
    return [
        np.zeros(v.shape)
        if g is None
        else np.asarray(g.detach().numpy() if hasattr(g, "detach") else g.numpy())
        for g, (_, v) in zip(grads, prog.leaves)
    ]


def run_or_refuse(prog, lib=tg):
    """(namespace, leaf gradients) of a run; None when the program may raise the in-place error and
    did (the only error allowed: a write into memory a recorded op saved)."""
    try:
        ns = prog.run(lib)
        return ns, _grads(ns, prog)[1]
    except RuntimeError as e:
        if prog.may_raise and "in-place" in str(e).replace("inplace", "in-place"):
            return None
        raise


def check_program(prog):
    """Values vs NumPy, gradients vs finite differences, backward() vs grad()."""
    outcome = run_or_refuse(prog)
    if outcome is None:
        return None
    ns, grads = outcome
    ref_loss, ref_values = prog.numpy()(*[v for _, v in prog.leaves])
    for name in prog.values:
        t = ns[name]
        assert t.dtype == np.float64, f"{name}: dtype {t.dtype}"
        assert_close(t.numpy(), ref_values[name], f"value of {name}", 1e-10, 1e-10)
    assert_close(ns["loss"].numpy(), ref_loss, "loss", 1e-10, 1e-10)
    f = prog.numpy()
    fd = finite_differences(lambda xs: f(*xs)[0], [v for _, v in prog.leaves])
    got = _arrays(grads, prog)
    for (name, _), g, d in zip(prog.leaves, got, fd):
        assert_close(g, d, f"d loss / d {name} (vs finite differences)", 1e-6, 1e-7)
    ns2 = prog.run(tg)
    ns2["loss"].backward()
    for (name, _), g in zip(prog.leaves, got):
        b = ns2[name].grad
        assert_close(np.zeros(g.shape) if b is None else b.numpy(), g, f"{name}.grad", 1e-12, 1e-12)
    return ns, got


@settings(max_examples=budget(150), report_multiple_bugs=False)
@given(prog=programs())
def test_programs_values_and_gradients(prog):
    check_program(prog)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=budget(12), report_multiple_bugs=False)
@given(data=st.data())
def test_each_kind_leads_some_programs(kind, data):
    prog = data.draw(programs(kinds=(kind,), max_stmts=3), label="program")
    check_program(prog)


def _second_order_value(prog, leaf_values, weights):
    ns = prog.run(tg, leaf_values)
    gs = _arrays(_grads(ns, prog)[1], prog)
    return sum(float(np.sum(r * g + q * g * g)) for g, (r, q) in zip(gs, weights))


@settings(max_examples=budget(40), report_multiple_bugs=False)
@given(prog=programs(max_stmts=5), data=st.data())
def test_programs_second_order(prog, data):
    """S = sum(R * g + Q * g^2) of the first-order gradients g, differentiated on the tape
    (create_graph=True) and by finite differences of tapegrad's first-order gradients."""
    if run_or_refuse(prog) is None:
        return
    weights = [
        tuple(
            np.asarray(data.draw(hnp.arrays(np.int64, v.shape, elements=st.integers(-4, 4)))) / 4.0
            for _ in "RQ"
        )
        for _, v in prog.leaves
    ]
    ns = prog.run(tg)
    leaves, gs = _grads(ns, prog, create_graph=True)
    s = None
    for g, (r, q) in zip(gs, weights):
        if g is not None and g.requires_grad:
            term = (g * tg.tensor(r)).sum() + (g * g * tg.tensor(q)).sum()
            s = term if s is None else s + term
    hs = (
        _arrays(tg.autograd.grad(s, leaves, allow_unused=True), prog)
        if s is not None
        else [np.zeros(v.shape) for _, v in prog.leaves]
    )
    fd = finite_differences(
        lambda xs: _second_order_value(prog, xs, weights), [v for _, v in prog.leaves], eps=1e-5
    )
    for (name, _), h, d in zip(prog.leaves, hs, fd):
        assert_close(h, d, f"d S / d {name} (second order vs finite differences)", 1e-4, 1e-5)


@settings(max_examples=budget(60), report_multiple_bugs=False)
@given(prog=programs())
def test_programs_match_pytorch(prog):
    """The same program on PyTorch: the same outcome (PyTorch raising only where the program may
    raise), then the same values, requires_grad flags and gradients."""
    torch = pytest.importorskip("torch", reason="compares with PyTorch when it is installed")
    ours = check_program(prog)
    try:
        ns_t = prog.run(torch)
        grads_t = _arrays(_grads(ns_t, prog)[1], prog)
    except RuntimeError as e:
        assert prog.may_raise, f"PyTorch raises on a program that writes no saved memory: {e}"
        return  # (tapegrad raised too, or was checked right by finite differences above)
    assert ours is not None, "tapegrad raised an in-place error where PyTorch computes"
    ns, grads = ours
    for name in prog.values:
        t, u = ns[name], ns_t[name]
        assert_close(t.numpy(), u.detach().numpy(), f"{name} vs PyTorch", 1e-12, 1e-12)
        assert t.requires_grad == u.requires_grad, f"{name}.requires_grad differs from PyTorch"
    for (name, _), g, h in zip(prog.leaves, grads, grads_t):
        assert_close(g, h, f"d loss / d {name} vs PyTorch", 1e-10, 1e-10)
