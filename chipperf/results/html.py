"""report.html: one self-contained page (inline CSS and SVG; no script, font or fetch).

Per case: throughput per round (rounds not counted in grey), the round and
statistics tables, and per round one chart per telemetry (node power, accelerator
power / utilisation / memory, CPU, host memory), one line per node, the timed
window shaded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from chipperf.results.collect import Collected, RoundSeries
from chipperf.results.markdown import absent_reasons, round_rows, stats_rows
from chipperf.results.render import DASH, case_rows, fmt, hardware_lines
from chipperf.results.schema import CaseResult, RoundResult, RunSummary
from chipperf.results.serving import best_rates, has_serving, serving_rows
from chipperf.results.svg import Bar, Line, bar_chart, line_chart

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
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:8px}
svg.chart{background:#fff;border:1px solid #e4e4e4}
svg .title{font-size:13px;font-weight:600}svg .tick,svg .legend,svg .axis,svg .note{font-size:11px}
svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}svg .window{fill:#fde9b0;opacity:.7}
svg .mean{stroke:#333;stroke-dasharray:4 3}
.bad{color:#b00020}.muted{color:#777}details{margin:8px 0}summary{cursor:pointer;font-weight:600}
code{background:#f4f4f4;padding:0 3px}
"""


def report_html(collected: Collected) -> str:
    summary = collected.summary
    series = {(s.case, s.number): s for s in collected.series}
    body = [f"<h1>chipperf run <code>{escape(summary.run_id)}</code></h1>", _facts(summary),
            "<h2>Cases</h2>", html_table(*case_rows(summary)), *_hardware(summary)]
    for case in summary.cases:
        body += case_section(case, series)
    body += _problems(summary)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>chipperf {escape(summary.run_id)}</title><style>{CSS}</style></head>"
            "<body>\n" + "\n".join(body) + "\n</body></html>\n")


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
    return html_table(["", ""], [[k, v or DASH] for k, v in facts])


def case_section(case: CaseResult, series: dict[tuple[str, int], RoundSeries]) -> list[str]:
    out = [f'<section id="{escape(case.dir_name)}"><h2>{escape(case.key or case.dir_name)}</h2>',
           f"<p>vendor {escape(case.vendor or DASH)}, chip {escape(case.chip or DASH)}, "
           f"{case.topology} (nodes x procs), "
           + (f"engine {escape(case.engine or DASH)} ({escape(case.precision or DASH)}), "
              if case.inference else "")
           + f"image <code>{escape(case.image or DASH)}</code>, "
           f"status <b>{escape(case.status or 'unknown')}</b> {escape(case.reason)}</p>"]
    if case.hardware_note:
        css = "" if case.hardware_validated else ' class="bad"'
        out.append(f"<p{css}>Hardware status: {escape(case.hardware_note)}</p>")
    chart = throughput_chart(case)
    if chart:
        out.append(f'<div class="charts">{chart}</div>')
    out += ["<h3>Rounds</h3>", html_table(*round_rows(case))]
    if case.excluded:
        items = "".join(f"<li>round {e.round}: {escape(e.why)}</li>" for e in case.excluded)
        out.append(f'<p class="bad">Not counted:</p><ul>{items}</ul>')
    if has_serving(case):
        out += ["<h3>LLM serving (times in ms)</h3>", html_table(*serving_rows(case)),
                *(f"<p>{escape(line)}.</p>" for line in best_rates(case))]
    header, rows = stats_rows(case)
    out += [f"<h3>Over the counted rounds ({len(case.counted)})</h3>",
            html_table(header, rows) if rows else "<p>(no figure measured)</p>"]
    absent = absent_reasons(case)
    if absent:
        items = "".join(f"<li>{escape(n)}: {escape(w)}</li>" for n, w in absent)
        out.append(f"<h3>Not measured</h3><ul>{items}</ul>")
    for i, result in enumerate(case.rounds):
        out.append(round_details(result, series.get((case.dir_name, result.number)), i == 0))
    out.append("</section>")
    return out


def throughput_chart(case: CaseResult) -> str:
    counted = set(case.counted)
    excluded = {e.round: e.why for e in case.excluded}
    bars = [Bar(str(r.number), r.throughput.raw if r.throughput else None,
                muted=r.number not in counted, note=excluded.get(r.number, ""))
            for r in case.rounds]
    mean = case.aggregate.get("throughput_raw")
    unit = case.throughput_unit or "work/s"
    return bar_chart(f"Throughput per round ({unit})", bars, unit,
                     mean.mean if mean is not None else None)


def round_details(result: RoundResult, plots: RoundSeries | None, open_: bool) -> str:
    title = (f"Round {result.number}: {result.status or 'unknown'}"
             + (f" ({result.reason})" if result.reason else ""))
    parts = [f"<details{' open' if open_ else ''}><summary>{escape(title)}</summary>",
             _window_note(result)]
    if plots is not None:
        charts, gaps = round_charts(result, plots)
        parts.append(f'<div class="charts">{"".join(charts)}</div>')
        if gaps:
            items = "".join(f"<li>{escape(t)}: {escape(w)}</li>" for t, w in gaps)
            parts.append(f'<ul class="muted">{items}</ul>')
    parts.append("</details>")
    return "\n".join(parts)


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
