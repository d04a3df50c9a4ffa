"""The explain table's math is typeset by a real browser with no script and no network: headless
Chromium opens the table (and a notebook exported by `jupyter nbconvert --to html`) offline, and
the layout boxes say fractions stack, powers rise and case splits have rows. Needs the `chromium`
program (.ci/run installs it); skipped only where there is none."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tapegrad as tg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))
import chromium  # noqa: E402  (docs/chromium.py: the browser, driven from the standard library)

pytestmark = pytest.mark.skipif(
    chromium.find() is None, reason="no chromium program on PATH (apt-get install chromium)"
)

# Layout boxes of what a typeset formula is made of, read in the page.
MEASURE = """(() => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const pairs = tag => [...document.querySelectorAll(tag)].map(e => [...e.children].map(box));
  return {math: [...document.querySelectorAll("math")].map(box), frac: pairs("mfrac"),
          sup: pairs("msup"), rows: [...document.querySelectorAll("mtable")].map(
            t => [...t.children].map(box))};
})()"""


def _assert_typeset(layout: dict, at_least: int) -> None:
    assert len(layout["math"]) >= at_least
    for b in layout["math"]:  # every formula takes room on the page
        assert b["right"] - b["left"] > 0 and b["bottom"] - b["top"] > 0, b
    assert layout["frac"] and layout["sup"] and layout["rows"]
    for num, den in layout["frac"]:  # a fraction: numerator above denominator, one over the other
        assert num["bottom"] <= den["top"] + 0.5, (num, den)
        assert num["left"] < den["right"] and den["left"] < num["right"], (num, den)
    for base, script in layout["sup"]:  # a power: the exponent raised, right of its base
        if base["right"] > base["left"]:  # (the legend's lone ^T has an empty base)
            assert script["top"] < base["top"] and script["bottom"] < base["bottom"]
            assert script["left"] >= base["right"] - 0.5
    for rows in layout["rows"]:  # a case split: its rows one under the other
        for upper, lower in zip(rows, rows[1:]):
            assert upper["bottom"] <= lower["top"] + 0.5, (upper, lower)


def _example_table() -> str:
    x = tg.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = tg.tensor([3.0, -1.0], requires_grad=True, name="y")
    loss = (x / y + x**3 + tg.relu(y) + tg.sqrt(x)).sum()  # a fraction, powers, cases, a root
    return tg.explain(loss, show=False)._repr_html_()


def test_the_explain_table_is_typeset_offline(tmp_path: Path) -> None:
    page = tmp_path / "table.html"
    page.write_text(f'<!DOCTYPE html><meta charset="utf-8"><body>{_example_table()}</body>')
    with chromium.Browser(1400, 900) as browser:
        browser.open(page.as_uri(), offline=True)
        _assert_typeset(browser.evaluate(MEASURE), at_least=20)
        picture = browser.screenshot()
    assert picture[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "table.png").write_bytes(picture)  # (to look at, when a test here fails)


def test_the_measure_tells_math_from_plain_text(tmp_path: Path) -> None:
    """The check above is a real one: the same markup as plain HTML elements (which a browser
    without MathML would make of it: inline text) fails it."""
    markup = re.sub(r"<(/?)(m[a-z]+)", r"<\1x-\2", _example_table())  # <mfrac> -> <x-mfrac>
    page = tmp_path / "plain.html"
    page.write_text(f'<!DOCTYPE html><meta charset="utf-8"><body>{markup}</body>')
    with chromium.Browser(1400, 900) as browser:
        browser.open(page.as_uri(), offline=True)
        layout = browser.evaluate(re.sub(r'"(math|mfrac|msup|mtable)"', r'"x-\1"', MEASURE))
    assert len(layout["frac"]) > 0
    with pytest.raises(AssertionError):
        _assert_typeset(layout, at_least=20)


def test_a_notebook_exported_by_nbconvert_shows_typeset_math_offline(
    tmp_path: Path, notebook_kernel: str
) -> None:
    nbformat = pytest.importorskip("nbformat", reason="the notebook tests need the `test` extra")
    pytest.importorskip("nbconvert", reason="`jupyter nbconvert` comes with the `test` extra")
    code = (
        "import tapegrad as tg\n"
        "x = tg.tensor([1.0, 2.0], requires_grad=True, name='x')\n"
        "y = tg.tensor([3.0, -1.0], requires_grad=True, name='y')\n"
        "tg.explain((x / y + x**3 + tg.relu(y) + tg.sqrt(x)).sum(), show=False)"
    )
    notebook = tmp_path / "explain.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), notebook)
    subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "html", "--execute", str(notebook)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    exported = tmp_path / "explain.html"
    assert "<math" in exported.read_text()
    with chromium.Browser(1400, 900) as browser:
        browser.open(exported.as_uri(), offline=True)
        _assert_typeset(browser.evaluate(MEASURE), at_least=20)
        failed = browser.failed_requests()
    assert any("mathjax" in url.lower() for url in failed)  # offline indeed: MathJax never came
