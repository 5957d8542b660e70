"""Renderers of a RunSummary: JSON, CSV, Markdown, console table, README table.

Every renderer reads the schema objects only. An absent figure prints as ``—``
and its reason is listed under the table (Markdown) or in a ``reasons`` column (CSV).
The README table goes between two marker lines of a case README (``RESULTS_START``,
``RESULTS_END``); ``replace_results_block`` puts it there.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from typing import Any

from chipperf.results.schema import (
    AGGREGATED,
    CaseResult,
    RoundResult,
    RunSummary,
    Stat,
    label,
)

DASH = "—"


# ---------------------------------------------------------------- number formatting


def fmt(value: Any, kind: str = "") -> str:
    """A figure as text: ``kind`` is "", "bytes", "pct", "ratio" (0..1 shown as %), "j"."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, (int, float)):
        return str(value)
    if kind == "bytes":
        return f"{value / 2**30:.2f} GiB"
    if kind == "ratio":
        return f"{value * 100:.2f}%"
    if kind == "pct":
        return f"{value:.1f}%"
    return _significant(float(value))


def _significant(value: float) -> str:
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 1e9 or magnitude < 1e-3:
        return f"{value:.4g}"
    if magnitude >= 1e5:
        return f"{value:,.0f}"
    if magnitude >= 100:
        return f"{value:,.1f}"
    return f"{value:.4g}"


def kind_of(name: str) -> str:
    if "bytes" in name:
        return "bytes"
    if name in ("mfu", "mfu_measured", "share_of_peak"):
        return "ratio"
    if name.endswith("_pct"):
        return "pct"
    return ""


def stat_text(s: Stat | None, kind: str = "") -> str:
    """'mean ± CV' (CV only with >= 2 rounds)."""
    if s is None or s.mean is None:
        return DASH
    text = fmt(s.mean, kind)
    return f"{text} ± {s.cv * 100:.1f}%" if s.cv is not None else text


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
CASE_COLUMNS = ("case", "key", "vendor", "chip", "model", "framework", "nnodes", "nproc")


def _round_figure(result: RoundResult, name: str) -> Any:
    from chipperf.results.schema import round_value

    return round_value(result, name)


def to_csv(summary: RunSummary) -> str:
    """One row per round, then one row per statistic of each case (``round`` = mean, ...)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CASE_COLUMNS, "round", *(n for n, _ in ROUND_COLUMNS), "reasons"])
    for case in summary.cases:
        ident = [case.dir_name, case.key, case.vendor, case.chip, case.model, case.framework,
                 case.nnodes, case.nproc]
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


# ---------------------------------------------------------------- tables


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)])


def console_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def _unit(case: CaseResult) -> str:
    return case.throughput_unit or "work/s"


def is_inference(summary: RunSummary) -> bool:
    """Whether the run's cases are inference cases (a run holds one suite)."""
    return summary.suite == "inference" or bool(summary.cases) and all(
        c.inference for c in summary.cases)


def hardware_lines(summary: RunSummary) -> list[str]:
    """Per vendor and chip of the run, once: has chipperf's path run on real hardware here?"""
    return list(dict.fromkeys(c.hardware_note for c in summary.cases if c.hardware_note))


def case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """The cases table (console, summary.md, report.html)."""
    if summary.suite in ("base", "operation"):
        return spec_case_rows(summary)
    return inference_case_rows(summary) if is_inference(summary) else training_case_rows(summary)


