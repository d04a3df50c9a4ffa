"""`make docs`, second half: the README's pictures, made from the README's own code.

The README's "Teaching in a notebook" block is run as written; its drawing becomes docs/tape.svg,
and its explain table docs/explain_table.png (headless Chromium, cropped to the table). The same
code, as a notebook exported by `jupyter nbconvert --to html` and opened with no network at all,
becomes docs/explain_offline.png: the math is typeset by the browser, with no MathJax.
docs/pictures.json keeps the SHA-256 of the DOT text and of the table's HTML the pictures show;
tests/test_readme.py recomputes them from the README, so a stale picture fails the tests.
Usage: python docs/readme_pictures.py   (Graphviz's `dot` and `chromium` needed; nbconvert for
the offline picture)
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
RECORD = DOCS / "pictures.json"
TABLE = "table.tapegrad-explain"  # the CSS selector of an explain table
MARGIN = 6  # CSS pixels of page kept around the table in a picture


def teaching_block() -> str:
    """The README's code block that draws a tape and explains it."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if "tg.viz.draw(" in b and "tg.explain(" in b and "drawing" in b]
    if len(found) != 1:
        raise RuntimeError("README.md must have one code block with `drawing = tg.viz.draw(...)`")
    return found[0]


def sources() -> dict:
    """What the README's block makes: the drawing's DOT text and the explain table's HTML."""
    sys.path.insert(0, str(ROOT))
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):  # (the block prints a formula)
        exec(compile(teaching_block(), "README.md", "exec"), namespace)
    return {"dot": namespace["drawing"].source, "html": namespace["steps"]._repr_html_()}


def digests(made: dict) -> dict:
    """{picture: SHA-256 of what it shows}; a picture is current when these match."""

    def sha(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    return {
        "tape.svg": sha(made["dot"]),
        "explain_table.png": sha(made["html"]),
        "explain_offline.png": sha(made["html"]),
    }


def _photograph(url: str, out: Path, offline: bool = True) -> None:
    """The explain table on the page at `url`, cropped, as a PNG (twice the CSS resolution)."""
    import chromium

    with chromium.Browser(1400, 900, scale=2) as browser:
        browser.open(url, offline=offline)
        box = browser.evaluate(
            f"(() => {{ const r = document.querySelector({TABLE!r}).getBoundingClientRect();"
            " return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; })()"
        )
        clip = {
            "x": max(0, box[0] - MARGIN),
            "y": max(0, box[1] - MARGIN),
            "width": box[2] + 2 * MARGIN,
            "height": box[3] + 2 * MARGIN,
        }
        out.write_bytes(browser.screenshot(clip))


def _offline_notebook(work: Path, out: Path) -> None:
    """The README's block as a notebook, exported by nbconvert, photographed offline."""
    import nbformat

    from build_tutorials import kernel_dir

    new_cell = nbformat.v4.new_code_cell
    cells = [new_cell(teaching_block().strip()), new_cell("steps")]
    for k, cell in enumerate(cells):
        cell.id = f"readme-{k}"  # (stable ids: the same notebook every time)
    notebook = work / "explain.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), notebook)
    env = {"JUPYTER_PATH": kernel_dir(), "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-m", "nbconvert", "--to", "html", "--execute", str(notebook)]
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, **env})
    _photograph((work / "explain.html").as_uri(), out)


def main() -> None:
    sys.path.insert(0, str(DOCS))
    import chromium

    import tapegrad as tg

    made = sources()
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    new = digests(made)
    try:
        tg.viz.Drawing(made["dot"]).save(DOCS / "tape.svg")
        record["tape.svg"] = new["tape.svg"]
        print("wrote docs/tape.svg")
    except tg.viz.GraphvizNotAvailable as error:  # (tests/test_readme.py says when it is stale)
        print(f"docs/tape.svg not redrawn: {error}")
    if chromium.find() is None:
        print("docs/explain_table.png and explain_offline.png not redrawn: no chromium program")
        print("(apt-get install chromium); tests/test_readme.py says when they are stale")
    else:
        with tempfile.TemporaryDirectory() as tmp:
            page = Path(tmp) / "table.html"
            page.write_text(
                f'<!DOCTYPE html><meta charset="utf-8"><body style="margin: 8px">'
                f"{made['html']}</body>",
                encoding="utf-8",
            )
            _photograph(page.as_uri(), DOCS / "explain_table.png")
            record["explain_table.png"] = new["explain_table.png"]
            print("wrote docs/explain_table.png")
            _offline_notebook(Path(tmp), DOCS / "explain_offline.png")
            record["explain_offline.png"] = new["explain_offline.png"]
            print("wrote docs/explain_offline.png")
    RECORD.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
