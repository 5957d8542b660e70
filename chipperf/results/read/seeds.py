"""Convergence over seeds of a result directory's training cases (compute/convergence.py):
each round's seed and steps to target, read from global rank 0's log, and their olympic
statistics per case.

    python -m chipperf.results.read.seeds RUN_DIR [--figure steps|samples] [--json]

Exit status 0; 2 when RUN_DIR is not a directory. docs/results.md "Convergence over seeds".
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from chipperf.results.compute.convergence import (
    ConvergenceStats,
    RoundConvergence,
    converge_stats,
    round_convergence,
)
from chipperf.results.read.samples import read_lines
from chipperf_runtime.perflog import Event, iter_records


def rank0_events(round_dir: Path) -> list[Event]:
    """Global rank 0's events: rank0.out.log of the lowest node rank's dir."""
    logs = sorted(round_dir.glob("*_noderank*/rank0.out.log"),
                  key=lambda p: _node_rank(p.parent.name))
    if not logs:
        return []
    lines = (text for _, text, _ in read_lines(logs[0]))
    return [event for event, _ in iter_records(lines) if event is not None]


def case_rounds(case_dir: Path) -> list[RoundConvergence]:
    numbered = [(int(d.name[5:]), d) for d in case_dir.glob("round*") if d.name[5:].isdigit()]
    return [round_convergence(n, rank0_events(d)) for n, d in sorted(numbered)]


def run_convergence(run_dir: Path, figure: str = "steps") -> dict[str, ConvergenceStats]:
    """Per case dir that has rounds with a SUBMIT_INFO (a training case), its statistics."""
    out = {}
    for case_dir in sorted(p for p in run_dir.iterdir() if p.is_dir()):
        rounds = case_rounds(case_dir)
        if rounds and any(r.seed is not None or r.converged for r in rounds):
            out[case_dir.name] = converge_stats(rounds, figure)
    return out


def render(name: str, stats: ConvergenceStats) -> str:
    per_round = ", ".join(f"seed {s}: {_figure(v)}" for s, v in zip(stats.seeds, stats.values))
    lines = [f"{name}: {stats.figure} to target over {stats.runs} round(s), "
             f"{stats.converged} converged; {per_round}",
             f"  olympic mean {_figure(stats.olympic_mean)}, mean {_figure(stats.mean)}, "
             f"stdev {_figure(stats.stdev)}, min {_figure(stats.min)}, max {_figure(stats.max)}, "
             f"dropped rounds {list(stats.outliers)}, valid set: {stats.valid}"]
    return "\n".join(lines + [f"  note: {n}" for n in stats.notes])


def _figure(value: float | None) -> str:
    if value is None:
        return "-"
    return "not converged" if math.isinf(value) else f"{value:g}"


def _node_rank(name: str) -> int:
    tail = name.rsplit("_noderank", 1)[-1]
    return int(tail) if tail.isdigit() else 1 << 30


def _jsonable(stats: ConvergenceStats) -> dict[str, Any]:
    data = asdict(stats)
    data["values"] = [v if math.isfinite(v) else None for v in stats.values]
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chipperf.results.read.seeds",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--figure", choices=("steps", "samples"), default="steps")
    parser.add_argument("--json", action="store_true", help="one JSON object per case dir")
    args = parser.parse_args(argv)
    if not args.run_dir.is_dir():
        print(f"seeds: {args.run_dir} is not a directory: pass a result directory",
              file=sys.stderr)
        return 2
    found = run_convergence(args.run_dir, args.figure)
    if args.json:
        print(json.dumps({name: _jsonable(s) for name, s in found.items()}, indent=2))
    else:
        print("\n".join(render(name, s) for name, s in found.items()) or "no training rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