def spec_case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """base/ and operation/: the measured figure with its unit and its share of the chip's
    spec-sheet peak (or why there is none), power and energy over the timed window."""
    header = ["case", "chip", "nodes x procs", "status", "rounds counted", "value",
              "share of spec peak", "avg W/chip", "energy (J)"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        value = stat_text(agg.get("metric_value"))
        share = stat_text(agg.get("share_of_peak"), "ratio")
        if share == DASH:
            why = next((r.reasons.get("share_of_peak") for r in c.rounds
                        if r.reasons.get("share_of_peak")), None)
            share = f"— ({why})" if why else DASH
        rows.append([
            c.key or c.dir_name, c.chip or DASH, c.topology, c.status or DASH,
            f"{len(c.counted)}/{len(c.rounds)}",
            f"{value} {c.metric_name}" if value != DASH and c.metric_name else value, share,
            stat_text(agg.get("avg_power_w_per_chip")), stat_text(agg.get("energy_j"))])
    return header, rows


def training_case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    header = ["case", "chip", "nodes x procs", "status", "rounds counted", "throughput",
              "train time (s)", "metric (target)", "MFU", "avg W/chip", "energy (J)", "work/J"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        rows.append([
            c.key or c.dir_name, c.chip or DASH, c.topology, c.status or DASH,
            f"{len(c.counted)}/{len(c.rounds)}",
            _throughput_text(c), stat_text(agg.get("train_time_s")), _metric_text(c),
            _mfu_text(c),
            stat_text(agg.get("avg_power_w_per_chip")), stat_text(agg.get("energy_j")),
            stat_text(agg.get("work_per_joule"))])
    return header, rows


def inference_case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """Inference: engine and precision, throughput, p99 latency, accuracy and deviation
    from the reference instead of train-time columns."""
    header = ["case", "chip", "engine", "precision", "status", "rounds counted", "throughput",
              "p99 latency (ms)", "metric (target)", "max |diff| vs reference", "MFU",
              "energy/item (J)"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        rows.append([
            c.key or c.dir_name, c.chip or DASH, c.engine or DASH, c.precision or DASH,
            c.status or DASH, f"{len(c.counted)}/{len(c.rounds)}", _throughput_text(c),
            stat_text(agg.get("latency_p99_ms")), _metric_text(c), reference_text(c),
            _mfu_text(c), stat_text(agg.get("energy_per_item_j"))])
    return header, rows


def reference_text(case: CaseResult) -> str:
    """The largest deviation from the reference over the rounds and how many rounds were
    within their bound, e.g. '3.2e-05 (1/1 within bound)'."""
    refs = [r.reference for r in case.rounds if r.reference is not None]
    diffs = [x.max_abs_diff for x in refs if x.max_abs_diff is not None]
    if not diffs:
        return DASH
    within = sum(1 for x in refs if x.within_bound)
    return f"{fmt(max(diffs))} ({within}/{len(case.rounds)} within bound)"


def _mfu_text(case: CaseResult) -> str:
    text = stat_text(case.aggregate.get("mfu"), "ratio")
    return f"{text} ({case.mfu_dtype})" if text != DASH and case.mfu_dtype else text


def _throughput_text(case: CaseResult) -> str:
    text = stat_text(case.aggregate.get("throughput_raw"))
    return f"{text} {_unit(case)}" if text != DASH else DASH


def _metric_text(case: CaseResult) -> str:
    value = stat_text(case.aggregate.get("metric_value"))
    name = case.metric_name or "metric"
    target = f" (target {fmt(case.metric_target)})" if case.metric_target is not None else ""
    return f"{name} {value}{target}" if value != DASH else DASH


def console(summary: RunSummary) -> str:
    header, rows = case_rows(summary)
    head = f"run {summary.run_id} ({summary.source}, status {summary.status or 'unknown'})"
    body = console_table(header, rows) if rows else "(no cases)"
    body += "".join(f"\n{c.key or c.dir_name}: round {e.round} not counted: {e.why}"
                    for c in summary.cases for e in c.excluded)
    tail = [f"{len(summary.problems) + sum(_problem_count(c) for c in summary.cases)} problem(s); "
            "see summary.md"] if _has_problems(summary) else []
    return "\n".join([head, body, *tail]) + "\n"


def _problem_count(case: CaseResult) -> int:
    return len(case.problems) + sum(len(r.problems) for r in case.rounds)


def _has_problems(summary: RunSummary) -> bool:
    return bool(summary.problems) or any(_problem_count(c) for c in summary.cases)


def readme_table(summary: RunSummary) -> str:
    """The results table of a case README (``replace_results_block`` puts it between the
    README's markers): one row per case, means over the counted rounds (± coefficient of
    variation), then why each absent figure is absent and which rounds were not counted."""
    header, rows = (inference_readme_rows if is_inference(summary) else training_readme_rows)(
        summary)
    source = f"chipperf {summary.chipperf_version or ''}".strip()
    absent = _readme_absent(summary)
    where = "reasons below, and in the run's summary.md" if absent else \
        "reasons in the run's summary.md"
    note = (f"\nMeasured by {source}, run `{summary.run_id}`; figures are means over the "
            f"counted rounds ± coefficient of variation; — means not measured ({where}).\n")
    excluded = "".join(f"\n- {c.key or c.dir_name}: round {e.round} not counted: {e.why}"
                       for c in summary.cases for e in c.excluded)
    return (table(header, rows) + "\n" + note + absent + ("\n" if absent else "") + excluded
            + ("\n" if excluded else ""))


# The figures each README table shows: absent ones are listed with their reason under it.
README_FIGURES = {
    "training": ("e2e_time_s", "train_time_s", "throughput_raw", "metric_value", "mfu",
                 "peak_accel_memory_bytes", "avg_power_w_per_chip", "work_per_joule"),
    "inference": ("throughput_raw", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms",
                  "metric_value", "reference_max_abs_diff", "mfu", "peak_memory_bytes",
                  "peak_accel_memory_bytes", "energy_per_item_j"),
}


def _readme_absent(summary: RunSummary) -> str:
    """'- <figure> not measured (<cases>): <why>' for each README column a case lacks; cases
    with the same reason share a line."""
    from chipperf.results.markdown import absent_reasons  # markdown imports this module

    figures = README_FIGURES["inference" if is_inference(summary) else "training"]
    lacking: dict[tuple[str, str], list[str]] = {}
    for c in summary.cases:
        shown = {label(n, c.suite) for n in figures}
        for name, why in absent_reasons(c):
            if name in shown:
                lacking.setdefault((name, why), []).append(c.key or c.dir_name)
    return "".join(f"\n- {name} not measured ({', '.join(cases)}): {why}"
                   for (name, why), cases in lacking.items())


def inference_readme_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    header = ["model", "chip", "engine", "precision", "rounds (counted/total)", "throughput",
              "latency p50 (ms)", "latency p90 (ms)", "latency p99 (ms)", "final metric",
              "converged", "max |diff| vs reference", "MFU", "peak memory (framework)",
              "peak accel memory", "energy/item (J)"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        converged = sum(1 for r in c.rounds if r.converged)
        rows.append([
            c.model or c.dir_name, c.chip or DASH, c.engine or DASH, c.precision or DASH,
            f"{len(c.counted)}/{len(c.rounds)}", _throughput_text(c),
            *(stat_text(agg.get(f"latency_{p}_ms")) for p in ("p50", "p90", "p99")),
            _metric_text(c), f"{converged}/{len(c.rounds)}", reference_text(c), _mfu_text(c),
            stat_text(agg.get("peak_memory_bytes"), "bytes"),
            stat_text(agg.get("peak_accel_memory_bytes"), "bytes"),
            stat_text(agg.get("energy_per_item_j"))])
    return header, rows


def training_readme_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    header = ["config", "nodes x procs", "rounds (counted/total)", "e2e time (s)",
              "train time (s)", "throughput", "final metric", "converged", "MFU",
              "peak accel memory", "avg power/chip (W)", "work/J"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        converged = sum(1 for r in c.rounds if r.converged)
        rows.append([
            f"config_{c.chip}x{c.nnodes}x{c.nproc}" if c.chip else c.dir_name, c.topology,
            f"{len(c.counted)}/{len(c.rounds)}", stat_text(agg.get("e2e_time_s")),
            stat_text(agg.get("train_time_s")),
            _throughput_text(c), _metric_text(c),
            f"{converged}/{len(c.rounds)}",
            _mfu_text(c),
            stat_text(agg.get("peak_accel_memory_bytes"), "bytes"),
            stat_text(agg.get("avg_power_w_per_chip")), stat_text(agg.get("work_per_joule"))])
    return header, rows


# ---------------------------------------------------------------- README results block

RESULTS_START = "<!-- chipperf:results -->"
RESULTS_END = "<!-- /chipperf:results -->"


def case_matches(case: CaseResult, pattern: str) -> bool:
    """Whether ``pattern`` names the case: its model exactly, or a glob over its key
    (``bert:paddle*``) or its result-dir name (``bert-paddle_3.3-xeon-1x2``)."""
    return pattern == case.model or any(
        fnmatchcase(name, pattern) for name in (case.key, case.dir_name) if name)


def select_cases(summary: RunSummary, pattern: str) -> RunSummary:
    """The summary with only the cases ``pattern`` names (see ``case_matches``)."""
    kept = tuple(c for c in summary.cases if case_matches(c, pattern))
    return dataclasses.replace(summary, cases=kept)


def find_results_block(text: str) -> tuple[tuple[int, int] | None, list[str]]:
    """The line indices of the one start and one end marker line of ``text``, or None and
    what is wrong with the markers."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == RESULTS_START]
    ends = [i for i, line in enumerate(lines) if line.strip() == RESULTS_END]
    problems = [f"{len(found)} `{marker}` lines (expected exactly one, alone on its line)"
                for marker, found in ((RESULTS_START, starts), (RESULTS_END, ends))
                if len(found) != 1]
    if not problems and ends[0] < starts[0]:
        problems.append(f"`{RESULTS_END}` (line {ends[0] + 1}) comes before "
                        f"`{RESULTS_START}` (line {starts[0] + 1})")
    return (None, problems) if problems else ((starts[0], ends[0]), [])


def replace_results_block(text: str, block: str) -> tuple[str | None, list[str]]:
    """``text`` with the lines between its marker lines replaced by ``block`` (markers
    kept), or None and what is wrong with the markers. Replacing twice changes nothing."""
    span, problems = find_results_block(text)
    if span is None:
        return None, problems
    lines = text.splitlines(keepends=True)
    inner = block if block.endswith("\n") else block + "\n"
    return "".join([*lines[:span[0] + 1], inner, *lines[span[1]:]]), []


def results_block(text: str) -> str | None:
    """What stands between the marker lines of ``text`` (None when they are not one pair)."""
    span, _ = find_results_block(text)
    if span is None:
        return None
    return "".join(text.splitlines(keepends=True)[span[0] + 1:span[1]])
