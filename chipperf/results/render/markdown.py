"""summary.md: the run, every case's rounds and statistics, and why figures are absent."""

from __future__ import annotations

from chipperf.results.compute.plausible import window_notes
from chipperf.results.compute.schema import (
    SYNTHETIC_LABEL,
    TOOLKIT,
    TOOLKIT_NOTE,
    CaseResult,
    RunSummary,
    figures_for,
    label,
    round_reason,
    round_value,
)
from chipperf.results.render.console import case_rows, error_lines, hardware_lines
from chipperf.results.render.servecurve import has_sweep, sweep_notes, sweep_rows
from chipperf.results.render.servedaccuracy import accuracy_notes, accuracy_rows, has_accuracy
from chipperf.results.render.serving import best_rates, has_serving, serving_rows
from chipperf.results.render.suite import (
    THROUGHPUT_NOTE,
    figure_header,
    method_rows,
    round_rows,
    shape_rows,
)
from chipperf.results.render.text import DASH, fmt, kind_of, table

# how the cases count attention in flops_per_unit (llmtrain/arch.py, gpt2's, the vision cases'),
# and the second figure beside MFU (chipperf.results.compute.mfu.causal_mfu)
ATTENTION_CONVENTION = ("Attention FLOPs are counted whole in MFU: the full score and value "
                        "products of every layer (llmtrain's 12 x layers x width x sequence per "
                        "trained token, PaLM's appendix B; torch's FLOP counter where a case "
                        "counts with it), not the half a causal mask leaves to do.")
CAUSAL_CONVENTION = ("MFU with causal attention halved counts half of them for a model whose "
                     "attention is causal (the case's FINISHED says its attention part and "
                     "whether it is causal); for a model whose attention is not causal it is the "
                     "same figure.")


def summary_markdown(summary: RunSummary) -> str:
    parts = [f"# chipperf run `{summary.run_id}`", "", _run_facts(summary), ""]
    header, rows = case_rows(summary)
    parts += ["## Cases", "", table(header, rows) if rows else "(no cases)", "",
              "Means over the counted rounds ± coefficient of variation; — means not measured "
              "(reasons under each case).", ""]
    if error_lines(summary):
        parts += [f"## Errors ({len(error_lines(summary))}): figures no chip can produce, "
                  "left out", "", *(f"- **{line}**" for line in error_lines(summary)), ""]
    if hardware_lines(summary):
        parts += ["Has chipperf's path for each vendor and chip run on real hardware here?", "",
                  *(f"- {line}" for line in hardware_lines(summary)), ""]
    for case in summary.cases:
        parts += case_section(case)
    problems = list(summary.problems)
    for case in summary.cases:
        problems += list(case.problems)
        for r in case.rounds:
            problems += list(r.problems)
    if problems:
        parts += [f"## Problems ({len(problems)})", "", *(f"- `{p}`" for p in problems), ""]
    return "\n".join(parts)


def _run_facts(summary: RunSummary) -> str:
    facts = [("source", summary.source), ("chipperf version", summary.chipperf_version),
             ("suite", summary.suite), ("vendor", summary.vendor), ("status", summary.status),
             ("started", summary.started_at), ("finished", summary.finished_at),
             ("hosts", ", ".join(summary.hosts) or None)]
    return table(["run", summary.run_id], [[k, v or DASH] for k, v in facts])


def case_section(case: CaseResult) -> list[str]:
    lines = _case_intro(case)
    if method_rows(case):
        lines += ["### Method", "", table(["setting", "value"], method_rows(case)), ""]
    header, shapes = shape_rows(case)
    if shapes:
        lines += ["### Per shape (first round)", "", table(header, shapes), ""]
    lines += ["### Rounds", "", table(*round_rows(case)), ""]
    if case.inference:
        lines += [THROUGHPUT_NOTE[0].upper() + THROUGHPUT_NOTE[1:] + ".", ""]
    if case.excluded:
        lines += ["Not counted: " + "; ".join(f"round {e.round}: {e.why}" for e in case.excluded)
                  + ".", ""]
    lines += [f"Round {r.number} {r.reasons['cut']}." for r in case.rounds
              if r.cut and "cut" in r.reasons]
    lines += [f"Round {r.number}: its files came home after the run (`chipperf collect`) "
              "and it was judged then (late)." for r in case.rounds if r.late]
    lines += ["### Over the counted rounds " + f"({', '.join(map(str, case.counted)) or 'none'})",
              "", stats_table(case), ""]
    lines += mfu_notes(case)
    lines += _inference_notes(case)
    absent = absent_reasons(case)
    if absent:
        lines += ["### Not measured or rejected", "", *(f"- {name}: {why}" for name, why in absent), ""]
    return lines


def _case_intro(case: CaseResult) -> list[str]:
    """The case's title and its one-line facts: dir, vendor, chip, image, status, and what
    ran (hardware status, preset, implementation, input, run mode)."""
    title = case.title
    engine = f"engine {case.engine or DASH} ({case.precision or DASH}), " \
        if case.inference else ""
    lines = [f"## {title}", "",
             f"Dir `{case.dir_name}`, vendor {case.vendor or DASH}, chip {case.chip_label or DASH}, "
             f"{engine}image {case.image or DASH}, status **{case.status or 'unknown'}**"
             + (f": {case.reason}" if case.reason else "") + ".", ""]
    if case.hardware_note:
        lines += [f"Hardware status: {case.hardware_note}.", ""]
    if case.preset:
        lines += [f"**{case.preset.capitalize()}**: {case.preset_detail}.", ""]
    if case.implementation:
        lines += [f"**Implementation**: {case.implementation}.", ""]
    if case.method == TOOLKIT:
        lines += [f"**Method**: {TOOLKIT_NOTE}.", ""]
    lines += [f"Timed window too short, {note}.\n" for note in window_notes(case)]
    if case.synthetic:
        lines += [f"Input: **{SYNTHETIC_LABEL}** (one device-resident random batch: no data "
                  "loading, decoding or augmentation is measured).", ""]
    if case.run_mode:
        lines += [f"Run mode: {case.run_mode}"
                  + (" (throughput and MFU from the timed steps)."
                     if case.run_mode.startswith("performance") else "."), ""]
    return lines


