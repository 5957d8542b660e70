"""The store's tables (SQLAlchemy Core), opening a database and migrating its schema.

One database holds every ingested run: SQLite by default (one file under the result root) or
any URL SQLAlchemy knows (``postgresql://...`` for a team's shared store). ``schema_version``
holds one row, the version of the tables; ``open_store`` creates the tables of an empty database,
steps an older schema up through ``MIGRATIONS`` and refuses a newer one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from chipperf.errors import ChipperfError

SCHEMA_VERSION = 4
DEFAULT_FILE = "chipperf-results.sqlite"
ENV_URL = "RESULTS_DB"

metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version", metadata,
    sa.Column("version", sa.Integer, nullable=False))

runs = sa.Table(
    "runs", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("run_dir", sa.String(1024), nullable=False, unique=True),
    sa.Column("run_id", sa.String(200), nullable=False),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("source", sa.String(20)),
    sa.Column("suite", sa.String(40)),
    sa.Column("vendor", sa.String(80)),
    sa.Column("status", sa.String(40)),
    sa.Column("started_at", sa.String(40)),
    sa.Column("finished_at", sa.String(40)),
    sa.Column("chipperf_version", sa.String(40)),
    sa.Column("report_html", sa.String(1024)),
    sa.Column("ingested_at", sa.String(40), nullable=False),
    sa.Column("problems", sa.Text))     # JSON list: what `chipperf check` found and the run kept

def headline_columns() -> list[sa.Column]:
    """The leaderboard's figures, on a case (medians over counted rounds) and a round."""
    return [sa.Column(name, sa.Float)
            for name in ("throughput", "mfu", "mfu_causal", "energy_per_unit_j", "share_of_peak")]


cases = sa.Table(
    "cases", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("run_pk", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"),
              nullable=False, index=True),
    sa.Column("dir_name", sa.String(400), nullable=False),
    sa.Column("key", sa.String(400)),
    sa.Column("suite", sa.String(40)),
    sa.Column("model", sa.String(200), index=True),
    sa.Column("framework", sa.String(80)),
    sa.Column("vendor", sa.String(80)),
    sa.Column("chip", sa.String(80)),
    sa.Column("nnodes", sa.Integer),
    sa.Column("nproc", sa.Integer),
    sa.Column("status", sa.String(40)),
    sa.Column("work_unit", sa.String(40)),
    sa.Column("throughput_unit", sa.String(60)),
    sa.Column("fingerprint_key", sa.String(64), nullable=False, index=True),
    sa.Column("fingerprint", sa.Text, nullable=False),     # JSON of the Fingerprint fields
    sa.Column("hardware", sa.Text, nullable=False),        # JSON [[label, value], ...]
    sa.Column("software", sa.Text, nullable=False),
    sa.Column("value_kind", sa.String(20)),    # the headline figure's kind: rate, capacity, latency
    sa.Column("run_mode", sa.String(80)),      # "performance: 5 warm-up + 12 timed steps", ...
    sa.Column("marks", sa.String(400)),        # smoke data, reduced preset: not the chip's figure
    # the leaderboard's figures (medians over counted rounds), copied from ``figures`` so that
    # a page over ten thousand runs reads one row per case
    *headline_columns())

rounds = sa.Table(
    "rounds", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("case_pk", sa.Integer, sa.ForeignKey("cases.id", ondelete="CASCADE"),
              nullable=False, index=True),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("status", sa.String(40)),
    sa.Column("counted", sa.Boolean, nullable=False),
    sa.Column("problems", sa.Text),     # a torn round's: why its files are not intact
    *headline_columns())

figures = sa.Table(
    "figures", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("case_pk", sa.Integer, sa.ForeignKey("cases.id", ondelete="CASCADE"),
              nullable=False, index=True),
    sa.Column("name", sa.String(60), nullable=False),
    sa.Column("unit", sa.String(60)),
    sa.Column("n", sa.Integer, nullable=False),
    sa.Column("median", sa.Float),
    sa.Column("mean", sa.Float),
    sa.Column("min", sa.Float),
    sa.Column("max", sa.Float))

def latency_columns() -> list[sa.Column]:
    """A served point's TTFT and TPOT percentiles (ms)."""
    return [sa.Column(f"{name}_{p}_ms", sa.Float) for name in ("ttft", "tpot")
            for p in ("p50", "p90", "p99")]


# One row per point of a round's served sweep (FINISHED ``serving.sweep.points``; schema
# version 4): what the leaderboard and `compare` draw the throughput-interactivity curves from.
serving_points = sa.Table(
    "serving_points", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("case_pk", sa.Integer, sa.ForeignKey("cases.id", ondelete="CASCADE"),
              nullable=False, index=True),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("point", sa.String(80), nullable=False),      # chat_c4, chat_r0.5
    sa.Column("engine", sa.String(40)),                     # the engine that served: vllm, ...
    sa.Column("shape", sa.String(40)),
    sa.Column("concurrency", sa.Integer),                   # NULL for a fixed-rate point
    sa.Column("request_rate", sa.Float),                    # requests/s; NULL for concurrency
    sa.Column("status", sa.String(20)),
    sa.Column("why", sa.Text),                              # a failed point's reason
    sa.Column("requests", sa.Integer),
    sa.Column("failed", sa.Integer),
    sa.Column("output_tokens_per_s_per_chip", sa.Float),
    sa.Column("tokens_per_s_per_user", sa.Float),
    *latency_columns(),
    sa.Column("goodput_requests_per_s", sa.Float),
    sa.Column("output_tokens_per_joule", sa.Float),
    sa.Column("cost_per_million_output_tokens", sa.Float),
    sa.Column("cost_currency", sa.String(12)))

