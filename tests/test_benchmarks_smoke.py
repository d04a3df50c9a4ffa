"""The benchmark harness computes what it claims: on tiny sizes, the tapegrad arm of every workload
matches the hand-written NumPy arm, and the NumPy arm itself matches finite differences.
No timing here: benchmarks/run.py does that."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

_RUN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "run.py"
)
_spec = importlib.util.spec_from_file_location("tapegrad_benchmarks_run", _RUN)
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)
W = run.W

TINY = {
    "elementwise": {"n_ops": 25, "width": 4},
    "mlp_small": {"sizes": (3, 5, 4, 2), "batch": 3},
    "mlp_large": {"sizes": (6, 4, 3), "batch": 2},
    "chain": {"n_ops": 60},
    "hvp": {"sizes": (3, 5, 4, 2), "batch": 3},
    "cnn": {"batch": 2, "size": 16},
}


@pytest.mark.parametrize("name", sorted(TINY))
def test_tapegrad_arm_matches_numpy_arm(name):
    data = W.DATA[name](**TINY[name])
    ref = W.BUILDERS[name]["numpy"](data)
    got = W.BUILDERS[name]["tapegrad"](data)
    ref.step()
    got.step()
    assert run.compare_grads(name, ref.grads(), got.grads(), "tapegrad") is None  # float32 too


def test_every_workload_has_every_arm_and_tiny_sizes_cover_them():
    assert set(TINY) == set(W.workloads()) == set(W.BUILDERS)
    for name, arms in W.BUILDERS.items():
        # (HIPS autograd has no convolution: the CNN runs in the other three arms)
        assert set(arms) == set(W.ARMS) - ({"autograd"} if name == "cnn" else set()), name


def test_cnn_arms_agree_with_torch_when_installed():
    pytest.importorskip("torch", reason="the PyTorch arm is optional")
    data = W.DATA["cnn"](**TINY["cnn"])
    ref, theirs = W.BUILDERS["cnn"]["numpy"](data), W.BUILDERS["cnn"]["torch"](data)
    ref.step()
    theirs.step()
    assert run.compare_grads("cnn", ref.grads(), theirs.grads(), "torch") is None


def test_a_wrong_gradient_fails_loudly():
    data = W.DATA["mlp_small"](**TINY["mlp_small"])
    ref = W.BUILDERS["mlp_small"]["numpy"](data)
    ref.step()
    wrong = [g.copy() for g in ref.grads()]
    wrong[2][0, 0] += 0.1
    with pytest.raises(run.GradientMismatch, match="gradient 2"):
        run.compare_grads("mlp_small", ref.grads(), wrong, "tapegrad")


def _f64(data):
    conv = lambda v: v.astype(np.float64) if isinstance(v, np.ndarray) else v  # noqa: E731
    return {k: [conv(x) for x in v] if isinstance(v, list) else conv(v) for k, v in data.items()}


def _loss(name, data):
    return float(W.BUILDERS[name]["numpy"](data).step())


def _numeric_grad(name, data, key, index=None, eps=1e-6):
    """Central differences of the NumPy arm's loss with respect to data[key] (or
    data[key][index])."""
    base = data[key] if index is None else data[key][index]
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        old = base[i]
        base[i] = old + eps
        up = _loss(name, data)
        base[i] = old - eps
        down = _loss(name, data)
        base[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def test_numpy_reference_elementwise_matches_finite_differences():
    data = _f64(W.elementwise_data(n_ops=15, width=3))
    case = W.elementwise_numpy(data)
    case.step()
    for got, key in zip(case.grads(), ("x", "w", "b")):
        np.testing.assert_allclose(
            got, _numeric_grad("elementwise", data, key), rtol=1e-5, atol=1e-7
        )


def test_numpy_reference_mlp_matches_finite_differences():
    data = _f64(W.mlp_data(sizes=(3, 5, 4, 2), batch=3))
    case = W.mlp_numpy(data)
    case.step()
    for k, got in enumerate(case.grads()):
        np.testing.assert_allclose(
            got, _numeric_grad("mlp_small", data, "params", k), rtol=1e-5, atol=1e-7
        )


def test_numpy_reference_chain_matches_closed_form():
    data = _f64(W.chain_data(n_ops=40))
    case = W.chain_numpy(data)
    case.step()
    np.testing.assert_allclose(case.grads()[0], [W.A**20], rtol=1e-12)


def test_numpy_reference_hvp_matches_differences_of_gradients():
    data = _f64(W.mlp_data(sizes=(3, 5, 4, 2), batch=3))
    case = W.hvp_numpy(data)
    case.step()
    eps = 1e-5

    def grads_at(sign):
        shifted = dict(data, params=[p + sign * eps * v for p, v in zip(data["params"], data["V"])])
        c = W.mlp_numpy(shifted)
        c.step()
        return c.grads()

    numeric = [(u - d) / (2 * eps) for u, d in zip(grads_at(+1), grads_at(-1))]
    for got, want in zip(case.grads(), numeric):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_numpy_reference_cnn_matches_finite_differences():
    data = _f64(W.cnn_data(batch=2, size=16))
    data["Y"] = W.cnn_data(batch=2, size=16)["Y"]  # (class indices stay integers)
    case = W.cnn_numpy(data)
    case.step()
    rng = np.random.default_rng(0)
    for k, got in enumerate(
        case.grads()
    ):  # a few entries of each gradient (the full check is slow)
        p = data["params"][k]
        for flat in rng.choice(p.size, size=min(3, p.size), replace=False):
            i = np.unravel_index(flat, p.shape)
            old = p[i]
            p[i] = old + 1e-6
            up = _loss("cnn", data)
            p[i] = old - 1e-6
            down = _loss("cnn", data)
            p[i] = old
            assert abs((up - down) / 2e-6 - got[i]) <= 1e-5 + 1e-4 * abs(got[i]), (k, i)


def test_chain_forward_keeps_the_tapegrad_graph_alive():
    out = W.chain_forward("tapegrad", W.chain_data(n_ops=10))
    assert out.grad_fn is not None and out.shape == (1,)
