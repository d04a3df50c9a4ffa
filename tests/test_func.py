"""tapegrad.func: torch.func's names, signatures and result structures (grad, grad_and_value, vjp,
jvp, jacrev, jacfwd, hessian, functional_call, stack_module_state), checked against closed forms
and loops, and against torch.func itself in float64 where torch is installed."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.func as tf

RNG = np.random.default_rng(0)
XN, YN = RNG.standard_normal(3), RNG.standard_normal(3)


def t(a):
    return tg.tensor(np.asarray(a, np.float64))


def same(a, b) -> None:
    """Equal values in the same structure (b may be torch's result)."""
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (type(a), type(b))
        for u, v in zip(a, b):
            same(u, v)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b)
        for k in b:
            same(a[k], b[k])
    else:
        want = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
        assert tuple(a.shape) == tuple(want.shape)
        np.testing.assert_allclose(a.numpy(), want, rtol=1e-10, atol=1e-12)


# the same programs for both libraries: `lib` is tapegrad or torch, `sin`/`exp` its functions
PROGRAMS = {
    "grad": lambda F, L: F.grad(lambda a, b: (a.sin() * b).sum())(L[0], L[1]),
    "grad-argnums": lambda F, L: F.grad(lambda a, b: (a.sin() * b).sum(), argnums=(0, 1))(
        L[0], L[1]
    ),
    "grad-negative": lambda F, L: F.grad(lambda a, b: (a.sin() * b).sum(), argnums=-1)(L[0], L[1]),
    "grad-dict": lambda F, L: F.grad(lambda d: (d["a"] * d["b"].exp()).sum())(
        {"a": L[0], "b": L[1]}
    ),
    "grad-aux": lambda F, L: F.grad(lambda a: (a.sin().sum(), {"k": a * 2}), has_aux=True)(L[0]),
    "grad_and_value": lambda F, L: F.grad_and_value(lambda a: (a**3).sum())(L[0]),
    "grad_and_value-aux": lambda F, L: F.grad_and_value(
        lambda a: ((a**3).sum(), a.cos()), has_aux=True
    )(L[0]),
    "grad-of-grad": lambda F, L: F.grad(lambda a: F.grad(lambda b: (b**4).sum())(a).sum())(L[0]),
    "vjp": lambda F, L: F.vjp(lambda a, b: (a * b, (a + b).sin()), L[0], L[1])[1]((L[1], L[0])),
    "vjp-out": lambda F, L: F.vjp(lambda a: a.exp(), L[0])[0],
    "jvp": lambda F, L: F.jvp(lambda a, b: (a * b, (a + b).sin()), (L[0], L[1]), (L[1], L[0])),
    "jvp-aux": lambda F, L: F.jvp(lambda a: (a.sin(), a * 2), (L[0],), (L[1],), has_aux=True),
    "jacrev": lambda F, L: F.jacrev(lambda a, b: (a.sin() * b, a.sum() * b))(L[0], L[1]),
    "jacrev-argnums": lambda F, L: F.jacrev(lambda a, b: a.sin() * b, argnums=(0, 1))(L[0], L[1]),
    "jacrev-aux": lambda F, L: F.jacrev(lambda a: (a.sin(), a.cos()), has_aux=True)(L[0]),
    "jacrev-dict": lambda F, L: F.jacrev(lambda d: {"s": d["a"].sin() * d["b"]})(
        {"a": L[0], "b": L[1]}
    ),
    "jacfwd": lambda F, L: F.jacfwd(lambda a, b: (a.sin() * b, a.sum() * b), argnums=(0, 1))(
        L[0], L[1]
    ),
    "jacfwd-aux": lambda F, L: F.jacfwd(lambda a: (a.sin(), a.cos()), has_aux=True)(L[0]),
    "hessian": lambda F, L: F.hessian(lambda a, b: (a**3 * b.sin()).sum())(L[0], L[1]),
    "hessian-argnums": lambda F, L: F.hessian(lambda a, b: (a**3 * b.sin()).sum(), (0, 1))(
        L[0], L[1]
    ),
    "vmap-jacrev": lambda F, L: F.vmap(F.jacrev(lambda a: a.sin() * a.sum()))(L[2]),
    "vmap-hessian": lambda F, L: F.vmap(F.hessian(lambda a: (a.sin() * a.sum()).sum()))(L[2]),
    "vmap-jacfwd": lambda F, L: F.vmap(F.jacfwd(lambda a: a.sin() * a.sum()))(L[2]),
    "jacrev-of-vmap": lambda F, L: F.jacrev(lambda a: F.vmap(lambda r: r.sin() * r.sum())(a))(L[2]),
}
MATRIX = RNG.standard_normal((4, 3))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_values_and_structure_as_torch_func(name):
    torch = pytest.importorskip("torch")
    ours = PROGRAMS[name](tf, [t(XN), t(YN), t(MATRIX)])
    theirs = PROGRAMS[name](torch.func, [torch.tensor(v) for v in (XN, YN, MATRIX)])
    if name in ("jvp", "jvp-aux"):  # (functions of vjp aside, every result is data)
        same(tuple(ours), tuple(theirs))
    else:
        same(ours, theirs)


