"""The results store on a real PostgreSQL server: ingest (idempotent, in a transaction), the
newer-schema refusal, history and the leaderboard, as on SQLite.

The server: $CHIPPERF_TEST_PG_URL (a SQLAlchemy URL to a database whose user may create
databases), else the one `.ci/postgres.sh start` starts (root, Debian's postgresql package;
.ci/run does both). Each test module works in a database of its own, dropped at the end. Fails,
never skips, when there is no server.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.store import db
from chipperf.store.history import history
from chipperf.store.ingest import RefusedDir, ingest_dir
from chipperf.store.leaderboard import board

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def _server_url() -> str:
    url = os.environ.get("CHIPPERF_TEST_PG_URL")
    if url:
        return url
    done = subprocess.run([str(REPO / ".ci" / "postgres.sh"), "start"], capture_output=True,
                          text=True, timeout=120)
    if done.returncode != 0:
        pytest.fail(f".ci/postgres.sh start failed: {done.stderr.strip()}", pytrace=False)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = sa.make_url(_server_url())
    name = f"chipperf_store_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def _run(root: Path, day: int, throughput: float) -> Path:
    case = SynthCase(nnodes=1, nproc=2, seconds=20, rounds=(
        SynthRound(throughput), SynthRound(throughput * 1.01), SynthRound(throughput * 0.99)))
    run_dir = write_run(root, [case], run_id=f"run202311{day:02d}120000")
    text = (run_dir / "run.json").read_text()
    (run_dir / "run.json").write_text(text.replace("2023-11-14T22:13:20Z",
                                                   f"2023-11-{day:02d}T12:00:00Z"))
    return run_dir


def _count(engine: sa.Engine, table: sa.Table) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


def test_ingest_history_and_board_on_postgresql(url: str, tmp_path: Path) -> None:
    engine = db.open_store(url)
    dirs = [_run(tmp_path, day, t) for day, t in enumerate([1000, 1010, 995, 1004, 850], 1)]
    assert [ingest_dir(engine, d).outcome for d in dirs] == ["added"] * 5
    assert ingest_dir(engine, dirs[0]).outcome == "unchanged"
    assert (_count(engine, db.runs), _count(engine, db.cases), _count(engine, db.rounds)) == \
        (5, 5, 15)
    (series,) = history(engine, "resnet50")
    assert [j.verdict for j in series.points][-1] == "regression"
    assert series.latest.ratio == pytest.approx(850 / 1002, rel=1e-3)
    (group,) = board(engine)
    assert [(r.chip, r.runs) for r in group.rows] == [("A100", 5)]


def test_a_refused_directory_writes_nothing_on_postgresql(url: str, tmp_path: Path) -> None:
    engine = db.open_store(url)
    before = _count(engine, db.runs)
    bad = _run(tmp_path, 20, 1000.0)
    (bad / "run.json").write_text("{")
    with pytest.raises(RefusedDir):
        ingest_dir(engine, bad)
    assert _count(engine, db.runs) == before


def test_a_newer_schema_is_refused_on_postgresql(url: str) -> None:
    engine = db.open_store(url)
    with engine.begin() as conn:
        conn.execute(db.schema_version.update().values(version=db.SCHEMA_VERSION + 1))
    try:
        with pytest.raises(db.StoreError, match="newer than this chipperf's"):
            db.open_store(url)
    finally:
        with engine.begin() as conn:
            conn.execute(db.schema_version.update().values(version=db.SCHEMA_VERSION))


def test_a_version_1_store_is_migrated_on_postgresql(url: str) -> None:
    """Issue 42's and 44's columns (db.ADDED_IN_2, ADDED_IN_3) added by ALTER TABLE, and issue
    43's serving_points table created, on PostgreSQL as on SQLite."""
    engine = db.open_store(url)
    with engine.begin() as conn:
        for table, column, _ in db.ADDED_IN_2 + db.ADDED_IN_3:
            conn.execute(sa.text(f"ALTER TABLE {table} DROP COLUMN {column}"))
        conn.execute(sa.text("DROP TABLE serving_points"))     # version 4's
        conn.execute(db.schema_version.update().values(version=1))
    engine = db.open_store(url)
    with engine.connect() as conn:
        assert conn.execute(sa.select(db.schema_version.c.version)).scalar_one() == 4
        columns = {t: {c["name"] for c in sa.inspect(conn).get_columns(t)}
                   for t in ("runs", "rounds", "cases", "serving_points")}
    assert all(column in columns[table] for table, column, _ in db.ADDED_IN_2 + db.ADDED_IN_3)
    assert {"point", "tokens_per_s_per_user", "output_tokens_per_joule"} <= columns[
        "serving_points"]
