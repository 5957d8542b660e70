"""``chipperf compare``: the same cases across runs, vendors or chips, side by side.

Cases match on model + framework family + topology (nodes x procs), so
``resnet50:pytorch_2.13:A100:1:8`` and ``resnet50:pytorch_2.1:MLU370:1:8`` meet
in one row; inference cases also on engine + precision (``resnet50:pytorch
onnxruntime fp32 1x1``), so only the same engine at the same precision meets. Each
cell is the mean over the counted rounds, its coefficient of variation and round
count, and (besides the baseline) its ratio to the baseline.

Cases meet in one row only when their workload fingerprints agree too (case implementation
and version, framework, global batch, sequence length or image size, data set, precision:
``chipperf.results.compute.fingerprint``); cases of one key that ran different workloads get
a row each (``[workload A]``, ``[workload B]``) and a note naming the fields that differ.

base/ and operation/ cases match on the spec or operator and the topology, so the same spec
measured on different chips is one row: the chips side by side, with the measured value
(TFLOP/s, GB/s, GiB) as the figure, its unit in the row. Training cases match on their run
mode too (``performance: 5 warm-up + 12 timed steps`` is not a convergence run), and a case
whose figures are not the chip's (a reduced preset, smoke data, synthetic input) carries the
mark in its row's name, so it never shares a row with a real run.

Noise rule: a difference from the baseline is flagged ``~ noise`` when both sides
have >= 2 counted rounds and either their [min, max] ranges overlap or
|mean - baseline mean| < 2 x (the larger CV) x baseline mean. With fewer rounds
the flag is ``? n<2`` (run-to-run noise unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chipperf.results.compute.fingerprint import differences
from chipperf.results.compute.headline import case_marks
from chipperf.results.compute.schema import (
    TOOLKIT,
    TOOLKIT_NOTE,
    CaseResult,
    Fingerprint,
    RunSummary,
    Stat,
)
from chipperf.results.render.text import DASH, console_table, fmt, kind_of, table
from chipperf.suites import get_suite, suite_names, suite_of

FIGURES = ("throughput_raw", "train_time_s", "metric_value", "mfu", "mfu_causal",
           "avg_power_w_per_chip",
           "work_per_joule", "peak_accel_memory_bytes")
INFERENCE_FIGURES = ("throughput_raw", "latency_p50_ms", "latency_p99_ms", "metric_value",
                     "reference_max_abs_diff", "mfu", "avg_power_w_per_chip",
                     "energy_per_item_j", "peak_memory_bytes", "peak_accel_memory_bytes")
NOISE_CV_FACTOR = 2.0


@dataclass(frozen=True)
class Cell:
    stat: Stat | None
    ratio: float | None = None        # mean / baseline mean
    noise: str = ""                   # "", "~ noise", "? n<2"


@dataclass(frozen=True)
class Row:
    match: str                        # "model:family NxP"
    figure: str
    unit: str
    cells: tuple[Cell, ...]           # one per run, in the order given


@dataclass(frozen=True)
class Comparison:
    columns: tuple[str, ...]          # one label per run
    baseline: int
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()


SPEC_FIGURES = ("metric_value", "avg_power_w_per_chip", "energy_j")


def match_key(case: CaseResult, suite: str | None = None) -> str:
    """What a row compares: the case, its topology and run mode, and the marks of a figure
    that is not the chip's (a reduced preset, smoke data, synthetic input)."""
    family = case.family or (case.framework or "?").split("_", 1)[0]
    marks = "".join(f" [{mark}]" for mark in case_marks(case))
    if suite_of(suite).measures_spec:
        return f"{case.model or case.dir_name}:{family} ({suite}) {case.topology}{marks}"
    served = f" {case.engine or '?'} {case.precision or '?'}" if case.inference else ""
    mode = f" ({case.run_mode})" if case.run_mode else ""
    return f"{case.model or case.dir_name}:{family}{served} {case.topology}{mode}{marks}"


