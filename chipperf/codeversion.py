"""The version of a case's code: a digest of its source files, for the workload fingerprint.

``code_digest(case_dir, root)`` hashes every source file of the case's directory and of each
sibling package under ``root`` (the suite's benchmarks folder) that the case's files import
(``driver``, ``imagecls``, ``common``, ``specs``...): two runs whose digests agree ran the same
case code. Compiled caches, data and vendor configs (their settings are in SUBMIT_INFO's
config) are left out. The training driver, the inference runner and the base/operation
``BenchCase`` put it in SUBMIT_INFO as ``case_version`` (chipperf.results.compute.fingerprint).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".txt", ".sh")
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.M)


def code_digest(case_dir: Path, root: Path | None = None) -> str:
    """'sha256:<16 hex>' over the case's and its imported siblings' sources; ``root``: the
    benchmarks folder (default: the case dir's grandparent, <root>/<model>/<framework>)."""
    case_dir = Path(case_dir).resolve()
    root = Path(root).resolve() if root is not None else case_dir.parent.parent
    digest = hashlib.sha256()
    folders = [case_dir, *_siblings(case_dir, root)]
    for path in sorted({p for folder in folders for p in _sources(folder)}):
        digest.update(str(path.relative_to(root) if path.is_relative_to(root) else path.name)
                      .encode())
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


def _siblings(case_dir: Path, root: Path) -> list[Path]:
    names = {m for p in case_dir.rglob("*.py") if "__pycache__" not in p.parts
             for m in _IMPORT.findall(p.read_text(encoding="utf-8", errors="replace"))}
    return [root / n for n in sorted(names) if (root / n / "__init__.py").is_file()
            and root / n != case_dir]
