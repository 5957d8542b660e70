"""A SWEEPS grid on the page and as ``sweep.csv``: throughput vs batch size, peak memory vs
sequence length (vs batch size for a grid without a sequence axis), the edge, one row a round."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from chipperf.results.compute.gridsweep import (
    BATCH,
    OOM,
    PRECISION,
    SEQUENCE,
    Axis,
    SweepRound,
    edge_text,
    point_means,
)
from chipperf.results.read.sweepread import CaseSweep
from chipperf.results.render.svg import Line, line_chart
from chipperf.results.render.text import DASH, fmt

CSV_COLUMNS = ("case", "round", "point", "batch_size", "seq_length", "precision", "status",
               "throughput", "throughput_unit", "latency_p50_ms", "peak_memory_bytes",
               "memory_kind", "reason")


def sweep_csv(sweeps: Mapping[str, CaseSweep]) -> str:
    """Every sweep round of the run, one row each (docs/results.md: the columns)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for sweep in sweeps.values():
        for row in sweep.rows:
            writer.writerow(_csv_row(sweep, row))
    return out.getvalue()


def _csv_row(sweep: CaseSweep, row: SweepRound) -> list[Any]:
    def of(role: str) -> Any:
        param = _param(sweep.axes, role)
        return row.point.get(param, "") if param else ""

    point = " ".join(f"{k}={v}" for k, v in row.point.items())
    return [sweep.key, row.round, point, of(BATCH), of(SEQUENCE), of(PRECISION), row.status,
            _blank(row.throughput), row.throughput_unit or "", _blank(row.latency_p50_ms),
            _blank(row.peak_memory_bytes), row.memory_kind, row.reason]


def _blank(value: Any) -> Any:
    return "" if value is None else value


def _param(axes: Sequence[Axis], role: str) -> str | None:
    return next((a.param for a in axes if a.role == role), None)


def sweep_section(sweep: CaseSweep) -> list[str]:
    """The case's sweep on report.html: charts, the edge, the rounds."""
    batch = _param(sweep.axes, BATCH)
    charts = [c for c in (throughput_chart(sweep), memory_chart(sweep)) if c]
    out = [f"<h3>Sweep: {escape(' x '.join(a.param for a in sweep.axes))} "
           f"({len(sweep.rows)} rounds)</h3>"]
    if charts:
        out.append(f'<div class="charts">{"".join(charts)}</div>')
    if memory_kinds(sweep):
        out.append(f"<p>Peak memory: {escape(memory_kinds(sweep))}.</p>")
    if batch is not None:
        items = "".join(f"<li>{escape(edge_text(e, batch))}</li>" for e in sweep.edges)
        out.append(f"<p>The edge (largest batch that fit):</p><ul>{items}</ul>")
    ooms = [r for r in sweep.rows if r.status == OOM]
    out += [f'<p class="bad">Round {r.round} ({escape(_label(r.point))}) ran out of memory: '
            f"{escape(r.reason)}</p>" for r in ooms]
    out += ["<p>The rounds as CSV: sweep.csv beside this page. The case's statistics over its "
            "rounds (the cases table, the throughput per round) mix the grid's points: compare "
            "points here.</p>", _table(sweep)]
    return out


def throughput_chart(sweep: CaseSweep) -> str:
    """Throughput vs batch size, one line per combination of the other axes."""
    batch = _param(sweep.axes, BATCH)
    if batch is None:
        return ""
    unit = next((r.throughput_unit for r in sweep.rows if r.throughput_unit), "work/s")
    lines = _lines(point_means(sweep.rows, "throughput"), batch)
    return line_chart(f"Throughput vs {batch} ({unit}){_per_line(sweep, batch)}", lines, batch, unit,
                      xlog=_spread(sweep, batch))


def memory_chart(sweep: CaseSweep) -> str:
    """Peak memory vs sequence length (vs batch size without a sequence axis), in GiB."""
    x = _param(sweep.axes, SEQUENCE) or _param(sweep.axes, BATCH)
    if x is None:
        return ""
    lines = _lines(point_means(sweep.rows, "peak_memory_bytes"), x)
    return line_chart(f"Peak memory vs {x}{_per_line(sweep, x)}", lines, x, "GiB", yscale=2.0**30,
                      xlog=_spread(sweep, x))


def _spread(sweep: CaseSweep, param: str) -> bool:
    """True when the axis's values span 2x or more: drawn on a log scale, ticks at powers of 2
    (batch 2, 8, 128 on a linear one crowd the small batches into the left edge, and batch 4, 8
    gets ticks at 4.5, 5, ...)."""
    values = [v for a in sweep.axes if a.param == param for v in a.values
              if isinstance(v, (int, float)) and v > 0]
    return len(values) > 1 and max(values) >= 2 * min(values)


def memory_kinds(sweep: CaseSweep) -> str:
    """What the memory figures are ('host memory: rank 0's peak RSS'), each kind once."""
    return "; ".join(dict.fromkeys(r.memory_kind for r in sweep.rows if r.memory_kind))


def _per_line(sweep: CaseSweep, x: str) -> str:
    """', a line per seq_len' (the legend then shows the values alone)."""
    others = [a.param for a in sweep.axes if a.param != x]
    return f", a line per {' x '.join(others)}" if others else ""


def _lines(means: Mapping[tuple[tuple[str, Any], ...], float], x: str) -> list[Line]:
    """One line per combination of the axes other than ``x``, its points in x order."""
    series: dict[str, list[tuple[float, float]]] = {}
    for point, value in means.items():
        values = dict(point)
        others = ", ".join(str(v) for k, v in values.items() if k != x) or "all"
        if isinstance(values.get(x), (int, float)):
            series.setdefault(others, []).append((float(values[x]), value))
    return [Line(label, sorted(points), markers=True) for label, points in series.items()]


def _label(point: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items())


def _table(sweep: CaseSweep) -> str:
    head = ["round", *(a.param for a in sweep.axes), "status", "throughput", "latency p50 ms",
            "peak memory GiB"]
    rows = [[str(r.round), *(str(r.point.get(a.param, DASH)) for a in sweep.axes), r.status,
             f"{fmt(r.throughput)} {r.throughput_unit or ''}".strip(), fmt(r.latency_p50_ms),
             fmt(r.peak_memory_bytes / 2**30) if r.peak_memory_bytes is not None else DASH]
            for r in sweep.rows]
    cells = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{cells}</tbody></table>"
