"""Put result directories into the store: checked, collected, one transaction per directory.

A directory is identified by its resolved path; its content by a digest of its summary. The same
directory twice changes nothing; a directory whose summary changed (late files collected, a
report rewritten with new peaks) replaces its earlier rows. ``chipperf check``'s problems
decide (chipperf.store.triage): one of the run itself refuses the directory; one inside a
round's files (a torn PerfLog line) marks that round torn, never counted, and the rest goes
in; a monitor log missing or damaged is recorded with the run. FlagPerf writes no start time:
its run starts at the earliest PerfLog time its rounds logged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from chipperf.results.compute.figures import round_value
from chipperf.results.compute.headline import STATISTIC, case_marks, headline
from chipperf.results.compute.schema import CaseResult, Fingerprint, RoundResult, RunSummary, Stat
from chipperf.results.read.check import Report, check
from chipperf.results.read.check_flagperf import check_flagperf, is_flagperf_dir
from chipperf.results.read.collect import collect
from chipperf.results.read.details import as_dict, case_details, read_json
from chipperf.store import db
from chipperf.store.triage import TORN, Triage, mark_torn, triage

SHOWN_PROBLEMS = 5          # check problems quoted in a refusal


@dataclass(frozen=True)
class Ingested:
    run_dir: Path
    run_id: str
    outcome: str            # "added" | "unchanged" | "replaced"
    cases: int
    problems: tuple[str, ...] = ()     # what `chipperf check` found and the run kept
    torn: tuple[str, ...] = ()         # "<case dir>/round<N>" marked torn, not counted

    def said(self) -> str:
        """The console's line for it (and what was kept despite problems)."""
        line = f"{self.outcome}: {self.run_id} ({self.cases} case(s)) from {self.run_dir}"
        if self.torn:
            line += (f"\n  torn, kept but not counted: {', '.join(self.torn)} (their files are "
                     "not intact)")
        if self.problems:
            line += (f"\n  {len(self.problems)} problem(s) recorded with the run, the first: "
                     f"{self.problems[0]}: `chipperf check {self.run_dir}` lists them")
        return line


@dataclass(frozen=True)
class CaseRows:
    case: dict[str, Any]                     # the cases row, without run_pk
    rounds: tuple[dict[str, Any], ...]       # rounds rows, without case_pk
    figures: tuple[dict[str, Any], ...]      # figures rows, without case_pk
    points: tuple[dict[str, Any], ...] = ()  # serving_points rows, without case_pk


@dataclass(frozen=True)
class ReadRun:
    """Everything a directory puts into the store, read and checked, nothing written yet."""

    run: dict[str, Any]                      # the runs row, without ingested_at
    cases: tuple[CaseRows, ...]


class RefusedDir(db.StoreError):
    """A directory ``chipperf check`` rejects; nothing of it was written."""


def ingest_dir(engine: Engine, run_dir: Path) -> Ingested:
    """Check, collect and store one result directory in one transaction."""
    return store_read(engine, read_run(run_dir))


def ingest_many(engine: Engine, dirs: Sequence[Path], workers: int = 1
                ) -> Iterator[Ingested | RefusedDir]:
    """Each of ``dirs`` in order, read by ``workers`` processes (the readers are the cost),
    written here one transaction per directory; a refusal is yielded, not raised."""
    if workers <= 1 or len(dirs) < 2:
        reads: Iterable[ReadRun | RefusedDir] = map(_read_or_refusal, dirs)
        yield from (r if isinstance(r, RefusedDir) else store_read(engine, r) for r in reads)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for read in pool.map(_read_or_refusal, dirs, chunksize=4):
            yield read if isinstance(read, RefusedDir) else store_read(engine, read)


def _read_or_refusal(run_dir: Path) -> ReadRun | RefusedDir:
    try:
        return read_run(run_dir)
    except RefusedDir as exc:
        return exc


def read_run(run_dir: Path) -> ReadRun:
    """Check and read ``run_dir`` (no database involved); RefusedDir if check rejects it."""
    run_dir = Path(run_dir).resolve()
    summary, problems = mark_torn(collect(run_dir).summary, _refuse_unless_checked(run_dir))
    run_json = read_json(run_dir / "run.json")
    listed = as_dict(run_json.get("cases"))
    engines = " / ".join(dict.fromkeys(
        str(h.get("docker_version")) for h in as_dict(run_json.get("hosts")).values()
        if isinstance(h, dict) and h.get("docker_version")))
    return ReadRun(_run_row(run_dir, summary, summary_digest(summary), problems), tuple(
        _case_rows(run_dir, case, as_dict(listed.get(case.dir_name)), engines)
        for case in summary.cases))


def store_read(engine: Engine, read: ReadRun) -> Ingested:
    """Write one read directory in one transaction."""
    with engine.begin() as conn:
        outcome = _store_run(conn, read)
    torn = tuple(f"{rows.case['dir_name']}/round{r['number']}" for rows in read.cases
                 for r in rows.rounds if r["status"] == TORN)
    problems = tuple(json.loads(read.run["problems"] or "[]"))
    return Ingested(Path(read.run["run_dir"]), read.run["run_id"], outcome, len(read.cases),
                    problems, torn)


