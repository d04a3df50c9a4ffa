"""The README's quickstarts run as written (in a scratch folder)."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

import tapegrad as tg

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_both_quickstarts_and_the_two_commands() -> None:
    text = README.read_text()
    assert len(BLOCKS) >= 2
    assert text.index("make demo") < text.index("```python")
    assert text.index("make test") < text.index("```python")


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    if importlib.util.find_spec("graphviz") is None or shutil.which("dot") is None:
        # without Graphviz, draw() must fail clearly; the rest of the block must still run
        def draw_as_dot(t: tg.Tensor, path: str | None = None, **kw: object) -> str:
            dot = tg.viz.to_dot(t)
            if path is not None:
                Path(path).write_text(dot)
            return dot

        monkeypatch.setattr(tg.viz, "draw", draw_as_dot)
    namespace: dict = {}
    exec(compile(BLOCKS[index], f"README block {index}", "exec"), namespace)
    if "loss" in namespace and index == 0:
        assert (tmp_path / "tape.svg").exists()
        assert namespace["x"].grad is not None and namespace["x"].grad.shape == (3,)


def test_every_tapegrad_name_in_the_names_table_exists() -> None:
    """The last column of "Names, side by side": each `tg.a.b` spelled there resolves."""
    table = README.read_text().split("## Names, side by side", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    names = set()
    for row in rows[1:]:  # (after the header)
        names.update(re.findall(r"`(tg(?:\.\w+)+)", row.rstrip(" |").rsplit(" | ", 1)[-1]))
    assert {"tg.max", "tg.einsum", "tg.set_printoptions", "tg.ops.GradOperation"} <= names
    for name in sorted(names):
        obj: object = tg
        for part in name.split(".")[1:]:
            assert hasattr(obj, part), f"{name} (README's name table) does not exist"
            obj = getattr(obj, part)
