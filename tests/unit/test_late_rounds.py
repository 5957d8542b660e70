"""Rounds judged again when the files of their nodes come home late (chipperf.run.late through
chipperf.run.abandoned.mark_late, as every sweep calls it): a round whose FINISHED arrives late
counts, by the same rules that judge a round at its end."""

from __future__ import annotations

import json
from pathlib import Path

from chipperf.results.layout import read_status
from chipperf.run.abandoned import mark_late
from chipperf.run.rounds import UNCOLLECTED

CASE = "resnet50-pytorch_2.13-xeon-2x1"
NODES = ("h1_noderank0", "h2_noderank1")
FINISHED = ('[PerfLog] {"event": "FINISHED", "value": {"e2e_time": 9.0, "training_time": 8.0, '
            '"throughput": {"value": 12.5, "unit": "samples/s"}, "converged": true}, '
            '"metadata": {"file": "x.py", "lineno": 1, "time_ms": 1000, "rank": 0}}\n')


def kept(node: str) -> str:
    host = node.split("_")[0]
    return f"{host}:/w/run1/{host}/results/{CASE}/round1/{node}"


def uncollected_round(number: int = 1, **kinds: str) -> dict:
    """A round as the run records it when no node's files could come home."""
    kinds = {n: kinds.get(n, UNCOLLECTED) for n in NODES}
    first = NODES[0]
    return {"number": number, "status": "failed",
            "reason": f"node 0 (h1): results could not be collected (kept at {kept(first)}): "
                      "[Errno 28] No space left on device",
            "started_ms": 1000, "finished_ms": 9000, "nodes": dict.fromkeys(NODES, "failed"),
            "containers": {}, "node_times": {},
            "kept_on_hosts": {n: kept(n) for n in NODES if kinds[n] == UNCOLLECTED},
            "kinds": kinds}


def a_run(tmp_path: Path, rounds: list[dict], rank0_log: str = FINISHED) -> Path:
    run_dir = tmp_path / "run1"
    case = {"key": "resnet50:pytorch_2.13:xeon:2:1:1", "vendor": "cpu", "chip": "xeon",
            "status": "failed", "reason": f"round 1: {rounds[0]['reason']}", "rounds": rounds}
    record = {"run_id": "run1", "status": "failed", "started_at": "t0", "finished_at": "t1",
              "suite": "training", "test": {"vendor": "cpu"}, "hosts": {}, "cases": {CASE: case}}
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps(record))
    for entry in rounds:   # what the sweep brought home (status files: the root was full)
        for node in NODES:
            local = run_dir / CASE / f"round{entry['number']}" / node
            local.mkdir(parents=True)
            (local / "rank0.out.log").write_text(rank0_log if node.endswith("0") else "")
    return run_dir


def record_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())


def home(run_dir: Path, node: str, numbers: tuple[int, ...] = (1,)) -> list[str]:
    return mark_late(run_dir, node.split("_")[0], [f"{CASE}/round{n}/{node}" for n in numbers])


def test_rounds_whose_files_all_come_home_count_and_so_do_case_and_run(tmp_path):
    run_dir = a_run(tmp_path, [uncollected_round(1), uncollected_round(2)])
    first = home(run_dir, NODES[0], (1, 2))      # one host's sweep: its nodes judged
    case = record_of(run_dir)["cases"][CASE]
    assert [r["status"] for r in case["rounds"]] == ["failed", "failed"]
    assert case["rounds"][0]["reason"] == \
        f"node 1 (h2): results could not be collected (kept at {kept(NODES[1])})"
    assert first[0].startswith(f"{CASE}/round1: failed -> failed")

    home(run_dir, NODES[1], (1, 2))               # the other host's: every node is home
    record = record_of(run_dir)
    case = record["cases"][CASE]
    for entry in case["rounds"]:
        assert (entry["status"], entry["reason"], entry["late"]) == ("succeeded", "", True)
        assert entry["nodes"] == dict.fromkeys(NODES, "succeeded")
        assert "kinds" not in entry and "kept_on_hosts" not in entry
    assert (case["status"], case["reason"], record["status"]) == ("succeeded", "", "succeeded")
    assert set(record["late"]) == {f"{CASE}/round{n}/{node}" for n in (1, 2) for node in NODES}
    assert read_status(run_dir / CASE / "round2" / NODES[0]) == ("succeeded", "")
    summary = json.loads((run_dir / "summary.json").read_text())   # the reports, again
    assert summary["cases"][0]["counted"] == [1, 2]
    assert [r["late"] for r in summary["cases"][0]["rounds"]] == [True, True]
    assert "Round 2: its files came home after the run" in (run_dir / "summary.md").read_text()