def test_closed_forms_without_torch():
    x = t(XN)
    np.testing.assert_allclose(tf.grad(lambda a: (a**3).sum())(x).numpy(), 3 * XN**2)
    np.testing.assert_allclose(tf.jacrev(tg.sin)(x).numpy(), np.diag(np.cos(XN)))
    np.testing.assert_allclose(tf.jacfwd(tg.sin)(x).numpy(), np.diag(np.cos(XN)))
    np.testing.assert_allclose(tf.hessian(lambda a: (a**3).sum())(x).numpy(), np.diag(6 * XN))
    out, jv = tf.jvp(tg.exp, (x,), (t(YN),))
    np.testing.assert_allclose(jv.numpy(), np.exp(XN) * YN)


def test_signatures_match_torch_func():
    torch = pytest.importorskip("torch")
    for name in ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"):
        ours = [
            (p.name, p.kind, p.default)
            for p in inspect.signature(getattr(tf, name)).parameters.values()
        ]
        theirs = [
            (p.name, p.kind, p.default)
            for p in inspect.signature(getattr(torch.func, name)).parameters.values()
        ]
        assert ours == theirs, name
    for name in ("functional_call", "stack_module_state"):
        ours = [p.name for p in inspect.signature(getattr(tf, name)).parameters.values()]
        theirs = [p.name for p in inspect.signature(getattr(torch.func, name)).parameters.values()]
        assert ours == theirs, name


GRAD_ERRORS = [
    ("vector-output", lambda: tf.grad(lambda a: a * 2)(t(XN)), RuntimeError, "scalar"),
    ("tuple-output", lambda: tf.grad(lambda a: (a.sum(),))(t(XN)), RuntimeError, "tuple"),
    ("float-input", lambda: tf.grad(lambda a: a * 2)(2.0), ValueError, "float"),
    ("aux-not-pair", lambda: tf.grad(lambda a: a.sum(), has_aux=True)(t(XN)), RuntimeError, "aux"),
    ("argnums-list", lambda: tf.grad(lambda a: a.sum(), argnums=[0]), RuntimeError, "argnums"),
    ("argnums-range", lambda: tf.grad(lambda a: a.sum(), argnums=2)(t(XN)), RuntimeError, "2"),
    ("int-input", lambda: tf.grad(lambda a: a.sum())(tg.tensor([1, 2])), TypeError, "float"),
    ("jvp-not-tuple", lambda: tf.jvp(tg.sin, t(XN), t(YN)), RuntimeError, "tuple"),
    ("jvp-shape", lambda: tf.jvp(tg.sin, (t(XN),), (t(YN[:2]),)), RuntimeError, "shape"),
    ("cotangent-tree", lambda: tf.vjp(lambda a: (a, a), t(XN))[1](t(XN)), RuntimeError, "struct"),
    ("cotangent-shape", lambda: tf.vjp(tg.sin, t(XN))[1](t(YN[:2])), RuntimeError, "shape"),
]


@pytest.mark.parametrize(
    "make,exc,pattern", [e[1:] for e in GRAD_ERRORS], ids=[e[0] for e in GRAD_ERRORS]
)
def test_errors(make, exc, pattern):
    with pytest.raises(exc, match=pattern):
        make()


def test_outputs_are_off_the_tape_unless_nested():
    x = t(XN)
    assert tf.grad(lambda a: (a**2).sum())(x).grad_fn is None
    g, v = tf.grad_and_value(lambda a: (a**2).sum())(x)
    assert v.grad_fn is None and not g.requires_grad


