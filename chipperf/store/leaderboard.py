"""The leaderboard: per workload fingerprint, chips side by side, read from the store.

``board`` reads the store into plain frozen objects; ``board_html`` renders them as one
self-contained page (every text escaped, no script). A row is one vendor, chip, topology, run
mode and set of marks (reduced preset, smoke data, synthetic input) of one fingerprint: the
median over its RECENT newest runs of each run's headline figure (training and inference: raw
throughput; base/ and operation/: the measured value, with its unit and kind: a rate, a
capacity...), MFU (and beside it MFU with a causal model's attention halved), energy per
unit of work and share of spec peak, each run's figure being the report's statistic (the mean
over its counted rounds), only the figures the row's suite reports (base/ and operation/: no
MFU, no energy per unit of work; inference: no causal MFU; training and inference: no share of
spec peak; the page says why beside each table); the noise band over those runs (the history
module's median +- 3 x 1.4826 x MAD), the number of runs (all of them), a trend chart of the
headline figure, and a link to the newest run's report.html. Where rows' newest runs served an
LLM sweep, the fingerprint adds one throughput-interactivity chart with each row's Pareto front
and a table of the fronts' points (tokens per joule and cost per million tokens where the run
has them; chipperf.store.servedpoints).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from chipperf.results.compute.figures import figures_for
from chipperf.results.render.html import html_table
from chipperf.results.render.servecurve import FRONT_HEADER, FRONT_NOTE, front_rows, runs_curve_svg
from chipperf.results.render.svg import CHART_CSS
from chipperf.store import db
from chipperf.store.history import Band, BandConfig, noise_band
from chipperf.store.servedpoints import Points, points_of, runs_of

RECENT = 50          # runs per row the figures, band and trend are taken over
# figure name -> its column of ``cases``
COLUMNS = {"throughput_raw": "throughput", "mfu": "mfu", "mfu_causal": "mfu_causal",
           "energy_per_unit_j": "energy_per_unit_j", "share_of_peak": "share_of_peak"}


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
    kind: str                             # of the headline figure: rate, capacity, ... ('' unsaid)
    run_mode: str                         # performance, convergence, ... ('' unsaid)
    marks: str                            # "reduced preset: 0.14 M params; smoke data" ('' none)
    runs: int
    figures: dict[str, float | None]      # COLUMNS' names -> median over runs
    band: Band | None                     # of throughput over runs
    trend: tuple[float, ...]              # throughput per run, oldest first
    latest: RunRef
    served: Points = ()                   # the newest run's served sweep points, if any

    @property
    def label(self) -> str:
        """Short enough for a chart's legend: the chip and topology (the table says the rest)."""
        return f"{self.chip} {self.topology}"


@dataclass(frozen=True)
class Group:
    fingerprint_key: str
    title: str
    fingerprint: dict[str, object]
    suite: str
    rows: tuple[Row, ...]


def board(engine: Engine, suite: str | None = None, recent: int = RECENT) -> list[Group]:
    """Every fingerprint in the store (only ``suite``'s when given), fastest row first; a row's
    figures and band are over its ``recent`` newest runs, its run count over all of them."""
    grouped: dict[str, dict[tuple, list]] = {}
    suites: dict[str, str] = {}
    with engine.connect() as conn:
        counts = {tuple(r[:-1]): r[-1] for r in conn.execute(_counts_query(suite))}
        for row in conn.execute(_recent_query(suite, recent)):
            suites.setdefault(row.fingerprint_key, row.suite or "training")
            grouped.setdefault(row.fingerprint_key, {}).setdefault(
                tuple(getattr(row, k) for k in ROW_KEY), []).append(row)
        fingerprints = {key: text for key, text in conn.execute(
            sa.select(db.cases.c.fingerprint_key, db.cases.c.fingerprint)
            .where(db.cases.c.fingerprint_key.in_(list(grouped)))
            .group_by(db.cases.c.fingerprint_key, db.cases.c.fingerprint))}
        served = points_of(conn, (rows[-1].case_pk for chips in grouped.values()
                                  for rows in chips.values()))
    return sorted((_group(fp, json.loads(fingerprints[fp]), suites[fp], {
        key: (rows, counts.get((fp, *key), len(rows))) for key, rows in chips.items()}, served)
        for fp, chips in grouped.items()), key=lambda g: (g.suite, g.title))


def _has_figures() -> sa.ColumnElement[bool]:
    return sa.or_(db.cases.c.throughput.is_not(None), db.cases.c.share_of_peak.is_not(None))


# what a row of one fingerprint is: figures of another mode, topology or mark never mix
ROW_KEY = ("vendor", "chip", "nnodes", "nproc", "run_mode", "marks")