def test_a_late_rank0_log_without_finished_fails_its_round_as_at_the_rounds_end(tmp_path):
    run_dir = a_run(tmp_path, [uncollected_round()], rank0_log="no FINISHED here\n")
    for node in NODES:
        home(run_dir, node)
    record = record_of(run_dir)
    entry = record["cases"][CASE]["rounds"][0]
    assert (entry["status"], entry["late"]) == ("failed", True)
    assert entry["reason"] == "node 0 (h1): exited 0 but rank 0 printed no FINISHED PerfLog event"
    assert record["cases"][CASE]["status"] == "failed" and record["status"] == "failed"


def test_a_round_blamed_on_a_node_that_failed_keeps_its_verdict(tmp_path):
    entry = uncollected_round(h2_noderank1="port")
    entry["reason"] = "node 1 (h2): port 29517 in use"
    run_dir = a_run(tmp_path, [entry])
    home(run_dir, NODES[0])
    judged = record_of(run_dir)["cases"][CASE]["rounds"][0]
    assert (judged["status"], judged["reason"]) == ("failed", "node 1 (h2): port 29517 in use")
    assert judged["nodes"] == {NODES[0]: "succeeded", NODES[1]: "failed"}
    assert judged["kinds"] == {NODES[1]: "port"} and judged["late"]


def test_a_canceled_run_stays_canceled(tmp_path):
    run_dir = a_run(tmp_path, [uncollected_round()])
    record = record_of(run_dir)
    record.update(status="canceled")
    (run_dir / "run.json").write_text(json.dumps(record))
    for node in NODES:
        home(run_dir, node)
    record = record_of(run_dir)
    assert record["cases"][CASE]["rounds"][0]["status"] == "succeeded"
    assert record["status"] == "canceled"


def test_a_case_whose_later_rounds_were_not_started_stays_failed_saying_so(tmp_path):
    run_dir = a_run(tmp_path, [uncollected_round()])
    record = record_of(run_dir)
    record["cases"][CASE].update(skipped_rounds=[2], skipped_because="h2 lost in round 1")
    (run_dir / "run.json").write_text(json.dumps(record))
    for node in NODES:
        home(run_dir, node)
    case = record_of(run_dir)["cases"][CASE]
    assert case["rounds"][0]["status"] == "succeeded"
    assert (case["status"], case["reason"]) == ("failed", "round(s) 2 not started: h2 lost in round 1")


def test_status_files_the_run_could_not_write_are_written_when_their_nodes_come_home(tmp_path):
    """A round that failed for its own reasons while the root was full: no node is judged
    again, and each node gets the status (and the blamed one the reason) run.json has."""
    entry = uncollected_round(h1_noderank0="exited", h2_noderank1="")
    entry.update(reason="node 0 (h1): launcher exited with status 1",
                 nodes={NODES[0]: "failed", NODES[1]: "canceled"}, kinds={NODES[0]: "exited"})
    run_dir = a_run(tmp_path, [entry])
    assert [home(run_dir, node) for node in NODES] == [[], []]
    assert read_status(run_dir / CASE / "round1" / NODES[0]) == \
        ("failed", "launcher exited with status 1")
    assert read_status(run_dir / CASE / "round1" / NODES[1]) == ("canceled", "")
    assert record_of(run_dir)["cases"][CASE]["rounds"][0]["status"] == "failed"
