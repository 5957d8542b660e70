"""The served sweep's points in the results store (``serving_points``, schema version 4): ingested
with their run, failed ones with why, kept through the migration of an older store, and drawn by
the leaderboard as one throughput-interactivity chart, a Pareto front per chip (the report's
drawing code: chipperf.results.render.servecurve)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from synthetic_results import write_run
from test_results_inference import edit_finished, inference_case
from test_served_llm import measured_point, served_finished

from chipperf.results.render import servecurve
from chipperf.run.verdict import served_failures
from chipperf.store import db
from chipperf.store.boardtext import board_text
from chipperf.store.ingest import ingest_dir
from chipperf.store.leaderboard import board, board_html

DIED = {"point": "chat_c8", "shape": "chat", "concurrency": 8, "status": "failed",
        "server_died": True, "why": "serving engine 'vllm' exited (code -9) during this point"}


def served_run(root: Path, chip: str, scale: float, run_id: str, died: bool = False) -> Path:
    """A served run on ``chip``: concurrency 1, 2, 4 (4 is beaten by 2 on both axes) at
    ``scale`` x the tokens/s, with tokens per joule and a price (and a dead server at 8)."""
    points = [measured_point(1, 10.0, 90.0 * scale), measured_point(2, 12.5, 150.0 * scale),
              measured_point(4, 25.0, 140.0 * scale)]
    for p in points:
        p.update(output_tokens_per_joule=p["output_tokens_per_s_per_chip"] / 200.0,
                 cost_per_million_output_tokens=2.0 / 3600 / p["output_tokens_per_s_per_chip"]
                 * 1e6, cost_currency="EUR")
    finished = served_finished(points + ([DIED] if died else []))
    finished["serving"]["sweep"]["served_by"] = {"engine": "vllm", "why": "asked"}
    run = write_run(root, [inference_case(chip=chip, vendor="cpu", rounds=inference_case().rounds[:1])],
                    run_id=run_id, suite="inference")
    node = run / f"resnet50-pytorch_2.13-{chip}-1x1" / "round1" / "10.0.0.1_noderank0"
    edit_finished(node / "rank0.out.log", lambda v: (v.clear(), v.update(finished)))
    return run


def store(tmp_path: Path) -> sa.Engine:
    return db.open_store(f"sqlite:///{tmp_path / 'store.sqlite'}")


def stored_points(engine: sa.Engine) -> list[sa.Row]:
    with engine.connect() as conn:
        return list(conn.execute(sa.select(db.serving_points).order_by(db.serving_points.c.id)))


def test_every_point_is_stored_with_its_figures_and_a_failed_one_with_why(tmp_path: Path) -> None:
    engine = store(tmp_path)
    ingest_dir(engine, served_run(tmp_path, "xeon", 1.0, "run20231101120000", died=True))
    rows = stored_points(engine)
    assert [(r.round, r.point, r.status, r.engine) for r in rows] == [
        (1, "chat_c1", "succeeded", "vllm"), (1, "chat_c2", "succeeded", "vllm"),
        (1, "chat_c4", "succeeded", "vllm"), (1, "chat_c8", "failed", "vllm")]
    c2 = rows[1]
    assert (c2.concurrency, c2.request_rate, c2.requests, c2.failed) == (2, None, 4, 0)
    assert (c2.output_tokens_per_s_per_chip, c2.tokens_per_s_per_user) == (150.0, 80.0)
    assert c2.tpot_p50_ms == 12.5 and c2.output_tokens_per_joule == 0.75
    assert c2.cost_per_million_output_tokens == 2.0 / 3600 / 150.0 * 1e6
    assert c2.cost_currency == "EUR"
    assert rows[3].why == DIED["why"] and rows[3].output_tokens_per_s_per_chip is None


def test_a_run_that_lost_a_point_is_stored_failed_with_every_point(tmp_path: Path) -> None:
    """run.json as the engine writes it when a served point failed (chipperf.run.verdict):
    the run, case and round are failed, the round is not counted, every point is kept."""
    run = served_run(tmp_path, "xeon", 1.0, "run20231101120000", died=True)
    record = json.loads((run / "run.json").read_text())
    (case,) = record["cases"].values()
    log = next(run.glob("*/round1/*_noderank0/rank0.out.log")).read_text()
    finished = json.loads(next(line for line in log.splitlines() if '"FINISHED"' in line)
                          .split("[PerfLog] ", 1)[1])["value"]
    reason = f"node 0 (10.0.0.1): {served_failures(finished)}"
    case["rounds"][0].update(status="failed", reason=reason)
    case.update(status="failed", reason=f"round 1: {reason}")
    record["status"] = "failed"
    (run / "run.json").write_text(json.dumps(record))
    engine = store(tmp_path)
    assert ingest_dir(engine, run).problems == ()
    with engine.connect() as conn:
        run_status = conn.execute(sa.select(db.runs.c.status)).scalar_one()
        case_row = conn.execute(sa.select(db.cases.c.status, db.cases.c.throughput)).one()
        round_row = conn.execute(sa.select(db.rounds.c.status, db.rounds.c.counted)).one()
    assert (run_status, *case_row, *round_row) == ("failed", "failed", None, "failed", False)
    assert "chat_c8 (serving engine 'vllm' exited (code -9) during this point)" in reason
    assert [(r.point, r.status) for r in stored_points(engine)][-1] == ("chat_c8", "failed")
    assert len(stored_points(engine)) == 4
    assert board(engine) == []          # no headline figure: no leaderboard row


def test_an_older_store_is_migrated_keeping_its_rows_and_filled_by_the_next_ingest(
        tmp_path: Path) -> None:
    """A version 3 store (the tables as chipperf wrote them before serving_points) gains the
    table; every run, case, round and figure stored before is still there."""
    run = served_run(tmp_path, "xeon", 1.0, "run20231101120000")
    ingest_dir(store(tmp_path), run)
    with sqlite3.connect(tmp_path / "store.sqlite") as conn:
        conn.execute("DROP TABLE serving_points")
        conn.execute("UPDATE schema_version SET version = 3")
        before = {t: conn.execute(f"SELECT * FROM {t}").fetchall()
                  for t in ("runs", "cases", "rounds", "figures")}
    engine = store(tmp_path)
    with engine.connect() as conn:
        assert conn.execute(sa.select(db.schema_version.c.version)).scalar_one() == 4
        for table, rows in before.items():
            kept = conn.execute(sa.text(f"SELECT * FROM {table}")).fetchall()
            if table == "runs":    # the digest is cleared: the next ingest replaces the run
                assert [r[:3] + r[4:] for r in kept] == [r[:3] + r[4:] for r in rows]
            else:
                assert [tuple(r) for r in kept] == rows
    assert stored_points(engine) == []
    assert ingest_dir(engine, run).outcome == "replaced"
    assert len(stored_points(engine)) == 3


def test_the_pareto_front_is_the_points_nothing_beats_on_both_axes() -> None:
    front, rest = servecurve.pareto_front([(100.0, 90.0), (80.0, 150.0), (40.0, 140.0),
                                           (80.0, 150.0), (10.0, 200.0)])
    assert front == [(10.0, 200.0), (80.0, 150.0), (100.0, 90.0)] and rest == [(40.0, 140.0)]


def test_the_leaderboard_draws_each_chips_front_with_energy_and_cost(tmp_path: Path) -> None:
    engine = store(tmp_path)
    for chip, scale, run_id in (("xeon", 1.0, "run20231101120000"),
                                ("epyc", 2.0, "run20231102120000")):
        ingest_dir(engine, served_run(tmp_path / chip, chip, scale, run_id))
    (group,) = board(engine)
    assert [r.chip for r in group.rows] == ["epyc", "xeon"] and all(r.served for r in group.rows)
    page = board_html([group], lambda ref: None)
    chart = page[page.index("<svg xmlns"):page.index("</svg>")]
    assert re.findall(r"<title>([^<]*)</title></polyline>", chart) == [
        "epyc 1x1 vllm chat", "xeon 1x1 vllm chat"]
    assert chart.count('fill="white"') == 2          # chat_c4 of each chip: dominated, hollow
    assert chart.count("<circle") == 6
    table = page[page.index("<table><thead><tr><th>curve</th>"):]
    assert "<td>chat_c4</td>" not in table           # the table lists the fronts only
    assert "<td>epyc 1x1 vllm</td><td>chat</td><td>chat_c2</td><td>80</td>" \
           "<td>300</td>" in table
    assert "<td>1.5</td><td>1.852 EUR</td>" in table   # 300 / 200 tokens/J; 2 / 3600 / 300 x 1e6
    text = board_text([group])
    assert "served sweeps: the Pareto front of each row's newest run" in text
    assert text.count("chat_c2") == 2 and "chat_c4" not in text


def test_compare_prints_and_draws_each_runs_front(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from chipperf.results.entry import compare_main

    runs = [served_run(tmp_path / chip, chip, scale, run_id) for chip, scale, run_id in (
        ("xeon", 1.0, "run20231101120000"), ("epyc", 2.0, "run20231102120000"))]
    assert compare_main(runs, html=tmp_path / "compare.html") == 0
    said = capsys.readouterr().out
    assert "served sweeps, the Pareto front of each run (times in ms)" in said
    assert re.search(r"#2 cpu/epyc +chat +chat_c2 +80 +300 .* 1\.5 +1\.852 EUR", said)
    assert "chat_c4" not in said
    page = (tmp_path / "compare.html").read_text()
    served = page[page.index(": served sweeps</h3>"):]
    assert re.findall(r"<title>([^<]*)</title></polyline>", served) == [
        "#1 cpu/xeon chat", "#2 cpu/epyc chat"]
    assert served.count('fill="white"') == 2 and "<td>#1 cpu/xeon</td><td>chat</td>" in served
