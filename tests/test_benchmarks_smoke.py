"""The benchmark harness computes what it claims: on tiny sizes, every arm of every workload takes
the same step as the hand-written NumPy arm (gradients and weight updates; the GPT steps, which
have no NumPy arm, as the PyTorch arm), the NumPy arms match
finite differences, ratios are medians of per-round ratios, and the report marks the targets.
No timing of tapegrad here: benchmarks/run.py does that, outside `make test`."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os

import numpy as np
import pytest

_RUN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "run.py"
)
_spec = importlib.util.spec_from_file_location("tapegrad_benchmarks_run", _RUN)
assert _spec is not None and _spec.loader is not None
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)
W, R = run.W, run.R  # the modules next to run.py are importable once it is loaded
import memory  # noqa: E402
import numpy_optim  # noqa: E402
import workload_cnn  # noqa: E402
import workload_conv  # noqa: E402
import workload_gpt  # noqa: E402
import workload_hvp  # noqa: E402
import workload_mlp  # noqa: E402
import workload_ops  # noqa: E402
from cases import OPTIONAL  # noqa: E402

TINY = {
    "elementwise": {"n_ops": 25, "width": 4},
    "mlp_small": {"sizes": (3, 5, 4, 2), "batch": 3},
    "mlp_large": {"sizes": (6, 4, 3), "batch": 2},
    "mlp_large_adam": {"sizes": (6, 4, 3), "batch": 2, "lr": 1e-3, "optimizer": "adam"},
    "chain": {"n_ops": 60},
    "hvp": {"sizes": (3, 5, 4, 2), "batch": 3},
    "cnn": {"batch": 2, "size": 16},
    "hvp_raw": {"sizes": (3, 5, 4, 2), "batch": 3},
    "conv_bn_16": {"batch": 2, "channels": 3, "size": 5},
    "conv_bn_32": {"batch": 2, "channels": 4, "size": 4},
    "conv_dw": {"batch": 2, "channels": 3, "size": 5, "groups": 3},
}
# the GPT steps (no NumPy arm: checked against PyTorch), on tiny models of the same shape
_GPT = workload_gpt.gpt_model.GPTConfig
TINY_GPT = {
    "gpt_nano": {
        "model": "nano",
        "batch": 3,
        "config": _GPT(block_size=6, vocab_size=10, n_layer=1, n_head=2, n_embd=8, flash=False),
    },
    "gpt_char": {
        "model": "char",
        "batch": 2,
        "config": _GPT(block_size=5, vocab_size=7, n_layer=2, n_head=2, n_embd=8, bias=False),
    },
}


def _tiny(name):
    return dataclasses.replace(W.workloads()[name], params={**TINY, **TINY_GPT}[name])


@pytest.mark.parametrize("name", sorted(TINY))
def test_every_tapegrad_arm_takes_the_numpy_arms_step_and_runs_on(name):
    wl = _tiny(name)
    arms = [a for a in wl.arms() if a not in OPTIONAL]
    assert arms[0] == "numpy" and "tapegrad" in arms
    cases, warnings = run.check_workload(name, wl.data(), arms)  # raises on any mismatch
    assert warnings == []  # float32 gradients everywhere
    for case in cases.values():  # and the arms keep running
        case.step()
        assert all(np.all(np.isfinite(np.asarray(g))) for g in case.grads())


@pytest.mark.parametrize("name", sorted(TINY))
def test_torch_arms_take_the_numpy_arms_step(name):
    pytest.importorskip("torch", reason="the PyTorch arm is optional")
    wl = _tiny(name)
    assert "torch" in wl.arms()
    run.check_workload(name, wl.data(), ["numpy", "torch"])


@pytest.mark.parametrize("name", sorted(TINY_GPT))
def test_gpt_steps_take_the_torch_arms_step(name):
    pytest.importorskip("torch", reason="the GPT steps are checked against the PyTorch arm")
    wl = _tiny(name)
    assert wl.arms() == ["tapegrad", "torch"] and run.reference_arm(wl.arms()) == "torch"
    cases, warnings = run.check_workload(name, wl.data(), wl.arms())  # raises on any mismatch
    assert warnings == []


@pytest.mark.parametrize("name", sorted(TINY_GPT))
def test_gpt_tapegrad_arm_trains(name):
    case = W.BUILDERS[name]["tapegrad"](_tiny(name).data())
    losses = [case.step().item() for _ in range(8)]
    assert all(np.all(np.isfinite(g)) and g.dtype == np.float32 for g in case.grads())
    assert losses[-1] < losses[0]


def test_a_workload_without_its_reference_arm_is_skipped():
    assert run.reference_arm(["tapegrad"]) is None
    assert run.reference_arm(["tapegrad", "torch"]) == "torch"
    assert run.reference_arm(["numpy", "tapegrad", "torch"]) == "numpy"


def test_the_workloads_and_their_arms():
    assert set(TINY) | set(TINY_GPT) == set(W.workloads()) == set(W.BUILDERS) == set(run.TIMED)
    for name in ("mlp_small", "mlp_large"):
        assert set(W.BUILDERS[name]) == set(W.ARMS)
    assert set(W.BUILDERS["mlp_large_adam"]) == {"numpy", "tapegrad", "tapegrad_fn", "torch"}
    assert {t.key for t in R.TARGETS} == set(run.TIMED) | {"memory", "growth"}


def test_a_wrong_gradient_fails_loudly():
    data = W.DATA["mlp_small"](**TINY["mlp_small"])
    ref = W.BUILDERS["mlp_small"]["numpy"](data)
    ref.step()
    wrong = [g.copy() for g in ref.grads()]
    wrong[2][0, 0] += 0.1
    with pytest.raises(run.GradientMismatch, match="gradient 2"):
        run.compare_grads("mlp_small", ref.grads(), wrong, "tapegrad")


@pytest.mark.parametrize("spoil", [lambda d: 0 * d, lambda d: 2 * d, lambda d: d[::-1]])
def test_a_wrong_update_fails_loudly(spoil):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((4, 3)), rng.standard_normal(3)]
    changes = [-0.01 * g for g in grads]
    run.compare_updates("w", changes, [c.copy() for c in changes], grads, "arm")  # equal: fine
    with pytest.raises(run.GradientMismatch, match="update of weight 1"):
        run.compare_updates("w", changes, [changes[0], spoil(changes[1])], grads, "arm")


def test_ratios_are_medians_of_per_round_ratios():
    wl = W.Workload("x", "x", "s", 1.0, 1)
    samples = {"numpy": [1.0, 2.0, 10.0], "tapegrad": [3.0, 2.0, 11.0], "torch": [2.0, 2.0, 20.0]}
    stats = run.summarize(wl, samples, {a: 1 for a in samples})
    med, p25, p75 = stats["tapegrad"]["vs"]["numpy"]  # per round: 3, 1, 1.1 (ratio of medians: 1.5)
    assert math.isclose(med, 1.1) and math.isclose(p25, 1.05) and math.isclose(p75, 2.05)
    assert math.isclose(stats["tapegrad"]["vs"]["torch"][0], 1.0)  # 1.5, 1, 0.55
    assert stats["numpy"]["vs"]["numpy"] == (1.0, 1.0, 1.0)
    assert stats["tapegrad"]["median"] == 3.0 and stats["tapegrad"]["min"] == 2.0


def test_the_report_marks_each_target_from_a_tiny_run(tmp_path):
    wls = {name: _tiny(name) for name in run.TIMED}
    results = {}
    for name, wl in wls.items():
        arms = wl.arms(["numpy", "tapegrad", "tapegrad_fn"])
        if run.reference_arm(arms) is None:  # (the GPT steps need PyTorch's arm: as run.py does)
            continue
        cases, _ = run.check_workload(name, wl.data(), arms)
        results[name] = run.time_workload(wl, cases, repeats=2, target=1e-4)
    mem = {"tapegrad": memory.child_memory("tapegrad", 200)}
    growth = {"tapegrad": memory.child_growth("tapegrad", 20)}
    rows = R.target_rows(results, mem, growth)
    assert len(rows) == len(R.TARGETS)
    for row, t in zip(rows, R.TARGETS):
        against = {a for a, _ in t.limits}
        # a target against PyTorch cannot be judged without a PyTorch arm
        status = row[-1].removesuffix(" (p25-p75 spans the target)")
        assert status == "not measured" if "torch" in against else status in ("met", "NOT met")
    run_ = {"results": results, "mem": mem, "growth": growth, "loads": {}, "warnings": ["w"]}
    env = {"date": "today", "cpu": "cpu", "cores": "2"}
    R.write_results(str(tmp_path / "RESULTS.md"), env, wls, run_)
    R.write_readme_table(str(tmp_path / "README_TABLE.md"), env, run_, "2.x")
    text = (tmp_path / "RESULTS.md").read_text()
    assert "## Targets (issue 17)" in text and "tapegrad functional" in text and "- w" in text
    table = (tmp_path / "README_TABLE.md").read_text()
    ran = [t for t in R.TARGETS if t.key not in TINY_GPT]  # (those need PyTorch's arm)
    assert all(t.label in table for t in ran)
    assert table.count("\n|") == len(ran) + 2  # header, separator, one row per target run


def test_memory_per_op_and_growth_measure_the_tapegrad_graph():
    mem = memory.child_memory("tapegrad", 400)
    assert mem["ops"] == 400 and 0 < mem["tracemalloc_peak_per_op"] < 10_000
    out = workload_ops.chain_forward("tapegrad", workload_ops.chain_data(n_ops=10))
    assert out.grad_fn is not None and out.shape == (1,)


# ---------------------------------------------------------------------------------------------
# the NumPy references themselves: finite differences, closed forms, PyTorch's optimizer rules
# ---------------------------------------------------------------------------------------------


def _f64(data):
    conv = lambda v: v.astype(np.float64) if isinstance(v, np.ndarray) else v  # noqa: E731
    return {k: [conv(x) for x in v] if isinstance(v, list) else conv(v) for k, v in data.items()}


def _loss(build, data):
    return float(build(data).step())


def _numeric_grad(build, data, key, index=None, eps=1e-6):
    """Central differences of an arm's loss with respect to data[key] (or data[key][index])."""
    base = data[key] if index is None else data[key][index]
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        old = base[i]
        base[i] = old + eps
        up = _loss(build, data)
        base[i] = old - eps
        down = _loss(build, data)
        base[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def test_numpy_reference_elementwise_matches_finite_differences():
    data = _f64(workload_ops.elementwise_data(n_ops=15, width=3))
    case = workload_ops.elementwise_numpy(data)
    case.step()
    for got, key in zip(case.grads(), ("x", "w", "b")):
        want = _numeric_grad(workload_ops.elementwise_numpy, data, key)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_numpy_reference_mlp_matches_finite_differences():
    data = _f64(workload_mlp.mlp_data(sizes=(3, 5, 4, 2), batch=3))
    case = workload_mlp.mlp_numpy(data)
    case.step()
    for k, got in enumerate(case.grads()):
        want = _numeric_grad(workload_mlp.mlp_numpy, data, "params", k)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_numpy_reference_chain_matches_closed_form():
    data = _f64(workload_ops.chain_data(n_ops=40))
    case = workload_ops.chain_numpy(data)
    case.step()
    np.testing.assert_allclose(case.grads()[0], [workload_ops.A**20], rtol=1e-12)


def test_numpy_reference_hvp_matches_differences_of_gradients():
    data = _f64(workload_mlp.mlp_data(sizes=(3, 5, 4, 2), batch=3))
    case = workload_hvp.hvp_numpy(data)
    case.step()
    eps = 1e-5

    def grads_at(sign):
        shifted = dict(data, params=[p + sign * eps * v for p, v in zip(data["params"], data["V"])])
        c = workload_mlp.mlp_numpy(shifted)
        c.step()
        return [g.copy() for g in c.grads()]

    numeric = [(u - d) / (2 * eps) for u, d in zip(grads_at(+1), grads_at(-1))]
    for got, want in zip(case.grads(), numeric):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_numpy_reference_cnn_matches_finite_differences():
    data = _f64(workload_cnn.cnn_data(batch=2, size=16))
    data["Y"] = workload_cnn.cnn_data(batch=2, size=16)["Y"]  # (class indices stay integers)
    case = workload_cnn.cnn_numpy(data)
    case.step()
    rng = np.random.default_rng(0)
    for k, got in enumerate(case.grads()):  # a few entries of each gradient (all: slow)
        p = data["params"][k]
        for flat in rng.choice(p.size, size=min(3, p.size), replace=False):
            i = np.unravel_index(flat, p.shape)
            old = p[i]
            p[i] = old + 1e-6
            up = _loss(workload_cnn.cnn_numpy, data)
            p[i] = old - 1e-6
            down = _loss(workload_cnn.cnn_numpy, data)
            p[i] = old
            assert abs((up - down) / 2e-6 - got[i]) <= 1e-5 + 1e-4 * abs(got[i]), (k, i)


@pytest.mark.parametrize("groups", [1, 3])
def test_numpy_reference_conv_blocks_match_finite_differences(groups):
    data = _f64(workload_conv.conv_data(batch=2, channels=3, size=5, groups=groups))
    case = workload_conv.conv_numpy(data)
    case.step()

    def loss():  # <G, block(X)>: the block's output met by the upstream gradient G
        return float(np.vdot(data["G"], workload_conv.conv_numpy(data).step()))

    rng = np.random.default_rng(0)
    for got, key in zip(case.grads(), ["X", "W", "gamma", "beta"]):
        p = data[key]
        assert got.shape == p.shape
        for flat in rng.choice(p.size, size=min(4, p.size), replace=False):
            i = np.unravel_index(flat, p.shape)
            old = p[i]
            p[i] = old + 1e-6
            up = loss()
            p[i] = old - 1e-6
            down = loss()
            p[i] = old
            assert abs((up - down) / 2e-6 - got[i]) <= 1e-5 + 1e-4 * abs(got[i]), (key, i)


def test_numpy_optimizers_follow_pytorchs_rules_written_plainly():
    rng = np.random.default_rng(1)
    p0, g1, g2 = (rng.standard_normal(5) for _ in range(3))
    p = [p0.copy()]
    update = numpy_optim.adam(p, lr=0.1, betas=(0.8, 0.9), eps=1e-3)
    update([g1])
    update([g2])
    m1, v1 = 0.2 * g1, 0.1 * g1**2
    m2, v2 = 0.8 * m1 + 0.2 * g2, 0.9 * v1 + 0.1 * g2**2
    want = p0 - 0.1 * (m1 / 0.2) / (np.sqrt(v1 / 0.1) + 1e-3)
    want -= 0.1 * (m2 / (1 - 0.8**2)) / (np.sqrt(v2 / (1 - 0.9**2)) + 1e-3)
    np.testing.assert_allclose(p[0], want, rtol=1e-12)
    q = [p0.copy()]
    step = numpy_optim.sgd(q, lr=0.5, momentum=0.9)
    step([g1])
    step([g2])
    np.testing.assert_allclose(q[0], p0 - 0.5 * g1 - 0.5 * (0.9 * g1 + g2), rtol=1e-12)


@pytest.mark.parametrize(
    "vs_torch, status",
    [
        ((0.70, 0.65, 0.75), "met"),
        ((0.75, 0.70, 0.85), "met (p25-p75 spans the target)"),
        ((0.85, 0.75, 0.90), "NOT met (p25-p75 spans the target)"),
        ((0.95, 0.90, 1.00), "NOT met"),
    ],
)
def test_the_median_decides_a_target_and_a_straddling_spread_is_said(vs_torch, status):
    results = {
        "mlp_small": {
            "tapegrad": {"vs": {"numpy": (5.0, 4.0, 6.0), "torch": vs_torch}},
            "torch": {"vs": {"numpy": (6.0, 5.0, 7.0), "torch": (1.0, 1.0, 1.0)}},
        }
    }
    row = next(r for r, t in zip(R.target_rows(results, {}, {}), R.TARGETS) if t.key == "mlp_small")
    assert row[2:5] == ["6.00x (5.00-7.00)", "5.00x (4.00-6.00)", R.ratio_text(vs_torch)]
    assert row[-1] == status


def test_the_models_survey_builds_each_model_as_pytorch_does():
    """benchmarks/models.py: every model takes a training step in tapegrad; with torch installed,
    the first loss equals PyTorch's (the same network, weights and data; dropout aside)."""
    import models

    import tapegrad as tg

    from cases import arm_available, torch_one_thread

    torch = torch_one_thread() if arm_available("torch") else None
    for name in models.MODELS:
        loss = float(models.build(tg, name)().item())
        assert math.isfinite(loss), name
        if torch is not None and "dropout" not in name:
            want = float(models.build(torch, name)().item())
            assert loss == pytest.approx(want, rel=1e-4, abs=1e-5), name


def test_the_transforms_benchmark_checks_and_reports_what_it_claims():
    """benchmarks/transforms.py: vmap(grad) equals 64 separate gradients before any timing; the
    arms it times compute what their names say; the memory table reads its children's numbers."""
    import transforms

    data = transforms.mlp_data()
    assert transforms.check_per_example(data) < 1e-5
    arms = transforms.tapegrad_arms(data)
    per_example = arms["vmap(grad) (tapegrad)"]()
    batched = arms["batched gradient (tapegrad)"]()
    for name, g in batched.items():  # (the mean loss's gradient: the mean of the examples')
        np.testing.assert_allclose(per_example[name].numpy().mean(0), g.numpy(), atol=1e-6)
    fake = {
        "plain": {"step": 100 << 20, "rss_before": 0},
        "checkpoint": {"step": 40 << 20, "rss_before": 0},
    }
    assert "0.40x the memory" in "\n".join(transforms.memory_table(fake, True))
