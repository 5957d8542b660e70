"""Two programs, one rule (DESIGN.md "Layout"): the case runtime (``chipperf_runtime``) and the
case code never import the host engine (``chipperf``), at any depth of their code; the engine
never imports a framework; the runtime's package import needs only the standard library; and
this tier (tests/unit) stays pure: no framework import, no subprocess."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# what runs inside containers: the runtime and every suite's case code
CONTAINER_TREES = ("chipperf_runtime", "training/benchmarks", "inference/benchmarks",
                   "base/benchmarks", "operation/benchmarks")
FRAMEWORKS = ("torch", "torchvision", "transformers", "tensorflow", "paddle", "deepspeed",
              "diffusers", "onnxruntime", "numpy", "jax", "flax", "optax")


def imported_names(path: Path) -> set[str]:
    """The absolute module names ``path`` imports, anywhere in its code."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def top(name: str) -> str:
    return name.partition(".")[0]


def files(tree: str) -> list[Path]:
    return sorted(p for p in (REPO / tree).rglob("*.py") if "__pycache__" not in p.parts)


def test_the_runtime_and_case_code_never_import_the_engine() -> None:
    scanned = [p for tree in CONTAINER_TREES for p in files(tree)]
    offenders = [f"{p.relative_to(REPO)}: imports {n}" for p in scanned
                 for n in sorted(imported_names(p)) if top(n) == "chipperf"]
    assert len(scanned) > 250, "the scan must cover the runtime and every suite's case code"
    assert offenders == [], "the runtime never imports the engine (DESIGN.md):\n" + "\n".join(offenders)


def test_the_engine_never_imports_a_framework() -> None:
    offenders = [f"{p.relative_to(REPO)}: imports {n}" for p in files("chipperf")
                 for n in sorted(imported_names(p)) if top(n) in FRAMEWORKS]
    assert offenders == [], "\n".join(offenders)


def test_only_the_runtime_is_uploaded_into_containers() -> None:
    import chipperf_runtime
    from chipperf.plan import RUNTIME

    assert RUNTIME == Path(chipperf_runtime.__file__).resolve().parent
    assert RUNTIME.name == "chipperf_runtime" and not (RUNTIME / "plan.py").exists()


def test_importing_the_runtime_and_its_sidecar_needs_only_the_standard_library() -> None:
    """What the monitor sidecar imports in a container with no framework installed."""
    code = ("import sys, chipperf_runtime, chipperf_runtime.perflog, chipperf_runtime.monitors, "
            "chipperf_runtime.vendors; print(sorted(m for m in sys.modules if m.partition('.')[0] "
            f"in {FRAMEWORKS!r} + ('chipperf', 'docker', 'paramiko', 'yaml')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO).stdout
    assert out.strip() == "[]"


def test_the_pure_tier_imports_no_framework_and_starts_no_process() -> None:
    """tests/unit is the sub-minute loop: a test that needs torch, a framework or a child
    process belongs in tests/runtime (or cases, integration, e2e). This file's own check
    above is the one exception: it proves what a fresh process imports."""
    here = Path(__file__).resolve()
    offenders = []
    for path in files("tests/unit"):
        if path == here or "data" in path.relative_to(REPO / "tests/unit").parts:
            continue
        names = imported_names(path)
        offenders += [f"{path.relative_to(REPO)}: imports {n}" for n in sorted(names)
                      if top(n) in FRAMEWORKS or top(n) == "subprocess"]
    assert offenders == [], "move these to tests/runtime:\n" + "\n".join(offenders)



# Blocks the frameworks in a fresh interpreter: importing one raises, naming it.
_BLOCKER = """
import importlib, importlib.abc, json, sys
BLOCKED = set(sys.argv[1].split(","))
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"framework {name} blocked")
        return None
sys.meta_path.insert(0, Blocker())
failed = {}
for module in sys.argv[2:]:
    try:
        importlib.import_module(module)
    except Exception as e:
        failed[module] = f"{type(e).__name__}: {e}"
print(json.dumps(failed))
"""


def is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def runtime_modules_the_engine_imports() -> list[str]:
    """Every chipperf_runtime module an engine module imports, at any depth of its code
    (``from chipperf_runtime.x import y`` names module ``x.y`` when y is one)."""
    found: set[str] = set()
    for path in files("chipperf"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and top(node.module) == "chipperf_runtime":
                subs = [f"{node.module}.{a.name}" for a in node.names]
                found.update(s for s in subs if is_module(s))
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if top(a.name) == "chipperf_runtime")
    return sorted(found)


def test_the_runtime_modules_the_engine_imports_stay_framework_free() -> None:
    """The engine imports runtime modules for the rules they hold (vendors, PerfLog, config
    rules, the workload, the sidecar's command line); the master host has no framework, so each
    of them imports with every framework blocked."""
    modules = runtime_modules_the_engine_imports()
    assert {"chipperf_runtime.perflog", "chipperf_runtime.vendors",
            "chipperf_runtime.workload", "chipperf_runtime.monitors.command"} <= set(modules)
    out = subprocess.run([sys.executable, "-c", _BLOCKER, ",".join(FRAMEWORKS), *modules],
                         capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert json.loads(out) == {}, f"these runtime modules need a framework: {out}"
