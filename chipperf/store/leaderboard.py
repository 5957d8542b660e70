"""The leaderboard: per workload fingerprint, chips side by side, read from the store.

``board`` reads the store into plain frozen objects; ``board_html`` renders them as one
self-contained page (every text escaped, no script). A row is one vendor, chip and topology of
one fingerprint: the median over its runs of each run's median throughput, MFU, energy per unit
of work and share of spec peak, the noise band (the history module's, over all its runs), the
number of runs, a trend chart of throughput, and a link to the newest run's report.html.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from chipperf.store import db
from chipperf.store.history import Band, BandConfig, noise_band

FIGURES = ("throughput_raw", "mfu", "energy_per_unit_j", "share_of_peak")


@dataclass(frozen=True)
class RunRef:
    run_pk: int
    run_id: str
    started_at: str
    report_html: str | None


@dataclass(frozen=True)
class Row:
    vendor: str
    chip: str
    topology: str
    unit: str
    runs: int
    figures: dict[str, float | None]      # FIGURES -> median over runs
    band: Band | None                     # of throughput over runs
    trend: tuple[float, ...]              # throughput per run, oldest first
    latest: RunRef


@dataclass(frozen=True)
class Group:
    fingerprint_key: str
    title: str
    fingerprint: dict[str, object]
    suite: str
    rows: tuple[Row, ...]


def board(engine: Engine, suite: str | None = None) -> list[Group]:
    """Every fingerprint in the store (only ``suite``'s when given), fastest row first."""
    grouped: dict[str, dict[tuple, list]] = {}
    meta: dict[str, tuple[str, str]] = {}
    for row in _rows(engine, suite):
        meta.setdefault(row.fingerprint_key, (row.fingerprint, row.suite or "training"))
        key = (row.vendor or "?", row.chip or "?", f"{row.nnodes or '?'}x{row.nproc or '?'}")
        grouped.setdefault(row.fingerprint_key, {}).setdefault(key, []).append(row)
    return sorted((_group(fp, meta[fp], chips) for fp, chips in grouped.items()),
                  key=lambda g: (g.suite, g.title))


def _rows(engine: Engine, suite: str | None) -> list:
    c, r, f = db.cases, db.runs, db.figures
    query = (sa.select(c.c.id, c.c.fingerprint_key, c.c.fingerprint, c.c.suite, c.c.vendor,
                       c.c.chip, c.c.nnodes, c.c.nproc, c.c.throughput_unit, r.c.id.label("run_pk"),
                       r.c.run_id, r.c.started_at, r.c.report_html, f.c.name, f.c.median)
             .join(r, r.c.id == c.c.run_pk).join(f, f.c.case_pk == c.c.id)
             .where(f.c.name.in_(FIGURES))
             .order_by(r.c.started_at, r.c.run_id, c.c.id))
    if suite is not None:
        query = query.where(c.c.suite == suite)
    with engine.connect() as conn:
        return list(conn.execute(query))


def _group(fp_key: str, meta: tuple[str, str], chips: dict[tuple, list]) -> Group:
    fingerprint = json.loads(meta[0])
    rows = sorted((_row(key, rows) for key, rows in chips.items()),
                  key=lambda r: -(r.figures["throughput_raw"] or 0.0))
    return Group(fp_key, str(fingerprint.get("case") or fp_key), fingerprint, meta[1],
                 tuple(rows))


def _row(key: tuple, rows: list) -> Row:
    per_case: dict[int, dict[str, float]] = {}
    for r in rows:
        per_case.setdefault(r.id, {})[r.name] = r.median
    last = rows[-1]
    trend = tuple(v["throughput_raw"] for v in per_case.values() if "throughput_raw" in v)
    medians = {name: _median([v[name] for v in per_case.values() if v.get(name) is not None])
               for name in FIGURES}
    band = noise_band(trend, BandConfig(k=3.0, floor=0.0)) if len(trend) >= 2 else None
    return Row(key[0], key[1], key[2], last.throughput_unit or "", len(per_case), medians, band,
               trend, RunRef(last.run_pk, last.run_id, last.started_at or "", last.report_html))


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


# ---------------------------------------------------------------- HTML

STYLE = ("body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td.l,th.l{text-align:left}"
         "h2{font-size:16px;margin-top:1.5em}.fp{color:#555;font-size:12px}")


def board_html(groups: Sequence[Group], link: Callable[[RunRef], str | None],
               title: str = "chipperf leaderboard") -> str:
    """The page; ``link``: the href of a run's report (None: no link)."""
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>",
             f"<p>{len(groups)} workload fingerprint(s); a row is one vendor, chip and topology; "
             "figures are the median over its runs of each run's median.</p>"]
    parts += [_group_html(g, link) for g in groups]
    parts.append("</body></html>\n")
    return "".join(parts)


def _group_html(group: Group, link: Callable[[RunRef], str | None]) -> str:
    fp = ", ".join(f"{k}={v}" for k, v in group.fingerprint.items() if v is not None)
    head = ("<tr><th class='l'>vendor</th><th class='l'>chip</th><th class='l'>topology</th>"
            "<th>throughput</th><th>noise band</th><th>MFU</th><th>energy/unit (J)</th>"
            "<th>share of spec</th><th>runs</th><th class='l'>trend</th>"
            "<th class='l'>latest run</th></tr>")
    rows = "".join(_row_html(r, link) for r in group.rows)
    return (f"<h2 id='fp-{escape(group.fingerprint_key)}'>{escape(group.title)} "
            f"<small>({escape(group.suite)})</small></h2><div class='fp'>{escape(fp)}</div>"
            f"<table class='board' data-fingerprint='{escape(group.fingerprint_key)}'>"
            f"{head}{rows}</table>")


def _row_html(row: Row, link: Callable[[RunRef], str | None]) -> str:
    f = row.figures
    band = f"{_num(row.band.low)} .. {_num(row.band.high)}" if row.band else "one run"
    href = link(row.latest)
    run = escape(row.latest.run_id)
    latest = f"<a href='{escape(href, quote=True)}'>{run}</a>" if href else run
    cells = [escape(row.vendor), escape(row.chip), escape(row.topology)]
    return ("<tr>" + "".join(f"<td class='l'>{c}</td>" for c in cells)
            + f"<td>{_num(f['throughput_raw'])} {escape(row.unit)}</td><td>{band}</td>"
            f"<td>{_pct(f['mfu'])}</td><td>{_num(f['energy_per_unit_j'])}</td>"
            f"<td>{_pct(f['share_of_peak'])}</td><td>{row.runs}</td>"
            f"<td class='l'>{sparkline(row.trend)}</td><td class='l'>{latest}</td></tr>")


def sparkline(values: Sequence[float], width: int = 120, height: int = 24) -> str:
    """An inline SVG line of ``values`` (the last 50), or '' for fewer than two."""
    values = list(values)[-50:]
    if len(values) < 2:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = width / (len(values) - 1)
    points = " ".join(f"{i * step:.1f},{height - 2 - (v - low) / span * (height - 4):.1f}"
                      for i, v in enumerate(values))
    return (f"<svg width='{width}' height='{height}' role='img' aria-label='trend'>"
            f"<polyline fill='none' stroke='#36c' stroke-width='1.5' points='{points}'/></svg>")


def _num(value: float | None) -> str:
    if value is None:
        return "&ndash;"
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def _pct(value: float | None) -> str:
    return "&ndash;" if value is None else f"{100 * value:.1f}%"
