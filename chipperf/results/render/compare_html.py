"""``chipperf compare --html FILE``: the comparison as one self-contained page.

The runs (chips) are listed once, numbered; each matched case has a table with one column per
run (mean ±CV, rounds counted, ratio to the baseline, noise flag) and, per figure, a bar chart
with one bar per run; an LLM case with a served sweep adds one throughput-interactivity chart
with every run's Pareto front, and the fronts' points as a table. Like report.html: inline
CSS and SVG only, nothing fetched or run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from chipperf.results.compute.schema import AGGREGATED, RunSummary
from chipperf.results.render.compare import Cell, Comparison, Row, match_key
from chipperf.results.render.html import CSP, CSS, html_table
from chipperf.results.render.servecurve import (
    FRONT_HEADER,
    FRONT_NOTE,
    front_rows,
    runs_curve_svg,
    sweep_runs,
)
from chipperf.results.render.svg import Bar, bar_chart
from chipperf.results.render.text import DASH, console_table, fmt, kind_of

EXTRA_CSS = """
td.noise{color:#777}td.unknown{color:#9a6b00}td.diff{font-weight:600}td.base{background:#f4f8fc}
.legend{font-size:13px;color:#444}
"""
NOISE_CLASS = {"~ noise": "noise", "? n<2": "unknown", "": "diff"}


def comparison_html(comparison: Comparison, summaries: Sequence[RunSummary]) -> str:
    title = "chipperf compare: " + ", ".join(s.run_id for s in summaries)
    body = [f"<h1>{escape(title)}</h1>", _runs(comparison, summaries), _legend()]
    if comparison.notes:
        items = "".join(f"<li>{escape(n)}</li>" for n in comparison.notes)
        body.append(f'<h2>Notes</h2><ul class="bad">{items}</ul>')
    for match in dict.fromkeys(r.match for r in comparison.rows):
        rows = [r for r in comparison.rows if r.match == match]
        labels = [short_label(comparison, i, _chip(s, match)) for i, s in enumerate(summaries)]
        body += case_section(match, rows, comparison, labels)
        body += _served_curve(match, summaries, labels)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{escape(title)}</title><style>{CSS}{EXTRA_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def served_fronts_text(comparison: Comparison, summaries: Sequence[RunSummary]) -> str:
    """For the console: per matched case with a served sweep, the runs' Pareto fronts as a
    table labelled as on the page ('' when no run served one)."""
    parts = []
    for match in dict.fromkeys(r.match for r in comparison.rows):
        labels = [short_label(comparison, i, _chip(s, match)) for i, s in enumerate(summaries)]
        rows = front_rows(_sweeps(match, summaries, labels))
        if rows:
            parts.append(f"{match}: served sweeps, the Pareto front of each run (times in ms)\n"
                         + console_table(FRONT_HEADER, rows) + "\n")
    return "".join(parts)


def _sweeps(match: str, summaries: Sequence[RunSummary], labels: Sequence[str]
            ) -> list[tuple[str, Sequence[Mapping[str, Any]]]]:
    cases = [(label, next((c for c in s.cases if match_key(c, s.suite) == match), None))
             for label, s in zip(labels, summaries)]
    return sweep_runs(cases)


def _served_curve(match: str, summaries: Sequence[RunSummary], labels: Sequence[str]) -> list[str]:
    """The matched case's served sweeps: every run's Pareto front on one chart, and the fronts'
    points as a table ([] when no run has a sweep)."""
    runs = _sweeps(match, summaries, labels)
    chart = runs_curve_svg(match, runs)
    if not chart:
        return []
    return [f'<section><h3>{escape(match)}: served sweeps</h3><div class="charts">{chart}</div>'
            f"<p>{escape(FRONT_NOTE)}</p>{html_table(FRONT_HEADER, front_rows(runs))}</section>"]


def _chip(summary: RunSummary, match: str) -> str:
    """The chip of the case that ``match`` names in ``summary`` ("" when absent)."""
    return next((f"{c.vendor or '?'}/{c.chip}" for c in summary.cases
                 if c.chip and match_key(c, summary.suite) == match), "")


def short_label(comparison: Comparison, index: int, chip: str = "") -> str:
    """``#2 nvidia/A100``: the run's number and the case's chip (else the run's chips), short
    enough under a bar."""
    column = comparison.columns[index]
    what = column[column.find("(") + 1:-1] if column.endswith(")") and "(" in column else column
    text = f"#{index + 1} {chip or what}"
    return text if len(text) <= 22 else text[:21] + "…"


def _runs(comparison: Comparison, summaries: Sequence[RunSummary]) -> str:
    rows = [[f"#{i + 1}" + (" (baseline)" if i == comparison.baseline else ""), s.run_id,
             s.vendor or DASH, ", ".join(sorted({c.chip for c in s.cases if c.chip})) or DASH,
             ", ".join(s.hosts) or DASH, s.started_at or DASH, s.run_dir]
            for i, s in enumerate(summaries)]
    return "<h2>Runs</h2>" + html_table(
        ["", "run", "vendor", "chips", "hosts", "started", "directory"], rows)


def _legend() -> str:
    return ('<p class="legend">Each cell: mean over the counted rounds ±CV (n rounds), and '
            "×ratio to the baseline run. <b>~ noise</b>: within run-to-run noise (the min–max "
            "ranges overlap, or the difference is under 2 × the larger CV); <b>? n&lt;2</b>: "
            "fewer than 2 counted rounds on a side, noise unknown; a ratio with no flag is a "
            "difference beyond the noise. The bars are the means.</p>")


def case_section(match: str, rows: Sequence[Row], comparison: Comparison,
                 labels: Sequence[str]) -> list[str]:
    head = "".join(f"<th>{escape(text)}{' [baseline]' if i == comparison.baseline else ''}</th>"
                   for i, text in enumerate(labels))
    lines = []
    for row in rows:
        cells = "".join(_cell(c, row.figure, i == comparison.baseline)
                        for i, c in enumerate(row.cells))
        lines.append(f"<tr><td>{escape(_figure_label(row))}</td>{cells}</tr>")
    table = (f"<table><thead><tr><th>figure</th>{head}</tr></thead><tbody>{''.join(lines)}"
             "</tbody></table>")
    charts = [chart for row in rows if (chart := row_chart(row, comparison, labels))]
    return [f"<section><h2>{escape(match)}</h2>", table,
            f'<div class="charts">{"".join(charts)}</div>', "</section>"]


def _figure_label(row: Row) -> str:
    return AGGREGATED[row.figure][2] + (f" ({row.unit})" if row.unit else "")


def _cell(cell: Cell, figure: str, baseline: bool) -> str:
    s = cell.stat
    if s is None or s.mean is None:
        return f"<td>{DASH}</td>"
    text = fmt(s.mean, kind_of(figure))
    if s.cv is not None:
        text += f" ±{s.cv * 100:.1f}%"
    text += f" (n={s.n})"
    css = "base" if baseline else NOISE_CLASS.get(cell.noise, "")
    if cell.ratio is not None:
        text += f" ×{cell.ratio:.3f}" + (f" {cell.noise}" if cell.noise else "")
    return f'<td class="{css}">{escape(text)}</td>'


def row_chart(row: Row, comparison: Comparison, labels: Sequence[str]) -> str:
    """One bar per run: the mean (bytes in GiB); the tooltip carries the ratio and the noise
    flag."""
    scale, unit = (2.0**30, " (GiB)") if kind_of(row.figure) == "bytes" else (1.0, "")
    bars = []
    for i, cell in enumerate(row.cells):
        mean = cell.stat.mean / scale if cell.stat is not None and cell.stat.mean is not None \
            else None
        note = "baseline" if i == comparison.baseline else \
            " ".join(x for x in (f"×{cell.ratio:.3f}" if cell.ratio is not None else "",
                                 cell.noise) if x)
        bars.append(Bar(labels[i], mean, note=note))
    return bar_chart(_figure_label(row) + unit, bars, AGGREGATED[row.figure][2] + unit,
                     x_label="run")
