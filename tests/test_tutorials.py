"""Every tutorial runs as a plain script and prints the numbers the seed documents print."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parent.parent / "tutorials"


def run(name: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(TUTORIALS.parent))
    done = subprocess.run(
        [sys.executable, str(TUTORIALS / name)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=TUTORIALS.parent,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text)]


def line_after(out: str, marker: str, skip: int = 1) -> str:
    lines = out.splitlines()
    i = lines.index(marker)
    return "\n".join(lines[i + skip : i + skip + 1])


def test_every_tutorial_has_a_test() -> None:
    scripts = sorted(p.name for p in TUTORIALS.glob("[0-9][0-9]_*.py"))
    assert scripts == sorted(TESTED)


def check_01(out: str) -> None:
    assert "x.grad before backward None" in out
    assert out.count("z tensor(3., grad_fn=<AddBackward>)") == 2
    assert out.count("x.grad tensor(2.)") == 2 and out.count("y.grad tensor(1.)") == 2
    assert "out (tensor(2.),)" in out and "out1 (tensor(1.),)" in out
    block = out.split("=== backward with a gradient ===")[1].split("===")[0]
    assert numbers(block.replace("x0.grad", "")) == [4.0, 4.0, 4.0, 4.0]
    assert [numbers(l)[0] for l in out.splitlines() if l.startswith("w.grad")] == [6, 12, 18]
    assert "z.requires_grad True\nz.requires_grad False" in out
    assert "z.requires_grad False\nz.requires_grad True" in out
    assert "retain_graph=True" in out or "second time" in out
    assert "out.grad_fn <PowBackward>" in out


def check_02(out: str) -> None:
    assert "out tensor(2.)" in out and "out1 tensor(1.)" in out
    assert numbers(line_after(out, "=== tg.grad multiple outputs ===")) == [3.0]
    assert "name: fc.weight data: [[2. 3. 4.]]" in out
    assert numbers(line_after(out, "=== output ===")) == [1.0, 20.0]
    g1 = line_after(out, "=== grads 1 ===")
    assert numbers(g1) == [4, 6, 8]
    assert numbers(line_after(out, "=== grads 2 ===")) == [-2.0]
    assert numbers(line_after(out, "=== grads 3 ===")) == [4, 6, 8, -2]
    assert numbers(line_after(out, "=== grads 4 ===")) == [2, 4, 6]
    assert numbers(line_after(out, "=== grads 5 ===")) == [4, 6, 8, 2, 4, 6]
    assert numbers(line_after(out, "=== grads 6 ===")) == [4, 6, 8, -2, 2, 4, 6]
    assert numbers(line_after(out, "=== grads 7 ===")) == [6, 9, 12]
    assert "ValueError" in line_after(out, "=== grads 8 ===")
    assert numbers(line_after(out, "=== value and grad ===")) == [1, 20]
    assert numbers(line_after(out, "=== value and grad ===", 2)) == [4, 6, 8, -2, 2, 4, 6]


def check_03(out: str) -> None:
    lines = out.splitlines()
    assert lines[:4] == ["[-0.]", "[1.]", "[1.]", "[-1.]"]
    derivs = line_after(out, lines[3]).split(":")[1]
    assert numbers(derivs) == [32.0, 48.0, 48.0, 24.0]


def check_04(out: str) -> None:
    lines = out.splitlines()
    assert numbers(lines[0]) == [5.0] and numbers(lines[1]) == [10.0]
    assert "16 (16, 1)" in out
    assert numbers(lines[-2]) == [30.0, 9.0] or numbers(" ".join(lines[-3:-1]))[:2] == [30.0, 9.0]
    assert numbers(lines[-1]) == [45.0]


def check_05(out: str) -> None:
    assert numbers(line_after(out, "=== loss scale ===")) == [1024.0]
    assert numbers(line_after(out, "=== loss scale ===", 2)) == [2048, 4096, 6144]
    assert numbers(line_after(out, "=== unscale ===")) == [1.0]
    assert numbers(line_after(out, "=== unscale ===", 2)) == [2, 4, 6]
    assert line_after(out, "=== unscale ===", 3) == "True"
    under = [l for l in out.splitlines() if l.startswith("float16 grad")][0]
    plain, scaled = numbers(under)[-2:]
    assert plain == 0.0 and scaled == pytest.approx(2e-8, rel=0.05)
    scales = [numbers(l)[-1] for l in out.splitlines() if "-> scale" in l]
    assert scales == [1024, 1024, 2048, 1024, 1024]
    assert "accumulated with backward == full batch: True" in out
    assert "summed functional grads == full batch: True" in out


def check_06(out: str) -> None:
    assert "gradcheck: True" in out
    assert "gradcheck of a wrong backward: False" in out
    assert "node: <SoftplusBackward>" in out
    assert "C moved along +dloss/dC: True" in out


def check_07(out: str) -> None:
    lines = out.splitlines()

    def numbers(text: str) -> list[float]:  # ignore the "y1 = " labels
        return globals()["numbers"](re.sub(r"^(y\d = |by hand:)", "", text))

    y1, y2 = numbers(lines[0]), numbers(lines[1])
    assert y1 == pytest.approx([0.6663667, 0.6143003, 0.57440084], abs=1e-6)
    assert y2 == pytest.approx(y1, abs=1e-6)
    grads = [numbers(l) for l in lines if l.startswith(("y1 = ", "y2 = ", "by hand:"))][2:]
    for g in grads:
        assert g == pytest.approx([-0.40286243, 0.32836995, 0.23219854], abs=1e-6)
    assert "CosBackward" in out and "SinBackward" in out
    assert re.search(r"1\.41\d*,\s+1\.6", out) or "1.41" in out
    assert "15.33" in out and "1.533" in out
    assert "0.141" in out and "0.17" in out


def check_08(out: str) -> None:
    losses = [numbers(l)[1] for l in out.splitlines() if l.startswith("epoch")]
    accs = [numbers(l)[2] for l in out.splitlines() if l.startswith("epoch")]
    assert losses[-1] < losses[0] / 5
    assert accs[-1] > 0.95


TESTED = {
    f"0{i}_{name}.py": fn
    for i, (name, fn) in enumerate(
        [
            ("tape_and_backward", check_01),
            ("functional_grad", check_02),
            ("higher_order", check_03),
            ("stop_gradient_and_aux", check_04),
            ("loss_scaling_and_clipping", check_05),
            ("custom_functions", check_06),
            ("backprop_by_hand", check_07),
            ("training_an_mlp", check_08),
        ],
        start=1,
    )
}


def check_10(out: str) -> None:
    assert "finite differences agree: True" in out and "TypeError: np.linalg.svd has no" in out
    losses = [numbers(line)[-1] for line in out.splitlines() if line.startswith("step")]
    assert len(losses) == 4 and losses[-1] < losses[0] / 5
    assert numbers(out.split("training accuracy")[1])[0] > 0.95
    assert "L-BFGS-B converged: True" in out
    assert numbers(out.split("x =")[1].splitlines()[0]) == pytest.approx([1.0] * 10, abs=1e-3)
    assert "NumPy writes, tapegrad sees: [10.0, 2.0, 3.0]" in out
    assert "round trip shares memory: True" in out


TESTED["10_numpy_interop.py"] = check_10


@pytest.mark.parametrize("script", sorted(TESTED))
def test_tutorial_prints_the_seed_numbers(script: str) -> None:
    TESTED[script](run(script))


def test_demo_runs() -> None:
    out = run("demo.py")
    losses = [numbers(l)[-1] for l in out.splitlines() if l.strip().startswith("step")]
    assert len(losses) >= 3 and losses[-1] < losses[0] / 5
