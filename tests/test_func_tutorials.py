"""The idioms of PyTorch's "Per-sample-gradients", "Jacobians, Hessians, hvp, vhp, and more" and
"Model ensembling" tutorials and of JAX's autodiff cookbook, written with tapegrad: each checked
against a Python loop (always) and against torch.func in float64 (where torch is installed)."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.func as tf
from tapegrad.nn import functional as F

RNG = np.random.default_rng(0)


def t(a):
    return tg.tensor(np.asarray(a, np.float64))


def close(a, b, rtol=1e-10) -> None:
    a = a.numpy() if hasattr(a, "numpy") else a
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


# ---- Per-sample-gradients ------------------------------------------------------------------------
class SmallCNN(tg.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tg.nn.Conv2d(1, 4, 3)
        self.fc = tg.nn.Linear(4 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


def _per_sample_setup():
    tg.manual_seed(0)
    model = SmallCNN().double()
    data = t(RNG.standard_normal((6, 1, 8, 8)))
    targets = tg.tensor(RNG.integers(0, 10, 6))
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch, labels = sample.unsqueeze(0), target.unsqueeze(0)
        predictions = tf.functional_call(model, (params, buffers), (batch,))
        return F.cross_entropy(predictions, labels)

    return model, data, targets, params, buffers, compute_loss


def test_per_sample_gradients_equal_a_loop():
    model, data, targets, params, buffers, compute_loss = _per_sample_setup()
    per_sample = tf.vmap(tf.grad(compute_loss), in_dims=(None, None, 0, 0))(
        params, buffers, data, targets
    )
    for i in range(len(data)):
        model.zero_grad()
        F.cross_entropy(model(data[i : i + 1]), targets[i : i + 1]).backward()
        for name, p in model.named_parameters():
            close(per_sample[name][i], p.grad)


def test_per_sample_gradients_as_torch_func():
    torch = pytest.importorskip("torch")
    model, data, targets, params, buffers, compute_loss = _per_sample_setup()
    ours = tf.vmap(tf.grad(compute_loss), in_dims=(None, None, 0, 0))(
        params, buffers, data, targets
    )
    tmodel = torch.nn.Sequential()  # (the same network in torch, with the same parameters)
    conv, fc = torch.nn.Conv2d(1, 4, 3).double(), torch.nn.Linear(36, 10).double()
    with torch.no_grad():
        for tp, p in zip([conv.weight, conv.bias, fc.weight, fc.bias], model.parameters()):
            tp.copy_(torch.tensor(p.numpy()))

    def tforward(p, x):
        y = torch.nn.functional.conv2d(x, p["conv.weight"], p["conv.bias"])
        y = torch.nn.functional.max_pool2d(torch.relu(y), 2)
        return torch.nn.functional.linear(y.flatten(1), p["fc.weight"], p["fc.bias"])

    tparams = {
        "conv.weight": conv.weight.detach(),
        "conv.bias": conv.bias.detach(),
        "fc.weight": fc.weight.detach(),
        "fc.bias": fc.bias.detach(),
    }

    def tloss(p, sample, target):
        return torch.nn.functional.cross_entropy(tforward(p, sample[None]), target[None])

    theirs = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))(
        tparams, torch.tensor(data.numpy()), torch.tensor(targets.numpy())
    )
    assert list(ours) == list(theirs)
    for name in ours:
        close(ours[name], theirs[name], rtol=1e-9)
    del tmodel


# ---- Jacobians, Hessians, hvp, vhp ---------------------------------------------------------------
D = 4
W_, B_, X_ = RNG.standard_normal((D, D)), RNG.standard_normal(D), RNG.standard_normal(D)


def predict(lib_f, weight, bias, x):
    return lib_f.linear(x, weight, bias).tanh()


def _jacobian_programs(func, lib_f, weight, bias, x, xs, unit):
    p = functools.partial(predict, lib_f)
    _, vjp_fn = func.vjp(functools.partial(p, weight, bias), x)
    out = {
        "vmap-vjp": func.vmap(vjp_fn)(unit)[0],
        "jacrev": func.jacrev(p, argnums=2)(weight, bias, x),
        "jacrev-params": func.jacrev(p, argnums=(0, 1))(weight, bias, x),
        "jacfwd": func.jacfwd(p, argnums=2)(weight, bias, x),
        "batched": func.vmap(func.jacrev(p, argnums=2), in_dims=(None, None, 0))(weight, bias, xs),
        "batched-fwd": func.vmap(func.jacfwd(p, argnums=2), in_dims=(None, None, 0))(
            weight, bias, xs
        ),
        "summed-trick": func.jacrev(lambda w, b, v: p(w, b, v).sum(0), argnums=2)(
            weight, bias, xs
        ).movedim(1, 0)
        if hasattr(xs, "movedim")
        else None,
        "hessian": func.hessian(p, argnums=2)(weight, bias, x),
        "fwd-fwd": func.jacfwd(func.jacfwd(p, argnums=2), argnums=2)(weight, bias, x),
        "rev-rev": func.jacrev(func.jacrev(p, argnums=2), argnums=2)(weight, bias, x),
        "batched-hessian": func.vmap(func.hessian(p, argnums=2), in_dims=(None, None, 0))(
            weight, bias, xs
        ),
    }
    f = lambda v: (v.sin() * v).sum()  # noqa: E731
    out["hvp"] = func.jvp(func.grad(f), (x,), (bias,))[1]
    out["vhp"] = func.vjp(func.grad(f), x)[1](bias)[0]
    return out


def test_jacobian_idioms_equal_loops_and_each_other():
    xs = RNG.standard_normal((3, D))
    got = _jacobian_programs(tf, F, t(W_), t(B_), t(X_), t(xs), t(np.eye(D)))
    jac = lambda x: (1 - np.tanh(W_ @ x + B_) ** 2)[:, None] * W_  # noqa: E731
    for name in ("vmap-vjp", "jacrev", "jacfwd"):
        close(got[name], jac(X_))
    for name in ("batched", "batched-fwd"):
        close(got[name], np.stack([jac(x) for x in xs]))
    for name in ("fwd-fwd", "rev-rev"):
        close(got[name], got["hessian"])
    close(
        got["batched-hessian"][1],
        tf.hessian(functools.partial(predict, F), 2)(t(W_), t(B_), t(xs[1])),
    )
    h = np.diag(2 * np.cos(X_) - X_ * np.sin(X_))
    close(got["hvp"], h @ B_)
    close(got["vhp"], B_ @ h)


def test_jacobian_idioms_as_torch_func():
    torch = pytest.importorskip("torch")
    xs = RNG.standard_normal((3, D))
    ours = _jacobian_programs(tf, F, t(W_), t(B_), t(X_), t(xs), t(np.eye(D)))
    T = lambda a: torch.tensor(np.asarray(a, np.float64))  # noqa: E731
    theirs = _jacobian_programs(
        torch.func, torch.nn.functional, T(W_), T(B_), T(X_), T(xs), T(np.eye(D))
    )
    for name, value in theirs.items():
        if value is None or ours[name] is None:
            continue
        if isinstance(value, tuple):
            for a, b in zip(ours[name], value):
                close(a, b)
        else:
            close(ours[name], value)


# ---- Model ensembling ----------------------------------------------------------------------------
class MLP(tg.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = tg.nn.Linear(6, 8), tg.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def test_model_ensembling_with_stack_module_state():
    tg.manual_seed(1)
    models = [MLP().double() for _ in range(5)]
    minibatches = t(RNG.standard_normal((5, 4, 6)))
    params, buffers = tf.stack_module_state(models)
    base = copy.deepcopy(models[0])

    def fmodel(params, buffers, x):
        return tf.functional_call(base, (params, buffers), (x,))

    different = tf.vmap(fmodel)(params, buffers, minibatches)
    same = tf.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatches[0])
    for i, m in enumerate(models):
        close(different[i], m(minibatches[i]))
        close(same[i], m(minibatches[0]))
    # the ensemble trains as one: gradients of the summed losses reach each model's stacked slice
    g = tf.grad(lambda p: tf.vmap(fmodel)(p, buffers, minibatches).square().sum())(params)
    models[2].zero_grad()
    models[2](minibatches[2]).square().sum().backward()
    close(g["fc1.weight"][2], models[2].fc1.weight.grad)


def test_model_ensembling_as_torch_func():
    torch = pytest.importorskip("torch")
    tg.manual_seed(1)
    models = [MLP().double() for _ in range(3)]
    xs = RNG.standard_normal((3, 4, 6))
    params, buffers = tf.stack_module_state(models)
    ours = tf.vmap(lambda p, b, x: tf.functional_call(models[0], (p, b), (x,)))(
        params, buffers, t(xs)
    )
    tparams = {k: torch.tensor(v.numpy()) for k, v in params.items()}

    def tmodel(p, x):
        h = torch.relu(torch.nn.functional.linear(x, p["fc1.weight"], p["fc1.bias"]))
        return torch.nn.functional.linear(h, p["fc2.weight"], p["fc2.bias"])

    close(ours, torch.func.vmap(tmodel)(tparams, torch.tensor(xs)))


# ---- JAX's autodiff cookbook ------------------------------------------------------------------
def sigmoid(x):
    return 0.5 * ((x / 2).tanh() + 1)


def logistic_predict(W, b, inputs):
    return sigmoid(inputs @ W + b)


INPUTS = RNG.standard_normal((4, 3))
TARGETS = np.array([1.0, 1.0, 0.0, 1.0])
W0, B0 = RNG.standard_normal(3), 0.3


def logistic_loss(W, b, inputs=None, targets=None):
    inputs = t(INPUTS) if inputs is None else inputs
    targets = t(TARGETS) if targets is None else targets
    preds = logistic_predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -label_probs.log().sum()


def test_cookbook_derivatives_of_tanh():
    x = t(1.0)
    d1 = tg.grad(tg.tanh)(x)
    d2 = tg.grad(tg.grad(tg.tanh))(x)
    d3 = tg.grad(tg.grad(tg.grad(tg.tanh)))(x)
    y = np.tanh(1.0)
    close(d1, 1 - y**2)
    close(d2, -2 * y * (1 - y**2))
    close(d3, (1 - y**2) * (6 * y**2 - 2))


def test_cookbook_logistic_regression_gradients():
    W, b = t(W0), t(B0)
    gW, gb = tg.grad(logistic_loss, grad_position=(0, 1))(W, b)
    p = 1 / (1 + np.exp(-(INPUTS @ W0 + B0)))
    close(gW, INPUTS.T @ (p - TARGETS))
    close(gb, (p - TARGETS).sum())
    value, grads = tg.value_and_grad(logistic_loss, grad_position=(0, 1))(W, b)
    close(value, -np.log(np.where(TARGETS == 1, p, 1 - p)).sum())
    per_example = tg.vmap(tg.grad(logistic_loss), in_axes=(None, None, 0, 0))(
        W, b, t(INPUTS[:, None]), t(TARGETS[:, None])
    )
    close(per_example, INPUTS * (p - TARGETS)[:, None])


def test_cookbook_hessian_vector_products_three_ways():
    def f(x):
        return (x.sin() * x.cos().sum()).sum()

    x, v = t(RNG.standard_normal(4)), t(RNG.standard_normal(4))
    forward_over_reverse = tg.jvp(tg.grad(f), (x,), (v,))[1]
    reverse_over_reverse = tg.grad(lambda y: (tg.grad(f)(y) * v).sum())(x)
    reverse_over_forward = tg.grad(lambda y: tg.jvp(f, (y,), (v,))[1])(x)
    full = tf.hessian(f)(x).numpy() @ v.numpy()
    for hvp in (forward_over_reverse, reverse_over_reverse, reverse_over_forward):
        close(hvp, full)


def test_cookbook_jacobian_matrix_products_by_vmap():
    def f(x):
        return (x[:, None] * x[None, :]).sin().sum(1)

    x = t(RNG.standard_normal(3))
    M = t(RNG.standard_normal((5, 3)))
    J = tf.jacrev(f)(x).numpy()
    _, vjp_fun = tg.vjp(f, x)
    close(tg.vmap(lambda m: vjp_fun(m)[0])(M), M.numpy() @ J)  # (M J, one row at a time)
    jvp_rows = tg.vmap(lambda m: tg.jvp(f, (x,), (m,))[1])(M)
    close(jvp_rows, M.numpy() @ J.T)  # (J M^T, one column at a time)
    batched = tg.vmap(tf.hessian(lambda y: f(y).sum()))(M)
    close(batched[3], tf.hessian(lambda y: f(y).sum())(M[3]))
