"""A case's figure over time, per workload fingerprint, vendor, chip and topology, with the
run-to-run noise band and the runs that fall outside it.

A run's figure is its report's statistic (``STATISTIC``: the mean over its counted rounds, what
report.html and the leaderboard show). The default figure is each case's headline
(chipperf.results.compute.headline), in its own kind and unit: training's and inference's raw
throughput, base/'s and operation/'s measured value (GiB, GB/s, TFLOP/s), not the FLOP/s or
bytes/s throughput stored beside it.

The band of a run is taken over the ``window`` matching runs before it: their median plus or
minus ``k`` times the scaled median absolute deviation (1.4826 x MAD estimates one standard
deviation of normal noise), and never narrower than ``floor`` of the median, so that a few
identical figures do not make every later wobble a regression. A run needs ``min_runs``
earlier matching runs to be judged at all.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from chipperf.results.compute.headline import (
    HEADLINE,
    STATISTIC,
    figure_kind,
    headline_label,
    lower_is_better,
)
from chipperf.results.compute.schema import AGGREGATED
from chipperf.store import db

MAD_TO_SIGMA = 1.4826
DERIVED_LOWER_IS_BETTER = frozenset({"energy_per_unit_j"})


@dataclass(frozen=True)
class BandConfig:
    window: int = 5          # earlier matching runs the band is taken over
    k: float = 3.0           # band half-width in scaled MADs
    floor: float = 0.02      # least half-width, as a share of the median
    min_runs: int = 3        # earlier runs needed before a run is judged


@dataclass(frozen=True)
class Band:
    median: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class Point:
    run_id: str
    started_at: str
    value: float
    run_dir: str


@dataclass(frozen=True)
class Judged:
    point: Point
    band: Band | None            # None: fewer than min_runs earlier runs
    verdict: str                 # "" | "regression" | "improvement"
    ratio: float | None          # value / band median
    compared: tuple[str, ...]    # run ids the band was taken over


@dataclass(frozen=True)
class Series:
    fingerprint_key: str
    fingerprint: str
    vendor: str | None
    chip: str | None
    topology: str
    unit: str | None
    points: tuple[Judged, ...]
    run_mode: str = ""                  # a series never mixes run modes ...
    marks: str = ""                     # ... nor a reduced preset or smoke data with real runs
    label: str = ""                     # the figure as the output names it (throughput_raw, value)
    kind: str = ""                      # its kind: rate, capacity, latency, share ('' unsaid)

    @property
    def latest(self) -> Judged:
        return self.points[-1]


def noise_band(values: Sequence[float], cfg: BandConfig = BandConfig()) -> Band:
    """The median of ``values`` plus or minus max(k x 1.4826 x MAD, floor x |median|)."""
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    half = max(cfg.k * MAD_TO_SIGMA * mad, cfg.floor * abs(med))
    return Band(med, med - half, med + half, len(values))


def higher_is_better(figure: str, kind: str | None = None) -> bool:
    """Which way is better for ``figure`` (HEADLINE: by its ``kind``, a latency lower)."""
    if figure == HEADLINE:
        return not lower_is_better(kind)
    if figure in DERIVED_LOWER_IS_BETTER:
        return False
    return AGGREGATED[figure][1] if figure in AGGREGATED else True


def judge(points: Sequence[Point], figure: str, cfg: BandConfig = BandConfig(),
          kind: str | None = None) -> tuple[Judged, ...]:
    """Each point against the band of the ``cfg.window`` points before it; ``kind``: the
    headline figure's (which way is better)."""
    out = []
    for i, point in enumerate(points):
        earlier = points[max(0, i - cfg.window):i]
        if len(earlier) < cfg.min_runs:
            out.append(Judged(point, None, "", None, ()))
            continue
        band = noise_band([p.value for p in earlier], cfg)
        out.append(Judged(point, band, _verdict(point.value, band, higher_is_better(figure, kind)),
                          point.value / band.median if band.median else None,
                          tuple(p.run_id for p in earlier)))
    return tuple(out)


def _verdict(value: float, band: Band, higher_better: bool) -> str:
    if band.low <= value <= band.high:
        return ""
    better = (value > band.high) == higher_better
    return "improvement" if better else "regression"


def history(engine: Engine, case: str, figure: str = HEADLINE, *,
            vendor: str | None = None, chip: str | None = None,
            cfg: BandConfig = BandConfig()) -> list[Series]:
    """The series of ``case`` (a model name, case dir name or case key), one per fingerprint,
    vendor, chip, topology, run mode and marks, oldest run first; each run's value is the
    ``STATISTIC`` of ``figure`` (HEADLINE: the case's headline figure) over its counted rounds."""
    rows = _rows(engine, case, figure, vendor, chip)
    groups: dict[tuple, list] = {}
    for row in rows:
        groups.setdefault((row.fingerprint_key, row.vendor, row.chip, row.nnodes, row.nproc,
                           row.run_mode, row.marks), []).append(row)
    return [_series(figure, group, cfg) for group in groups.values()]


def _series(figure: str, group: list, cfg: BandConfig) -> Series:
    first = group[0]
    kind = (first.kind if figure == HEADLINE else figure_kind(first.unit)) or ""
    label = headline_label(first.suite) if figure == HEADLINE else figure
    points = [Point(r.run_id, r.started_at or "", r.value, r.run_dir) for r in group]
    return Series(first.fingerprint_key, first.fingerprint, first.vendor, first.chip,
                  f"{first.nnodes or '?'}x{first.nproc or '?'}", first.unit,
                  judge(points, figure, cfg, kind), first.run_mode or "", first.marks or "",
                  label, kind)


def _rows(engine: Engine, case: str, figure: str, vendor: str | None,
          chip: str | None) -> list:
    c, r = db.cases, db.runs
    query = (sa.select(c.c.fingerprint_key, c.c.fingerprint, c.c.vendor, c.c.chip, c.c.nnodes,
                       c.c.nproc, c.c.run_mode, c.c.marks, c.c.suite, r.c.run_id,
                       r.c.started_at, r.c.run_dir, *_value_columns(figure))
             .join(r, r.c.id == c.c.run_pk)
             .where(sa.or_(c.c.model == case, c.c.dir_name == case, c.c.key == case))
             .order_by(r.c.started_at, r.c.run_id))
    if figure == HEADLINE:
        query = query.where(c.c.throughput.is_not(None))
    else:
        f = db.figures
        query = query.join(f, f.c.case_pk == c.c.id).where(
            f.c.name == figure, f.c[STATISTIC].is_not(None))
    if vendor is not None:
        query = query.where(c.c.vendor == vendor)
    if chip is not None:
        query = query.where(c.c.chip == chip)
    with engine.connect() as conn:
        return list(conn.execute(query))


def _value_columns(figure: str) -> tuple[sa.ColumnElement, ...]:
    """value, unit and kind of each case: the headline's (``cases`` holds its statistic) or
    the ``STATISTIC`` of a named figure (``figures``)."""
    c = db.cases
    if figure == HEADLINE:
        return (c.c.throughput.label("value"), c.c.throughput_unit.label("unit"),
                c.c.value_kind.label("kind"))
    f = db.figures
    return (f.c[STATISTIC].label("value"), f.c.unit.label("unit"), c.c.value_kind.label("kind"))
