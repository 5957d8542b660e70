"""No import circles in the engine or the runtime, at any depth: every import that runs
counts, at a module's top or inside a function (an import moved into a function to dodge a
circle still closes it). One under ``if TYPE_CHECKING:`` never runs and does not count: two
types may name each other (a Catalogue holds its Suite, a Suite scans a case root into a
Catalogue). A circle is two or more modules that reach each other through imports; the fix is
to move what both need one level down (chipperf.run.outcome, chipperf_runtime.base.bare)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("chipperf", "chipperf_runtime")
# Circles known open, each with how to open it: the test fails on any other circle, and on a
# listed one that is gone (delete its entry then), so the list only shrinks.
KNOWN_OPEN: set[tuple[str, ...]] = set()   # circles known and not yet opened (none now)


def modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (its file, whether it is a package's __init__)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _run_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (its else branch runs)."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if _is_type_checking(node):
            todo.extend(node.orelse)   # type: ignore[attr-defined]
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def _imported(node: ast.AST, package: str, known: dict[str, tuple[Path, bool]]) -> list[str]:
    """The module names one import statement names (``from a import b``: a.b when b is a
    module, else a); relative imports resolved against ``package``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        parent = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parent + ([node.module] if node.module else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of chipperf and chipperf_runtime it imports anywhere in its code
    (a name inside a module counts as that module)."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, (path, is_package) in known.items():
        package = name if is_package else name.rpartition(".")[0]
        for node in _run_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _imported(node, package, known):
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def a_circle(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One closed path through ``group``, to show: from its first module back to it."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                return paths[node] + [start]
            if child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    return group


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    assert len(graph) > 300, "the scan must cover the engine and the runtime"
    # base/__init__ imports its spec modules inside _registry()
    assert "chipperf_runtime.base.gemm" in graph["chipperf_runtime.base"]


def test_imports_only_the_type_checker_reads_do_not_count() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\n"
                     "else:\n    import b\ndef f():\n    import c\n")
    names = {alias.name for node in _run_nodes(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    assert names == {"b", "c"}


def test_the_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert a_circle(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


def test_no_import_cycles_at_any_depth() -> None:
    graph = import_graph()
    found = cycles(graph)
    new = [group for group in found if tuple(group) not in KNOWN_OPEN]
    shown = "\n".join(" -> ".join(a_circle(group, graph)) for group in new)
    assert new == [], (f"{len(new)} import circle(s); move what both sides need one level "
                       f"down:\n{shown}")
    gone = KNOWN_OPEN - {tuple(group) for group in found}
    assert not gone, f"open now, delete from KNOWN_OPEN: {sorted(gone)}"