def column_label(summary: RunSummary) -> str:
    chips = sorted({c.chip for c in summary.cases if c.chip})
    what = "/".join(x for x in (summary.vendor, ",".join(chips)) if x)
    return f"{summary.run_id} ({what})" if what else summary.run_id


def within_noise(a: Stat, b: Stat) -> str:
    """'~ noise', '' (a real difference), or '? n<2' (cannot tell)."""
    if a.n < 2 or b.n < 2 or a.mean is None or b.mean is None:
        return "? n<2"
    if None not in (a.min, a.max, b.min, b.max) and \
            a.min <= b.max and b.min <= a.max:  # type: ignore[operator]
        return "~ noise"
    larger_cv = max(a.cv or 0.0, b.cv or 0.0)
    if abs(a.mean - b.mean) < NOISE_CV_FACTOR * larger_cv * abs(b.mean):
        return "~ noise"
    return ""


def compare(summaries: Sequence[RunSummary], baseline: int = 0) -> Comparison:
    """Rows for every match key present in at least one run, baseline column first in
    the ratios; ``baseline`` is an index into ``summaries``."""
    if not 0 <= baseline < len(summaries):
        raise ValueError(f"baseline {baseline} is not an index of the {len(summaries)} runs")
    per_run: list[dict[str, CaseResult]] = []
    notes = []
    for summary in summaries:
        found: dict[str, CaseResult] = {}
        for case in summary.cases:
            key = match_key(case, summary.suite)
            if key in found:
                notes.append(f"{summary.run_id}: {case.dir_name} matches {key} as "
                             f"{found[key].dir_name} does: compared the first only")
                continue
            found[key] = case
        per_run.append(found)
    keys, split = _split_workloads(summaries, per_run,
                                   list(dict.fromkeys(k for found in per_run for k in found)))
    notes += split
    notes += [f"{summary.run_id}: {case.implementation}" for summary in summaries
              for case in summary.cases if case.implementation]
    notes += [f"{summary.run_id}: {case.key or case.dir_name}: {TOOLKIT_NOTE}"
              for summary in summaries for case in summary.cases if case.method == TOOLKIT]
    rows = [_row(key, figure, per_run, baseline) for key in keys
            for figure in _figures(key, per_run)]
    return Comparison(tuple(column_label(s) for s in summaries), baseline,
                      tuple(r for r in rows if any(c.stat and c.stat.n for c in r.cells)),
                      tuple(notes))


def _split_workloads(summaries: Sequence[RunSummary], per_run: list[dict[str, CaseResult]],
                     keys: list[str]) -> tuple[list[str], list[str]]:
    """Cases of one match key that ran different workloads (their fingerprints differ) get a
    row each, ``<key> [workload A]``, ``[workload B]``...; a note says which run is which and
    which fields differ. Returns the row keys and the notes (``per_run`` is re-keyed)."""
    out_keys: list[str] = []
    notes: list[str] = []
    for key in keys:
        groups: list[Fingerprint | None] = []
        for found in per_run:
            if key in found and found[key].fingerprint not in groups:
                groups.append(found[key].fingerprint)
        if len(groups) == 1:
            out_keys.append(key)
            continue
        labels = [f"{key} [workload {chr(ord('A') + i)}]" for i in range(len(groups))]
        members: list[list[str]] = [[] for _ in groups]
        for summary, found in zip(summaries, per_run):
            if key in found:
                case = found.pop(key)
                index = groups.index(case.fingerprint)
                found[labels[index]] = case
                members[index].append(f"{summary.run_id} ({summary.source})")
        out_keys += labels
        notes.append(f"{key}: not one workload, so not compared in one row: " + "; ".join(
            f"[workload {chr(ord('A') + i)}] {', '.join(runs)}" for i, runs in enumerate(members))
            + ". " + " ".join(_differ(groups[0], fp, chr(ord('A') + i))
                              for i, fp in enumerate(groups) if i))
    return out_keys, notes


