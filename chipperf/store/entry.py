"""Entry functions the CLI wires to ``chipperf ingest | history | leaderboard | serve``.

Each prints to stdout and returns the exit code: 0 done, 1 a directory refused or (history with
``fail_on_regression``) a regression in a newest run, 2 a store that cannot be opened or
nothing of the case in the store.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.engine import Engine

from chipperf.commands.arguments import output_file_problem, run_dir_problem
from chipperf.results.compute.headline import HEADLINE, STATISTIC
from chipperf.results.layout import atomic_write
from chipperf.results.read.check_flagperf import is_flagperf_dir
from chipperf.store import db
from chipperf.store.boardtext import board_text
from chipperf.store.history import BandConfig, Series, history
from chipperf.store.ingest import RefusedDir, ingest_dir, ingest_many
from chipperf.store.leaderboard import Group, RunRef, board, board_html
from chipperf.store.serve import make_server

DEFAULT_ROOT = Path("result")


def store_url(db_url: str | None, result_root: Path) -> str:
    """``--db`` (a URL, or a path taken as a SQLite file), else RESULTS_DB, else the root's file."""
    if db_url and "://" not in db_url:
        return f"sqlite:///{Path(db_url)}"
    return db_url or db.default_url(result_root)


def _open(url: str, create: bool, prog: str) -> Engine | None:
    try:
        return db.open_store(url, create=create)
    except db.StoreError as exc:
        print(f"chipperf {prog}: {exc}")
        return None


def ingest_main(dirs: Sequence[Path], db_url: str | None = None, jobs: int = 0) -> int:
    """Ingest each of ``dirs``; the store defaults to the SQLite file beside the first one.
    ``jobs``: processes reading directories (0: one per CPU, at most 8)."""
    url = store_url(db_url, Path(dirs[0]).resolve().parent)
    readable = [Path(d) for d in dirs if not _refused_at_sight(Path(d))]
    if not readable:
        return 2   # nothing to ingest: no store is made for it
    engine = _open(url, True, "ingest")
    if engine is None:
        return 2
    workers = jobs or min(os.cpu_count() or 1, 8)
    refused = len(dirs) - len(readable)
    for done in ingest_many(engine, readable, workers):
        if isinstance(done, RefusedDir):
            print(f"chipperf ingest: {done}")
            refused += 1
            continue
        print(done.said())
    print(f"store: {db.shown_url(url)}")
    return 1 if refused else 0


def _refused_at_sight(run_dir: Path) -> bool:
    """Whether ``run_dir`` is no result directory at all (said on the console): neither a
    folder with run.json nor a FlagPerf result tree."""
    problem = run_dir_problem(run_dir, has_fallback=is_flagperf_dir(run_dir))
    if problem:
        print(f"chipperf ingest: {problem}")
    return problem is not None


def ingest_after_run(run_dir: Path, db_url: str | None = None) -> str:
    """What `chipperf run` prints after ingesting its own result directory; never raises for
    a store problem (the run is on disk either way)."""
    url = store_url(db_url, Path(run_dir).resolve().parent)
    try:
        done = ingest_dir(db.open_store(url), run_dir)
    except db.StoreError as exc:
        return f"Not ingested into the results store: {exc}\n"
    except Exception as exc:  # a store bug must not hide a finished run
        return (f"Not ingested into the results store: {type(exc).__name__}: {exc} "
                f"(`chipperf ingest {run_dir}` retries)\n")
    return f"Results store: {done.outcome} {done.run_id} in {db.shown_url(url)}\n"


def history_main(case: str, db_url: str | None = None, result_root: Path = DEFAULT_ROOT,
                 vendor: str | None = None, chip: str | None = None,
                 figure: str = HEADLINE, cfg: BandConfig = BandConfig(),
                 fail_on_regression: bool = False) -> int:
    engine = _open(store_url(db_url, result_root), False, "history")
    if engine is None:
        return 2
    series = history(engine, case, figure, vendor=vendor, chip=chip, cfg=cfg)
    if not series:
        print(f"chipperf history: no {_figure_name(figure)} of case {case!r} in the store"
              + (f" for {vendor or ''} {chip or ''}".rstrip() if vendor or chip else "")
              + " (give a model name, a case directory name or a case key)")
        return 2
    print(statistic_line(figure) + "\n")
    print("".join(history_text(s) for s in series), end="")
    flagged = [s for s in series if s.latest.verdict == "regression"]
    return 1 if flagged and fail_on_regression else 0


