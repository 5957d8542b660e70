"""chipperf/results/ is split by what its parts do (read/, compute/, render/) and its modules
import each other without a circle, a function-level import included (STYLE.md 18)."""

from __future__ import annotations

import ast
from pathlib import Path

import chipperf.results

ROOT = Path(chipperf.results.__file__).parent
PACKAGE = "chipperf.results"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    return ".".join((PACKAGE, *parts))


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The chipperf.results modules ``path`` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in modules}


def _graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) - {_module_name(p)} for p in paths}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_results_modules_import_without_a_circle() -> None:
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])


def test_cycle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_split_by_what_the_parts_do() -> None:
    graph = _graph()
    top = {name.split(".")[2] for name in graph if name.count(".") >= 2}
    assert {"read", "compute", "render"} <= top
    flat = [name for name in graph if name.count(".") == 2 and name.split(".")[2] not in
            ("read", "compute", "render")]
    assert len(flat) <= 6, flat      # the contract (layout), entry points, report, synthetic
    for name, imported in graph.items():
        if ".compute." in name:      # figures never depend on how they are shown
            assert not [m for m in imported if ".render" in m], name
