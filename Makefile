# The two commands a newcomer needs: `make demo` and `make test`. Both build .venv from scratch.
# `make docs` runs every tutorial as a notebook and writes docs/tutorials/*.html (their math is
# MathML: no script, no network), then redraws the README's pictures from the README's own code
# (docs/tape.svg needs Graphviz's `dot`, the explain-table pictures `chromium`). Running it twice
# changes no file.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo test bench docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) tutorials/demo.py

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(PY) -m pytest -n auto --dist loadfile

$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) docs/build_tutorials.py
	$(PY) docs/readme_pictures.py

bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) tutorials/output
