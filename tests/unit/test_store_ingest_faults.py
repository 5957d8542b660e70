"""Ingest of runs that are not whole (issue 42): a torn PerfLog line marks its round torn and
the rest of the run goes in; a FlagPerf tree with a monitor log missing goes in with the
problem recorded, started when its logs say; a version-1 store gains the new columns."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import sqlalchemy as sa
from flagperf_dirs import training_run
from store_runs import case, run

from chipperf.store import db
from chipperf.store.ingest import ingest_dir
from chipperf.store.triage import triage


def _open(root: Path) -> sa.Engine:
    return db.open_store(f"sqlite:///{root / 'store.sqlite'}")


def _tear_a_perflog_line(run_dir: Path, round_number: int) -> str:
    """Cut rank 0's second PerfLog line of the round in half, as a crash mid-write does."""
    (log,) = run_dir.glob(f"*/round{round_number}/*_noderank0/rank0.out.log")
    lines = log.read_text().splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if "[PerfLog]" in line][1]
    lines[at] = lines[at][: len(lines[at]) // 2] + "\n"
    log.write_text("".join(lines))
    return f"{log.relative_to(run_dir)}:{at + 1}"


def test_a_torn_perflog_line_marks_its_round_and_keeps_the_others(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    run_dir = run(tmp_path, 1, [case(1000.0)])
    where = _tear_a_perflog_line(run_dir, 2)
    assert ingest_dir(engine, run_dir).outcome == "added"
    with engine.connect() as conn:
        rounds = {r.number: r for r in conn.execute(sa.select(db.rounds))}
        problems = json.loads(conn.execute(sa.select(db.runs.c.problems)).scalar_one())
        median = conn.execute(sa.select(db.figures.c.median, db.figures.c.n)
                              .where(db.figures.c.name == "throughput_raw")).one()
    assert (rounds[2].status, rounds[2].counted) == ("torn", False)
    assert rounds[2].problems.startswith(f"its files are not intact: {where}: ")
    assert [rounds[n].counted for n in (1, 3)] == [True, True]
    assert any(p.startswith(f"{where}: ") for p in problems), problems
    # rounds 1 and 3 only: 1000 and 990 samples/s
    assert median.n == 2 and abs(median.median - 995.0) < 1e-6


def test_a_flagperf_tree_missing_a_monitor_log_goes_in_with_the_problem(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    run_dir = training_run(tmp_path)
    (missing,) = run_dir.glob("*/round1/*_noderank1")
    (missing / "mem_monitor.log").unlink()
    assert ingest_dir(engine, run_dir).outcome == "added"
    with engine.connect() as conn:
        row = conn.execute(sa.select(db.runs.c.problems, db.runs.c.started_at,
                                     db.runs.c.ingested_at)).one()
        counted = conn.execute(sa.select(db.rounds.c.counted)).scalar_one()
    (problem,) = json.loads(row.problems)
    assert problem.endswith("_noderank1/mem_monitor.log: missing (FlagPerf's sys_monitor writes it)")
    assert counted is True
    # its own start: rank 0's TRAIN_START, 10 s after the first sample (flagperf_dirs.START)
    assert row.started_at == "2024-01-01T10:00:10Z" != row.ingested_at


def test_problems_of_the_run_itself_still_refuse_it() -> None:
    found = triage(["run.json: status 'half-done' is not one of ...",
                    "c/round2/h_noderank0/rank0.out.log:7: not valid JSON",
                    "c/round1/h_noderank0/pwr_monitor.log: missing",
                    "c/h_noderank0/container.out.log: missing (the case's log with its Finish Info)"])
    assert found.refusing == ("run.json: status 'half-done' is not one of ...",)
    assert found.recorded == ("c/round1/h_noderank0/pwr_monitor.log: missing",)
    assert set(found.torn) == {("c", 2), ("c", 1)}


def test_a_version_1_store_gains_the_new_columns(tmp_path: Path) -> None:
    run_dir = run(tmp_path, 1, [case(1000.0)])
    ingest_dir(_open(tmp_path), run_dir)
    with sqlite3.connect(tmp_path / "store.sqlite") as conn:
        for table, column, _ in db.ADDED_IN_2 + db.ADDED_IN_3:
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        conn.execute("DROP TABLE serving_points")     # version 4's
        conn.execute("UPDATE schema_version SET version = 1")
    engine = _open(tmp_path)
    with engine.connect() as conn:
        assert conn.execute(sa.select(db.schema_version.c.version)).scalar_one() == 4
        assert "mfu_causal" in {c["name"] for c in sa.inspect(conn).get_columns("cases")}
    assert ingest_dir(engine, run_dir).outcome == "replaced"      # the new columns filled
