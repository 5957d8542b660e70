"""report.html: one self-contained page (inline CSS and SVG; no script, font or fetch).

Per case: the smoke-test label where the dataset says so; the workload, hardware and
software; throughput per round (rounds not counted in grey), the round and statistics
tables, what was not measured (each reason once); and per round the loss and target-metric
curves, one chart per telemetry (node power, accelerator power / utilisation / memory, CPU,
host memory; one line per node, the timed window shaded) and links to every node's logs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from chipperf.results.compute.plausible import window_notes
from chipperf.results.compute.schema import (
    SYNTHETIC_LABEL,
    CaseResult,
    RoundResult,
    RunSummary,
    round_value,
)
from chipperf.results.read.collect import Collected, RoundSeries
from chipperf.results.read.details import CaseDetails
from chipperf.results.read.sweepread import CaseSweep
from chipperf.results.render.casehtml import (
    curve_charts,
    facts_table,
    facts_tables,
    log_links,
    not_measured,
    smoke_banner,
)
from chipperf.results.render.console import case_rows, error_lines, hardware_lines
from chipperf.results.render.gridsweep import sweep_section
from chipperf.results.render.markdown import mfu_notes, stats_rows
from chipperf.results.render.servecurve import curve_svgs, has_sweep, sweep_notes, sweep_rows
from chipperf.results.render.servedaccuracy import accuracy_notes, accuracy_rows, has_accuracy
from chipperf.results.render.serving import best_rates, has_serving, serving_rows
from chipperf.results.render.suite import (
    THROUGHPUT_NOTE,
    method_rows,
    round_rows,
    shape_rows,
)
from chipperf.results.render.svg import CHART_CSS, Bar, Line, bar_chart, line_chart
from chipperf.results.render.text import DASH, fmt
from chipperf.suites import suite_of

# series name -> (chart title, y label, y scale, NodeResult field whose reason explains a gap)
CHARTS = (
    ("power_w", "Node wall power (IPMI)", "W", 1.0, "avg_power_w"),
    ("accel_power_w", "Accelerator power, all chips of a node", "W", 1.0,
     "accel_avg_power_w_per_chip"),
    ("accel_util_pct", "Accelerator utilisation, mean over chips", "%", 1.0,
     "avg_accel_util_pct"),
    ("accel_mem_bytes", "Accelerator memory used, fullest chip", "GiB", 2.0**30,
     "peak_accel_memory_bytes"),
    ("cpu_util_pct", "CPU utilisation", "%", 1.0, "avg_cpu_util_pct"),
    ("cpu_power_w", "CPU packages + DRAM power (RAPL)", "W", 1.0, "cpu_power_w"),
    ("host_mem_bytes", "Host memory used", "GiB", 2.0**30, "peak_host_memory_bytes"),
)

# Nothing may be fetched or run: the page is what the file holds.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1320px;
color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0;font-size:13px;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;overflow-wrap:anywhere}
th{background:#f4f4f4;font-weight:600}
td:first-child,th:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:8px}
.bad{color:#b00020}.muted{color:#777}details{margin:8px 0}summary{cursor:pointer;font-weight:600}
code{background:#f4f4f4;padding:0 3px}
.smoke{background:#fff4d6;border:1px solid #e0b84c;padding:6px 10px}
div.facts{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
table.facts caption{text-align:left;font-weight:600}table.facts th{text-align:left}
table.facts td{text-align:left}ul.logs a{margin-right:8px}
""" + CHART_CSS


def report_html(collected: Collected, details: dict[str, CaseDetails] | None = None,
                sweeps: dict[str, CaseSweep] | None = None) -> str:
    """``details``: per case dir, what chipperf.results.read.details reads beside the figures;
    ``sweeps``: per case dir, its SWEEPS grid (chipperf.results.read.sweepread)."""
    summary = collected.summary
    series = {(s.case, s.number): s for s in collected.series}
    details = details or {}
    smoke = [c.key or c.dir_name for c in summary.cases
             if details.get(c.dir_name) and details[c.dir_name].smoke]
    body = [f"<h1>chipperf run <code>{escape(summary.run_id)}</code></h1>", _facts(summary),
            "<h2>Cases</h2>", html_table(*case_rows(summary)), *_errors(summary),
            *_hardware(summary)]
    if smoke:
        body.append(f'<p class="smoke">Smoke test, not a performance figure: '
                    f'{escape(", ".join(smoke))} (see the case below).</p>')
    for case in summary.cases:
        body += case_section(case, series, details.get(case.dir_name),
                             (sweeps or {}).get(case.dir_name))
    body += _problems(summary)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>chipperf {escape(summary.run_id)}</title><style>{CSS}</style></head>"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n")


