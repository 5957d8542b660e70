"""A served sweep that lost points (a server killed mid-sweep, a point past its timeout) fails
its node, round, case and run, naming the points; the points it measured stay in the record,
the summary and the report (chipperf.run.verdict.served_failures)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from test_late_rounds import CASE, NODES, a_run, home, record_of, uncollected_round
from test_served_llm import measured_point, served_finished

from chipperf.run.verdict import check_finished, served_failures
from chipperf_runtime.perflog import MARKER

DIED = {"point": "chat_c4", "shape": "chat", "concurrency": 4, "status": "failed",
        "server_died": True, "why": "serving engine 'vllm' exited (code -9) during this "
                                    "point; its log (server.log) ends:\n..."}
REASON = ("served sweep: 1 point(s) failed: chat_c4 (serving engine 'vllm' exited (code -9) "
          "during this point; its log (server.log) ends); the 2 measured point(s) are kept")


@dataclass(frozen=True)
class Node:
    host: str = "h1"
    node_rank: int = 0


@dataclass
class State:
    status: str = "succeeded"
    reason: str = ""
    kind: str = ""
    node: Node = field(default_factory=Node)


def finished_line(points: list[dict], planned: int = 3) -> str:
    value = served_finished(points)
    value["serving"]["sweep"]["planned"] = planned
    return MARKER + json.dumps({"event": "FINISHED", "value": value, "metadata": {
        "file": "x.py", "lineno": 1, "time_ms": 1000, "rank": 0}}) + "\n"


def judged(tmp_path: Path, points: list[dict], planned: int = 3) -> State:
    (tmp_path / "rank0.out.log").write_text(finished_line(points, planned))
    st = State()
    check_finished(st, tmp_path)
    return st


def test_a_failed_point_fails_the_node_naming_it(tmp_path: Path) -> None:
    st = judged(tmp_path, [measured_point(1, 10.0, 90.0), measured_point(2, 12.5, 150.0), DIED])
    assert (st.status, st.reason) == ("failed", REASON)


def test_points_never_run_are_counted_and_a_whole_sweep_succeeds(tmp_path: Path) -> None:
    sweep = {"points": [measured_point(1, 10.0, 90.0), DIED], "planned": 4, "ended": "server died"}
    assert served_failures({"serving": {"sweep": sweep}}) == (
        "served sweep: 1 point(s) failed: chat_c4 (serving engine 'vllm' exited (code -9) during "
        "this point; its log (server.log) ends), 2 planned point(s) not run (server died); the "
        "1 measured point(s) are kept")
    whole = judged(tmp_path, [measured_point(1, 10.0, 90.0), measured_point(2, 12.5, 150.0)], 2)
    assert (whole.status, whole.reason) == ("succeeded", "")
    assert served_failures({"throughput": {"raw": 1.0}}) == ""     # no served sweep


def test_the_round_case_and_run_fail_and_the_report_keeps_every_point(tmp_path: Path) -> None:
    """Through the judging of a round's files (as at its end): run.json, summary and report."""
    log = finished_line([measured_point(1, 10.0, 90.0), measured_point(2, 12.5, 150.0), DIED])
    run_dir = a_run(tmp_path, [uncollected_round()], rank0_log=log)
    record = record_of(run_dir)
    (run_dir / "run.json").write_text(json.dumps({**record, "suite": "inference"}))
    for node in NODES:
        home(run_dir, node)
    record = record_of(run_dir)
    case = record["cases"][CASE]
    assert case["rounds"][0]["status"] == "failed"
    assert case["rounds"][0]["reason"] == f"node 0 (h1): {REASON}"
    assert (case["status"], record["status"]) == ("failed", "failed")
    assert case["reason"] == f"round 1: node 0 (h1): {REASON}"
    summary = json.loads((run_dir / "summary.json").read_text())["cases"][0]
    assert summary["status"] == "failed" and summary["counted"] == []
    points = summary["rounds"][0]["serving"]["sweep"]["points"]
    assert [(p["point"], p["status"]) for p in points] == [
        ("chat_c1", "succeeded"), ("chat_c2", "succeeded"), ("chat_c4", "failed")]
    md = (run_dir / "summary.md").read_text()
    assert "served sweep: 1 point(s) failed: chat_c4 (serving engine" in md
    assert "| 1 | chat_c2 | succeeded | 4 | 0 | 150 | 80 |" in md


def test_a_lost_hosts_round_whose_sweep_lost_points_fails_naming_them(tmp_path: Path) -> None:
    """A host cut off mid-round whose files come home later: its FINISHED is there, but its
    sweep lost a point, so the round stays failed with the served reason (not "no FINISHED")."""
    from test_late_lost_rounds import lost_round

    log = finished_line([measured_point(1, 10.0, 90.0), measured_point(2, 12.5, 150.0), DIED])
    run_dir = a_run(tmp_path, [lost_round(NODES[0])], rank0_log=log)
    home(run_dir, NODES[0])
    judged = record_of(run_dir)["cases"][CASE]["rounds"][0]
    assert (judged["status"], judged["late"]) == ("failed", True)
    assert judged["reason"] == f"node 0 (h1): {REASON}"
