"""`make docs` is reproducible and its pages need no network: a tutorial built twice gives the same
bytes (fixed cell ids, printed output merged per cell), with its math as MathML and no script."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = "07_backprop_by_hand.py"  # (short, and it draws a tape and explains a backward pass)


def test_a_tutorial_page_built_twice_is_the_same_and_loads_no_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in ("jupytext", "nbclient", "nbconvert", "ipykernel"):
        pytest.importorskip(module, reason="building the docs needs the `docs` extra")
    sys.path.insert(0, str(ROOT / "docs"))
    import build_tutorials  # docs/build_tutorials.py: what `make docs` runs

    for name in ("JUPYTER_PATH", "PYTHONPATH", "PYTHONHASHSEED"):  # (build() sets them)
        monkeypatch.setenv(name, "")
    pages = [build_tutorials.build([TUTORIAL], tmp_path / f"run{k}")[0] for k in range(2)]
    first, second = (p.read_bytes() for p in pages)
    assert first == second
    page = first.decode("utf-8")
    assert '<table class="tapegrad-explain"' in page and "<math" in page
    assert "<script" not in page and "mathjax" not in page.lower()
    assert 'id="cell-id=07-0"' in page  # ids by position, not random