def _errors(summary: RunSummary) -> list[str]:
    """Figures rejected as impossible (a share above 100 %, power over a too-short window)."""
    lines = error_lines(summary)
    if not lines:
        return []
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return [f'<h2 class="bad">Errors ({len(lines)}): figures no chip can produce, left out</h2>'
            f'<ul class="bad">{items}</ul>']


def _hardware(summary: RunSummary) -> list[str]:
    lines = hardware_lines(summary)
    if not lines:
        return []
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return ["<p>Has chipperf's path for each vendor and chip run on real hardware here?</p>",
            f"<ul>{items}</ul>"]


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    lines = ["".join(f"<td>{escape(str(c))}</td>" for c in row) for row in rows]
    body = "".join(f"<tr>{line}</tr>" for line in lines)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _facts(summary: RunSummary) -> str:
    facts = [("source", summary.source), ("chipperf version", summary.chipperf_version),
             ("suite", summary.suite), ("vendor", summary.vendor), ("status", summary.status),
             ("started", summary.started_at), ("finished", summary.finished_at),
             ("hosts", ", ".join(summary.hosts)), ("directory", summary.run_dir)]
    return facts_table("Run", [(k, v or DASH) for k, v in facts])


def case_section(case: CaseResult, series: dict[tuple[str, int], RoundSeries],
                 details: CaseDetails | None = None, sweep: CaseSweep | None = None) -> list[str]:
    out = _case_heading(case, details)
    out.append(facts_tables(details))
    chart = throughput_chart(case)
    if chart:
        out.append(f'<div class="charts">{chart}</div>')
    out += sweep_section(sweep) if sweep is not None else []
    if method_rows(case):
        out.append(f'<div class="facts">{facts_table("Method", method_rows(case))}</div>')
    header, shapes = shape_rows(case)
    if shapes:
        out += ["<h3>Per shape (first round)</h3>", html_table(header, shapes)]
    out += ["<h3>Rounds</h3>", html_table(*round_rows(case))]
    if case.inference:
        out.append(f"<p>{escape(THROUGHPUT_NOTE[0].upper() + THROUGHPUT_NOTE[1:])}.</p>")
    if case.excluded:
        items = "".join(f"<li>round {e.round}: {escape(e.why)}</li>" for e in case.excluded)
        out.append(f'<p class="bad">Not counted:</p><ul>{items}</ul>')
    if has_sweep(case):
        out += ["<h3>Served sweep (times in ms)</h3>", *curve_svgs(case),
                "<p>Each line joins the round's Pareto front (filled dots: no other point has "
                "both more tokens/s per user and more output tokens/s per chip); hollow dots "
                "are the points it dominates. The points as CSV: serving_curve.csv in the "
                "round's node folder.</p>",
                html_table(*sweep_rows(case)),
                *(f"<p>{escape(line)}.</p>" for line in sweep_notes(case))]
        if has_accuracy(case):
            header, rows = accuracy_rows(case)
            out += ["<h3>Served accuracy (beside the speed)</h3>",
                    *([html_table(header, rows)] if rows else []),
                    *(f"<p>{escape(line)}.</p>" for line in accuracy_notes(case))]
    elif has_serving(case):
        out += ["<h3>LLM serving (times in ms)</h3>", html_table(*serving_rows(case)),
                *(f"<p>{escape(line)}.</p>" for line in best_rates(case))]
    header, rows = stats_rows(case)
    out += [f"<h3>Over the counted rounds ({len(case.counted)})</h3>",
            html_table(header, rows) if rows else "<p>(no figure measured)</p>"]
    out += [f"<p>{escape(note)}</p>" for note in mfu_notes(case) if note]
    curves = {c.number: c for c in details.curves} if details is not None else {}
    rounds, gaps = [], {}
    for i, result in enumerate(case.rounds):
        plots = series.get((case.dir_name, result.number))
        charts, gaps[result.number] = round_charts(result, plots) if plots else ([], [])
        charts = curve_charts(curves.get(result.number)) + charts
        logs = log_links(details.logs, result.number) if details is not None else ""
        rounds.append(round_details(result, charts, logs, i == 0))
    out.append(not_measured(case, gaps))
    out += rounds
    out.append("</section>")
    return out