# ---- functional_call and stack_module_state -----------------------------------------------------
def test_functional_call_swaps_for_the_call_only():
    lin = tg.nn.Linear(3, 2).double()
    w, b = t(RNG.standard_normal((2, 3))), t(RNG.standard_normal(2))
    x = t(XN)
    out = tf.functional_call(lin, {"weight": w, "bias": b}, (x,))
    np.testing.assert_allclose(out.numpy(), w.numpy() @ XN + b.numpy())
    assert isinstance(lin.weight, tg.nn.Parameter) and lin.weight is not w
    parts = tf.functional_call(lin, ({"weight": w}, {"bias": b}), x)  # (a tuple of dicts)
    np.testing.assert_allclose(parts.numpy(), out.numpy())
    kw = tf.functional_call(lambda_module(), {}, (), {"x": x})
    np.testing.assert_allclose(kw.numpy(), XN * 2)


def lambda_module():
    class Twice(tg.nn.Module):
        def forward(self, x):
            return x * 2

    return Twice()


def test_functional_call_gradients_flow_to_the_given_tensors():
    lin = tg.nn.Linear(3, 2).double()
    params = {k: v.detach() for k, v in lin.named_parameters()}
    g = tf.grad(lambda p: tf.functional_call(lin, p, (t(XN),)).sum())(params)
    np.testing.assert_allclose(g["weight"].numpy(), np.broadcast_to(XN, (2, 3)))
    np.testing.assert_allclose(g["bias"].numpy(), np.ones(2))


def test_functional_call_strict_and_ties_and_buffers():
    lin = tg.nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="Missing key.*'bias'"):
        tf.functional_call(lin, {"weight": tg.zeros(2, 3)}, (tg.ones(3),), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key.*'foo'"):
        tf.functional_call(
            lin, {**dict(lin.named_parameters()), "foo": tg.zeros(1)}, (tg.ones(3),), strict=True
        )
    with pytest.raises(ValueError, match="more than one"):
        tf.functional_call(
            lin, ({"weight": tg.zeros(2, 3)}, {"weight": tg.ones(2, 3)}), (tg.ones(3),)
        )

    class Tied(tg.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = tg.nn.Linear(2, 2, bias=False)
            self.b = tg.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    tied, x = Tied(), tg.ones(2)
    np.testing.assert_allclose(
        tf.functional_call(tied, {"a.weight": tg.eye(2)}, (x,)).numpy(), [1.0, 1.0]
    )
    untied = tf.functional_call(tied, {"a.weight": tg.eye(2)}, (x,), tie_weights=False)
    np.testing.assert_allclose(untied.numpy(), (tied.a.weight @ x).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="tied"):
        tf.functional_call(tied, {"a.weight": tg.eye(2), "b.weight": tg.eye(2)}, (x,))
    bn = tg.nn.BatchNorm1d(3).eval()
    out = tf.functional_call(bn, {"running_mean": tg.ones(3)}, (tg.ones(2, 3),))
    np.testing.assert_allclose(out.numpy(), np.zeros((2, 3)), atol=1e-6)
    np.testing.assert_allclose(bn.running_mean.numpy(), np.zeros(3))


def test_stack_module_state():
    models = [tg.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = tf.stack_module_state(models)
    assert list(params) == ["weight", "bias"] and buffers == {}
    assert params["weight"].shape == (4, 2, 3) and params["weight"].requires_grad
    assert params["weight"].is_leaf
    np.testing.assert_allclose(params["bias"].numpy()[2], models[2].bias.numpy())
    _, bn_buffers = tf.stack_module_state([tg.nn.BatchNorm1d(3) for _ in range(2)])
    assert bn_buffers["running_mean"].shape == (2, 3)
    with pytest.raises(RuntimeError, match="at least one"):
        tf.stack_module_state([])
    with pytest.raises(RuntimeError, match="same class"):
        tf.stack_module_state([tg.nn.Linear(3, 2), tg.nn.Tanh()])
    with pytest.raises(RuntimeError, match="training/eval"):
        tf.stack_module_state([tg.nn.Linear(3, 2), tg.nn.Linear(3, 2).eval()])


@pytest.mark.parametrize(
    "module",
    [
        "tapegrad.func",
        "tapegrad.func.vmap",
        "tapegrad.func.transforms",
        "tapegrad.func.module_state",
        "tapegrad.func.custom",
        "tapegrad.func.pytree",
        "tapegrad.utils.checkpoint",
        "tapegrad.tensor.batched",
    ],
)
def test_docstring_examples_run(module):
    import doctest
    import importlib
    import sys

    found = importlib.import_module(module)
    result = doctest.testmod(
        found,
        extraglobs={"tg": tg, "tapegrad": sys.modules["tapegrad"]},
        optionflags=doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted and not result.failed
