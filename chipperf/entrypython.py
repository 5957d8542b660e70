"""The python an entry script (run_benchmarks/run.py, inference/run.py) continues in.

On Debian, `python3` is the system's, and ./scripts/quickstart.sh installs chipperf's
requirements into the repo's .venv (PEP 668 keeps them out of the system's python). An
entry script started by a python without them re-executes itself with .venv/bin/python, so
FlagPerf's `python3 run_benchmarks/run.py` works as written; with no .venv it stops with
what to do. Standard library only: it runs before any requirement is known to import.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REQUIREMENTS = {"paramiko": "paramiko", "docker": "docker", "yaml": "PyYAML"}


def missing_requirements() -> list[str]:
    """The requirements.txt packages this python cannot import."""
    return [pkg for module, pkg in REQUIREMENTS.items() if importlib.util.find_spec(module) is None]


def venv_python(repo: Path) -> Path | None:
    """The repo's .venv python, unless it is the one running (or there is none)."""
    venv = repo / ".venv"
    python = venv / "bin" / "python"
    if not python.is_file() or Path(sys.prefix).resolve() == venv.resolve():
        return None
    return python


def python_with_requirements(repo: Path) -> None:
    """Return when this python has the requirements; else continue in .venv's, or exit 2."""
    missing = missing_requirements()
    if not missing:
        return
    python = venv_python(repo)
    if python is not None:
        os.execv(str(python), [str(python), *sys.argv])
    sys.stderr.write(
        f"{sys.argv[0]}: this python ({sys.executable}) lacks chipperf's requirements "
        f"({', '.join(missing)}) and {repo / '.venv'} has no python: run ./scripts/quickstart.sh "
        f"from {repo} (it makes .venv), or install {repo / 'requirements.txt'} into a virtual "
        "environment and start this script with its python\n")
    raise SystemExit(2)