def _counts_query(suite: str | None) -> sa.Select:
    c = db.cases
    keys = (c.c.fingerprint_key, *(c.c[k] for k in ROW_KEY))
    query = sa.select(*keys, sa.func.count()).where(_has_figures()).group_by(*keys)
    return query if suite is None else query.where(c.c.suite == suite)


def _recent_query(suite: str | None, recent: int) -> sa.Select:
    """The ``recent`` newest cases of each fingerprint, vendor, chip and topology, oldest first
    (a window function: SQLite 3.25+ and PostgreSQL both have them)."""
    c, r = db.cases, db.runs
    newest = sa.func.row_number().over(
        partition_by=(c.c.fingerprint_key, *(c.c[k] for k in ROW_KEY)),
        order_by=(r.c.started_at.desc(), r.c.run_id.desc(), c.c.id.desc())).label("newest")
    inner = (sa.select(c.c.fingerprint_key, c.c.suite, *(c.c[k] for k in ROW_KEY),
                       c.c.throughput_unit, c.c.value_kind, c.c.throughput, c.c.mfu,
                       c.c.mfu_causal,
                       c.c.energy_per_unit_j, c.c.share_of_peak, c.c.id.label("case_pk"),
                       r.c.id.label("run_pk"),
                       r.c.run_id, r.c.started_at, r.c.report_html, newest)
             .join(r, r.c.id == c.c.run_pk).where(_has_figures()))
    if suite is not None:
        inner = inner.where(c.c.suite == suite)
    sub = inner.subquery()
    return sa.select(sub).where(sub.c.newest <= recent).order_by(sub.c.newest.desc())


def _group(fp_key: str, fingerprint: dict, suite: str, chips: dict[tuple, tuple[list, int]],
           served: Mapping[int, Points]) -> Group:
    rows = sorted((_row(key, rows, runs, served.get(rows[-1].case_pk, ()))
                   for key, (rows, runs) in chips.items()),
                  key=lambda r: -(r.figures["throughput_raw"] or 0.0))
    return Group(fp_key, str(fingerprint.get("case") or fp_key), fingerprint, suite,
                 tuple(rows))


def _row(key: tuple, rows: list, runs: int, served: Points = ()) -> Row:
    last = rows[-1]
    trend = tuple(r.throughput for r in rows if r.throughput is not None)
    medians = {name: _median([v for r in rows if (v := getattr(r, column)) is not None])
               for name, column in COLUMNS.items()}
    band = noise_band(trend, BandConfig(k=3.0, floor=0.0)) if len(trend) >= 2 else None
    vendor, chip, nnodes, nproc, run_mode, marks = key
    return Row(vendor or "?", chip or "?", f"{nnodes or '?'}x{nproc or '?'}",
               last.throughput_unit or "", last.value_kind or "", run_mode or "", marks or "",
               runs, medians, band, trend,
               RunRef(last.run_pk, last.run_id, last.started_at or "", last.report_html), served)


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


# ---------------------------------------------------------------- HTML

STYLE = ("body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse;margin:.5em 0 1.5em}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td.l,th.l{text-align:left}"
         "h2{font-size:16px;margin-top:1.5em}.fp{color:#555;font-size:12px}"
         ".mark{color:#a40;font-weight:bold}.kind{color:#555;font-size:12px}") + CHART_CSS


def board_html(groups: Sequence[Group], link: Callable[[RunRef], str | None],
               title: str = "chipperf leaderboard") -> str:
    """The page; ``link``: the href of a run's report (None: no link)."""
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>",
             f"<p>{len(groups)} workload fingerprint(s); a row is one vendor, chip, topology, "
             "run mode and set of marks (a reduced preset, smoke data or synthetic input is no "
             "figure of the chip: marked in red); the figure is the case's headline (training "
             "and inference: raw throughput; base/ and operation/: the measured value), with "
             f"its unit and kind; figures, band and trend are over its {RECENT} newest runs "
             "(the median of each run's mean over its counted rounds, the statistic its report "
             "shows); runs counts them all. Each table shows only the figures its suite "
             "reports (base/ and operation/: no MFU, no energy per unit of work; training and "
             "inference: no share of spec peak), saying why above it; a dash is a figure no "
             "counted round measured. MFU counts attention FLOPs whole; MFU, causal attn halved "
             "counts half of a causal model's (the same for attention that is not causal; a "
             "dash where the case does not say its attention part).</p>"]
    parts += [_group_html(g, link) for g in groups]
    parts.append("</body></html>\n")
    return "".join(parts)


class Column(NamedTuple):
    """A column after the headline figure and its band."""
    figure: str                  # COLUMNS' name
    header: str
    percent: bool                # a share, shown as a percentage
    applies_with: tuple[str, ...]   # AGGREGATED figures: the suite's outputs show one of them
    why_not: str                 # where it does not apply


