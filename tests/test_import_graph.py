"""tapegrad's modules import each other without a cycle (module-level imports, as `ast` reads
them; imports under `if TYPE_CHECKING:` and inside functions are not part of loading), and
sorting the imports of every file (ruff's isort rules) leaves `import tapegrad` working.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tapegrad"


def module_files(package: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, whether it is a package's __init__)."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def top_level_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run when the module loads: at top level, or in its ifs and trys (an
    `if TYPE_CHECKING:` block contributes only its else branch)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _type_checking_only(node):
                found += top_level_imports(node.body)
            found += top_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                found += top_level_imports(block)
            for handler in node.handlers:
                found += top_level_imports(handler.body)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports at load time. `from a import b` is an edge to
    the module a.b when b is one, else to a (a package's __init__)."""
    modules = module_files(package)
    graph = {}
    for name, (path, is_package) in modules.items():
        here = name if is_package else name.rpartition(".")[0]
        edges = set()
        for node in top_level_imports(ast.parse(path.read_text()).body):
            if isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names if alias.name in modules}
                continue
            if node.level:
                base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target in modules:
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    edges.add(sub if sub in modules else target)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None (depth-first search, no recursion)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_finder_sees_a_cycle_and_an_acyclic_graph():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_reads_relative_imports_and_skips_type_checking_blocks(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    lines = ["from typing import TYPE_CHECKING", "from . import b", "if TYPE_CHECKING:"]
    (pkg / "a.py").write_text("\n".join(lines + ["    from .c import C", ""]))
    (pkg / "b.py").write_text("from .sub import thing\n")
    (pkg / "c.py").write_text("from .a import f\n")
    (pkg / "sub" / "__init__.py").write_text("thing = 1\n")
    graph = import_graph(pkg)
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.sub"},
        "pkg.c": {"pkg.a"},
        "pkg.sub": set(),
    }


def test_tapegrad_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert "tapegrad.tensor.tensor" in graph and len(graph) > 50  # (it read the package)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_sorted_imports_still_import(tmp_path):
    # `ruff check --select I --fix` reorders every import block; loading must not depend on the
    # order of a file's imports (a cycle held together by that order would break here)
    pytest.importorskip("ruff", reason="sorts the imports with ruff")
    copy = tmp_path / "tapegrad"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "I", "--fix", "-q"]
    subprocess.run(ruff + [str(copy)], check=True, capture_output=True)
    original = {p: (PACKAGE / p.relative_to(copy)).read_text() for p in copy.rglob("*.py")}
    moved = [p for p, text in original.items() if p.read_text() != text]
    assert moved  # (there was something to sort: the check is not vacuous)
    code = "import tapegrad as tg; x = tg.tensor([1.0, 2.0], requires_grad=True); "
    code += "(x * x).sum().backward(); print(x.grad.tolist())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[2.0, 4.0]"
