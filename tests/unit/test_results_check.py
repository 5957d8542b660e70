"""The checker lists every departure from the result-directory contract, each with file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.read.check import check
from chipperf_runtime.perflog import MARKER

CASE = "resnet50-pytorch_2.13-A100-2x2"
R1 = f"{CASE}/round1"
N0, N1 = f"{R1}/10.0.0.1_noderank0", f"{R1}/10.0.0.2_noderank1"


@pytest.fixture
def run(tmp_path) -> Path:
    return write_run(tmp_path, [SynthCase(seconds=5, rounds=(SynthRound(), SynthRound()))])


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_generated_run_complies(run):
    report = check(run)
    assert report.problems == []
    assert (report.cases, report.rounds, report.nodes) == (1, 2, 4)
    assert report.perflog_lines == 2 * (6 + 5)       # 6 lifecycle events + 5 STEP_END, rank 0
    assert report.monitor_lines > 0


def test_run_json_keys_types_and_closed_sets(run):
    def damage(meta):
        meta["status"] = "done"
        meta["suite"] = "serving"
        meta["started_at"] = "yesterday"
        del meta["chipperf_version"]
        meta["hosts"] = []
        case = meta["cases"][CASE]
        case["status"] = "weird"
        case["key"] = "resnet50:pytorch:A100:2"
        case["rounds"][1]["status"] = "finished"
        case["rounds"][1]["started_ms"] = "soon"
        case["rounds"][1]["nodes"]["10.0.0.1_noderank0"] = "ok"

    edit_json(run / "run.json", damage)
    problems = check(run).problems
    where = f"run.json: cases[{CASE!r}]"
    for expected in (
            "run.json: lacks 'chipperf_version'",
            "run.json: 'hosts' has type list",
            "run.json: status: 'done' is not one of running, succeeded, failed, canceled",
            "run.json: suite: 'serving' is not one of training, inference, base, operation",
            "run.json: started_at 'yesterday' is not ISO 8601",
            f"{where}: status: 'weird' is not one of pending, running, succeeded, failed, timeout, "
            "canceled, skipped",
            f"{where}: key 'resnet50:pytorch:A100:2': has 4 ':'-separated parts, expected 6 "
            "(model:framework:chip:nnodes:nproc:repeat)",
            f"{where}: round 2: 'started_ms' has type str",
            f"{where}: round 2: status: 'finished' is not one of starting, running, succeeded, "
            "failed, timeout, canceled",
            f"{where}: round 2: nodes['10.0.0.1_noderank0']: 'ok' is not one of starting, "
            "running, succeeded, failed, timeout, canceled",
            f"{CASE}/round2/10.0.0.1_noderank0/status:1: says 'succeeded' but run.json says 'ok'"):
        assert expected in problems


def test_a_finished_run_has_no_pending_case(run):
    edit_json(run / "run.json", lambda m: m["cases"][CASE].update(status="pending", image=None))
    assert check(run).problems == [
        f"run.json: cases[{CASE!r}]: status 'pending' in a run whose status is 'succeeded'"]


def test_a_record_left_running_is_flagged(run):
    edit_json(run / "run.json", lambda m: m.update(status="running", finished_at=None))
    assert any(p.startswith("run.json: status 'running': the run is still going, or its "
                            "master stopped without closing the record") for p in check(run).problems)


def test_a_running_record_says_whether_its_master_is_gone(run):
    """The run's master holds master.lock while it lives: check tells a run going on from
    one whose master was killed (the lock is dropped by the kernel however it ends)."""
    from chipperf.run.lease import MasterLease

    edit_json(run / "run.json", lambda m: m.update(status="running", finished_at=None))
    lease = MasterLease.take(run)
    try:
        (alive,) = [p for p in check(run).problems if "status 'running'" in p]
        assert "the run is going on (pid " in alive and "holds it" in alive
    finally:   # the master killed: the kernel drops the lock, the file stays
        assert lease._handle is not None
        lease._handle.close()
        lease._handle = None
    (gone,) = [p for p in check(run).problems if "status 'running'" in p]
    assert "but its master (pid " in gone and "is gone" in gone and "chipperf collect" in gone


def test_a_run_that_ends_leaves_no_lock_file(run):
    from chipperf.run.lease import MASTER_LOCK, MasterLease

    lease = MasterLease.take(run)
    assert (run / MASTER_LOCK).is_file()
    lease.release()
    assert not (run / MASTER_LOCK).exists()


def test_tree_against_run_json(run):
    (run / CASE / "round3" / "10.0.0.1_noderank0").mkdir(parents=True)
    (run / CASE / "round1" / "stray").mkdir()
    for path in (run / N1).iterdir():
        path.unlink()
    (run / N1).rmdir()
    problems = check(run).problems
    assert f"{N1}/: node dir missing" in problems
    assert f"{R1}/stray/: not a <host>_noderank<K> dir" in problems
    assert f"{CASE}/round3/: round dir not listed in run.json" in problems
    assert f"{CASE}/round3/10.0.0.1_noderank0/status: missing" in problems


def test_required_files_of_a_succeeded_node(run):
    for name in ("launcher.log", "rank1.out.log", "nvidia_monitor.log"):
        (run / N0 / name).unlink()
    (run / N1 / "sys_info.json").write_text("{oops")
    problems = check(run).problems
    for name in ("launcher.log", "rank1.out.log", "nvidia_monitor.log"):
        assert f"{N0}/{name}: missing (the node succeeded)" in problems
    assert any(p.startswith(f"{N1}/sys_info.json: not valid JSON") for p in problems)


def test_a_failed_node_needs_no_files_but_what_it_has_is_checked(run):
    (run / N1 / "status").write_text("failed\nOOM\n")
    edit_json(run / "run.json", lambda m: m["cases"][CASE]["rounds"][0]["nodes"].update(
        {"10.0.0.2_noderank1": "failed"}))
    for name in ("launcher.log", "rank2.out.log", "rank3.out.log"):
        (run / N1 / name).unlink()
    (run / N1 / "cpu_monitor.log").write_text('{"ts_ms": 5}\n{"ts_ms": 4}\n{"ts_ms": 6')
    assert check(run).problems == [
        f"{N1}/cpu_monitor.log:2: ts_ms 4 is before the previous line's 5",
        f"{N1}/cpu_monitor.log:3: not valid JSON (truncated or corrupt line)"]


def perflog(event: str, time_ms, rank=0, value=None) -> str:
    record = {"event": event, "value": value or {}, "metadata": {"time_ms": time_ms,
                                                                   "rank": rank}}
    return MARKER + json.dumps(record)


def test_every_perflog_line_against_its_grammar(run):
    log = run / N0 / "rank0.out.log"
    log.write_text("\n".join([
        "hello",
        perflog("INIT_START", 100),
        f"{MARKER}{{broken",
        perflog("TRAIN_START", 90),
        perflog("STEP_END", 200, rank=1),
        perflog("BOGUS", 300),
        MARKER + json.dumps({"event": "EPOCH_END", "metadata": {"rank": 0}}),
        perflog("FINISHED", 400, value={"e2e_time_s": 1.0}),
    ]) + "\n")
    (run / N1 / "rank2.out.log").write_bytes(b"\xff\n" + perflog("STEP_END", 5, rank=2).encode())
    problems = check(run).problems
    rel = f"{N0}/rank0.out.log"
    assert f"{rel}:3: not valid JSON after [PerfLog]: Expecting property name enclosed in " \
        "double quotes: line 1 column 2 (char 1)" in problems
    assert f"{rel}:4: TRAIN_START: time_ms 90 is before the previous event's 100" in problems
    assert f"{rel}:5: STEP_END: metadata.rank 1 in rank0's log" in problems
    assert f"{rel}:6: unknown event 'BOGUS'" in problems
    assert f"{rel}:7: EPOCH_END: metadata.time_ms missing or not a number" in problems
    assert f"{rel}:8: FINISHED lacks 'dtype'" in problems
    assert f"{rel}: no TRAIN_END event (required from global rank 0)" in problems
    assert f"{rel}: events out of order: expected INIT_START <= TRAIN_START <= TRAIN_END " \
        "<= FINISHED" in problems
    assert f"{N1}/rank2.out.log:1: not valid UTF-8" in problems
    assert len([p for p in problems if p.startswith(rel)]) == 5 + 12 + 2   # every one


def test_missing_run_json_is_a_problem_and_the_tree_is_still_checked(run):
    (run / "run.json").unlink()
    (run / N0 / "status").unlink()
    problems = check(run).problems
    assert problems[:2] == ["run.json: missing", f"{CASE}/: case dir not listed in run.json "
                                                  "cases"]
    assert f"{N0}/status: missing" in problems


def test_not_a_directory(tmp_path):
    assert check(tmp_path / "nothing").problems == [f"{tmp_path / 'nothing'}: not a directory"]