def mfu_notes(case: CaseResult) -> list[str]:
    """What the case's MFU divides by: the spec sheet's peak, and the measured one."""
    lines: list[str] = []
    if any(r.mfu is not None for r in case.rounds):
        lines += [f"MFU divides achieved FLOP/s by the spec-sheet peak in {case.mfu_dtype} "
                  "times the number of chips" + (
                      " (inference: the FLOP/s of the whole throughput, pre- and post-"
                      "processing in; the core throughput's share is higher by their ratio)"
                      if case.inference else "") + ". " + ATTENTION_CONVENTION
                  + ("" if case.inference else " " + CAUSAL_CONVENTION), ""]
        lines += attention_note(case)
    measured = next((r for r in case.rounds if r.mfu_measured is not None
                     and r.measured_peak_flops_per_chip is not None), None)
    if measured is not None and measured.measured_peak_flops_per_chip is not None:
        lines += [f"MFU vs measured peak divides the same FLOP/s by the GEMM peak the base/ "
                  f"suite measured on this chip in {case.mfu_dtype} "
                  f"({measured.measured_peak_flops_per_chip / 1e12:.4g} TFLOP/s per chip, "
                  f"{measured.measured_peak_source}) times the number of chips.", ""]
    return lines


def attention_note(case: CaseResult) -> list[str]:
    """The case's attention part of its FLOPs per unit, as its first round with one says."""
    r = next((r for r in case.rounds if r.attention_flops_per_unit is not None
              and r.flops_per_unit), None)
    if r is None or r.attention_flops_per_unit is None or not r.flops_per_unit:
        return []
    share = r.attention_flops_per_unit / r.flops_per_unit
    causal = "causal: halved in the causal figure" if r.causal_attention else \
        "not causal: the causal figure is the same"
    return [f"Attention: {fmt(r.attention_flops_per_unit)} of the {fmt(r.flops_per_unit)} "
            f"FLOPs per {(r.work_unit or 'unit').rstrip('s')} ({share * 100:.1f} %), {causal}.",
            ""]


def _inference_notes(case: CaseResult) -> list[str]:
    """What an inference case's timed window holds (LLM serving: its scenarios' table)."""
    lines: list[str] = []
    if case.inference and has_sweep(case):
        lines += ["### Served sweep (times in ms)", "", table(*sweep_rows(case)), "",
                  *(f"{line}." for line in sweep_notes(case)), "",
                  "Throughput is the sweep's highest output tokens/s; latency the lowest "
                  "concurrency's end-to-end latency; the curve is on the HTML report and in "
                  "serving_curve.csv.", ""]
        if has_accuracy(case):
            header, rows = accuracy_rows(case)
            lines += ["### Served accuracy (beside the speed)", "",
                      *([table(header, rows), ""] if rows else []),
                      *(f"{line}." for line in accuracy_notes(case)), ""]
    elif case.inference and has_serving(case):
        lines += ["### LLM serving (times in ms)", "", table(*serving_rows(case)), "",
                  *(f"{line}." for line in best_rates(case)), "",
                  "The timed window holds the offline, single-stream and server scenarios; "
                  "throughput is offline generated tokens/s, latency the single-stream "
                  "requests'; MFU and energy per item count the tokens generated in all of "
                  "them.", ""]
    elif case.inference:
        lines += ["The timed window holds MLPerf LoadGen's scenarios: offline (throughput), "
                  "single stream (latency) and server where configured; MFU and energy per "
                  "item count the items of all of them over it.", ""]
    return lines


def stats_rows(case: CaseResult) -> tuple[list[str], list[list[str]]]:
    header = ["figure", "n", "mean", "median", "min", "max", "CV", "olympic mean"]
    rows = []
    for name in figures_for(case.suite):
        s = case.aggregate.get(name)
        if s is None or s.n == 0:
            continue
        kind = kind_of(name)
        rows.append([figure_header(case, name) if name == "metric_value" else
                     label(name, case.suite), str(s.n), fmt(s.mean, kind),
                     fmt(s.median, kind), fmt(s.min, kind), fmt(s.max, kind),
                     fmt(s.cv, "ratio") if s.cv is not None else DASH,
                     fmt(s.olympic_mean, kind)])
    return header, rows


def stats_table(case: CaseResult) -> str:
    header, rows = stats_rows(case)
    return table(header, rows) if rows else "(no figure measured in a counted round)"


def absent_reasons(case: CaseResult) -> list[tuple[str, str]]:
    """(figure label, why) for each figure some round lacks, with the rounds it concerns."""
    out = []
    for name in figures_for(case.suite):
        lacking = [r for r in case.rounds if round_value(r, name) is None]
        if not lacking:
            continue
        whys = {r.number: round_reason(r, name) or "not measured" for r in lacking}
        if len(set(whys.values())) == 1:
            which = "every round" if len(lacking) == len(case.rounds) else \
                "round" + ("s " if len(lacking) > 1 else " ") + ", ".join(map(str, whys))
            out.append((label(name, case.suite), f"{which}: {next(iter(whys.values()))}"))
        else:
            out.append((label(name, case.suite),
                        "; ".join(f"round {n}: {w}" for n, w in whys.items())))
    return out
