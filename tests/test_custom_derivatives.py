"""tg.custom_vjp and tg.custom_jvp with JAX's semantics: the function as it is when nothing
differentiates it, its rule when something does (reverse mode, higher order, under vmap), and
nondiff_argnums, residuals, pytrees and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.func as tf

RNG = np.random.default_rng(0)
XN, YN = RNG.uniform(-1.5, 1.5, 3), RNG.uniform(-1.5, 1.5, 3)
BATCH = RNG.uniform(-1.5, 1.5, (4, 3))


def t(a):
    return tg.tensor(np.asarray(a, np.float64))


def close(a, b) -> None:
    np.testing.assert_allclose(
        np.asarray(getattr(a, "numpy", lambda: a)()), np.asarray(b), 1e-10, 1e-12
    )


# ---- custom_vjp ---------------------------------------------------------------------------------
@tg.custom_vjp
def sin_times(x, y):
    return x.sin() * y


def _sin_times_fwd(x, y):
    return sin_times(x, y), (x.cos(), x.sin(), y)


def _sin_times_bwd(res, g):
    cos, sin, y = res
    return cos * y * g, sin * g


sin_times.defvjp(_sin_times_fwd, _sin_times_bwd)


def plain(x, y):
    return x.sin() * y


def test_custom_vjp_value_and_gradients_use_the_rule():
    x, y = t(XN), t(YN)
    close(sin_times(x, y), np.sin(XN) * YN)
    gx, gy = tg.grad(lambda a, b: sin_times(a, b).sum(), grad_position=(0, 1))(x, y)
    close(gx, np.cos(XN) * YN)
    close(gy, np.sin(XN))
    loss = sin_times(t(XN).requires_grad_(), y).sum()
    assert loss.grad_fn is not None


def test_custom_vjp_rule_is_what_runs():
    @tg.custom_vjp
    def clip_gradient(x):
        return x

    clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (g.clip(-1.0, 1.0),))
    g = tg.grad(lambda x: (clip_gradient(x) * 5.0).sum())(t([1.0, 2.0]))
    close(g, [1.0, 1.0])  # (the true derivative is 5: the rule clipped it)


def test_custom_vjp_second_order_differentiates_the_backward():
    y = t(YN)
    close(tf.hessian(lambda a: sin_times(a, y).sum())(t(XN)), np.diag(-np.sin(XN) * YN))
    gg = tg.grad(lambda a: tg.grad(lambda b: sin_times(b, y).sum())(a).sum())(t(XN))
    close(gg, -np.sin(XN) * YN)


def test_custom_vjp_nondiff_argnums_and_pytrees():
    @tg.custom_vjp
    def scaled(k, pair):
        return pair[0] * k + pair[1]

    def fwd(k, pair):
        return scaled(k, pair), None

    def bwd(k, _, g):
        return ((g * k * 10.0, g),)  # (the rule: 10x the true derivative for pair[0])

    scaled = tg.custom_vjp(scaled.fun, nondiff_argnums=(0,))
    scaled.defvjp(fwd, bwd)
    ga, gb = tg.grad(lambda p: scaled(2.0, p).sum())((t(XN), t(YN)))
    close(ga, np.full(3, 20.0))
    close(gb, np.ones(3))


def test_custom_vjp_several_outputs():
    @tg.custom_vjp
    def both(x):
        return x * 2.0, x * x

    both.defvjp(lambda x: (both(x), x), lambda x, g: (g[0] * 2.0 + g[1] * 2.0 * x,))
    g = tg.grad(lambda x: (both(x)[0] + both(x)[1]).sum())(t(XN))
    close(g, 2.0 + 2.0 * XN)


def test_custom_vjp_under_vmap_all_compositions():
    y, xs = t(YN), t(BATCH)
    close(tf.vmap(sin_times, in_dims=(0, None))(xs, y), np.sin(BATCH) * YN)
    per_example = tf.vmap(tf.grad(lambda a: sin_times(a, y).sum()))(xs)
    close(per_example, np.cos(BATCH) * YN)
    through = tf.grad(lambda a: tf.vmap(sin_times, in_dims=(0, None))(a, y).sum())(xs)
    close(through, np.cos(BATCH) * YN)
    shared = tf.grad(lambda b: tf.vmap(sin_times, in_dims=(0, None))(xs, b).sum())(y)
    close(shared, np.sin(BATCH).sum(0))  # (the batch's cotangents summed for the shared y)
    hess = tf.vmap(tf.hessian(lambda a: sin_times(a, y).sum()))(xs)
    close(hess, np.stack([np.diag(-np.sin(r) * YN) for r in BATCH]))


def test_custom_vjp_errors():
    @tg.custom_vjp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="defvjp"):
        f(t(XN))
    f.defvjp(lambda x: x, lambda r, g: (g,))
    with pytest.raises(TypeError, match="pair"):
        tg.grad(lambda x: f(x).sum())(t(XN))
    f.defvjp(lambda x: (x, None), lambda r, g: g)
    with pytest.raises(TypeError, match="one cotangent per"):
        tg.grad(lambda x: f(x).sum())(t(XN))


# ---- custom_jvp ---------------------------------------------------------------------------------
@tg.custom_jvp
def log1pexp(x):
    return (1.0 + x.exp()).log()


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return log1pexp(x), (1.0 - 1.0 / (1.0 + x.exp())) * x_dot


def test_custom_jvp_the_cookbooks_stable_log1pexp():
    x = t([0.0, 2.0, 1000.0])
    with np.errstate(over="ignore", invalid="ignore"):  # (exp(1000) overflows in both)
        naive = tg.grad(lambda v: (1.0 + v.exp()).log().sum())(x).numpy()
        stable = tg.grad(lambda v: log1pexp(v).sum())(x)
    assert np.isnan(naive[2])  # (inf / inf: why the rule exists)
    close(stable, [0.5, 1 / (1 + np.exp(-2.0)), 1.0])


def test_custom_jvp_forward_reverse_and_higher_order():
    x = t(XN)
    sig = 1 / (1 + np.exp(-XN))
    out, jv = tf.jvp(log1pexp, (x,), (t(YN),))
    close(out, np.log1p(np.exp(XN)))
    close(jv, sig * YN)
    close(tf.hessian(lambda v: log1pexp(v).sum())(x), np.diag(sig * (1 - sig)))
    close(tf.jacfwd(log1pexp)(x), np.diag(sig))


def test_custom_jvp_under_vmap():
    xs = t(BATCH)
    sig = 1 / (1 + np.exp(-BATCH))
    close(tf.vmap(log1pexp)(xs), np.log1p(np.exp(BATCH)))
    close(tf.vmap(tf.grad(lambda v: log1pexp(v).sum()))(xs), sig)
    close(tf.grad(lambda v: tf.vmap(log1pexp)(v).sum())(xs), sig)


def test_custom_jvp_defjvps_and_nondiff_argnums():
    f = tg.custom_jvp(lambda x, y: x * y)
    f.defjvps(lambda x_dot, out, x, y: x_dot * y * 3.0, lambda y_dot, out, x, y: y_dot * x)
    gx, gy = tg.grad(lambda a, b: f(a, b).sum(), grad_position=(0, 1))(t(XN), t(YN))
    close(gx, 3.0 * YN)
    close(gy, XN)
    power = tg.custom_jvp(lambda n, x: x**n, nondiff_argnums=(0,))
    power.defjvp(
        lambda n, primals, tangents: (primals[0] ** n, n * primals[0] ** (n - 1) * tangents[0])
    )
    close(tg.grad(lambda x: power(3, x).sum())(t(XN)), 3 * XN**2)


def test_custom_jvp_without_a_rule():
    with pytest.raises(AttributeError, match="defjvp"):
        tg.custom_jvp(lambda x: x)(t(XN))
