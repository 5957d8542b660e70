"""summary.json, summary.csv and case.json of a RunSummary.

Every renderer reads the schema objects only. An absent figure's reason is in the CSV's
``reasons`` column.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from chipperf.results.compute.schema import AGGREGATED, CaseResult, RoundResult, RunSummary, round_value

# ---------------------------------------------------------------- JSON


def to_json(summary: RunSummary) -> str:
    return json.dumps(summary.to_dict(), indent=2, sort_keys=False) + "\n"


def case_json(case: CaseResult) -> str:
    return json.dumps(case.to_dict(), indent=2) + "\n"


# ---------------------------------------------------------------- CSV

ROUND_COLUMNS: tuple[tuple[str, Callable[[RoundResult], Any]], ...] = (
    ("status", lambda r: r.status),
    ("converged", lambda r: r.converged),
    ("throughput_unit", lambda r: r.throughput.unit if r.throughput else None),
    *((name, (lambda n: lambda r: _round_figure(r, n))(name)) for name in AGGREGATED),
    ("work_done", lambda r: r.work_done),
    ("work_unit", lambda r: r.work_unit),
    ("metric_name", lambda r: r.metric.name if r.metric else None),
    ("metric_target", lambda r: r.metric.target if r.metric else None),
    ("dtype", lambda r: r.dtype),
    ("mfu_dtype", lambda r: r.mfu_dtype),
    ("peak_flops_per_chip", lambda r: r.peak_flops_per_chip),
    ("chips", lambda r: r.chips),
    ("engine", lambda r: r.engine),
    ("precision", lambda r: r.precision),
    ("latency_count", lambda r: r.latency_ms.count if r.latency_ms else None),
    ("reference_bound", lambda r: r.reference.bound if r.reference else None),
    ("within_bound", lambda r: r.reference.within_bound if r.reference else None),
    ("window_work", lambda r: r.window_work),
)
CASE_COLUMNS = ("case", "key", "vendor", "chip", "model", "framework", "nnodes", "nproc",
                "preset")


def _round_figure(result: RoundResult, name: str) -> Any:
    return round_value(result, name)


def to_csv(summary: RunSummary) -> str:
    """One row per round, then one row per statistic of each case (``round`` = mean, ...)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CASE_COLUMNS, "round", *(n for n, _ in ROUND_COLUMNS), "reasons"])
    for case in summary.cases:
        ident = [case.dir_name, case.key, case.vendor, case.chip, case.model, case.framework,
                 case.nnodes, case.nproc,
                 f"{case.preset}: {case.preset_detail}" if case.preset else ""]
        for r in case.rounds:
            reasons = "; ".join(f"{k}: {v}" for k, v in r.reasons.items())
            writer.writerow([*ident, r.number, *(_cell(get(r)) for _, get in ROUND_COLUMNS),
                             reasons])
        for stat_name in ("mean", "median", "min", "max", "cv", "olympic_mean"):
            row = [_cell(getattr(case.aggregate.get(n), stat_name, None)) if n in AGGREGATED
                   else "" for n, _ in ROUND_COLUMNS]
            writer.writerow([*ident, stat_name, *row, ""])
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    return "" if value is None else value
