"""The cases table of a RunSummary (console, summary.md, report.html) and the console view.

Inference, training and the spec suites (base/, operation/) each have their own columns.
"""

from __future__ import annotations

from collections.abc import Mapping

from chipperf.results.compute.headline import case_marks
from chipperf.results.compute.plausible import case_errors, has_error, window_notes
from chipperf.results.compute.schema import (
    CORE,
    SYNTHETIC_LABEL,
    TOOLKIT,
    TOOLKIT_NOTE,
    WHOLE,
    CaseResult,
    RunSummary,
    Stat,
)
from chipperf.results.render.text import DASH, console_table, fmt, stat_text
from chipperf.suites import suite_of

# The cell of a share rejected in every counted round (chipperf.results.compute.plausible).
REJECTED = "ERROR: above 100 % (see errors below)"


def error_lines(summary: RunSummary) -> list[str]:
    """'<case>: ERROR round N: <figure>: <cause>' for every figure rejected as impossible."""
    return [f"{c.key or c.dir_name}: ERROR {e}" for c in summary.cases for e in case_errors(c)]


def preset_lines(summary: RunSummary) -> list[str]:
    """'<case>: <reduced preset>: <what differs from the named model>' per reduced case, and
    '<case>: round N: <why its timed window is too short to measure>'."""
    return [f"{c.key or c.dir_name}: {c.preset}: {c.preset_detail}" for c in summary.cases
            if c.preset] + [f"{c.key or c.dir_name}: {note}" for c in summary.cases
                            for note in window_notes(c)]


def marks_text(case: CaseResult, skip: tuple[str, ...] = ()) -> str:
    """' [smoke data] [synthetic: compute only]': what makes the case's figures not the
    chip's (headline.case_marks), each in brackets, but those in ``skip``."""
    return "".join(f" [{mark}]" for mark in case_marks(case) if mark not in skip)


def case_cell(case: CaseResult, figure_says_synthetic: bool = True) -> str:
    """The case as a summary table's row names it: its title (key and reduced preset) and its
    other marks (smoke data; synthetic input unless the row's throughput cell says it)."""
    said = (case.preset, SYNTHETIC_LABEL) if figure_says_synthetic else (case.preset,)
    return case.title + marks_text(case, said)


def _unit(case: CaseResult) -> str:
    return case.throughput_unit or "work/s"


def is_inference(summary: RunSummary) -> bool:
    """Whether the run's cases are inference cases (a run holds one suite)."""
    return suite_of(summary.suite).infers or bool(summary.cases) and all(
        c.inference for c in summary.cases)


def hardware_lines(summary: RunSummary) -> list[str]:
    """Per vendor and chip of the run, once: has chipperf's path run on real hardware here?"""
    return list(dict.fromkeys(c.hardware_note for c in summary.cases if c.hardware_note))


def case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """The cases table (console, summary.md, report.html)."""
    if suite_of(summary.suite).measures_spec:
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
        if share == DASH and has_error(c, "share_of_peak"):
            share = REJECTED
        elif share == DASH:
            why = next((r.reasons.get("share_of_peak") for r in c.rounds
                        if r.reasons.get("share_of_peak")), None)
            share = f"— ({why})" if why else DASH
        rows.append([
            case_cell(c, figure_says_synthetic=False), c.chip_label or DASH, c.topology,
            c.status or DASH, f"{len(c.counted)}/{len(c.rounds)}",
            f"{value} {c.metric_name}" if value != DASH and c.metric_name else value, share,
            stat_text(agg.get("avg_power_w_per_chip")), energy_text(agg, "energy_j")])
    return header, rows


# the column beside MFU: attention counted as a causal mask leaves it (docs/results.md "MFU")
CAUSAL_HEADER = "MFU, causal attn halved"


