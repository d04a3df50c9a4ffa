"""The core path stays readable: no function in record, node, plan, engine or registry above
cyclomatic complexity 15, counted as radon counts it (every if, loop, except, comprehension and
boolean operator is a decision). ruff's C901 (pyproject.toml) checks the same files, but leaves
boolean operators out: a function full of `and`/`or` passes it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "tapegrad"
CORE = [
    "tensor/record.py",
    "tape/node.py",
    "tape/plan.py",
    "tape/engine.py",
    "primitives/registry.py",
    "primitives/rule_text.py",
]
MAX_COMPLEXITY = 15


def complexity(function: ast.FunctionDef) -> int:
    """1 + the decisions in a function's own body (nested functions count on their own)."""
    decisions = 0
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.If, ast.IfExp, ast.Assert)):
            decisions += 1
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            decisions += 1 + bool(node.orelse)
        elif isinstance(node, ast.Try):
            decisions += len(node.handlers) + bool(node.orelse)
        elif isinstance(node, ast.BoolOp):
            decisions += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            decisions += 1 + len(node.ifs)
        stack.extend(ast.iter_child_nodes(node))
    return 1 + decisions


def functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((f"{path.name}:{node.lineno} {node.name}", complexity(node)))
    return found


@pytest.mark.parametrize("module", CORE)
def test_no_core_function_above_complexity_15(module):
    too_complex = [(f, c) for f, c in functions(ROOT / module) if c > MAX_COMPLEXITY]
    assert not too_complex, f"split these by what they do (complexity > 15): {too_complex}"


def test_the_count_is_radons():
    source = (
        "def f(xs, a, b):\n"
        "    for x in xs:\n"  # 1
        "        if x and a or b:\n"  # 1 + 2
        "            return [y for y in xs if y]\n"  # 2
        "    try:\n"
        "        pass\n"
        "    except ValueError:\n"  # 1
        "        pass\n"
        "    return a if b else None\n"  # 1
    )
    (function,) = ast.parse(source).body
    assert complexity(function) == 1 + 1 + 3 + 2 + 1 + 1  # (radon cc: F 1:0 f - B (9))
