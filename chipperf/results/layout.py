"""The result-directory contract (see docs/results.md)::

    <root>/run<YYYYmmddHHMMSS>/
      run.log  run.json  summary.json  summary.csv  report.html
      <case dir>/result.json
      <case dir>/round<N>/<host>_noderank<K>/
          rank<R>.out.log  launcher.log  status  sys_info.json  *_monitor.log

Files are written atomically (temp file + rename); a run never reuses another
run's directory.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

STATUSES = ("starting", "running", "succeeded", "failed", "timeout", "canceled")
FINAL_STATUSES = ("succeeded", "failed", "timeout", "canceled")


def atomic_write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, 0o644)  # mkstemp makes 0600; results are meant to be read by others
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, value: Any) -> None:
    atomic_write(path, json.dumps(value, indent=2, sort_keys=False, default=str) + "\n")


def write_status(node_dir: Path, status: str, reason: str = "") -> None:
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    atomic_write(node_dir / "status", status + (f"\n{reason}\n" if reason else "\n"))


def read_status(node_dir: Path) -> tuple[str | None, str]:
    try:
        lines = (node_dir / "status").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None, "no status file"
    return (lines[0].strip() if lines else None), "\n".join(lines[1:]).strip()


def fallback_dirs() -> list[Path]:
    """Where a run's record (run.json) goes when its result root cannot take it (full,
    read-only, gone), in the order tried: the user's state dir, then the temp dir."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return [Path(state) / "chipperf" / "runs", Path(tempfile.gettempdir()) / "chipperf-runs"]


def fallback_record(run_id: str) -> Path | None:
    """The fallback copy of run ``run_id``'s record, when there is one: newer than the run
    dir's run.json, which it replaces as soon as the result root takes it."""
    return next((p for d in fallback_dirs() if (p := d / f"{run_id}.run.json").is_file()), None)


def new_run_id(now: datetime) -> str:
    return f"run{now:%Y%m%d%H%M%S}"


def create_run_dir(root: Path, run_id: str) -> tuple[str, Path]:
    """Make the run's directory; if that name is taken, suffix it (never reuse one)."""
    root.mkdir(parents=True, exist_ok=True)
    for attempt in range(1000):
        name = run_id if attempt == 0 else f"{run_id}_{attempt}"
        try:
            (root / name).mkdir()
            return name, root / name
        except FileExistsError:
            continue
    raise FileExistsError(f"{root}: could not create a fresh run directory for {run_id}")