EXTRA_COLUMNS = (
    Column("mfu", "MFU", True, ("mfu",), "a spec measurement runs no model: no model FLOPs"),
    Column("mfu_causal", "MFU, causal attn halved", True, ("mfu_causal",),
           "only training cases report their attention part (a spec measurement runs no "
           "model)"),
    Column("energy_per_unit_j", "energy/unit (J)", False,
           ("work_per_joule", "energy_per_item_j"), "a spec measurement has no unit of work"),
    Column("share_of_peak", "share of spec", True, ("share_of_peak",),
           "only base/ and operation/ measure against the spec sheet's peak"))
NOT_MEASURED = "no counted round of these runs measured it (see the run's report)"


def applicable_columns(suite: str) -> tuple[tuple[Column, ...], tuple[Column, ...]]:
    """(the columns a ``suite`` row shows, those it leaves out): the figures its report shows."""
    shown_figures = set(figures_for(suite))
    shown = tuple(c for c in EXTRA_COLUMNS if shown_figures & set(c.applies_with))
    return shown, tuple(c for c in EXTRA_COLUMNS if c not in shown)


def _group_html(group: Group, link: Callable[[RunRef], str | None]) -> str:
    fp = ", ".join(f"{k}={v}" for k, v in group.fingerprint.items() if v is not None)
    columns, left_out = applicable_columns(group.suite)
    head = ("<tr><th class='l'>vendor</th><th class='l'>chip</th><th class='l'>topology</th>"
            "<th class='l'>run mode</th><th>figure</th><th>noise band</th>"
            + "".join(f"<th>{escape(c.header)}</th>" for c in columns)
            + "<th>runs</th><th class='l'>trend</th><th class='l'>latest run</th></tr>")
    rows = "".join(_row_html(r, columns, link) for r in group.rows)
    note = "; ".join(f"{c.header}: {c.why_not}" for c in left_out)
    note_html = f"<div class='fp notshown'>not shown: {escape(note)}</div>" if note else ""
    return (f"<h2 id='fp-{escape(group.fingerprint_key)}'>{escape(group.title)} "
            f"<small>({escape(group.suite)})</small></h2><div class='fp'>{escape(fp)}</div>"
            f"{note_html}<table class='board' data-fingerprint='{escape(group.fingerprint_key)}'>"
            f"{head}{rows}</table>{_served_html(group)}")


def served_runs(group: Group) -> list[tuple[str, Sequence[Mapping]]]:
    """(label, points) of each row's newest run that served a sweep, fastest row first."""
    return [run for row in group.rows if row.served
            for run in runs_of(row.label, row.served)]


def _served_html(group: Group) -> str:
    """The rows' served sweeps on one chart, a Pareto front per row's newest run, and the
    fronts' points ('' when no row has one)."""
    runs = served_runs(group)
    chart = runs_curve_svg(group.title, runs)
    if not chart:
        return ""
    return (f"<div class='served'>{chart}<p class='fp'>{escape(FRONT_NOTE)} A curve is a row's "
            f"newest run (its latest run above), labelled chip, topology, serving engine and "
            f"shape.</p>{html_table(FRONT_HEADER, front_rows(runs))}</div>")


def _row_html(row: Row, columns: Sequence[Column], link: Callable[[RunRef], str | None]) -> str:
    f = row.figures
    band = f"{_num(row.band.low)} .. {_num(row.band.high)}" if row.band else "one run"
    href = link(row.latest)
    run = escape(row.latest.run_id)
    latest = f"<a href='{escape(href, quote=True)}'>{run}</a>" if href else run
    marks = f" <span class='mark'>[{escape(row.marks)}]</span>" if row.marks else ""
    kind = f" <span class='kind'>{escape(row.kind)}</span>" if row.kind else ""
    cells = [escape(row.vendor), escape(row.chip) + marks, escape(row.topology),
             escape(row.run_mode) or "&ndash;"]
    extra = "".join(_figure_cell(f[c.figure], c.percent) for c in columns)
    return ("<tr>" + "".join(f"<td class='l'>{c}</td>" for c in cells)
            + f"<td>{_num(f['throughput_raw'])} {escape(row.unit)}{kind}</td><td>{band}</td>"
            f"{extra}<td>{row.runs}</td>"
            f"<td class='l'>{sparkline(row.trend)}</td><td class='l'>{latest}</td></tr>")


def _figure_cell(value: float | None, percent: bool) -> str:
    if value is None:
        return f"<td title='{escape(NOT_MEASURED, quote=True)}'>&ndash;</td>"
    return f"<td>{_pct(value) if percent else _num(value)}</td>"


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
