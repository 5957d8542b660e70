"""A smoke test generated from the catalogue: every case of every suite (training, inference,
base, operation) has its entry script, parses, and each name it (or any file of its folder)
imports from the case runtime exists there, as the container's PYTHONPATH (the runtime only)
will resolve it. Pure: files are read, nothing is imported or run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
SUITES = ("training", "inference", "base", "operation")


def case_dirs() -> list[tuple[str, Path]]:
    found = []
    for suite in SUITES:
        catalogue = Catalogue.scan(REPO / suite, suite)
        found += [(suite, path) for path in catalogue.cases.values()]
    return sorted(found)


def module_file(name: str) -> Path | None:
    """The file of a dotted runtime module: <name>.py or <name>/__init__.py under the repo."""
    base = REPO.joinpath(*name.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def defined_names(path: Path) -> set[str]:
    """What a module defines at its top level (functions, classes, assignments, imports)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
            names.update(e.id for t in targets if isinstance(t, ast.Tuple)
                         for e in t.elts if isinstance(e, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
    return names


def unresolved(path: Path) -> list[str]:
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.partition(".")[0] == "chipperf_runtime":
            target = module_file(node.module)
            if target is None:
                problems.append(f"{path.relative_to(REPO)}:{node.lineno}: no module {node.module}")
                continue
            names = defined_names(target)
            problems += [f"{path.relative_to(REPO)}:{node.lineno}: {node.module} has no {a.name}"
                         for a in node.names if a.name != "*" and a.name not in names
                         and module_file(f"{node.module}.{a.name}") is None]
        elif isinstance(node, ast.Import):
            problems += [f"{path.relative_to(REPO)}:{node.lineno}: no module {a.name}"
                         for a in node.names if a.name.partition(".")[0] == "chipperf_runtime"
                         and module_file(a.name) is None]
    return problems


CASES = case_dirs()


def test_the_catalogue_has_every_suite() -> None:
    suites = {suite for suite, _ in CASES}
    assert suites == set(SUITES) and len(CASES) > 50


@pytest.mark.parametrize("suite, case", CASES, ids=[f"{s}:{p.parent.name}/{p.name}" for s, p in CASES])
def test_every_case_resolves_its_runtime_imports(suite: str, case: Path) -> None:
    entry = Catalogue.scan(REPO / suite, suite).entry
    assert (case / entry).is_file()
    problems = [p for path in sorted(case.rglob("*.py")) for p in unresolved(path)]
    assert problems == []