def training_case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    header = ["case", "chip", "nodes x procs", "status", "rounds counted", "throughput",
              "train time (s)", "metric (target)", "MFU", CAUSAL_HEADER, "avg W/chip",
              "energy (J)", "work/J"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        rows.append([
            case_cell(c), c.chip_label or DASH, c.topology, c.status or DASH,
            f"{len(c.counted)}/{len(c.rounds)}",
            throughput_text(c), stat_text(agg.get("train_time_s")), metric_text(c),
            mfu_text(c), mfu_text(c, "mfu_causal"),
            stat_text(agg.get("avg_power_w_per_chip")), energy_text(agg, "energy_j"),
            energy_text(agg, "work_per_joule")])
    return header, rows


def inference_case_rows(summary: RunSummary) -> tuple[list[str], list[list[str]]]:
    """Inference: engine and precision, throughput, p99 latency, accuracy and deviation
    from the reference instead of train-time columns."""
    header = ["case", "chip", "engine", "precision", "status", "rounds counted", WHOLE, CORE,
              "p99 latency (ms)", "quality metric (target)", "max |diff| vs reference",
              "MFU (whole)", "energy/item (J)"]
    rows = []
    for c in summary.cases:
        agg = c.aggregate
        rows.append([
            case_cell(c), c.chip_label or DASH, c.engine or DASH, c.precision or DASH,
            c.status or DASH, f"{len(c.counted)}/{len(c.rounds)}", throughput_text(c),
            throughput_text(c, "throughput_pure_compute"), stat_text(agg.get("latency_p99_ms")),
            metric_text(c), reference_text(c),
            mfu_text(c), energy_text(agg, "energy_per_item_j")])
    return header, rows


# a node figure (the BMC's power over the window) -> the same figure from the chips' own counters
CHIPS_ONLY = {"energy_j": "accel_energy_j", "work_per_joule": "work_per_joule_accel",
              "energy_per_item_j": "accel_energy_per_item_j"}


def energy_text(agg: Mapping[str, Stat], key: str) -> str:
    """The node's energy figure or, where the node's power was not read (no BMC), the
    accelerators' own, marked "(chips)": the chips alone, not the host around them."""
    node = stat_text(agg.get(key))
    if node != DASH:
        return node
    chips = stat_text(agg.get(CHIPS_ONLY[key]))
    return f"{chips} (chips)" if chips != DASH else DASH


def reference_text(case: CaseResult) -> str:
    """The largest deviation from the reference over the rounds and how many rounds were
    within their bound, e.g. '3.2e-05 (1/1 within bound)'."""
    refs = [r.reference for r in case.rounds if r.reference is not None]
    diffs = [x.max_abs_diff for x in refs if x.max_abs_diff is not None]
    if not diffs:
        return DASH
    within = sum(1 for x in refs if x.within_bound)
    return f"{fmt(max(diffs))} ({within}/{len(case.rounds)} within bound)"


def mfu_text(case: CaseResult, name: str = "mfu") -> str:
    """MFU (or ``name``: "mfu_causal", its attention halved for a causal model) with its dtype."""
    text = stat_text(case.aggregate.get(name), "ratio")
    if text == DASH and has_error(case, name):
        return REJECTED
    return f"{text} ({case.mfu_dtype})" if text != DASH and case.mfu_dtype else text


def throughput_text(case: CaseResult, name: str = "throughput_raw") -> str:
    """The mean throughput with its unit, labelled when the input was synthetic."""
    text = stat_text(case.aggregate.get(name))
    label = f" [{SYNTHETIC_LABEL}]" if case.synthetic else ""
    return f"{text} {_unit(case)}{label}" if text != DASH else DASH


def metric_text(case: CaseResult) -> str:
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
    body += "".join(f"\n{line}" for line in preset_lines(summary))
    body += "".join(f"\n{c.key or c.dir_name}: smoke test, not a performance figure: "
                    f"{c.smoke_test}" for c in summary.cases if c.smoke_test)
    body += "".join(f"\n{c.key or c.dir_name}: {c.implementation}" for c in summary.cases
                    if c.implementation)
    body += "".join(f"\n{c.key or c.dir_name}: {TOOLKIT_NOTE}" for c in summary.cases
                    if c.method == TOOLKIT)
    body += "".join(f"\n{line}" for line in error_lines(summary))
    body += "".join(f"\n{c.key or c.dir_name}: run mode {c.run_mode}" for c in summary.cases
                    if c.run_mode.startswith("performance"))
    body += "".join(f"\n{c.key or c.dir_name}: round {r.number} {r.reasons['cut']}"
                    for c in summary.cases for r in c.rounds if r.cut and "cut" in r.reasons)
    tail = [f"{len(summary.problems) + sum(_problem_count(c) for c in summary.cases)} problem(s); "
            "see summary.md"] if _has_problems(summary) else []
    return "\n".join([head, body, *tail]) + "\n"


def _problem_count(case: CaseResult) -> int:
    return len(case.problems) + sum(len(r.problems) for r in case.rounds)


def _has_problems(summary: RunSummary) -> bool:
    return bool(summary.problems) or any(_problem_count(c) for c in summary.cases)