def _differ(a: Fingerprint | None, b: Fingerprint | None, name: str) -> str:
    found = differences(a or Fingerprint(), b or Fingerprint())
    return f"A and {name} differ in " + ("; ".join(found) if found else "whether a workload is "
                                         "recorded (an older summary)") + "."


def _figures(key: str, per_run: list[dict[str, CaseResult]]) -> tuple[str, ...]:
    cases = [found[key] for found in per_run if key in found]
    if _per_chip(key):
        return SPEC_FIGURES
    return INFERENCE_FIGURES if any(c.inference for c in cases) else FIGURES


def _per_chip(key: str) -> bool:
    return any(f" ({suite})" in key for suite in per_chip_suites())


def per_chip_suites() -> list[str]:
    """Suites whose figures are per chip: a spec or operator meets itself whatever the topology
    (a cpu host's 2 ranks and an 8-GPU node's 8 measure the same thing), which is the point of
    laying chips side by side."""
    return [name for name in suite_names() if get_suite(name).measures_spec]


def _row(key: str, figure: str, per_run: list[dict[str, CaseResult]], baseline: int) -> Row:
    stats = [found[key].aggregate.get(figure) if key in found else None for found in per_run]
    base = stats[baseline]
    cells = []
    for i, s in enumerate(stats):
        if i == baseline or s is None or s.mean is None or base is None or not base.mean:
            cells.append(Cell(s))
            continue
        cells.append(Cell(s, s.mean / base.mean, within_noise(s, base)))
    units = [found[key].throughput_unit for found in per_run if key in found]
    unit = next((u for u in units if u), "") if figure == "throughput_raw" else ""
    if figure == "metric_value" and _per_chip(key):
        names = [found[key].metric_name for found in per_run if key in found]
        unit = next((n for n in names if n), "")   # the spec's unit: TFLOP/s, GB/s, GiB
    return Row(key, figure, unit, tuple(cells))


def _cell_text(cell: Cell, figure: str) -> str:
    s = cell.stat
    if s is None or s.mean is None:
        return DASH
    text = fmt(s.mean, kind_of(figure))
    if s.cv is not None:
        text += f" ±{s.cv * 100:.1f}%"
    text += f" (n={s.n})"
    if cell.ratio is not None:
        text += f" x{cell.ratio:.3f}"
    if cell.noise:
        text += f" {cell.noise}"
    return text


def rows_of(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    from chipperf.results.compute.schema import AGGREGATED

    header = ["case", "figure"] + [
        label + (" [baseline]" if i == comparison.baseline else "")
        for i, label in enumerate(comparison.columns)]
    rows = []
    for row in comparison.rows:
        label = AGGREGATED[row.figure][2] + (f" ({row.unit})" if row.unit else "")
        rows.append([row.match, label, *(_cell_text(c, row.figure) for c in row.cells)])
    return header, rows


def comparison_markdown(comparison: Comparison) -> str:
    header, rows = rows_of(comparison)
    notes = "\n".join(f"- {n}" for n in comparison.notes)
    return (table(header, rows) + "\n\n" + _legend() + ("\n" + notes if notes else "") + "\n")


def comparison_console(comparison: Comparison) -> str:
    header, rows = rows_of(comparison)
    notes = "".join(f"note: {n}\n" for n in comparison.notes)
    return console_table(header, rows) + "\n\n" + _legend() + "\n" + notes


def _legend() -> str:
    return ("Cells: mean ±CV (n counted rounds) xratio-to-baseline. '~ noise': within "
            "run-to-run noise (min-max ranges overlap, or |diff| < 2 x larger CV x baseline); "
            "'? n<2': noise unknown with fewer than 2 rounds. MFU counts attention FLOPs whole; "
            "MFU (causal attention halved) counts half of a causal model's (the same figure "
            "for a model whose attention is not causal).")
