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


# ---- the README's pictures ---------------------------------------------------------------------
def _pictures():
    import sys

    sys.path.insert(0, str(README.parent / "docs"))
    import readme_pictures  # docs/readme_pictures.py: what `make docs` draws them from

    return readme_pictures


def test_readme_pictures_are_what_its_code_draws_now() -> None:
    """docs/pictures.json records what the pictures show; it must be what the README's code makes
    today. When this fails: `make docs` (or `python docs/readme_pictures.py`) redraws them."""
    import json

    pictures = _pictures()
    made = pictures.sources()
    recorded = json.loads((README.parent / "docs" / "pictures.json").read_text())
    assert recorded == pictures.digests(made), "stale README pictures: run `make docs`"
    svg = (README.parent / "docs" / "tape.svg").read_text()
    for label in re.findall(r'label="((?:[^"\\]|\\.)*)"', made["dot"]):
        for line in label.split("\\n"):  # every line the DOT writes is drawn in the SVG
            assert line.replace("&", "&amp;").replace("<", "&lt;") in svg, line
    for name in ("explain_table.png", "explain_offline.png"):
        assert (README.parent / "docs" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = README.read_text()
    assert "(docs/tape.svg)" in text and "(docs/explain_table.png)" in text


def test_readme_links_the_error_catalogue_and_lists_the_differences_from_pytorch() -> None:
    text = README.read_text()
    assert "(docs/errors.md)" in text
    box = text.split("## Differences from PyTorch", 1)[1].split("\n## ", 1)[0]
    bullets = [line for line in box.splitlines() if line.startswith("> - ")]
    assert len(bullets) >= 10 and "stable" in box and "ValueError" in box