def _figure_name(figure: str) -> str:
    return "headline figure" if figure == HEADLINE else figure


def statistic_line(figure: str) -> str:
    """What each run's value is: which figure, which statistic over which rounds."""
    which = ("its headline figure (training, inference: raw throughput; base/, operation/: "
             "the measured value) in its own unit" if figure == HEADLINE else figure)
    return (f"Each run: {which}, the {STATISTIC} over its counted rounds (the statistic "
            "report.html and the leaderboard show); band: the median of the earlier runs' "
            "values +- K x 1.4826 x MAD.")


def history_text(series: Series) -> str:
    """One block per series: a line per run, flagged runs with their ratio and baseline runs."""
    known = json.loads(series.fingerprint)
    shown = ", ".join(f"{k}={v}" for k, v in known.items() if v is not None)
    mode = f" ({series.run_mode})" if series.run_mode else ""
    marks = f" [{series.marks}]" if series.marks else ""
    says = ", ".join(x for x in (series.unit or "-", series.kind, STATISTIC) if x)
    figure = f"{series.label} ({says})"
    lines = [f"{series.vendor} {series.chip} {series.topology}{mode}{marks}  fingerprint "
             f"{series.fingerprint_key}: {shown}",
             f"  {'run':<24} {'started':<22} {figure}  band (median, low..high over earlier runs)"]
    for j in series.points:
        band = (f"{j.band.median:.4g} ({j.band.low:.4g}..{j.band.high:.4g}, n={j.band.n})"
                if j.band else "-")
        lines.append(f"  {j.point.run_id:<24} {j.point.started_at:<22} "
                     f"{j.point.value:>{len(figure)}.6g}  {band}")
        if j.verdict:
            lines.append(f"    {j.verdict.upper()}: ratio {j.ratio:.3f} to the median of "
                         + ", ".join(j.compared))
    return "\n".join(lines) + "\n\n"


def leaderboard_main(html: Path | None, db_url: str | None = None,
                     result_root: Path = DEFAULT_ROOT, suite: str | None = None,
                     text: bool = False) -> int:
    """Write the page to ``html`` and/or (``text``) print the tables; 2 for neither."""
    problem = "give --html FILE, --text or both" if html is None and not text else \
        output_file_problem(Path(html), "--html") if html is not None else None
    if problem:
        print(f"chipperf leaderboard: {problem}")
        return 2
    engine = _open(store_url(db_url, result_root), False, "leaderboard")
    if engine is None:
        return 2
    started = time.perf_counter()
    groups = board(engine, suite)
    if text:
        print(board_text(groups), end="")
    return _write_board(Path(html), groups, started) if html is not None else 0


def _write_board(html: Path, groups: list[Group], started: float) -> int:
    try:
        atomic_write(html, board_html(groups, _file_link))
    except OSError as exc:
        print(f"chipperf leaderboard: --html {html}: cannot be written ({exc.strerror or exc}): "
              "free space there or write elsewhere")
        return 2
    ms = (time.perf_counter() - started) * 1000
    print(f"wrote {html}: {len(groups)} fingerprint(s), "
          f"{sum(len(g.rows) for g in groups)} chip row(s) in {ms:.0f} ms")
    return 0


def _file_link(run: RunRef) -> str | None:
    return Path(run.report_html).as_uri() if run.report_html else None


def serve_main(db_url: str | None = None, result_root: Path = DEFAULT_ROOT,
               host: str = "127.0.0.1", port: int = 8765) -> int:
    engine = _open(store_url(db_url, result_root), False, "serve")
    if engine is None:
        return 2
    try:
        server = make_server(engine, host, port)
    except OSError as exc:
        print(f"chipperf serve: cannot listen on {host}:{port} ({exc.strerror or exc}): choose "
              "another --port (one no other program uses) or an address of this machine as --host")
        return 2
    print(f"serving the leaderboard read-only on http://{host}:{server.server_port}/ "
          "(Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
