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

from chipperf.results.compute.headline import case_marks
from chipperf.results.compute.schema import (
    AGGREGATED,
    CaseResult,
    RoundResult,
    RunSummary,
    figures_for,
    round_value,
)
from chipperf.suites import suite_of

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
    ("attention_flops_per_unit", lambda r: r.attention_flops_per_unit),
    ("causal_attention", lambda r: r.causal_attention),
    ("chips", lambda r: r.chips),
    ("engine", lambda r: r.engine),
    ("precision", lambda r: r.precision),
    ("latency_count", lambda r: r.latency_ms.count if r.latency_ms else None),
    ("reference_bound", lambda r: r.reference.bound if r.reference else None),
    ("within_bound", lambda r: r.reference.within_bound if r.reference else None),
    ("window_work", lambda r: r.window_work),
)
CASE_COLUMNS = ("case", "key", "vendor", "chip", "chip_model", "model", "framework", "nnodes",
                "nproc", "preset", "marks")


# Column names that differ by suite (the same names as the other outputs' labels): inference's
# whole / core throughput and timed window; base/ and operation/'s value in its unit.
CSV_NAMES = {
    "inference": {"converged": "passed", "throughput_raw": "throughput_whole",
                  "throughput_pure_compute": "throughput_core", "train_time_s": "window_s",
                  "metric_value": "quality_metric"},
    "spec": {"converged": "correct", "metric_value": "value", "metric_name": "unit",
             "train_time_s": "window_s", "throughput_unit": "work_unit_per_s"},
}


def _round_figure(result: RoundResult, name: str) -> Any:
    return round_value(result, name)


def csv_columns(suite: str | None) -> list[tuple[str, str, Callable[[RoundResult], Any]]]:
    """(schema name, column name, getter) of a ``suite`` run's CSV: training keeps every
    column; the other suites leave out the figures they do not report and name the rest as
    their pages do."""
    measures = suite_of(suite)
    shown = set(figures_for(suite))
    names = CSV_NAMES.get(measures.result_kind, {})
    return [(n, names.get(n, n), _correct if measures.measures_spec and n == "converged" else get)
            for n, get in ROUND_COLUMNS
            if measures.trains or n not in AGGREGATED or n in shown]


def _correct(result: RoundResult) -> bool | None:
    """base/ and operation/: the operator's check against float64 where it ran one."""
    return result.correct if result.correct is not None else result.converged


def to_csv(summary: RunSummary) -> str:
    """One row per round, then one row per statistic of each case (``round`` = mean, ...)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = csv_columns(summary.suite)
    writer.writerow([*CASE_COLUMNS, "round", *(c for _, c, _ in columns), "reasons"])
    for case in summary.cases:
        ident = [case.dir_name, case.key, case.vendor, case.chip, case.chip_model, case.model,
                 case.framework,
                 case.nnodes, case.nproc,
                 f"{case.preset}: {case.preset_detail}" if case.preset else "",
                 "; ".join(case_marks(case))]
        for r in case.rounds:
            reasons = "; ".join(f"{k}: {v}" for k, v in r.reasons.items())
            writer.writerow([*ident, r.number, *(_cell(get(r)) for _, _, get in columns),
                             reasons])
        for stat_name in ("mean", "median", "min", "max", "cv", "olympic_mean"):
            row = [_cell(getattr(case.aggregate.get(n), stat_name, None)) if n in AGGREGATED
                   else "" for n, _, _ in columns]
            writer.writerow([*ident, stat_name, *row, ""])
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    return "" if value is None else value
