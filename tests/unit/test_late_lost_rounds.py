"""A round whose host was lost (cut off while its case ran on) is judged again when that
host's files come home (issue 42): the node counts when the round's rank 0 printed FINISHED,
and the round is marked late; without FINISHED it stays failed, saying so."""

from __future__ import annotations

from test_late_rounds import CASE, NODES, a_run, home, kept, record_of  # type: ignore[import-not-found]

LOST = NODES[1]   # h2, node rank 1


def lost_round(lost: str = LOST) -> dict:
    """The round as the run records it when ``lost``'s host stopped answering mid-round."""
    other = next(n for n in NODES if n != lost)
    rank = lost.rpartition("_noderank")[2]
    host = lost.split("_")[0]
    return {"number": 1, "status": "failed",
            "reason": f"node {rank} ({host}): no answer over SSH for 20 s: lost contact with "
                      "the host",
            "started_ms": 1000, "finished_ms": 9000,
            "nodes": {lost: "failed", other: "canceled" if lost == NODES[0] else "succeeded"},
            "containers": {}, "node_times": {}, "lost_hosts": [host],
            "kept_on_hosts": {lost: kept(lost)}, "kinds": {lost: "unreachable"}}


def test_a_lost_hosts_round_counts_when_its_files_come_home_with_finished(tmp_path):
    entry = lost_round()
    entry["nodes"][NODES[0]] = "succeeded"
    run_dir = a_run(tmp_path, [entry])
    lines = home(run_dir, LOST)
    record = record_of(run_dir)
    judged = record["cases"][CASE]["rounds"][0]
    assert (judged["status"], judged["reason"], judged["late"]) == ("succeeded", "", True)
    assert judged["nodes"] == dict.fromkeys(NODES, "succeeded")
    assert judged["lost_hosts"] == ["h2"]                 # what happened stays recorded
    assert "kept_on_hosts" not in judged and "kinds" not in judged
    assert record["cases"][CASE]["status"] == "succeeded" and record["status"] == "succeeded"
    assert lines[0].startswith(f"{CASE}/round1: failed -> succeeded (judged again from its files")


def test_a_lost_hosts_round_without_finished_stays_failed_saying_why(tmp_path):
    run_dir = a_run(tmp_path, [lost_round(NODES[0])], rank0_log="no FINISHED here\n")
    home(run_dir, NODES[0])
    judged = record_of(run_dir)["cases"][CASE]["rounds"][0]
    assert (judged["status"], judged["late"]) == ("failed", True)
    assert judged["reason"] == ("node 0 (h1): its host was lost, and the files that came home "
                                "hold no FINISHED PerfLog event of rank 0")