def _case_heading(case: CaseResult, details: CaseDetails | None) -> list[str]:
    """The case's title and one-line facts, and what ran (smoke test, preset, a timed window
    too short, hardware status)."""
    smoke = " (smoke test)" if details is not None and details.smoke else ""
    smoke += f" ({SYNTHETIC_LABEL})" if case.synthetic else ""
    out = [f'<section id="{escape(case.dir_name)}"><h2>{escape(case.title)}'
           f"{smoke}</h2>",
           f"<p>vendor {escape(case.vendor or DASH)}, chip {escape(case.chip_label or DASH)}, "
           f"{case.topology} (nodes x procs), "
           + (f"engine {escape(case.engine or DASH)} ({escape(case.precision or DASH)}), "
              if case.inference else "")
           + f"image <code>{escape(case.image or DASH)}</code>, "
           f"status <b>{escape(case.status or 'unknown')}</b> {escape(case.reason)}</p>"]
    out.append(smoke_banner(details))
    if case.preset:
        out.append(f'<p class="smoke">{escape(case.preset.capitalize())}: '
                   f"{escape(case.preset_detail)}.</p>")
    out += [f'<p class="smoke">Timed window too short, {escape(note)}.</p>'
            for note in window_notes(case)]
    if case.hardware_note:
        css = "" if case.hardware_validated else ' class="bad"'
        out.append(f"<p{css}>Hardware status: {escape(case.hardware_note)}</p>")
    return out


def throughput_chart(case: CaseResult) -> str:
    """Per round bars: throughput, or base/ and operation/'s value in its own unit."""
    counted = set(case.counted)
    excluded = {e.round: e.why for e in case.excluded}
    spec = suite_of(case.suite).measures_spec
    name = "metric_value" if spec else "throughput_raw"
    bars = [Bar(str(r.number), round_value(r, name), muted=r.number not in counted,
                note=excluded.get(r.number, "")) for r in case.rounds]
    mean = case.aggregate.get(name)
    unit = (case.metric_name if spec else case.throughput_unit) or "work/s"
    title = "Value per round" if spec else "Throughput per round"
    return bar_chart(f"{title} ({unit})", bars, unit, mean.mean if mean is not None else None)


def round_details(result: RoundResult, charts: Sequence[str], logs: str, open_: bool) -> str:
    """One round: its timed window, its charts (what it lacks is in the case's Not measured
    list) and its nodes' logs."""
    title = (f"Round {result.number}: {result.status or 'unknown'}"
             + (f" ({result.reason})" if result.reason else ""))
    parts = [f"<details{' open' if open_ else ''}><summary>{escape(title)}</summary>",
             _window_note(result)]
    if charts:
        parts.append(f'<div class="charts">{"".join(charts)}</div>')
    parts += [logs, "</details>"]
    return "\n".join(p for p in parts if p)


def _window_note(result: RoundResult) -> str:
    if result.train_start_ms is None or result.train_end_ms is None:
        return f'<p class="muted">{escape(result.reasons.get("window", "no timed window"))}</p>'
    seconds = (result.train_end_ms - result.train_start_ms) / 1000
    return f"<p>Timed window (shaded): {fmt(seconds)} s.</p>"


def round_charts(result: RoundResult, plots: RoundSeries) -> tuple[list[str], list[tuple[str, str]]]:
    """The round's charts, and (title, why) for each telemetry no node has."""
    starts = [p[0] for node in plots.nodes for s in node.series.values() for p in s[:1]]
    origin = plots.started_ms or (min(starts) if starts else 0)
    shade = None
    if plots.window is not None:
        shade = ((plots.window.start_ms - origin) / 1000, (plots.window.end_ms - origin) / 1000)
    reasons = {n.name: n.reasons for n in result.nodes}
    charts, gaps = [], []
    for name, title, unit, scale, field in CHARTS:
        lines = [Line(legend_label(node.node),
                      [((t - origin) / 1000, v) for t, v in node.series.get(name, ())])
                 for node in plots.nodes]
        svg = line_chart(f"{title} ({unit})", lines, "seconds since round start", unit,
                         shade, yscale=scale)
        if svg:
            charts.append(svg)
        else:
            why = next((r[field] for r in reasons.values() if field in r), "no samples")
            gaps.append((title, why))
    return charts, gaps


def legend_label(node: str) -> str:
    """``10.0.0.1_noderank3`` -> ``n3 10.0.0.1`` (short enough for a legend)."""
    match = re.match(r"^(.*)_noderank(\d+)$", node)
    return f"n{match[2]} {match[1]}" if match else node


def _problems(summary: RunSummary) -> list[str]:
    problems = list(summary.problems)
    for case in summary.cases:
        problems += list(case.problems)
        for r in case.rounds:
            problems += list(r.problems)
    if not problems:
        return []
    items = "".join(f"<li><code>{escape(p)}</code></li>" for p in problems)
    return [f'<h2 class="bad">Problems ({len(problems)})</h2><ul>{items}</ul>']