def _refuse_unless_checked(run_dir: Path) -> Triage:
    """``chipperf check``'s problems, triaged; RefusedDir for any of the run itself."""
    if not run_dir.is_dir():
        raise RefusedDir(f"{run_dir}: not a directory: give a result/run<timestamp> directory")
    report: Report = check_flagperf(run_dir) if is_flagperf_dir(run_dir) else check(run_dir)
    found = triage(report.problems)
    if found.refusing:
        shown = "; ".join(found.refusing[:SHOWN_PROBLEMS])
        more = len(found.refusing) - SHOWN_PROBLEMS
        raise RefusedDir(f"{run_dir}: refused, `chipperf check` finds {len(found.refusing)} "
                         f"problem(s) of the run itself: {shown}"
                         + (f" (and {more} more)" if more > 0 else "")
                         + f": run `chipperf check {run_dir}` and fix or leave out this directory")
    return found


def summary_digest(summary: RunSummary) -> str:
    """A digest of what the summary says, wherever the directory lies."""
    data = summary.to_dict()
    data.pop("run_dir", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def fingerprint_key(fp: Fingerprint) -> str:
    return hashlib.sha256(_canonical(fp.to_dict()).encode()).hexdigest()[:16]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _store_run(conn: Connection, read: ReadRun) -> str:
    run_dir, digest = read.run["run_dir"], read.run["digest"]
    old = conn.execute(sa.select(db.runs.c.id, db.runs.c.digest)
                       .where(db.runs.c.run_dir == run_dir)).first()
    if old is not None and old.digest == digest:
        return "unchanged"
    if old is not None:
        case_pks = sa.select(db.cases.c.id).where(db.cases.c.run_pk == old.id)
        conn.execute(db.rounds.delete().where(db.rounds.c.case_pk.in_(case_pks)))
        conn.execute(db.figures.delete().where(db.figures.c.case_pk.in_(case_pks)))
        conn.execute(db.serving_points.delete().where(db.serving_points.c.case_pk.in_(case_pks)))
        conn.execute(db.cases.delete().where(db.cases.c.run_pk == old.id))
        conn.execute(db.runs.delete().where(db.runs.c.id == old.id))
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    run_pk = _insert(conn, db.runs.insert().values(read.run | {"ingested_at": stamp}))
    for rows in read.cases:
        case_pk = _insert(conn, db.cases.insert().values(rows.case | {"run_pk": run_pk}))
        if rows.rounds:
            conn.execute(db.rounds.insert(), [r | {"case_pk": case_pk} for r in rows.rounds])
        if rows.figures:
            conn.execute(db.figures.insert(), [f | {"case_pk": case_pk} for f in rows.figures])
        if rows.points:
            conn.execute(db.serving_points.insert(),
                         [p | {"case_pk": case_pk} for p in rows.points])
    return "added" if old is None else "replaced"


def _run_row(run_dir: Path, summary: RunSummary, digest: str,
             problems: Sequence[str] = ()) -> dict[str, Any]:
    report = run_dir / "report.html"
    return dict(
        run_dir=str(run_dir), run_id=summary.run_id, digest=digest, source=summary.source,
        suite=summary.suite, vendor=summary.vendor, status=summary.status,
        started_at=summary.started_at or logged_start(summary) or _mtime(run_dir),
        finished_at=summary.finished_at, chipperf_version=summary.chipperf_version,
        report_html=str(report) if report.is_file() else None,
        problems=json.dumps(list(problems)) if problems else None)


def logged_start(summary: RunSummary) -> str | None:
    """The earliest time the rounds logged (a round's start, else its PerfLog TRAIN_START):
    a FlagPerf tree's own start, where no run.json says it."""
    stamps = [ms for case in summary.cases for r in case.rounds
              for ms in (r.started_ms, r.train_start_ms) if isinstance(ms, int) and ms > 0]
    if not stamps:
        return None
    return datetime.fromtimestamp(min(stamps) / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _case_rows(run_dir: Path, case: CaseResult, entry: dict[str, Any],
               engines: str) -> CaseRows:
    fp = case.fingerprint or Fingerprint(case=f"?:{case.model or '?'}/{case.family or '?'}")
    details = case_details(run_dir, case, entry, engines)
    row = dict(
        dir_name=case.dir_name, key=case.key, suite=case.suite, model=case.model,
        framework=case.framework, vendor=case.vendor, chip=case.chip, nnodes=case.nnodes,
        nproc=case.nproc, status=case.status, work_unit=case.work_unit,
        throughput_unit=case.throughput_unit, fingerprint_key=fingerprint_key(fp),
        fingerprint=_canonical(fp.to_dict()), hardware=_canonical(details.hardware),
        software=_canonical(details.software))
    figures = figure_rows_of(case)
    values = {f["name"]: f[STATISTIC] for f in figures}
    head = headline(case)
    marks = case_marks(case) or (("smoke data",) if details.smoke else ())
    row |= {"throughput": values.get(head.name), "throughput_unit": head.unit,
            "value_kind": head.kind, "run_mode": (case.run_mode or "")[:80] or None,
            "marks": "; ".join(marks)[:400] or None, "mfu": values.get("mfu"),
            "mfu_causal": values.get("mfu_causal"),
            "energy_per_unit_j": values.get("energy_per_unit_j"),
            "share_of_peak": values.get("share_of_peak")}
    return CaseRows(row, tuple(_round_row(r, r.number in case.counted, head.name)
                               for r in case.rounds), tuple(figures),
                    tuple(p for r in case.rounds for p in serving_point_rows(r)))


def _insert(conn: Connection, statement: sa.Insert) -> int:
    key = conn.execute(statement).inserted_primary_key
    if key is None:
        raise db.StoreError("the database returned no key for an inserted row: a bug")
    return int(key[0])


def _round_row(r: RoundResult, counted: bool, figure: str = "throughput_raw") -> dict[str, Any]:
    per_unit = r.energy_per_item_j
    if per_unit is None and r.work_per_joule:
        per_unit = 1.0 / r.work_per_joule
    return dict(number=r.number, status=r.status, counted=counted,
                problems=r.reason if r.status == TORN else None,
                throughput=round_value(r, figure), mfu=r.mfu, mfu_causal=r.mfu_causal,
                energy_per_unit_j=per_unit, share_of_peak=r.share_of_peak)


def serving_point_rows(r: RoundResult) -> list[dict[str, Any]]:
    """One row per point of the round's served sweep (failed ones too, with why)."""
    sweep = (r.serving or {}).get("sweep")
    if not isinstance(sweep, Mapping):
        return []
    served_by = sweep.get("served_by")
    engine = served_by.get("engine") if isinstance(served_by, Mapping) else sweep.get("engine")
    return [_point_row(r.number, engine, p) for p in sweep.get("points") or []
            if isinstance(p, Mapping)]


def _point_row(number: int, engine: Any, p: Mapping[str, Any]) -> dict[str, Any]:
    why = str(p.get("why") or "").strip()
    latency = {f"{name}_{q}_ms": _float((p.get(f"{name}_ms") or {}).get(q))
               for name in ("ttft", "tpot") for q in ("p50", "p90", "p99")}
    return dict(round=number, point=str(p.get("point") or "?")[:80],
                engine=str(engine)[:40] if engine else None, shape=_text(p.get("shape"), 40),
                concurrency=_int(p.get("concurrency")), request_rate=_float(p.get("request_rate")),
                status=_text(p.get("status"), 20), why=why or None,
                requests=_int(p.get("requests")), failed=_int(p.get("failed")),
                **{name: _float(p.get(name)) for name in (
                    "output_tokens_per_s_per_chip", "tokens_per_s_per_user",
                    "goodput_requests_per_s", "output_tokens_per_joule",
                    "cost_per_million_output_tokens")},
                **latency, cost_currency=_text(p.get("cost_currency"), 12))


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any, size: int) -> str | None:
    return str(value)[:size] if value not in (None, "") else None


def figure_rows_of(case: CaseResult) -> list[dict[str, Any]]:
    """One row per aggregated figure with a value, plus ``energy_per_unit_j`` (joules per unit
    of work: an inference case's energy per item, a training case's 1 / work per joule)."""
    rows = [_figure(name, stat, _unit(case, name)) for name, stat in case.aggregate.items()
            if stat.n and stat.median is not None]
    energy = case.aggregate.get("energy_per_item_j")
    if energy is not None and energy.n and energy.median is not None:
        rows.append(_figure("energy_per_unit_j", energy, _unit(case, "energy_per_item_j")))
    else:
        rows += _inverted_work_per_joule(case)
    return rows


def _inverted_work_per_joule(case: CaseResult) -> list[dict[str, Any]]:
    stat = case.aggregate.get("work_per_joule")
    if stat is None or not stat.n or not stat.median or not stat.min or not stat.max:
        return []
    return [dict(name="energy_per_unit_j", unit=_unit(case, "energy_per_item_j"), n=stat.n,
                 median=1.0 / stat.median, mean=1.0 / stat.mean if stat.mean else None,
                 min=1.0 / stat.max, max=1.0 / stat.min)]


def _figure(name: str, stat: Stat, unit: str | None) -> dict[str, Any]:
    return dict(name=name, unit=unit, n=stat.n, median=stat.median, mean=stat.mean,
                min=stat.min, max=stat.max)


def _unit(case: CaseResult, name: str) -> str | None:
    if name.startswith("throughput"):
        return case.throughput_unit
    if name == "energy_per_item_j":
        return f"J/{case.work_unit or 'unit'}"
    if name in ("mfu", "mfu_causal", "mfu_measured", "share_of_peak"):
        return "fraction"
    if name == "metric_value":          # base/ and operation/: the value's own unit (GiB...)
        return case.metric_name
    return None


def _mtime(path: Path) -> str:
    stamp = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
