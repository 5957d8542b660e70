"""The results table of a case README, and the marker lines it goes between.

``readme_table`` renders it; ``replace_results_block`` puts it between ``RESULTS_START`` and
``RESULTS_END`` of a README; ``select_cases`` picks the cases a ``--case`` pattern names.
"""

from __future__ import annotations

import dataclasses
from fnmatch import fnmatchcase

from chipperf.results.compute.schema import CORE, SYNTHETIC_LABEL, WHOLE, CaseResult, RunSummary, label
from chipperf.results.render.console import (
    is_inference,
    marks_text,
    metric_text,
    mfu_text,
    reference_text,
    throughput_text,
)
from chipperf.results.render.markdown import absent_reasons
from chipperf.results.render.text import DASH, stat_text, table


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
    "inference": ("throughput_raw", "throughput_pure_compute", "latency_p50_ms",
                  "latency_p90_ms", "latency_p99_ms",
                  "metric_value", "reference_max_abs_diff", "mfu", "peak_memory_bytes",
                  "peak_accel_memory_bytes", "energy_per_item_j"),
}


def _readme_absent(summary: RunSummary) -> str:
    """'- <figure> not measured (<cases>): <why>' for each README column a case lacks; cases
    with the same reason share a line."""
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
    header = ["model", "chip", "engine", "precision", "rounds (counted/total)", WHOLE, CORE,
              "latency p50 (ms)", "latency p90 (ms)", "latency p99 (ms)", "quality metric",
              "passed", "max |diff| vs reference", "MFU", "peak memory (framework)",
              "peak accel memory", "energy/item (J)"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        converged = sum(1 for r in c.rounds if r.converged)
        rows.append([
            (c.model or c.dir_name) + marks_text(c, (SYNTHETIC_LABEL,)), c.chip_label or DASH,
            c.engine or DASH, c.precision or DASH,
            f"{len(c.counted)}/{len(c.rounds)}", throughput_text(c),
            throughput_text(c, "throughput_pure_compute"),
            *(stat_text(agg.get(f"latency_{p}_ms")) for p in ("p50", "p90", "p99")),
            metric_text(c), f"{converged}/{len(c.rounds)}", reference_text(c), mfu_text(c),
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
            (f"config_{c.chip}x{c.nnodes}x{c.nproc}" if c.chip else c.dir_name)
            + marks_text(c, (SYNTHETIC_LABEL,)),
            c.topology,
            f"{len(c.counted)}/{len(c.rounds)}", stat_text(agg.get("e2e_time_s")),
            stat_text(agg.get("train_time_s")),
            throughput_text(c), metric_text(c),
            f"{converged}/{len(c.rounds)}",
            mfu_text(c),
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
