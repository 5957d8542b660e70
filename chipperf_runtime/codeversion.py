"""The version of a case's code: a digest of its source files, for the workload fingerprint.

``code_digest(case_dir, root)`` hashes every source file of the case's directory and of each
sibling package under ``root`` (the suite's benchmarks folder) that the case's files import
(``driver``, ``imagecls``, ``common``, ``specs``...), and each module of chipperf's own that
defines a workload (``WORKLOAD_MODULES``: a model such as ``chipperf_runtime.models.resnet``, the
tokenizer) that those files import, directly or through another such module: two runs whose
digests agree ran the same case code. The harness modules (perflog, device, timing) are left
out, as are compiled caches, data and vendor configs (their settings are in SUBMIT_INFO's
config). The training driver, the inference runner and the base/operation ``BenchCase`` put
it in SUBMIT_INFO as ``case_version`` (the engine's workload fingerprint).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".txt", ".sh")
_DOTTED_IMPORT = re.compile(r"^\s*(?:from|import)\s+(chipperf_runtime(?:\.\w+)+)", re.M)
# the runtime's modules that define what a case computes (suites' case code, models, tokenizer)
WORKLOAD_MODULES = ("chipperf_runtime.training", "chipperf_runtime.inference", "chipperf_runtime.base",
                    "chipperf_runtime.operation", "chipperf_runtime.models", "chipperf_runtime.wordpiece")
PACKAGE = Path(__file__).resolve().parent


def code_digest(case_dir: Path, package: Path = PACKAGE) -> str:
    """'sha256:<16 hex>' over the case's sources and the workload modules of ``package``
    (the runtime) they import, directly or not."""
    case_dir = Path(case_dir).resolve()
    files = {p: p.relative_to(case_dir).as_posix() for p in _sources(case_dir)}
    files.update({p: p.relative_to(package.parent).as_posix()
                  for p in _workload_sources(files, package)})
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(files[path].encode())
        digest.update(b"\0" + path.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()[:16]}"


def script_digest() -> str | None:
    """``code_digest`` of the folder of the case script this process runs: a script at
    ``<suite>/benchmarks/<case>/<framework>/``; None for any other (a test runner, a shell)."""
    script = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    if script is None or not script.is_file() or script.parent.parent.parent.name != "benchmarks":
        return None
    return code_digest(script.parent)


def _sources(folder: Path) -> Iterable[Path]:
    return (p for p in folder.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES
            and "__pycache__" not in p.parts)


def _workload_sources(files: Iterable[Path], package: Path) -> list[Path]:
    """The files of the ``WORKLOAD_MODULES`` that ``files`` import, and those that these
    import in turn (a model built through ``chipperf_runtime.models.tvision`` imports it)."""
    found: list[Path] = []
    todo = [p for p in files if p.suffix == ".py"]
    while todo:
        new = [f for f in _imported_workload_files(todo, package) if f not in found]
        found += new
        todo = [f for f in new if f.suffix == ".py"]
    return found


def _imported_workload_files(files: Iterable[Path], package: Path) -> list[Path]:
    """The files of the ``WORKLOAD_MODULES`` that ``files`` import (a module's file; a
    package imported by name: all of its sources)."""
    names = {m for p in files
             for m in _DOTTED_IMPORT.findall(p.read_text(encoding="utf-8", errors="replace"))}
    found: list[Path] = []
    for name in sorted(names):
        if any(name == w or name.startswith(w + ".") for w in WORKLOAD_MODULES):
            path = package.joinpath(*name.split(".")[1:])
            found += list(_sources(path)) if path.is_dir() else \
                [f for f in [path.with_suffix(".py")] if f.is_file()]
    return list(dict.fromkeys(found))
