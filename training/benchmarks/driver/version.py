"""The version of a case's code: a digest of its source files, for the workload fingerprint.

``code_digest(case_dir)`` hashes every source file of the case's directory, of this driver and
of each sibling package under the benchmarks folder that the case's files import (``imagecls``,
``textlm``...): two runs whose digests agree ran the same case code. Compiled caches, data and
vendor configs (their settings are in SUBMIT_INFO's config) are left out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".txt", ".sh")
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.M)


def code_digest(case_dir: Path) -> str:
    """'sha256:<16 hex>' over the case's, the driver's and the imported siblings' sources."""
    case_dir = Path(case_dir).resolve()
    root = Path(__file__).resolve().parent.parent          # the benchmarks folder
    folders = [case_dir, Path(__file__).resolve().parent, *_siblings(case_dir, root)]
    digest = hashlib.sha256()
    for path in sorted({p for folder in folders for p in _sources(folder)}):
        digest.update(str(path.relative_to(root) if path.is_relative_to(root) else path.name)
                      .encode())
        digest.update(b"\0" + path.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()[:16]}"


def _sources(folder: Path) -> Iterable[Path]:
    return (p for p in folder.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES
            and "__pycache__" not in p.parts)


def _siblings(case_dir: Path, root: Path) -> list[Path]:
    names = {m for p in case_dir.rglob("*.py") if "__pycache__" not in p.parts
             for m in _IMPORT.findall(p.read_text(encoding="utf-8", errors="replace"))}
    return [root / n for n in sorted(names) if (root / n / "__init__.py").is_file()
            and root / n != case_dir]
