"""chipperf.store: ingest of real result directories (chipperf's synthetic and FlagPerf's),
idempotence, refusals and schema versions."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from flagperf_dirs import inference_run, training_run
from store_runs import case, run

from chipperf import cli
from chipperf.store import db
from chipperf.store.ingest import Ingested, RefusedDir, ingest_dir, ingest_many


def _open(root: Path) -> sa.Engine:
    return db.open_store(f"sqlite:///{root / 'store.sqlite'}")


def _counts(engine: sa.Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one()
                for t in (db.runs, db.cases, db.rounds, db.figures)}


def _dump(engine: sa.Engine) -> list:
    with engine.connect() as conn:
        return [list(conn.execute(sa.select(t).order_by(t.c.id)))
                for t in (db.runs, db.cases, db.rounds, db.figures)]


def test_ingest_stores_runs_cases_rounds_figures_hardware_software(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    run_dir = run(tmp_path, 1, [case(1000.0), case(50.0, model="bert")])
    done = ingest_dir(engine, run_dir)
    assert (done.outcome, done.cases) == ("added", 2)
    assert _counts(engine) == {"runs": 1, "cases": 2, "rounds": 6,
                               "figures": _counts(engine)["figures"]}
    with engine.connect() as conn:
        row = conn.execute(sa.select(db.cases).where(db.cases.c.model == "resnet50")).one()
        figs = {f.name: f for f in conn.execute(
            sa.select(db.figures).where(db.figures.c.case_pk == row.id))}
        run_row = conn.execute(sa.select(db.runs)).one()
    assert run_row.started_at == "2023-11-01T12:00:00Z" and run_row.run_id == "run20231101120000"
    assert json.loads(row.fingerprint)["global_batch"] == 256
    assert figs["throughput_raw"].median == pytest.approx(1000.0)
    assert figs["throughput_raw"].unit == "samples/s"
    assert 0 < figs["mfu"].median < 1
    # energy per unit of work: the inverse of work per joule, min and max swapped
    wpj = figs["work_per_joule"]
    assert figs["energy_per_unit_j"].median == pytest.approx(1 / wpj.median)
    assert figs["energy_per_unit_j"].min == pytest.approx(1 / wpj.max)
    hardware = dict(json.loads(row.hardware))
    assert hardware["accelerators per node"] == "2 x A100"
    assert "torch 2.13.0" in dict(json.loads(row.software))["frameworks"]


def test_the_same_directory_twice_changes_nothing(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    run_dir = run(tmp_path, 1, [case(1000.0)])
    ingest_dir(engine, run_dir)
    before = _dump(engine)
    again = ingest_dir(engine, run_dir)
    assert again.outcome == "unchanged"
    assert _dump(engine) == before


def test_a_changed_directory_replaces_its_rows(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    run_dir = run(tmp_path, 1, [case(1000.0)])
    ingest_dir(engine, run_dir)
    data = json.loads((run_dir / "run.json").read_text())
    data["started_at"] = "2023-11-02T12:00:00Z"
    (run_dir / "run.json").write_text(json.dumps(data))
    assert ingest_dir(engine, run_dir).outcome == "replaced"
    assert _counts(engine)["runs"] == 1 and _counts(engine)["cases"] == 1
    with engine.connect() as conn:
        assert conn.execute(sa.select(db.runs.c.started_at)).scalar_one() == \
            "2023-11-02T12:00:00Z"


def test_a_directory_check_rejects_is_refused_and_nothing_written(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    run_dir = run(tmp_path, 1, [case(1000.0)])
    data = json.loads((run_dir / "run.json").read_text())
    data["status"] = "half-done"                      # not in the closed set of statuses
    (run_dir / "run.json").write_text(json.dumps(data))
    with pytest.raises(RefusedDir, match=r"refused, `chipperf check` finds .*status"):
        ingest_dir(engine, run_dir)
    assert _counts(engine) == {"runs": 0, "cases": 0, "rounds": 0, "figures": 0}


def test_flagperf_result_directories_are_ingested(tmp_path: Path) -> None:
    engine = _open(tmp_path)
    training = ingest_dir(engine, training_run(tmp_path / "t"))
    inference = ingest_dir(engine, inference_run(tmp_path / "i"))
    assert (training.cases, inference.cases) == (1, 1)
    with engine.connect() as conn:
        rows = {r.suite or "training": r for r in conn.execute(
            sa.select(db.runs.c.source, db.cases.c.suite, db.cases.c.fingerprint, db.figures.c.median)
            .join(db.cases, db.cases.c.run_pk == db.runs.c.id)
            .join(db.figures, db.figures.c.case_pk == db.cases.c.id)
            .where(db.figures.c.name == "throughput_raw"))}
    assert {r.source for r in rows.values()} == {"flagperf"}
    # FlagPerf's batch is per chip: 32 x 4 chips
    assert json.loads(rows["training"].fingerprint)["global_batch"] == 128
    assert json.loads(rows["inference"].fingerprint)["global_batch"] == 256
    assert rows["training"].median > 0 and rows["inference"].median > 0


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "store.sqlite"
    bogus.write_text("these are not the bytes of a SQLite database\n" * 100)
    with pytest.raises(db.StoreError, match="not a database chipperf can read"):
        db.open_store(f"sqlite:///{bogus}")
    assert bogus.read_text().startswith("these are not")


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    _open(tmp_path).dispose()
    with sqlite3.connect(tmp_path / "store.sqlite") as conn:
        conn.execute("UPDATE schema_version SET version = ?", (db.SCHEMA_VERSION + 1,))
    with pytest.raises(db.StoreError, match=f"schema version {db.SCHEMA_VERSION + 1}, newer "
                                            f"than this chipperf's {db.SCHEMA_VERSION}"):
        _open(tmp_path)


def test_an_older_schema_is_migrated_step_by_step(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _open(tmp_path).dispose()
    steps: list[int] = []
    monkeypatch.setattr(db, "SCHEMA_VERSION", db.SCHEMA_VERSION + 1)
    monkeypatch.setitem(db.MIGRATIONS, db.SCHEMA_VERSION, lambda conn: steps.append(1))
    engine = _open(tmp_path)
    with engine.connect() as conn:
        assert conn.execute(sa.select(db.schema_version.c.version)).scalar_one() == \
            db.SCHEMA_VERSION
    assert steps == [1]


def test_a_database_of_other_tables_is_not_taken_over(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "store.sqlite") as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    with pytest.raises(db.StoreError, match="not a chipperf store"):
        _open(tmp_path)


def test_cli_ingest_defaults_to_the_file_under_the_result_root(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(db.ENV_URL, raising=False)
    good = run(tmp_path, 1, [case(1000.0)])
    bad = run(tmp_path, 2, [case(1000.0)])
    (bad / "run.json").write_text("{not json")
    assert cli.main(["ingest", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"added: run20231101120000 (1 case(s)) from {good.resolve()}" in out
    assert f"{bad.resolve()}: refused" in out
    assert (tmp_path / db.DEFAULT_FILE).is_file()
    assert cli.main(["ingest", str(good)]) == 0
    assert "unchanged: run20231101120000" in capsys.readouterr().out


def test_cli_reads_the_url_from_results_db(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "elsewhere" / "team.sqlite"
    target.parent.mkdir()
    monkeypatch.setenv(db.ENV_URL, f"sqlite:///{target}")
    assert cli.main(["ingest", str(run(tmp_path, 1, [case(1000.0)]))]) == 0
    assert target.is_file() and not (tmp_path / db.DEFAULT_FILE).exists()


def test_an_unreachable_postgresql_url_is_one_clear_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://chipperf:secret@127.0.0.1:9/none?connect_timeout=2"
    try:
        sa.create_engine(url).dispose()
        expected = "cannot connect or open"                       # the driver is installed
    except ImportError:
        expected = "not a database URL this install can open (No module named 'psycopg"
    code = cli.main(["history", "resnet50", "--db", url])
    out = capsys.readouterr().out
    assert code == 2 and expected in out and "secret" not in out
    assert len(out.splitlines()) == 1


def test_ingest_many_reads_in_processes_and_yields_refusals_in_order(tmp_path: Path) -> None:
    good = [run(tmp_path, day, [case(1000.0 + day)]) for day in (1, 2, 3)]
    (good[1] / "run.json").write_text("[]")
    engine = _open(tmp_path)
    outcomes = list(ingest_many(engine, good, workers=2))
    assert [type(o).__name__ for o in outcomes] == ["Ingested", "RefusedDir", "Ingested"]
    assert [o.run_id for o in outcomes if isinstance(o, Ingested)] == [
        "run20231101120000", "run20231103120000"]
    assert _counts(engine)["runs"] == 2


def test_the_run_end_line_ingests_or_says_why_not(tmp_path: Path) -> None:
    run_dir = run(tmp_path, 1, [case(1000.0)])
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    assert cli.ingest_screen(run_dir, url) == \
        f"Results store: added run20231101120000 in {url}\n"
    assert cli.ingest_screen(run_dir, url).startswith("Results store: unchanged")
    (tmp_path / "junk.sqlite").write_text("no database here\n" * 50)
    line = cli.ingest_screen(run_dir, str(tmp_path / "junk.sqlite"))
    assert line.startswith("Not ingested into the results store: ") and "junk.sqlite" in line
