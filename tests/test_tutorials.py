"""Every tutorial runs as a plain script and as a notebook (jupytext + nbclient) and shows the
numbers the seed documents print; in a notebook, drawings show inline (SVG), explain as HTML."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).resolve().parent.parent / "tutorials"


def _env(first_on_path: Path | None) -> dict:
    path = [str(first_on_path)] if first_on_path else []
    path += [str(TUTORIALS.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path))


@functools.lru_cache(maxsize=None)
def _started() -> dict[str, subprocess.Popen]:
    """Every tutorial and the demo started at once as plain scripts (a process each: the two cores
    run them side by side instead of one after the other); `run` collects each one's output."""
    return {
        name: subprocess.Popen(
            [sys.executable, str(TUTORIALS / name)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(None),
            cwd=TUTORIALS.parent,
        )
        for name in [*sorted(TESTED), "demo.py"]
    }


@functools.lru_cache(maxsize=None)  # (a script's output is checked by more than one test)
def run(name: str, first_on_path: Path | None = None) -> str:
    if first_on_path is None and name in _started():
        stdout, stderr = _started()[name].communicate(timeout=300)
        assert _started()[name].returncode == 0, stderr
        return stdout
    done = subprocess.run(
        [sys.executable, str(TUTORIALS / name)],
        capture_output=True,
        text=True,
        env=_env(first_on_path),
        timeout=300,
        cwd=TUTORIALS.parent,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module", autouse=True)
def _no_script_left_running():
    """(A selection of tests may leave some started scripts unread: they end with this module.)"""
    yield
    if _started.cache_info().currsize:
        for proc in _started().values():
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


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
    w_grads = [numbers(line)[0] for line in out.splitlines() if line.startswith("w.grad")]
    assert w_grads == [6, 12, 18]
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
    under = [line for line in out.splitlines() if line.startswith("float16 grad")][0]
    plain, scaled = numbers(under)[-2:]
    assert plain == 0.0 and scaled == pytest.approx(2e-8, rel=0.05)
    scales = [numbers(line)[-1] for line in out.splitlines() if "-> scale" in line]
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
    grads = [numbers(line) for line in lines if line.startswith(("y1 = ", "y2 = ", "by hand:"))][2:]
    for g in grads:
        assert g == pytest.approx([-0.40286243, 0.32836995, 0.23219854], abs=1e-6)
    assert "CosBackward" in out and "SinBackward" in out
    assert re.search(r"1\.41\d*,\s+1\.6", out) or "1.41" in out
    assert "15.33" in out and "1.533" in out
    assert "0.141" in out and "0.17" in out


def check_08(out: str) -> None:
    losses = [numbers(line)[1] for line in out.splitlines() if line.startswith("epoch")]
    accs = [numbers(line)[2] for line in out.splitlines() if line.startswith("epoch")]
    assert losses[-1] < losses[0] / 5
    assert accs[-1] > 0.95


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def check_09(out: str) -> None:
    if not _installed("sklearn"):  # (the `test` extra has it)
        assert 'pip install "tapegrad[tutorials]"' in out
        pytest.skip("the CNN tutorial's images come with scikit-learn: pip install -e '.[test]'")
    epochs = [numbers(line) for line in out.splitlines() if line.startswith("epoch")]
    assert [e[0] for e in epochs] == [1, 2, 3, 4, 5, 6]
    losses, train, test, lrs = ([e[i] for e in epochs] for i in (1, 2, 3, 4))
    assert losses[-1] < losses[0] / 10 and train[-1] > 0.99
    assert lrs == [0.01, 0.01, 0.005, 0.005, 0.0025, 0.0025]  # StepLR(step_size=2, gamma=0.5)
    accuracy = numbers(out.split("final test accuracy")[1])[0]
    assert accuracy >= 0.97 and accuracy == test[-1]
    assert "1.running_mean, 1.running_var, 1.num_batches_tracked" in out  # buffers saved too
    assert numbers(out.split("fresh model: test accuracy")[1])[0] < 0.5  # untrained: ~ chance
    reloaded = out.split("reloaded model: test accuracy")[1].splitlines()[0]
    assert numbers(reloaded) == [accuracy] and "same as trained: True" in reloaded
    line = next(line for line in out.splitlines() if " test images misread" in line)
    misread, total = numbers(line.split(":")[0])
    assert misread == round((1 - accuracy) * 360) and total == 360
    shown = re.findall(r"(\d) read as (\d)", line)
    assert len(shown) == min(6, misread) and all(a != b for a, b in shown)
    if "drawn to " in out:  # matplotlib is installed: a figure file
        drawn = out.split("drawn to ")[1].splitlines()[0]
        assert (TUTORIALS / drawn).is_file() or (TUTORIALS.parent / drawn).is_file()
    else:  # the mistakes drawn in text
        assert drawn_in_text(out) and len(drawn_in_text(out)[0]) <= 17 * len(shown) - 1


def drawn_in_text(out: str) -> list[str]:
    """The 8 rows of the 8x8 digits that the CNN tutorial draws in text (none if it drew none)."""
    lines = out.splitlines()
    titles = [i for i, line in enumerate(lines) if re.fullmatch(r"(\d read as \d *)+", line)]
    if not titles:
        return []
    rows = lines[titles[0] + 1 : titles[0] + 9]
    assert len(rows) == 8 and all(set(row) <= set(" .:-=+*#%@") for row in rows), rows
    assert any(set(row) & set("%@#") for row in rows)  # ink
    return rows


# Each tutorial and the check of what it prints (as a script, and as a notebook's outputs).
TESTED = {
    "01_tape_and_backward.py": check_01,
    "02_functional_grad.py": check_02,
    "03_higher_order.py": check_03,
    "04_stop_gradient_and_aux.py": check_04,
    "05_loss_scaling_and_clipping.py": check_05,
    "06_custom_functions.py": check_06,
    "07_backprop_by_hand.py": check_07,
    "08_training_an_mlp.py": check_08,
    "09_training_a_cnn.py": check_09,
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


def check_11(out: str) -> None:
    assert "0.weight  per-example gradients (120, 16, 4)" in out
    assert "mean of per-example gradients = batch gradient: True" in out
    assert "each equals its own backward: True" in out
    norms = [numbers(line)[1] for line in out.splitlines() if line.startswith("  example")]
    median = numbers(out.split("median norm:")[1])[0]
    assert len(norms) == 5 and norms == sorted(norms, reverse=True) and norms[-1] > 3 * median
    assert numbers(out.split("mislabelled examples among the 5 largest:")[1].splitlines()[0])
    before, after = numbers(out.split("30 steps: loss")[1].splitlines()[0])
    assert after < before * 0.6
    assert "tg.vmap(tg.grad(...)) agrees: True" in out


TESTED["11_per_example_gradients.py"] = check_11


def check_12(out: str) -> None:
    count = numbers(out.split(" names, e.g.")[0].splitlines()[-1])[0]
    assert count > 500  # (made from syllables by a seeded generator: no download)
    bigram = numbers(out.split("bigram nll:")[1])[0]
    assert 1.0 < bigram < numbers(out.split("a uniform guess:")[1])[0]
    assert len([line for line in out.splitlines() if line.startswith("bigram sample:")]) == 5
    steps = [line for line in out.splitlines() if " | exact: " in line]
    assert len(steps) == 28 and all("approximate: True" in line for line in steps)
    assert sum("exact: True" in line for line in steps) >= 26  # (the fused forms round apart)
    checks = [line for line in out.splitlines() if line.startswith("step")]
    assert len(checks) == 5 and all(line.endswith("hand == tape: True") for line in checks)
    final = numbers(out.split("training-set loss:")[1])[0]
    assert final < bigram < numbers(checks[0].split("loss")[1])[0]
    made = [line.split(": ")[1] for line in out.splitlines() if line.startswith("made up:")]
    assert len(made) == 8 and all(name.isalpha() for name in made)


TESTED["12_makemore_by_hand.py"] = check_12


def check_13(out: str) -> None:
    parts = out.split("compare: ")  # (a notebook also shows the planted table once more)
    right, planted, steps = parts[1], parts[2], parts[-1]
    assert "every gradient is approximately right" in right and "first wrong: None" in out
    # the planted mistake (tanh' as 1 - tanh) is found and named, with the rule it breaks
    assert "first wrong: pre (check 5 of 7)" in planted
    assert (
        "the first wrong gradient is dpre; the tape made it by "
        "TanhBackward: dL/dx = g * (1 - out * out)" in out
    )
    rows = {line.split()[0]: line.split()[1:3] for line in planted.splitlines()[2:9]}
    assert [rows[k][1] for k in ("logits", "W2", "b2", "h", "pre", "W1", "b1")] == (
        ["yes"] * 4 + ["NO"] * 3
    )
    # cross-entropy one operation at a time: every intermediate right, exactly
    names = ["logprobs", "probs", "counts_sum_inv", "counts_sum", "counts", "norm_logits"]
    rows = {line.split()[0]: line.split()[1:3] for line in steps.splitlines()[2:9]}
    assert all(rows[k] == ["yes", "yes"] for k in names) and rows["logits"][1] == "yes"
    assert "dL/dx = g * (softmax(x) - onehot(y)) / N" in out
    assert "the same as by the shortcut: True" in out


TESTED["13_checking_a_backward_by_hand.py"] = check_13


@pytest.mark.parametrize("script", sorted(TESTED))
def test_tutorial_prints_the_seed_numbers(script: str) -> None:
    TESTED[script](run(script))


def test_cnn_tutorial_runs_and_draws_in_text() -> None:
    if not _installed("sklearn"):
        pytest.skip("the CNN tutorial's images come with scikit-learn: pip install -e '.[test]'")
    out = run("09_training_a_cnn.py")
    assert drawn_in_text(out)  # a script draws the mistakes in text, with or without matplotlib
    assert ("drawn to " in out) == _installed("matplotlib")  # and to a file when it can


def test_cnn_tutorial_without_scikit_learn_says_how_to_install_it(tmp_path: Path) -> None:
    hidden = tmp_path / "sklearn"
    hidden.mkdir()
    (hidden / "__init__.py").write_text('raise ImportError("scikit-learn hidden by a test")\n')
    out = run("09_training_a_cnn.py", tmp_path)  # (run checks the exit code is 0)
    assert 'pip install "tapegrad[tutorials]"' in out and "pip install scikit-learn" in out
    assert "epoch" not in out


def test_demo_runs() -> None:
    out = run("demo.py")
    losses = [numbers(line)[-1] for line in out.splitlines() if line.strip().startswith("step")]
    assert len(losses) >= 3 and losses[-1] < losses[0] / 5


# ---- as notebooks -------------------------------------------------------------------------------
def _graphviz_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("graphviz") is not None and shutil.which("dot") is not None


@pytest.fixture(scope="module")
def notebooks(notebook_kernel: str) -> dict:
    """Every tutorial converted by jupytext and run cell by cell in tutorials/, as a reader would:
    all at once (each kernel start costs a second or two)."""
    import asyncio

    import jupytext
    import nbclient

    async def run_all() -> dict:
        books = {name: jupytext.read(TUTORIALS / name) for name in TESTED}
        clients = [
            nbclient.NotebookClient(
                nb,
                kernel_name=notebook_kernel,
                timeout=300,
                resources={"metadata": {"path": str(TUTORIALS)}},
            )
            for nb in books.values()
        ]
        results = await asyncio.gather(
            *(c.async_execute() for c in clients), return_exceptions=True
        )
        return {name: r for name, r in zip(books, results)}

    return asyncio.run(run_all())


def notebook_text(nb) -> str:
    """What a reader sees as text, in order: printed output and the text of displayed results."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream" and out["name"] == "stdout":
                parts.append(out["text"])
            elif out["output_type"] in ("execute_result", "display_data"):
                parts.append(out["data"].get("text/plain", "") + "\n")
    return "".join(parts)


@pytest.mark.parametrize("script", sorted(TESTED))
def test_tutorial_runs_as_a_notebook(script: str, notebooks: dict) -> None:
    nb = notebooks[script]
    if isinstance(nb, BaseException):
        raise nb
    TESTED[script](notebook_text(nb))  # the same numbers as the script prints
    if script == "09_training_a_cnn.py":  # the mistakes: a figure, or text without matplotlib
        shown = [o["data"] for o in nb.cells[-1]["outputs"] if o["output_type"] == "display_data"]
        pictures = [d for d in shown if "image/png" in d]
        assert len(pictures) == (1 if _installed("matplotlib") else 0)
        assert bool(drawn_in_text(notebook_text(nb))) != _installed("matplotlib")
    if script == "13_checking_a_backward_by_hand.py":  # a cell ending with compare's table
        (cell,) = [c for c in nb.cells if c["source"] == "checked"]
        html = cell["outputs"][0]["data"]["text/html"]
        assert html.startswith('<table class="tapegrad-compare"') and "TanhBackward: <math" in html
    for cell in nb.cells:
        source = cell["source"]
        if cell["cell_type"] != "code" or not ("tg.viz.draw(" in source or "tg.explain(" in source):
            continue
        shown = [o["data"] for o in cell["outputs"] if o["output_type"] == "execute_result"]
        assert len(shown) == 1, (
            f"{script}: a drawing or explain cell ends with its result\n{source}"
        )
        if "tg.explain(" in source:
            html = shown[0]["text/html"]
            assert html.startswith("<table") and "<math" in html  # the table, its rules as math
        elif _graphviz_installed():
            assert shown[0]["image/svg+xml"].lstrip().startswith(("<?xml", "<svg"))
        else:
            assert "apt-get install graphviz" in shown[0]["text/plain"]


def test_no_tutorial_needs_its_own_file_name() -> None:
    for path in TUTORIALS.glob("*.py"):
        assert "__file__" not in path.read_text(), path.name  # a notebook has no __file__