# The columns schema version 2 added (issue 42): what `check` found and the run kept, a torn
# round's problems, the headline figure's kind, the run mode and the smoke/preset marks.
ADDED_IN_2 = (("runs", "problems", "TEXT"), ("rounds", "problems", "TEXT"),
              ("cases", "value_kind", "VARCHAR(20)"), ("cases", "run_mode", "VARCHAR(80)"),
              ("cases", "marks", "VARCHAR(400)"))


def _to_version_2(conn: Connection) -> None:
    """Version 1 -> 2: the columns added; rows stored before keep NULL there (`chipperf
    ingest` of their run dirs again fills them)."""
    for table, column, kind in ADDED_IN_2:
        conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))
    conn.execute(runs.update().values(digest=""))   # the next ingest of each dir replaces it


# The columns schema version 3 added (issue 44): MFU with a causal model's attention halved.
ADDED_IN_3 = (("cases", "mfu_causal", "FLOAT"), ("rounds", "mfu_causal", "FLOAT"))


def _to_version_3(conn: Connection) -> None:
    """Version 2 -> 3: ``mfu_causal`` on cases and rounds (NULL until the run is ingested again)."""
    for table, column, kind in ADDED_IN_3:
        conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))
    conn.execute(runs.update().values(digest=""))   # the next ingest of each dir replaces it


def _to_version_4(conn: Connection) -> None:
    """Version 3 -> 4: the ``serving_points`` table (empty: the next ingest of each run dir
    fills the points of its served sweeps; every row stored before is kept)."""
    serving_points.create(conn)
    conn.execute(runs.update().values(digest=""))   # the next ingest of each dir replaces it


# version -> the step that brings a database from version - 1 up to it.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {2: _to_version_2, 3: _to_version_3,
                                                       4: _to_version_4}


class StoreError(ChipperfError):
    """The store cannot be opened, read or written; str() says why and what to do."""


def default_url(result_root: Path) -> str:
    """``RESULTS_DB`` when set, else the SQLite file under ``result_root``."""
    return os.environ.get(ENV_URL) or f"sqlite:///{Path(result_root) / DEFAULT_FILE}"


def open_store(url: str, create: bool = True) -> Engine:
    """An engine on ``url`` whose schema is this code's; ``create``: make the tables of an empty
    database (False: a read-only user, an empty database is an error)."""
    engine = _engine(url)
    if not create and _missing_sqlite_file(engine):   # connecting would make an empty file
        engine.dispose()
        raise StoreError(f"{shown_url(url)}: no chipperf store there yet: "
                         "run `chipperf ingest RUN_DIR` first")
    try:
        with engine.begin() as conn:
            _migrate(conn, url, create)
    except sa.exc.OperationalError as exc:
        engine.dispose()
        raise StoreError(f"{shown_url(url)}: cannot connect or open: {_first_line(exc)}: check the "
                         f"URL (--db or {ENV_URL}), the server and the file's permissions") from exc
    except sa.exc.DatabaseError as exc:
        engine.dispose()
        raise StoreError(f"{shown_url(url)}: not a database chipperf can read ({_first_line(exc)}): "
                         "give another file with --db, or move this one away") from exc
    except StoreError:
        engine.dispose()
        raise
    return engine


def _engine(url: str) -> Engine:
    try:
        engine = sa.create_engine(url)
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as exc:
        raise StoreError(f"{shown_url(url)}: not a database URL this install can open "
                         f"({_first_line(exc)}): use sqlite:///FILE or postgresql://...") from exc
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _missing_sqlite_file(engine: Engine) -> bool:
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return False
    return not Path(database).exists()


def _sqlite_pragmas(dbapi_conn: object, _record: object) -> None:
    """Foreign keys on; a write-ahead log, so that a commit appends instead of syncing the
    whole file (an ingest commits once per directory). WAL needs a local disk: a store on NFS
    is a team's store, and that is what a PostgreSQL URL is for."""
    cursor = dbapi_conn.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _migrate(conn: Connection, url: str, create: bool) -> None:
    names = set(sa.inspect(conn).get_table_names())
    if "schema_version" not in names:
        if names - set(metadata.tables):
            raise StoreError(f"{shown_url(url)}: holds tables that are not a chipperf store "
                             f"({', '.join(sorted(names)[:5])}): give another database")
        if not create:
            raise StoreError(f"{shown_url(url)}: no chipperf store there yet: "
                             "run `chipperf ingest RUN_DIR` first")
        metadata.create_all(conn)
        conn.execute(schema_version.insert().values(version=SCHEMA_VERSION))
        return
    found = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
    if found is None or found > SCHEMA_VERSION:
        raise StoreError(f"{shown_url(url)}: store schema version {found}, newer than this "
                         f"chipperf's {SCHEMA_VERSION}: upgrade chipperf, or use another --db")
    for version in range(found + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[version](conn)
        conn.execute(schema_version.update().values(version=version))


def shown_url(url: str) -> str:
    """The URL without its password."""
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return url


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else type(exc).__name__
