"""A run's SWEEPS grids read from its directory: the axes (run.json's test.sweeps), each
round's point (run.json's rounds[].point) and whether it ran out of memory (the container
engine's OOMKilled in run.json, or a rank's or the launcher's log saying so)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipperf.results.compute.gridsweep import (
    Axis,
    Edge,
    SweepRound,
    axes_of,
    edges,
    oom_line,
    sweep_rounds,
)
from chipperf.results.compute.schema import CaseResult, RunSummary
from chipperf.results.read.details import read_json
from chipperf.results.read.tolerant import as_dict, as_list

LOG_TAIL_BYTES = 256 * 1024       # the end of a log, where a rank's last words are


@dataclass(frozen=True)
class CaseSweep:
    key: str
    axes: tuple[Axis, ...]
    rows: tuple[SweepRound, ...]
    edges: tuple[Edge, ...]


def read_sweeps(run_dir: Path, summary: RunSummary) -> dict[str, CaseSweep]:
    """Case dir name -> its sweep, for the cases run.json records a sweep of."""
    run = read_json(run_dir / "run.json")
    recorded = as_dict(as_dict(run.get("test")).get("sweeps"))
    listed = as_dict(run.get("cases"))
    out = {}
    for case in summary.cases:
        entry = as_dict(listed.get(case.dir_name))
        axes = axes_of(recorded.get(str(entry.get("key", case.key))))
        if axes:
            out[case.dir_name] = case_sweep(run_dir, case, entry, axes)
    return out


def case_sweep(run_dir: Path, case: CaseResult, entry: Mapping[str, Any],
               axes: tuple[Axis, ...]) -> CaseSweep:
    rounds = [as_dict(r) for r in as_list(entry.get("rounds"))]
    points = {r["number"]: as_dict(r.get("point")) for r in rounds
              if isinstance(r.get("number"), int) and r.get("point")}
    ooms: dict[int, str] = {}
    for r in rounds:
        why = round_oom(run_dir / case.dir_name / f"round{r.get('number')}", r) \
            if r.get("number") in points else None
        if why is not None:
            ooms[int(r["number"])] = why
    rows = sweep_rounds(case.rounds, points, ooms)
    return CaseSweep(case.key or case.dir_name, axes, rows, edges(rows, axes))


def round_oom(round_dir: Path, entry: Mapping[str, Any]) -> str | None:
    """Why the round is taken to have run out of memory, or None."""
    killed = [node for node, life in as_dict(entry.get("containers")).items()
              if as_dict(life).get("oom_killed")]
    if killed:
        return (f"{', '.join(sorted(killed))}: the container's memory limit was reached and the "
                "kernel killed a process in it (OOMKilled)")
    for log in sorted(round_dir.glob("*/*.log")):
        if log.name.endswith("_monitor.log"):
            continue
        line = oom_line(_tail(log).splitlines())
        if line is not None:
            return f"{log.parent.name}/{log.name}: {line}"
    return None


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - LOG_TAIL_BYTES))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
