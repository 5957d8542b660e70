"""What runs left on a host: a run that is not running has its node dirs brought home
(marked late) and its containers and work dir removed; a run whose master holds its lease
is left alone. On this machine's own shell (LocalHost) with a stand-in for its engine."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chipperf.plan import host_work_dir
from chipperf.remote import LocalHost
from chipperf.run.abandoned import close_abandoned
from chipperf.run.lease import hold_argv, lease_path
from chipperf.run.leftovers import CLEAN, describe, sweep_host


class Container:
    def __init__(self, name: str, run_id: str, engine: "Engine"):
        self.name, self.labels, self.engine = name, {"chipperf.run": run_id}, engine
        self.status = "exited"

    def remove(self, force: bool = False) -> None:
        self.engine.removed.append(self.name)


class Engine:
    def __init__(self) -> None:
        self.removed: list[str] = []
        self.all: list[Container] = []
        self.containers = self

    def list(self, all: bool, filters: dict) -> list[Container]:  # noqa: A002
        return [c for c in self.all if c.name not in self.removed]


class Host(LocalHost):
    def __init__(self, engine: Engine):
        super().__init__("127.0.0.1")
        self.engine = engine

    def docker(self) -> Engine:  # type: ignore[override]
        return self.engine


def a_run(tmp_path: Path, run_id: str, host: Host, engine: Engine, origin: bool = True) -> Path:
    run_dir = tmp_path / "result" / run_id
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps({"run_id": run_id, "status": "failed"}))
    work = Path(host_work_dir(str(tmp_path / "work"), run_id, host.name))
    node = work / "results/case/round1/127.0.0.1_noderank0"
    node.mkdir(parents=True)
    (node / "rank0.out.log").write_text("measured\n")
    if origin:
        (work / "origin.json").write_text(json.dumps({"run_id": run_id, "result_dir": str(run_dir)}))
    engine.all += [Container(f"chipperf-{run_id}-n0", run_id, engine),
                   Container(f"chipperf-{run_id}-n0-monitor", run_id, engine)]
    return run_dir


def test_a_finished_run_is_brought_home_and_removed(tmp_path):
    engine = Engine()
    host = Host(engine)
    run_dir = a_run(tmp_path, "run1", host, engine)
    swept = sweep_host(host, str(tmp_path / "work"))
    node = "case/round1/127.0.0.1_noderank0"
    assert swept.collected == [f"run1/{node}"] and swept.left == []
    assert (run_dir / node / "rank0.out.log").read_text() == "measured\n"
    late = json.loads((run_dir / "run.json").read_text())["late"]
    assert late[node]["host"] == "127.0.0.1" and late[node]["collected_at"]
    assert engine.removed == ["chipperf-run1-n0", "chipperf-run1-n0-monitor"]
    assert not (tmp_path / "work" / "run1").exists()   # work dir, lease and run folder


def test_a_running_run_is_left_alone(tmp_path):
    engine = Engine()
    master = Host(engine)
    a_run(tmp_path, "run2", master, engine)
    work = host_work_dir(str(tmp_path / "work"), "run2", master.name)
    master.hold(hold_argv(work))           # what the run's master holds while it lives
    try:
        swept = sweep_host(Host(engine), str(tmp_path / "work"))
        assert swept.left == ["run2: running (its master holds the run's lease)"]
        assert swept.collected == [] and engine.removed == [] and Path(work).is_dir()
    finally:
        master.close()                     # the master ends: the lease is free
    swept = sweep_host(Host(engine), str(tmp_path / "work"))
    assert len(swept.collected) == 1 and not Path(work).exists()
    assert not Path(lease_path(work)).exists()


def test_collect_waits_for_an_ended_masters_lease_to_drop(tmp_path, monkeypatch):
    """master_gone: a lease still held is the ended master's session that the host has not
    dropped yet; the sweep waits for it (bounded) instead of leaving the files behind."""
    import threading

    from chipperf.run import leftovers

    engine = Engine()
    master = Host(engine)
    a_run(tmp_path, "run5", master, engine)
    work = host_work_dir(str(tmp_path / "work"), "run5", master.name)
    master.hold(hold_argv(work))
    threading.Timer(2.0, master.close).start()          # the host drops it 2 s later
    swept = sweep_host(Host(engine), str(tmp_path / "work"), only="run5", master_gone=True)
    assert len(swept.collected) == 1 and swept.left == [] and not Path(work).exists()

    a_run(tmp_path, "run6", master, engine)             # held for longer than the wait
    work = host_work_dir(str(tmp_path / "work"), "run6", master.name)
    holder = Host(engine)
    holder.hold(hold_argv(work))
    monkeypatch.setattr(leftovers, "LEASE_DROP_WAIT_S", 1.0)
    try:
        swept = sweep_host(Host(engine), str(tmp_path / "work"), only="run6", master_gone=True)
        assert swept.collected == [] and "still held by the ended master" in swept.left[0]
    finally:
        holder.close()


def test_run_leaves_dirs_it_cannot_tell_are_chipperf_runs(tmp_path):
    engine = Engine()
    host = Host(engine)
    a_run(tmp_path, "run3", host, engine, origin=False)
    swept = sweep_host(host, str(tmp_path / "work"), with_origin_only=True)
    assert swept.left and "origin.json missing" in swept.left[0] and engine.removed == []
    swept = sweep_host(host, str(tmp_path / "work"))     # clean: its results have nowhere to go
    assert swept.left and "not collected" in swept.left[0]


def test_containers_without_a_work_dir_here(tmp_path):
    """A run with no work dir under this WORK_ROOT may be another config's, going on: run never
    touches its containers, clean removes only the stopped ones and names the running one."""
    engine = Engine()
    stopped, running = Container("old-n0", "run9", engine), Container("live-n0", "run9", engine)
    stopped.status, running.status = "exited", "running"
    engine.all += [stopped, running]
    host = Host(engine)
    assert sweep_host(host, str(tmp_path / "work"), with_origin_only=True).left == []
    assert engine.removed == []
    swept = sweep_host(host, str(tmp_path / "work"))
    assert engine.removed == ["old-n0"] and "container live-n0: running" in swept.left[0]


def a_killed_masters_run(tmp_path: Path, run_id: str, host: Host, engine: Engine) -> Path:
    """A run dir as a SIGKILLed master leaves it: record and node dir "running", its
    master.lock free (the kernel dropped the flock with the process)."""
    from chipperf.results.layout import write_status
    from chipperf.run.lease import MasterLease

    run_dir = a_run(tmp_path, run_id, host, engine)
    (run_dir / "run.json").write_text(json.dumps({
        "run_id": run_id, "status": "running", "finished_at": None,
        "cases": {"case": {"status": "running", "reason": ""},
                  "done": {"status": "succeeded", "reason": ""}}}))
    write_status(run_dir / "case/round1/127.0.0.1_noderank0", "running")
    killed(MasterLease.take(run_dir))           # held, then dropped: the master is gone
    return run_dir


@pytest.mark.parametrize("swept_by", ["run20261127020000", CLEAN])
def test_a_sweep_closes_a_dead_masters_record_as_canceled(tmp_path, swept_by):
    """`chipperf run` (swept_by its run id, with_origin_only) and `chipperf clean`: the record
    a killed master left "running" is closed, canceled, naming why and who swept."""
    from chipperf.results.layout import read_status

    engine = Engine()
    host = Host(engine)
    run_dir = a_killed_masters_run(tmp_path, "run7", host, engine)
    swept = sweep_host(host, str(tmp_path / "work"), swept_by=swept_by,
                       with_origin_only=swept_by != CLEAN)
    assert swept.closed == [str(run_dir)] and len(swept.collected) == 1
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "canceled" and record["finished_at"]
    assert record["swept"]["by"] == swept_by and record["swept"]["at"]
    assert record["error"]["type"] == "MasterGone"
    assert f"pid {os.getpid()}" in record["error"]["message"]
    assert record["error"]["message"].endswith(f"closed by {swept_by}")
    case = record["cases"]["case"]
    assert (case["status"], case["reason"]) == ("canceled", record["error"]["message"])
    assert [r["number"] for r in case["rounds"]] == [1]   # the round it was running, listed
    assert record["cases"]["done"]["status"] == "succeeded"       # what ended stays as it was
    node = run_dir / "case/round1/127.0.0.1_noderank0"
    assert read_status(node)[0] == "canceled"
    assert "case/round1/127.0.0.1_noderank0" in record["late"]   # and its files came home
    assert any("closed" in line and "as canceled" in line for line in describe(swept))


def test_a_live_master_or_a_closed_record_is_not_closed(tmp_path):
    from chipperf.run.lease import MasterLease

    engine = Engine()
    host = Host(engine)
    run_dir = a_killed_masters_run(tmp_path, "run8", host, engine)
    lease = MasterLease.take(run_dir)              # its master lives (on another connection)
    try:
        assert close_abandoned(run_dir, CLEAN) is False
        assert json.loads((run_dir / "run.json").read_text())["status"] == "running"
    finally:
        killed(lease)
    assert close_abandoned(run_dir, CLEAN) is True
    assert close_abandoned(run_dir, "chipperf collect") is False   # closed once, by the first
    assert json.loads((run_dir / "run.json").read_text())["swept"]["by"] == CLEAN
    (run_dir / "master.lock").unlink()             # no lock: cannot tell, left alone
    (run_dir / "run.json").write_text(json.dumps({"run_id": "run8", "status": "running"}))
    assert close_abandoned(run_dir, CLEAN) is False


def killed(lease) -> None:
    """The master killed: the kernel drops its lock and master.lock stays (a run that ends
    normally removes the file: MasterLease.release)."""
    lease._handle.close()
    lease._handle = None


def test_a_dead_masters_record_closes_while_a_host_still_holds_its_lease(tmp_path):
    """A host can hold a killed master's lease a while (its SSH session not yet ended): the
    sweep closes the record all the same (the master's own lock says it is gone), and leaves
    the files for a later sweep."""
    engine = Engine()
    host = Host(engine)
    run_dir = a_killed_masters_run(tmp_path, "run9", host, engine)
    work = host_work_dir(str(tmp_path / "work"), "run9", host.name)
    holder = Host(engine)
    holder.hold(hold_argv(work))                 # the ended master's session, still there
    try:
        swept = sweep_host(host, str(tmp_path / "work"), swept_by=CLEAN)
    finally:
        holder.close()
    assert swept.closed == [str(run_dir)] and swept.collected == []
    assert swept.left == ["run9: running (its master holds the run's lease)"]
    assert json.loads((run_dir / "run.json").read_text())["status"] == "canceled"


def test_a_dead_masters_record_lists_the_round_it_was_running(tmp_path):
    """A master killed mid-round recorded no round of that case (rounds are recorded at their
    end): closing the record lists the round dir on disk as canceled, its node as its status
    file says, so that `chipperf check` finds every round dir listed (issue 42)."""
    from chipperf.results.read.check import check

    engine = Engine()
    host = Host(engine)
    run_dir = a_killed_masters_run(tmp_path, "run9", host, engine)
    assert close_abandoned(run_dir, CLEAN) is True
    record = json.loads((run_dir / "run.json").read_text())
    (entry,) = record["cases"]["case"]["rounds"]
    why = record["error"]["message"]
    assert (entry["number"], entry["status"], entry["reason"]) == (1, "canceled", why)
    assert entry["nodes"] == {"127.0.0.1_noderank0": "canceled"}
    assert 0 < entry["started_ms"] <= entry["finished_ms"]
    assert record["cases"]["done"].get("rounds", []) == []   # no round dir: nothing listed
    assert not [p for p in check(run_dir).problems if "not listed in run.json" in p]


def test_collect_looks_inside_the_container_the_runs_record_names(tmp_path):
    from chipperf.run.leftovers import container_of

    record = {"run_id": "run1", "test": {"in_container_launch": True,
                                         "in_container_name": "vendor-pytorch"}}
    (tmp_path / "run.json").write_text(json.dumps(record))
    assert container_of(tmp_path) == "vendor-pytorch"
    record["test"]["in_container_launch"] = False          # its own containers: on the hosts
    (tmp_path / "run.json").write_text(json.dumps(record))
    assert container_of(tmp_path) is None
