"""`make docs`: every tutorial run as a notebook and written as an HTML page under docs/tutorials/.

Each tutorials/NN_*.py is converted by jupytext, executed cell by cell in tutorials/ (as a reader's
notebook would be), and rendered by nbconvert's "basic" template into a small page of our own: the
drawn tapes are inline SVG, the explain tables HTML with their formulas as MathML, which the browser
typesets itself: the pages load no script and need no network. Cells have fixed ids and the
tutorials seed their random numbers, so building twice writes the same bytes.
Usage: python docs/build_tutorials.py [--out DIR] [NAME.py ...]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import jupytext
import nbclient
from nbconvert import HTMLExporter
from pygments.formatters import HtmlFormatter

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "tutorials"

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · tapegrad tutorials</title>
<style>
body {{ font-family: Helvetica, Arial, sans-serif; max-width: 1200px; margin: 2em auto;
  padding: 0 1em; color: #222; line-height: 1.45; }}
nav {{ font-size: 14px; margin-bottom: 1em; }}
.cell {{ margin: 0.6em 0; }}
.prompt, .anchor-link {{ display: none; }}
.input_area, .highlight {{ background: #f6f8fa; border-radius: 4px; }}
.highlight pre {{ margin: 0; padding: 0.6em 0.8em; overflow-x: auto; font-size: 13px; }}
.output_subarea {{ overflow-x: auto; margin: 0.3em 0 0.3em 0.8em; }}
.output_subarea pre {{ margin: 0; font-size: 13px; }}
.output_svg svg, .output_svg img, .output_png img {{ max-width: 100%; height: auto; }}
code {{ font-size: 90%; }}
.output_subarea {{ overflow-y: hidden; }}
{pygments}
</style></head>
<body><nav><a href="index.html">tapegrad tutorials</a> · {links}</nav>
{body}
</body></html>
"""


def kernel_dir() -> str:
    """A Jupyter data directory whose `python3` kernel is this very interpreter."""
    root = Path(tempfile.mkdtemp(prefix="tapegrad-docs-"))
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"})
    )
    return str(root)


def merge_streams(nb: object) -> None:
    """Printed output as one block per cell and stream: the kernel flushes it in pieces whose
    boundaries depend on timing, which would make every build differ."""
    for cell in nb.cells:  # type: ignore[attr-defined]
        merged: list = []
        for out in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if last is not None and out.output_type == last.output_type == "stream":
                if out.name == last.name:
                    last.text += out.text
                    continue
            merged.append(out)
        if "outputs" in cell:
            cell.outputs = merged


def title_of(nb: object) -> str:
    for cell in nb.cells:  # type: ignore[attr-defined]
        if cell.cell_type == "markdown":
            m = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if m:
                return m.group(1).replace("`", "")
    return "tutorial"


def build(names: list, out: Path) -> list:
    os.environ["JUPYTER_PATH"] = kernel_dir()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    os.environ["PYTHONHASHSEED"] = "0"  # the kernels' set and dict orders, the same every run
    exporter = HTMLExporter(template_name="basic")
    pygments = HtmlFormatter().get_style_defs(".highlight")
    pages = []
    for name in names:
        nb = jupytext.read(TUTORIALS / name)
        for k, cell in enumerate(nb.cells):  # (jupytext draws random ids: a page would change)
            cell.id = f"{Path(name).stem[:2]}-{k}"
        nbclient.NotebookClient(
            nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(TUTORIALS)}}
        ).execute()
        merge_streams(nb)
        body, _ = exporter.from_notebook_node(nb)
        pages.append((Path(name).with_suffix(".html").name, title_of(nb), body))
        print(f"ran {name}")
    out.mkdir(parents=True, exist_ok=True)
    links = " · ".join(f'<a href="{p}">{html.escape(p[:2])}</a>' for p, _, _ in pages)
    for page, title, body in pages:
        text = PAGE.format(title=html.escape(title), pygments=pygments, links=links, body=body)
        (out / page).write_text(text, encoding="utf-8")
        print(f"wrote {out / page} ({len(text) // 1024} KiB)")
    items = "\n".join(f'<li><a href="{p}">{html.escape(t)}</a></li>' for p, t, _ in pages)
    index = PAGE.format(
        title="tapegrad tutorials",
        pygments="",
        links=links,
        body="<h1>tapegrad tutorials</h1>\n<p>Each page is a tutorial from "
        f"<code>tutorials/</code>, run as a notebook.</p>\n<ol>\n{items}\n</ol>",
    )
    (out / "index.html").write_text(index, encoding="utf-8")
    return [out / p for p, _, _ in pages]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="tutorial files (default: every NN_*.py)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "tutorials")
    args = parser.parse_args()
    names = args.names or sorted(p.name for p in TUTORIALS.glob("[0-9][0-9]_*.py"))
    build(names, args.out)


if __name__ == "__main__":
    main()
